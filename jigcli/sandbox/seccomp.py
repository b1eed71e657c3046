"""The seccomp filter bubblewrap loads (`--seccomp FD`) before it runs the program.

It refuses the system calls a sandboxed program never needs and an attacker reaches for:
the kernel keyrings (the invoker's keys), io_uring (a second system-call interface the
filter cannot see into), BPF, perf, ptrace and cross-process memory access, every way to
mount or to enter or make namespaces, module loading, kexec, reboot, swap, clock and
accounting changes; and every socket family but local and IP ones (`SOCKET_FAMILIES`: vsock
is not namespaced), or but local ones for a job that needs no IP (`LOCAL_FAMILIES`: a
certificate's checker). Each refused call fails with EPERM (ENOSYS for `clone3` and io_uring,
so that a C library falls back to `clone` and plain reads; EAFNOSUPPORT for a socket
family); a request to size a socket's buffers succeeds and does nothing (`BUFFER_SIZES`), one
to grow a pipe fails with EPERM (`F_SETPIPE_SZ`); everything else is allowed.

`clone` is allowed unless its flags ask for a namespace; `clone3` passes its flags in
memory a filter cannot read, so it is refused as unknown, which glibc answers with `clone`.

The program is built by libseccomp, through `pyseccomp` (a ctypes binding with the official
bindings' API, so it works on any CPython, a pyenv one included, wherever the system has
`libseccomp.so.2`), never written by hand; it is exported as BPF once per process (some 13 ms,
mostly loading libseccomp; never kept in a cache, whose content this process would then have
to trust) and given to each run in a memfd.
"""

from __future__ import annotations

import contextlib
import errno
import os
import threading
from collections.abc import Iterator
from typing import Any

REFUSED = (
    # The kernel keyrings: the invoker's session and user keys.
    "keyctl",
    "add_key",
    "request_key",
    # Tracing and other processes' memory.
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "kcmp",
    "pidfd_getfd",
    # Kernel programs, performance counters, user-space page faults.
    "bpf",
    "perf_event_open",
    "userfaultfd",
    # Mounts and namespaces.
    "mount",
    "umount2",
    "pivot_root",
    "chroot",
    "move_mount",
    "open_tree",
    "fsopen",
    "fsconfig",
    "fsmount",
    "fspick",
    "mount_setattr",
    "unshare",
    "setns",
    "open_by_handle_at",
    "name_to_handle_at",
    # The machine itself.
    "kexec_load",
    "kexec_file_load",
    "init_module",
    "finit_module",
    "delete_module",
    "reboot",
    "swapon",
    "swapoff",
    "acct",
    "quotactl",
    "syslog",
    "settimeofday",
    "clock_settime",
    "clock_adjtime",
    "adjtimex",
    "iopl",
    "ioperm",
    "fanotify_init",
    "lookup_dcookie",
    "uselib",
    "vhangup",
)
# Refused as if the kernel had none: callers fall back to something the filter can see.
UNKNOWN = ("clone3", "io_uring_setup", "io_uring_enter", "io_uring_register")
# clone(2) flags that make a namespace.
CLONE_NAMESPACES = (
    0x00020000,  # CLONE_NEWNS
    0x02000000,  # CLONE_NEWCGROUP
    0x04000000,  # CLONE_NEWUTS
    0x08000000,  # CLONE_NEWIPC
    0x10000000,  # CLONE_NEWUSER
    0x20000000,  # CLONE_NEWPID
    0x40000000,  # CLONE_NEWNET
    0x00000080,  # CLONE_NEWTIME
)

# The socket families a sandboxed program may make: local sockets, and IP inside its own
# empty network namespace. Every other family reaches something the network namespace does
# not hold: AF_VSOCK shares the host's port space (on a VM, a channel to the hypervisor),
# AF_NETLINK, AF_PACKET, AF_ALG, AF_KEY, Bluetooth, … talk to the kernel or hardware. They
# fail with EAFNOSUPPORT, as on a kernel built without them, so libraries fall back.
SOCKET_FAMILIES = (
    1,  # AF_UNIX
    2,  # AF_INET
    10,  # AF_INET6
)
# What a job that needs no IP gets (`Job.ip`: a certificate's checker): local sockets only.
# An IP socket's buffers are charged to the host's TCP memory (`tcp_mem`), which no memory
# cgroup of cgroup v1 counts; a checker holding many could starve every socket on the host.
LOCAL_FAMILIES = (1,)
# setsockopt(SOL_SOCKET, …) options that size a socket's buffers, up to net.core.wmem_max and
# rmem_max (4 MiB on some hosts: 64 descriptors of a process then hold some 240 MiB of
# queued data, which no cgroup v1 memory limit counts). Each such call succeeds and does
# nothing (the kernel already treats the size as a hint), so every socket keeps the default
# (net.core.wmem_default) and a program that tunes its buffers runs as before.
SOL_SOCKET = 1
BUFFER_SIZES = (
    7,  # SO_SNDBUF
    8,  # SO_RCVBUF
    32,  # SO_SNDBUFFORCE
    33,  # SO_RCVBUFFORCE
)
# fcntl(F_SETPIPE_SZ) grows a pipe to fs.pipe-max-size (1 MiB), 16 times its default;
# the kernel refuses it (EPERM) only once the user's pipes pass fs.pipe-user-pages-soft,
# which may be 0 (no limit) and is shared with every process of the user. Refused with that
# same EPERM, every pipe keeps its default 16 pages, a bound the caps multiply.
F_SETPIPE_SZ = 1031
# Every family number the kernel has had (AF_MAX is 46 in Linux 6.x); those from here on
# are refused by one rule.
FAMILY_LIMIT = 46

