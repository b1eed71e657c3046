"""A tiny checker for the selftest tests: the witness is a natural number n with n % 7 == 3.

The canonical form is n itself, so "10" and "010" are the same certificate. A witness
reading "silent" makes the checker print nothing (a protocol breach).
"""

import json
import sys

raw = open(sys.argv[1], "rb").read(64).decode("ascii", "replace").strip()
if raw == "silent":
    sys.exit(0)
ok = raw.isdigit() and int(raw) % 7 == 3
payload = {"ok": ok, "reason": "n % 7 == 3" if ok else f"{raw!r} is not 3 modulo 7"}
if ok:
    payload["canonical"] = str(int(raw))
print("CONJECT_CERT: " + json.dumps(payload))
