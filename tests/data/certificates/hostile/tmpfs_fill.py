"""Hostile checker: writes into every writable tmpfs it can find, /dev/shm above all, until
the kernel refuses, and says how much each took."""

import json
import os
import sys

task = json.loads(open(sys.argv[1]).read())
token = task["token"]
took = {}
for folder in ("/dev/shm", "/tmp", "/var/tmp", "/run/lock", os.getcwd()):
    path = os.path.join(folder, token)
    written = 0
    try:
        with open(path, "wb") as handle:
            while written < task["mb"] * 1024 * 1024:
                handle.write(b"\1" * (1 << 20))
                handle.flush()
                written += 1 << 20
    except OSError as error:
        took[folder] = f"{written >> 20} MB, then {error.strerror}"
        continue
    took[folder] = f"{written >> 20} MB"
print("CONJECT_CERT: " + json.dumps({"ok": True, "canonical": json.dumps(took, sort_keys=True)}))
