# Forks a bounded storm of sleepers (argv[0] is the witness's token), then exits at once.
import json
import os
import sys

spec = json.load(open(sys.argv[1]))
started = 0
for _ in range(spec["count"]):
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        os.execv("/bin/sleep", [spec["token"], "120"])
    started += 1
print("CONJECT_CERT: " + json.dumps({"ok": False, "reason": f"forked {started}"}))
