# Writes 200 MB to stdout.
import sys

chunk = b"x" * (1024 * 1024)
for _ in range(200):
    sys.stdout.buffer.write(chunk)
print('CONJECT_CERT: {"ok": true, "canonical": "flooded"}')
