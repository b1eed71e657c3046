"""Checker for a test problem: an integer whose square is 49.

Witness: one decimal integer (ASCII, optional sign). Canonical form: its absolute value, so 7
and -7 are the same certificate. A witness that is not an integer makes this checker crash
(int() raises): deliberately, so a test can show posing refuses a checker that crashes on a
red example instead of rejecting it.
"""

import json
import sys

with open(sys.argv[1], "rb") as handle:
    n = int(handle.read().decode("ascii").strip())
ok = n * n == 49
payload = {"ok": ok, "reason": f"{n}^2 = {n * n}"}
if ok:
    payload["canonical"] = str(abs(n))
print("CONJECT_CERT: " + json.dumps(payload, sort_keys=True))
