"""The isolation routes, best first: each turns a job into the argv that runs it isolated.

What each keeps from the program, as root and not (the table in docs/concepts/sandbox.md
says which attacks each route was tested against):

| route          | keeps from the program                                            | needs    |
|----------------|-------------------------------------------------------------------|----------|
| bubblewrap     | network; host PIDs, IPC, hostname; every file but the system      | `bwrap`  |
|                | folders and the job's view, all read-only but its writable paths; |          |
|                | `$HOME`, host `/tmp`, `/dev/shm` (sized tmpfs of its own), `/sys`;|          |
|                | writes to `/proc` and to its own root folder;                     |          |
|                | every capability; the calls `seccomp.REFUSED` names; user         |          |
|                | namespaces. As root its host uid stays root's, with none of       |          |
|                | root's powers: nothing it sees is writable but its own tmpfs and  |          |
|                | the job's writable paths                                          |          |
| unshare-root   | network; host PIDs, IPC, hostname; runs as the host's nobody in a | root     |
|                | user namespace of its own with no capabilities (only world-       |          |
|                | readable files); every top folder but the system's and those      |          |
|                | holding the job's paths (homes, `/root`, `/work`, `/opt`, …);     |          |
|                | host `/tmp`, `/dev/shm` and world-writable `/var`, `/run` folders |          |
|                | (sized tmpfs); the calls `seccomp.REFUSED` names (the run's init  |          |
|                | loads the filter, with the job's Python, before the job starts)   |          |
| sandbox-exec   | network; writes outside the stage (macOS)                         | macOS    |
| none           | nothing but the limits (development only)                         |          |

Only bubblewrap confines a program's files to its job's view (`Route.confines_files`), which a
build of untrusted code needs: the other routes leave it every file its user may write.

Every route but `none` gets a new, empty session keyring (`jigcli.process.Limits.fresh_keyring`);
on Linux every route runs in the run's memory cgroup where one can be made. A PID namespace
(all but sandbox-exec and none) is what guarantees that nothing the program started survives
it: when its first process dies the kernel kills the rest, setsid daemons included.

bubblewrap shows the job's host paths at the same place and its inputs in a private scratch
folder; unshare-root sees the system's files and the job's with nobody's rights and starts in
a private tmpfs at `/tmp` holding copies of the inputs. There is no unshare route without
root (`NO_USERNS_ROUTE`): it would run the program with the invoking user's own files.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import sys
from collections.abc import Sequence
from pathlib import Path

from jigcli.sandbox.cgroups import CGROUP, RLIMIT
from jigcli.sandbox.job import Job, SetupFailed

NOBODY = 65534
SCRATCH = Path("/scratch")  # the program's working folder inside bubblewrap
MB = 1024 * 1024
HIDDEN_SIZE = 4096  # a hidden folder is an empty read-only tmpfs of (at most) this size


class Route:
    """One way to isolate a program. Subclasses fill in the parts that differ."""

    name = ""
    isolates = ""
    # Whether the run's CPU time includes the program's (bubblewrap's outer process never
    # waits for the program, so its tree's CPU time is not the program's).
    counts_cpu = True
    # Whether a program killed by signal N shows as exit status 128 + N (an init in between).
    signal_as_status = False
    # How its processes may be capped, best first; each is verified by the probe before use.
    cap_mechanisms: tuple[str, ...] = ()
    # Why nothing caps its processes when none of those holds (or it has none).
    uncapped = ""

    def unavailable(self) -> str | None:
        """Why the route cannot exist on this machine (no program, wrong OS), else None."""
        return None

    def scratch(self, stage: Path) -> Path:
        """Where the stage folder (the inputs, the scratch space) appears to the program."""
        return stage

    def prepare(self, stage: Path) -> None:
        """Make the stage usable by the user the program runs as."""

    # Whether it runs the program under `seccomp.program()`, given to `command` on a file
    # descriptor (bubblewrap's `--seccomp FD`; unshare-root's init loads it), and how.
    filters_calls = False
    filter_how = "this route cannot load one"
    # How the route's own programs begin an error line on stderr: a run that fails with
    # one of these failed in the sandbox's setup, not in the program (a stale probe?).
    launcher_words: tuple[str, ...] = ()

    def setup_failed(self, exit_status: int | None, stderr: str) -> bool:
        """Whether a run that ended so failed in the route's own setup."""
        first = stderr.lstrip().split("\n", 1)[0]
        return exit_status not in (0, None) and first.startswith(self.launcher_words or ("\0",))

    # A shell command for the start of a job's own script (`isolation.checker_job`) that
    # returns once every process of the run dies with jig's death; what the script writes to
    # jig next (a pipe only jig reads: EPIPE once jig is gone) then proves jig still alive.
    armed = ""

    # Whether its launcher leaves the sandbox's init to be reaped by someone else, and can
    # say that init's pid on a descriptor (`report_child`): jig adopts and reaps it.
    orphans_init = False

    def report_child(self, argv: list[str], fd: int) -> list[str]:
        """`argv` (this route's `command`) made to write the init's pid on `fd`."""
        return argv

    # Whether the program gets a new session keyring (routes that isolate anything).
    fresh_keyring = True
    # Whether, with jig run as root, the program still has none of root's powers, and how.
    holds_as_root = False
    as_root = "the program keeps root's powers"
    # Whether the program sees nothing of the host's files but the system folders and its
    # job's view, all read-only but the job's writable paths (and its own tmpfs), and what
    # it sees otherwise. A build of untrusted code needs it: the files it could otherwise
    # write include the trusted ones a verdict rests on (`jigcli.lean.build`).
    confines_files = False
    files = "every file of the host the invoking user can reach"

    def command(
        self, inner: Sequence[str], job: Job, stage: Path, seccomp_fd: int | None = None
    ) -> list[str]:
        """The argv that runs `inner` (the job's argv after any prefix such as prlimit) in
        the route, with `stage` holding the job's inputs and `seccomp_fd` the filter."""
        return list(inner)

    def status(self, returncode: int) -> tuple[int | None, int | None]:
        """The program's (exit status, signal) from the wrapper's return code."""
        if returncode < 0:
            return None, -returncode
        if self.signal_as_status and returncode > 128:
            return None, returncode - 128
        return returncode, None


