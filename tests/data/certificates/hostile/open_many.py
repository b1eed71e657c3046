# Opens as many socket pairs as the witness says (each holds kernel buffers), and says how
# many descriptors it got before the kernel refused.
import socket
import sys

wanted = int(open(sys.argv[1]).read())
held = []
try:
    while len(held) < wanted:
        held.extend(socket.socketpair())
except OSError:
    pass
print(f'CONJECT_CERT: {{"ok": false, "reason": "opened {len(held)} descriptors"}}')
