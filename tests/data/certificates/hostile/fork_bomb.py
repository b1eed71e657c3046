# An unbounded fork bomb. The witness names a token, which the checker first re-executes
# itself with so that every process of the bomb carries it (the test counts them on the
# host), and a style: "every" process forks forever, retrying refused forks (it can only
# end at the wall clock), or only the "leader" forks, its children idle, until a fork is
# refused and it dies of it. Guard: it bombs only as a low PID (the sandbox's setup takes a
# few dozen: a mount each) of a PID namespace of its
# own, never in the host's.
import json
import os
import sys
import time

if len(sys.argv) < 3:
    token = json.load(open(sys.argv[1]))["token"]
    os.execv(sys.executable, [sys.executable, "-S", "-B", sys.argv[0], sys.argv[1], token])
if os.getpid() > 64:
    print("CONJECT_CERT: " + json.dumps({"ok": False, "reason": "not in a PID namespace"}))
    sys.exit(0)
if json.load(open(sys.argv[1]))["style"] == "every":
    while True:
        try:
            os.fork()
        except OSError:
            pass
while True:
    if os.fork() == 0:
        while True:
            time.sleep(60)
