# Prints the marker twice: an accepting line and a rejecting one.
print('CONJECT_CERT: {"ok": true, "canonical": "a"}')
print('CONJECT_CERT: {"ok": false, "reason": "b"}')
