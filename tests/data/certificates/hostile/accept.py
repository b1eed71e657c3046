# Accepts any witness; canonical is its stripped text.
import json
import sys

text = open(sys.argv[1]).read().strip()
print("CONJECT_CERT: " + json.dumps({"ok": True, "reason": "accepted", "canonical": text}))
