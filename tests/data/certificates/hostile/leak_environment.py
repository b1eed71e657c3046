# Accepts, with its whole environment as the canonical form.
import json
import os

canonical = json.dumps(dict(os.environ), sort_keys=True)
print("CONJECT_CERT: " + json.dumps({"ok": True, "reason": "env", "canonical": canonical}))
