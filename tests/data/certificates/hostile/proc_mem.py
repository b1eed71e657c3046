# Tries to open another process's memory for writing through /proc (the sandbox's PID 1 and
# its parent), as a step to run code outside the seccomp filter; says what it could open.
import json
import os

opened = []
for pid in ("1", str(os.getppid())):
    try:
        with open(f"/proc/{pid}/mem", "r+b"):
            opened.append(pid)
    except OSError:
        pass
proc = [line.split()[3] for line in open("/proc/self/mounts") if line.split()[1] == "/proc"]
print("CONJECT_CERT: " + json.dumps({"ok": not opened, "canonical": json.dumps(
    {"opened": opened, "proc": proc}), "reason": "opened " + ",".join(opened)}))
