"""Run one checker through a forced route as the unprivileged user this is started as.

Started by the tests under `setpriv --reuid=65534` with the system interpreter, so that
bubblewrap is exercised for real as an unprivileged user (and as root by test_killed).
Reads a request {repo, path, checker, witness, limits, route, python} from the JSON file
named by argv[1] (`path`: a folder of extra modules, the seccomp binding) and prints the
outcome as one JSON object.
"""

import json
import sys
from pathlib import Path

request = json.loads(Path(sys.argv[1]).read_text())
sys.path[:0] = [request["repo"], request["path"]]

from jigcli.certificates.checker import check_witness  # noqa: E402
from jigcli.certificates.spec import CertLimits  # noqa: E402
from jigcli.errors import interrupted_code, stop_on_signals  # noqa: E402

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
