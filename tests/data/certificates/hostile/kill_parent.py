# Sends SIGKILL to its parent, then accepts if it is still alive to say so.
import json
import os
import signal
import time

parent = os.getppid()
try:
    os.kill(parent, signal.SIGKILL)
    said = f"sent SIGKILL to parent {parent}"
except OSError as exc:
    said = f"could not signal parent {parent}: {type(exc).__name__}"
time.sleep(0.2)
print("CONJECT_CERT: " + json.dumps({"ok": True, "reason": said, "canonical": "survived"}))
