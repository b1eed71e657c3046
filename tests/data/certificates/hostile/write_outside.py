# Tries to write files outside its scratch folder; the witness is {"paths": [P, ...]}.
import json
import sys

written, refused = [], []
for path in json.load(open(sys.argv[1]))["paths"]:
    try:
        with open(path, "w") as handle:
            handle.write("escaped")
        written.append(path)
    except OSError as exc:
        refused.append(f"{path}: {type(exc).__name__}")
if written:
    print("CONJECT_CERT: " + json.dumps({"ok": True, "reason": "wrote", "canonical": " ".join(written)}))
else:
    print("CONJECT_CERT: " + json.dumps({"ok": False, "reason": "; ".join(refused)}))