_built: dict[tuple[int, ...], bytes | str] = {}
_lock = threading.Lock()


def program(*, ip: bool = True) -> bytes | None:
    """The filter as BPF for `bwrap --seccomp`, built once per process for each set of socket
    families (`ip`: the IP ones too); None where it cannot be."""
    built = _build_once(SOCKET_FAMILIES if ip else LOCAL_FAMILIES)
    return built if isinstance(built, bytes) else None


def unavailable() -> str | None:
    """Why no filter can be built here, else None."""
    built = _build_once(SOCKET_FAMILIES)
    return built if isinstance(built, str) else None


def _build_once(families: tuple[int, ...]) -> bytes | str:
    """The program for `families`, built by this process: never read back from a cache,
    where it would be trusted to be this one (an allow-all planted there would pass for it)."""
    with _lock:
        if families not in _built:
            _built[families] = _build(families)
        return _built[families]


def _build(families: tuple[int, ...] = SOCKET_FAMILIES) -> bytes | str:
    try:
        with _sonames_first():
            import pyseccomp as seccomp  # type: ignore[import-untyped]
    except (ImportError, OSError) as missing:  # no binding, or no libseccomp.so.2
        return f"no libseccomp here ({missing}); apt-get install libseccomp2"
    try:
        return _export(_filter(seccomp, families))
    except (OSError, RuntimeError, ValueError) as failed:
        return f"libseccomp could not build the filter: {failed}"


# The shared libraries pyseccomp looks up as it is imported, by the names the dynamic loader
# finds them under on glibc systems.
_SONAMES = {"c": "libc.so.6", "seccomp": "libseccomp.so.2"}


@contextlib.contextmanager
def _sonames_first() -> Iterator[None]:
    """While pyseccomp is imported, `ctypes.util.find_library` answers a library the loader
    opens by its usual soname without running `ldconfig -p` (a process each, about 5 ms of
    every jig process here); any other name, or one that does not open, is looked up as
    ever."""
    import ctypes
    import ctypes.util

    looked_up = ctypes.util.find_library

    def find(name: str) -> str | None:
        soname = _SONAMES.get(name)
        if soname is not None:
            with contextlib.suppress(OSError):
                ctypes.CDLL(soname)
                return soname
        return looked_up(name)

    ctypes.util.find_library = find
    try:
        yield
    finally:
        ctypes.util.find_library = looked_up


def _filter(seccomp: Any, families: tuple[int, ...]) -> Any:
    rules = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
    # A binary tree of the refused calls rather than a list: every call the program makes
    # runs the filter (libseccomp 2.5+; older ones keep the list).
    with contextlib.suppress(ValueError, OSError):
        rules.set_attr(seccomp.Attr.CTL_OPTIMIZE, 2)
    for name in REFUSED:
        _refuse(rules, seccomp.ERRNO(errno.EPERM), name)
    for name in UNKNOWN:
        _refuse(rules, seccomp.ERRNO(errno.ENOSYS), name)
    for call in ("socket", "socketpair"):
        refused = seccomp.ERRNO(errno.EAFNOSUPPORT)
        for family in range(FAMILY_LIMIT):
            if family not in families:
                rules.add_rule(refused, call, seccomp.Arg(0, seccomp.EQ, family))
        rules.add_rule(refused, call, seccomp.Arg(0, seccomp.GE, FAMILY_LIMIT))
    for option in BUFFER_SIZES:
        level, name = seccomp.Arg(1, seccomp.EQ, SOL_SOCKET), seccomp.Arg(2, seccomp.EQ, option)
        rules.add_rule(seccomp.ERRNO(0), "setsockopt", level, name)
    for call in ("fcntl", "fcntl64"):  # fcntl64: 32-bit ABIs only
        with contextlib.suppress(ValueError, OSError):
            setting = seccomp.Arg(1, seccomp.EQ, F_SETPIPE_SZ)
            rules.add_rule(seccomp.ERRNO(errno.EPERM), call, setting)
    for flag in CLONE_NAMESPACES:
        rules.add_rule(
            seccomp.ERRNO(errno.EPERM), "clone", seccomp.Arg(0, seccomp.MASKED_EQ, flag, flag)
        )
    return rules


def _refuse(rules: Any, action: Any, name: str) -> None:
    with contextlib.suppress(ValueError, OSError):  # a call this arch lacks (iopl on arm64)
        rules.add_rule(action, name)


def _export(rules: Any) -> bytes:
    import tempfile  # here: only a cold cache compiles the filter

    with tempfile.TemporaryFile() as sink:
        rules.export_bpf(sink)
        sink.seek(0)
        return sink.read()


def descriptor(bpf: bytes) -> int:
    """A file descriptor holding `bpf` from its start, for `bwrap --seccomp FD`; the caller
    closes it."""
    fd = os.memfd_create("jig-seccomp", os.MFD_CLOEXEC)
    try:
        os.write(fd, bpf)
        os.lseek(fd, 0, os.SEEK_SET)
    except OSError:
        os.close(fd)
        raise
    return fd
