import json
import sys

with open(sys.argv[1], encoding="ascii", errors="replace") as witness:
    n = witness.read(100).strip()
small = n.isdigit() and len(n) <= 8  # a bigger one would take the checker too long
ok = small and 1 < int(n) == sum(d for d in range(1, int(n)) if int(n) % d == 0)
print(
    "CONJECT_CERT: "
    + json.dumps({"ok": ok, "reason": "perfect" if ok else "not perfect", "canonical": n})
)
