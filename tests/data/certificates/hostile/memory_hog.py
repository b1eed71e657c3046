"""Hostile checker: several processes, each within its address-space limit, that together
hold far more memory than the run may: the run's memory cgroup must stop them."""

import json
import os
import sys
import time

task = json.loads(open(sys.argv[1]).read())
children = []
for _ in range(task["processes"]):
    pid = os.fork()
    if pid == 0:
        held = bytearray(task["mb"] * 1024 * 1024)
        for offset in range(0, len(held), 4096):  # touch every page: resident, not reserved
            held[offset] = 1
        time.sleep(task.get("hold_sec", 2))
        os._exit(0)
    children.append(pid)
killed = 0
for pid in children:
    _, status = os.waitpid(pid, 0)
    killed += os.WIFSIGNALED(status)
if killed:
    sys.stderr.write(f"{killed} of my processes were killed\n")
    sys.exit(9)
print("CONJECT_CERT: " + json.dumps({"ok": False, "reason": f"held {task['processes']} x {task['mb']} MB"}))
