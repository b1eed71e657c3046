"""Verify one Lean submission as the unprivileged user this is started as.

Started by `tests/lean/test_build.py` under `setpriv --reuid=65534` with the system
interpreter, so that the sandboxed build runs as a user with no privilege at all. Reads a
request {path, root, manifest, timeout, limits} from the JSON file named by argv[1] (`path`:
the folders to import jig and its dependencies from; `limits`: module constants of
`jigcli.lean.build` to lower) and prints the verdict as one JSON object.
"""

import json
import sys
from pathlib import Path

request = json.loads(Path(sys.argv[1]).read_text())
sys.path[:0] = request["path"]

from jigcli.lean import build  # noqa: E402
from jigcli.repo import Repo  # noqa: E402
from jigcli.verify.context import VerifyOptions  # noqa: E402
from jigcli.verify.submission import verify  # noqa: E402

for name, value in request["limits"].items():
    setattr(build, name, value)
repo = Repo(Path(request["root"]))
verdict = verify(repo.root / request["manifest"], repo, VerifyOptions(timeout=request["timeout"]))
print(json.dumps(verdict.to_json()))
