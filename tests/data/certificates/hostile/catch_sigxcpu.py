# Catches SIGXCPU, the old warning before the CPU limit's SIGKILL, and prints a green marker
# in the second it would have had: past its CPU limit, a checker's word must count for nothing.
import signal
import sys

def late_verdict(signum, frame):
    print('CONJECT_CERT: {"ok": true, "canonical": "past the limit"}', flush=True)
    sys.exit(0)

signal.signal(signal.SIGXCPU, late_verdict)
while True:
    pass
