# Tries to read a file outside its scratch folder; the witness is {"path": P}.
import json
import sys

path = json.load(open(sys.argv[1]))["path"]
try:
    with open(path) as handle:
        secret = handle.read()
    result = {"ok": True, "reason": "read it", "canonical": secret}
except OSError as exc:
    result = {"ok": False, "reason": f"cannot read: {type(exc).__name__}"}
print("CONJECT_CERT: " + json.dumps(result))