# bubblewrap's init (PID 1 of the run) asks for its parent-death signal only once it runs
# `do_init`, after the fork that starts the program (bubblewrap.c at v0.8.0: do_init calls
# handle_die_with_parent, then seccomp_programs_apply): a jig SIGKILLed between the two
# would leave an init with no parent-death signal and a program running. The program's
# script waits until PID 1 holds as many filters as it does itself (the count rises only at
# that apply, right after the signal is set; `Seccomp` alone on kernels before 5.9), so
# what it writes to jig next can tell whether jig outlived that moment. Shell builtins only.
_INIT_ARMED = (
    "jig_filters() { filters=; while read -r key value; do case $key in "
    "Seccomp:) filters=$value;; Seccomp_filters:) filters=$filters/$value; break;; "
    'esac; done <"$1"; }; '
    "jig_filters /proc/self/status; mine=$filters; "
    'until jig_filters /proc/1/status; [ "$filters" = "$mine" ]; do :; done; '
)


class Bubblewrap(Route):
    name = "bubblewrap"
    counts_cpu = False
    signal_as_status = True  # bwrap's own init waits for the program
    cap_mechanisms = (CGROUP, RLIMIT)
    filters_calls = True
    filter_how = "a libseccomp filter"
    launcher_words = ("bwrap:",)
    # bwrap's outer process exits once its init says how the program ended, without
    # waiting for that init, which is then an orphan (bubblewrap's --info-fd: child-pid).
    orphans_init = True
    holds_as_root = True

    def report_child(self, argv: list[str], fd: int) -> list[str]:
        return [argv[0], "--info-fd", str(fd), *argv[1:]]

    armed = _INIT_ARMED

    as_root = (
        "uid 65534 in its own user namespace with every capability dropped; /proc read-only, "
        "no /sys, a new session keyring, private IPC; what it sees of the host is read-only"
    )
    confines_files = True
    files = (
        "only the system folders and the job's own paths, read-only but its writable ones; "
        "its root folder read-only too"
    )
    isolates = (
        "network, host processes, IPC and hostname; every file but the system folders and "
        "the job's own paths, read-only; $HOME, host /tmp and /dev/shm (private sized "
        "tmpfs); no capabilities, /proc read-only, no /sys; kernel calls a program never "
        "needs refused (seccomp)"
    )

    def unavailable(self) -> str | None:
        if shutil.which("bwrap") is None:
            return "bwrap is not installed (apt-get install bubblewrap)"
        return None

    def scratch(self, stage: Path) -> Path:
        return SCRATCH

    def command(
        self, inner: Sequence[str], job: Job, stage: Path, seccomp_fd: int | None = None
    ) -> list[str]:
        view, size = job.view, str(job.limits.scratch_mb * MB)
        return [
            "bwrap",
            "--unshare-all",
            "--unshare-user",
            "--disable-userns",
            "--uid",
            str(NOBODY),
            "--gid",
            str(NOBODY),
            # As root bubblewrap keeps every capability in the sandbox unless told not to.
            "--cap-drop",
            "ALL",
            "--hostname",
            "jig-sandbox",
            "--die-with-parent",
            "--new-session",
            *([] if seccomp_fd is None else ["--seccomp", str(seccomp_fd)]),
            *_system_view(),
            *_binds("--ro-bind", view.read_only),
            *_hidden(view.hidden),
            *_binds("--bind", view.writable),
            *(arg for pair in view.mounted for arg in ("--ro-bind", *map(str, pair))),
            # A new procfs is writable where the host's root owns it (/proc/sys): read-only.
            *("--proc", "/proc", "--remount-ro", "/proc"),
            # /dev's own tmpfs read-only (device nodes stay usable), /dev/shm a sized one.
            *("--dev", "/dev", "--perms", "1777", "--size", size, "--tmpfs", "/dev/shm"),
            *("--remount-ro", "/dev"),
            *("--perms", "0700", "--size", size, "--tmpfs", str(SCRATCH)),
            *_binds("--ro-bind", [stage / name for name in view.inputs], inside=SCRATCH),
            # The root is a tmpfs of bubblewrap's own, writable and of no set size, holding
            # the folders it made for the binds above (`/tmp/…` for a view under /tmp): once
            # they are made, read-only, so that the sized tmpfs are the only space to write.
            *("--remount-ro", "/"),
            "--chdir",
            str(view.workdir or SCRATCH),
            "--",
            *inner,
        ]


