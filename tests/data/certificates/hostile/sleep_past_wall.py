# Sleeps far past any wall limit, without using CPU.
import time

time.sleep(120)
print('CONJECT_CERT: {"ok": true, "canonical": "late"}')
