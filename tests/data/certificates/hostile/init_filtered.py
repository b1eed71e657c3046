# Reads whether a seccomp filter holds the sandbox's PID 1 (its init), the checker's parent
# and the checker itself: a process outside the filter is one a checker could take over and
# act through unfiltered.
import json
import os


def mode(pid):
    try:
        for line in open(f"/proc/{pid}/status"):
            if line.startswith("Seccomp:"):
                return line.split()[1]
    except OSError as error:
        return type(error).__name__
    return "missing"


said = {"init": mode(1), "parent": mode(os.getppid()), "self": mode("self")}
print("CONJECT_CERT: " + json.dumps({"ok": True, "canonical": json.dumps(said)}))
