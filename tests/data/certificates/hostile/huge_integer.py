# A marker holding an integer past Python's int-string limit (4300 digits).
print('CONJECT_CERT: {"ok": true, "canonical": "x", "size": ' + "9" * 5000 + "}")
