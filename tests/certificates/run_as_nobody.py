"""Run one checker through a forced route as the unprivileged user this is started as.

Started by the tests under `setpriv --reuid=65534` with the system interpreter, so that
bubblewrap is exercised for real as an unprivileged user (and as root by test_killed).
Reads a request {repo, path, checker, witness, limits, route, python} from the JSON file
named by argv[1] (`path`: a folder of extra modules, the seccomp binding) and prints the
outcome as one JSON object. With `block` {option, fd, mark}, the checker's bubblewrap is
held at a point of its set-up (`--block-fd`, `--userns-block-fd`) until the test writes to
the inherited descriptor `fd`, its command line marked with `mark`: how test_killed lands
a SIGKILL during the set-up, where bubblewrap's init has no parent-death signal yet.
"""

import json
import sys
from pathlib import Path

request = json.loads(Path(sys.argv[1]).read_text())
sys.path[:0] = [request["repo"], request["path"]]

from jigcli.certificates.checker import check_witness  # noqa: E402
from jigcli.certificates.spec import CertLimits  # noqa: E402
from jigcli.errors import interrupted_code, stop_on_signals  # noqa: E402


def _hold_setup(option: str, fd: int, mark: str, run: str = "jig-start") -> None:
    from jigcli.sandbox import execute, routes

    command = routes.Bubblewrap.command
    launch = execute.run_bounded  # type: ignore[attr-defined]

    def held(self, inner, job, stage, seccomp_fd=None):  # type: ignore[no-untyped-def]
        argv = command(self, inner, job, stage, seccomp_fd)
        if run not in job.argv:  # the checker's ("jig-start") or the probe's ("jig-probe")
            return argv
        if option == "--userns-block-fd":  # which bubblewrap allows only with user namespaces
            argv.remove("--disable-userns")
        return [argv[0], option, str(fd), "--setenv", "JIG_HELD", mark, *argv[1:]]

    def passing(*args, pass_fds=(), **kwargs):  # type: ignore[no-untyped-def]
        return launch(*args, pass_fds=(*pass_fds, fd), **kwargs)

    routes.Bubblewrap.command = held  # type: ignore[method-assign]
    execute.run_bounded = passing  # type: ignore[attr-defined]  # the name execute() calls


if "block" in request:
    _hold_setup(**request["block"])
stop_on_signals()  # SIGTERM and SIGHUP stop it as they stop jig (jigcli.errors.guarded)
try:
    outcome = check_witness(
        Path(request["checker"]).read_bytes(),
        Path(request["witness"]).read_bytes(),
        CertLimits(**request["limits"]),
        route=request["route"],
        python=Path(request["python"]),
    )
except KeyboardInterrupt as stop:
    sys.exit(interrupted_code(stop))
document = outcome._asdict()
document["limits"] = outcome.applied_limits()
print(json.dumps(document))
