# Leaves two processes whose argv[0] is the witness's token: a setsid daemon, and the checker
# itself turned into a sleep. Neither ever prints a marker; only the wall clock (or jig's
# death) ends them.
import json
import os
import sys

token = json.load(open(sys.argv[1]))["token"]
if os.fork() == 0:
    os.setsid()
    os.execv("/bin/sleep", [token, "300"])
os.execv("/bin/sleep", [token, "300"])