def _system_view() -> list[str]:
    """The host's system folders, read-only, keeping usrmerge symlinks as symlinks."""
    args: list[str] = []
    for top in ("usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        path = Path("/", top)
        if path.is_symlink():
            args += ["--symlink", os.readlink(path), str(path)]
        elif path.is_dir():
            args += ["--ro-bind", str(path), str(path)]
    args += ["--ro-bind-try", "/etc/ld.so.cache", "/etc/ld.so.cache"]
    return args


def _hidden(paths: Sequence[Path]) -> list[str]:
    """Each path replaced by an empty read-only folder."""
    args: list[str] = []
    for path in paths:
        args += ["--perms", "0555", "--size", str(HIDDEN_SIZE), "--tmpfs", str(path)]
        args += ["--remount-ro", str(path)]
    return args


def _binds(option: str, paths: Sequence[Path], inside: Path | None = None) -> list[str]:
    """`option SRC DEST` for each path: at the same place, or by name under `inside`."""
    args: list[str] = []
    for path in paths:
        args += [option, str(path), str(path if inside is None else inside / path.name)]
    return args


_UNSHARE_NS = ("--net", "--pid", "--ipc", "--uts", "--fork", "--kill-child", "--mount-proc")
_SECUREBITS = "+noroot,+noroot_locked,+no_setuid_fixup,+no_setuid_fixup_locked,+keep_caps_locked"
# Runs as root of the run's own user namespace, in the stage folder: an empty read-only tmpfs
# over each host folder the job does not need (`_hidden_from`), private sized tmpfs over the
# host's shared writable folders, the inputs copied into the scratch tmpfs at /tmp, then
# every capability dropped for good (uid 0 of the namespace regains none on exec), then the
# command it is given (`_LOAD_FILTER`, then `_WAIT`): the same process, PID 1, loads the
# seccomp filter before anything of the job exists, so every process of the run is under it.
# /proc is read-only as well, so no process of the run writes another's memory. A mount that
# fails ends the setup (`set -e`): the route then fails its probe, never runs half-hidden.
_INIT = f"""set -e
scratch=$1 shared=$2 workdir=$3 hidden=$4 writable=$5; shift 5
while [ "$hidden" -gt 0 ]; do
  if [ -d "$1" ]; then mount -t tmpfs -o size={HIDDEN_SIZE},mode=0555,ro jig-hidden "$1"
  elif [ -e "$1" ]; then mount --bind /dev/null "$1"; fi  # else out of nobody's reach
  shift; hidden=$((hidden - 1))
done
while [ "$writable" -gt 0 ]; do
  mount -t tmpfs -o size=$shared,mode=1777 jig-tmp "$1"; shift; writable=$((writable - 1))
done
mount -t tmpfs -o size=$shared,mode=1777 jig-shm /dev/shm
if [ -d /dev/mqueue ]; then mount -t mqueue jig-mqueue /dev/mqueue; fi
mount -t tmpfs -o size=$scratch,mode=0700 jig-scratch /tmp
cp -R -T . /tmp
mount -o remount,ro,nosuid,nodev,noexec /proc
cd "$workdir" && unset OLDPWD
exec setpriv --inh-caps=-all --bounding-set=-all --securebits={_SECUREBITS} --no-new-privs \\
  -- "$@"
"""
# The init after its mounts: a shell that waits for the program (`; exit` keeps it from
# exec'ing it). PID 1 of a namespace ignores signals it has no handler for, SIGXCPU included,
# so the program must not be PID 1.
_WAIT = ("/bin/sh", "-c", '"$@"; exit $?', "jig-init")
# Loads the seccomp filter from the descriptor its first argument names, then becomes the
# rest of its arguments (the init shell), which the filter holds from its first instruction
# on: so does every process of the run, all of them its children. no_new_privs is set
# already (setpriv), and set again here as the kernel requires of an unprivileged filter.
_LOAD_FILTER = """import ctypes, os, sys
fd = int(sys.argv[1])
bpf = b"".join(iter(lambda: os.read(fd, 65536), b""))
os.close(fd)
code = ctypes.create_string_buffer(bpf, len(bpf))
class Program(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]
program = Program(len(bpf) // 8, ctypes.cast(code, ctypes.c_void_p))
prctl = ctypes.CDLL(None, use_errno=True).prctl
if prctl(38, 1, 0, 0, 0) or prctl(22, 2, ctypes.byref(program), 0, 0):
    sys.exit("jig-setup: the seccomp filter could not be loaded")
os.execv(sys.argv[2], sys.argv[2:])
"""
# What of the host's top folders the unshare route keeps in view: the system's own, and the
# ones it replaces with tmpfs of its own (/tmp) or that hold no user's files (/proc, /dev).
# /run and /var are covered as bubblewrap's view leaves them out: they hold services' sockets
# (a root-owned one under /run), their homes (world-readable ones under /var/lib) and
# folders anyone may write in whose files would outlive the run.
_SHOWN_TOPS = frozenset(
    {"usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32", "etc", "proc", "dev", "sys"} | {"tmp"}
)


def _hidden_from(job: Job) -> list[str]:
    """The host folders an unshare run covers with an empty tmpfs (and files with /dev/null):
    every top folder but the system's (homes, /root, /work, /opt, /srv, /mnt, …), and in a
    top folder that holds a path of the job's view (an interpreter under /root/.pyenv),
    everything else in it."""
    needed = [Path(os.path.realpath(path)) for path in (*job.view.read_only, *job.view.writable)]
    hidden: list[str] = []
    for top in _folders(Path("/")):
        if top.name in _SHOWN_TOPS:
            continue
        if not any(path.is_relative_to(top) for path in needed):
            hidden.append(str(top))
            continue
        hidden += [
            str(child)
            for child in _folders(top)
            if not any(path.is_relative_to(child) for path in needed)
        ]
    return hidden


def _not_below(paths: list[str], covers: list[str]) -> list[str]:
    """`paths` but those lying strictly below one of `covers` (an empty tmpfs holds none)."""

    def covered(path: str) -> bool:
        return any(path != cover and Path(path).is_relative_to(cover) for cover in covers)

    return [path for path in paths if not covered(path)]


def _world_writable() -> list[str]:
    """The folders anyone may write in the system's /var and /run, two levels deep
    (/var/tmp, /var/crash, /run/lock, …): each gets a private tmpfs, so nothing a run writes
    there outlives it (/tmp and /dev/shm have their own)."""
    found: list[str] = []
    for top in (Path("/var"), Path("/run")):
        for folder in _folders(top):
            for candidate in (folder, *_folders(folder)):
                with contextlib.suppress(OSError):
                    info = candidate.lstat()
                    if stat.S_ISDIR(info.st_mode) and info.st_mode & stat.S_IWOTH:
                        found.append(str(candidate))
    return found


def _folders(parent: Path) -> list[Path]:
    """The real folders and regular files in `parent` (never a link: mounting over one
    would follow it); a file is covered by /dev/null."""
    try:
        entries = sorted(os.scandir(parent), key=lambda entry: entry.name)
    except OSError:
        return []
    return [
        Path(entry.path)
        for entry in entries
        if entry.is_dir(follow_symlinks=False) or entry.is_file(follow_symlinks=False)
    ]


class UnshareRoot(Route):
    """unshare(1), run as the host's nobody, in a user namespace of the run's own."""

    name = "unshare-root"
    # util-linux's setpriv before 2.40 loads no seccomp filter: the init loads it, with the
    # job's Python, after its mounts and before it runs anything of the job.
    filters_calls = True
    filter_how = (
        "a libseccomp filter, which the run's init loads (with the job's Python, after its "
        "mounts) before anything of the run starts, so every process of the run is under it"
    )
    launcher_words = ("unshare:", "setpriv:", "mount:", "jig-setup:")
    signal_as_status = True
    cap_mechanisms = (CGROUP, RLIMIT)
    holds_as_root = True
    files = (
        "only world-readable files of the system folders and the job's own paths (every "
        "other top folder, homes, /root, /run and /var included, covered by an empty tmpfs)"
    )
    as_root = (
        "the host's nobody, in its own user namespace with no capabilities; a new session "
        "keyring, private IPC"
    )
    isolates = (
        "network, host processes, IPC and hostname; runs as nobody with no capabilities "
        "(only world-readable files); every folder but the system's and the job's hidden, "
        "/run and /var included; host /tmp and /dev/shm (private sized tmpfs)"
    )

    def unavailable(self) -> str | None:
        if os.geteuid() != 0:
            return "jig is not running as root (this route drops the program to nobody)"
        for program in ("unshare", "setpriv"):
            if shutil.which(program) is None:
                return f"{program} is not installed (util-linux)"
        return None

    def scratch(self, stage: Path) -> Path:
        return Path("/tmp")

    def prepare(self, stage: Path) -> None:
        # Readable by nobody, whom the init runs as, to copy into its own /tmp; writable by
        # jig alone: every run of this route is nobody, and no run may change another's.
        folder = os.open(stage, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
        try:
            os.fchmod(folder, 0o755)
        finally:
            os.close(folder)

    def command(
        self, inner: Sequence[str], job: Job, stage: Path, seccomp_fd: int | None = None
    ) -> list[str]:
        scratch = job.limits.scratch_mb * MB + sum(len(data) for data in job.view.inputs.values())
        workdir = str(job.view.workdir or self.scratch(stage))
        hidden = _hidden_from(job)
        writable = _not_below(_world_writable(), hidden)  # what a cover leaves in view
        if str(stage.parent) not in hidden:  # other runs' stages; the init reads its own by
            hidden.append(str(stage.parent))  # its working folder, which the cover leaves
        sizes = [str(scratch), str(job.limits.scratch_mb * MB), workdir]
        sizes += [str(len(hidden)), str(len(writable))]
        init = [*_WAIT, *inner]
        if seccomp_fd is not None:
            if job.python is None:
                raise SetupFailed("the unshare route needs the job's Python to load its filter")
            init = [job.python, "-I", "-S", "-c", _LOAD_FILTER, str(seccomp_fd), *init]
        return [
            "setpriv",
            f"--reuid={NOBODY}",
            f"--regid={NOBODY}",
            "--clear-groups",
            "--pdeathsig=KILL",  # a uid change clears jig's: unshare dies with jig
            "--",
            "unshare",
            "--user",
            "--map-root-user",
            *_UNSHARE_NS,
            "--",
            *("/bin/sh", "-c", _INIT, "jig-setup", *sizes, *hidden, *writable, *init),
        ]


# Without root, unshare(1) could only run the program as the invoking user, with every file
# that user may read or write (their SSH keys and tokens, ~/.bashrc, git hooks): no user
# reading a verdict expects a witness to reach those, so there is no such route; bubblewrap,
# whose view holds only the system folders and the job's own paths, is the one to install.
NO_USERNS_ROUTE = (
    "without root, jig has no unshare route (it would leave the checker every file the "
    "invoking user may read or write); install bubblewrap (apt-get install bubblewrap)"
)


class SandboxExec(Route):
    name = "sandbox-exec"
    as_root = "macOS sandbox-exec drops no privilege: the program keeps root's powers"
    isolates = "network and writes outside the stage folder (macOS)"
    uncapped = "macOS counts RLIMIT_NPROC per user across the whole machine, not per run"
    files = "every file the invoking user may read; writes only in the stage and the job's paths"

    def unavailable(self) -> str | None:
        if sys.platform != "darwin":
            return "macOS only"
        if shutil.which("sandbox-exec") is None:
            return "sandbox-exec is not on PATH"
        return None

    def command(
        self, inner: Sequence[str], job: Job, stage: Path, seccomp_fd: int | None = None
    ) -> list[str]:
        writable = [stage.resolve(), *(path.resolve() for path in job.view.writable)]
        subpaths = " ".join(f'(subpath "{_quoted(path)}")' for path in writable)
        profile = (
            "(version 1)(allow default)(deny network*)(deny file-write*)"
            f'(allow file-write* {subpaths} (literal "/dev/null"))'
        )
        return ["sandbox-exec", "-p", profile, *inner]


def _quoted(path: Path) -> str:
    return str(path).replace("\\", "\\\\").replace('"', '\\"')


class Unisolated(Route):
    name = "none"
    fresh_keyring = False
    as_root = "no isolation: the program keeps root's powers"
    isolates = "nothing but the resource limits (local development only)"
    uncapped = "no isolation: nothing caps the program's processes"


ROUTES: tuple[Route, ...] = (Bubblewrap(), UnshareRoot(), SandboxExec())
NONE = Unisolated()


def route_named(name: str) -> Route:
    for route in (*ROUTES, NONE):
        if route.name == name:
            return route
    raise ValueError(f"no isolation route {name!r}")
