# Accepts any witness and prints its bytes, unchanged, as the canonical form: a checker whose
# output need not be UTF-8.
import sys

witness = open(sys.argv[1], "rb").read()
sys.stdout.buffer.write(b'CONJECT_CERT: {"ok": true, "canonical": "' + witness + b'"}\n')
