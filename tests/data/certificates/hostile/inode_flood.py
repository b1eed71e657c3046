"""Hostile checker: makes empty files and folders in its scratch folder as fast as it can
(each costs kernel memory, an inode and a dentry, but no bytes a size limit counts)."""

import json
import os
import sys
import time

task = json.loads(open(sys.argv[1]).read())
made = 0
deadline = time.monotonic() + task["seconds"]
try:
    while made < task["count"] and time.monotonic() < deadline:
        os.mkdir(f"d{made}")
        for index in range(100):
            open(f"d{made}/{index}", "w").close()
        made += 101
except OSError as error:
    print("CONJECT_CERT: " + json.dumps({"ok": False, "reason": f"{made} made, then {error.strerror}"}))
    sys.exit(0)
print("CONJECT_CERT: " + json.dumps({"ok": False, "reason": f"{made} made"}))
