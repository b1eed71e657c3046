# Rejects the witness, then repeats "ok" as true: a reader where the last key wins turns the
# rejection green.
print('CONJECT_CERT: {"ok": false, "reason": "wrong", "ok": true, "canonical": "forged"}')
