# Double-forks a setsid daemon (argv[0] is the witness's token) that outlives the checker.
import json
import os
import sys

token = json.load(open(sys.argv[1]))["token"]
ready_r, ready_w = os.pipe()  # close-on-exec: EOF here means the daemon has exec'd
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.close(ready_r)
        os.execv("/bin/sleep", [token, "120"])
    os._exit(0)
os.close(ready_w)
os.read(ready_r, 1)
os.wait()
print('CONJECT_CERT: {"ok": false, "reason": "left a daemon behind"}')
