# Tries to reach a listener on the host's loopback; the witness is {"port": N}.
import json
import socket
import sys

port = json.load(open(sys.argv[1]))["port"]
try:
    with socket.create_connection(("127.0.0.1", port), timeout=2) as conn:
        conn.sendall(b"escaped")
    result = {"ok": True, "reason": "connected", "canonical": "connected"}
except OSError as exc:
    result = {"ok": False, "reason": f"no network: {exc}"}
print("CONJECT_CERT: " + json.dumps(result))
