# Prints an accepting marker, then exits with status 3.
import sys

print('CONJECT_CERT: {"ok": true, "canonical": "a"}')
sys.exit(3)
