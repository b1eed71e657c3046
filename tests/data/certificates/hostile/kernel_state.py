"""Hostile checker: reaches for the kernel's shared state and says what it got.

Each attempt is one entry of the canonical JSON: "done" when the kernel let it through,
else the error. The witness (JSON) names the sysctl value to plant and a token that marks
whatever it leaves behind (keys, IPC objects, files in /dev/shm), so the test can look for
it on the host afterwards.
"""

import ctypes
import errno
import json
import os
import sys

task = json.loads(open(sys.argv[1]).read())
token = task["token"]
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
NR = {  # x86_64
    "keyctl": 250, "add_key": 248, "request_key": 249, "io_uring_setup": 425, "bpf": 321,
    "perf_event_open": 298, "ptrace": 101, "mount": 165, "umount2": 166, "unshare": 272,
    "setns": 308, "kexec_load": 246, "init_module": 175, "pivot_root": 155, "chroot": 161,
    "userfaultfd": 323, "open_by_handle_at": 304, "fsopen": 430, "shmget": 29,
}
results = {}


def attempt(name, call):
    try:
        value = call()
    except OSError as error:
        results[name] = errno.errorcode.get(error.errno, str(error.errno))
        return
    except Exception as error:
        results[name] = type(error).__name__
        return
    results[name] = "done" if value is None or value >= 0 else _errno()


def _errno():
    return errno.errorcode.get(ctypes.get_errno(), str(ctypes.get_errno()))


def syscall(name, *args):
    def call():
        value = libc.syscall(NR[name], *args)
        if value < 0:
            raise OSError(ctypes.get_errno(), name)
        return value

    return call


def write(path, text):
    def call():
        with open(path, "w") as handle:
            handle.write(text)

    return call


status = {line.split(":")[0]: line.split(":", 1)[1].strip() for line in open("/proc/self/status")}
results["CapEff"] = status.get("CapEff")
results["NoNewPrivs"] = status.get("NoNewPrivs")
results["Seccomp"] = status.get("Seccomp")
results["uid_map"] = " ".join(open("/proc/self/uid_map").read().split())

# Host-global settings: the core pattern would make the host's root run a command later.
attempt("sysctl_core_pattern", write("/proc/sys/kernel/core_pattern", task["core_pattern"]))
attempt("sysctl_hostname", write("/proc/sys/kernel/hostname", token[:60]))
attempt("sys_write", write("/sys/kernel/mm/transparent_hugepage/enabled", "never"))
attempt("umount_proc_sys", syscall("umount2", b"/proc/sys", 2))  # MNT_DETACH
attempt("mount_tmpfs", syscall("mount", b"none", b"/tmp", b"tmpfs", 0, None))
# Keyrings: read the invoker's session keyring, plant a key in it and in the user keyring.
KEY_SPEC_SESSION, KEY_SPEC_USER = -3, -4
attempt("keyctl_session_id", syscall("keyctl", 0, KEY_SPEC_SESSION, 0))  # GET_KEYRING_ID
attempt("add_key_session", syscall("add_key", b"user", token.encode(), b"x", 1, KEY_SPEC_SESSION))
attempt("add_key_user", syscall("add_key", b"user", token.encode(), b"x", 1, KEY_SPEC_USER))
# Calls a checker never needs.
attempt("io_uring_setup", syscall("io_uring_setup", 4, ctypes.create_string_buffer(120)))
attempt("bpf", syscall("bpf", 0, ctypes.create_string_buffer(64), 64))
attempt("perf_event_open", syscall("perf_event_open", ctypes.create_string_buffer(128), 0, -1, -1, 0))
attempt("ptrace_traceme", syscall("ptrace", 0, 0, 0, 0))
attempt("unshare_user", syscall("unshare", 0x10000000))
attempt("userfaultfd", syscall("userfaultfd", 0))
attempt("fsopen", syscall("fsopen", b"tmpfs", 0))
attempt("chroot", syscall("chroot", b"/"))
# System V IPC left behind, and memory outside the scratch folder.
attempt("shmget", syscall("shmget", 0x4A160000 + os.getpid() % 4096, 4096, 0o1000 | 0o600))
shm = os.path.join("/dev/shm", token)
attempt("dev_shm_file", write(shm, "x" * 1024))
attempt("dev_file", write("/dev/" + token, "x"))
big = task.get("shm_mb", 0)
if big:
    def fill():
        with open(shm + "-big", "wb") as handle:
            for _ in range(big):
                handle.write(b"\0" * (1 << 20))
                handle.flush()
    attempt("dev_shm_big", fill)
print("CONJECT_CERT: " + json.dumps({"ok": True, "canonical": json.dumps(results, sort_keys=True)}))
