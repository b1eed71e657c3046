# Lists the folders the witness names ({"paths": [P, ...]}), as its canonical form: what of
# the host a checker can see there (None where it cannot look).
import json
import os
import sys

seen = {}
for path in json.load(open(sys.argv[1]))["paths"]:
    try:
        seen[path] = sorted(os.listdir(path))
    except OSError as exc:
        seen[path] = type(exc).__name__
print("CONJECT_CERT: " + json.dumps({"ok": True, "reason": "looked", "canonical": json.dumps(seen)}))
