# Prints the marker with JSON that does not parse.
print('CONJECT_CERT: {"ok": true, "canonical": "a",}')
