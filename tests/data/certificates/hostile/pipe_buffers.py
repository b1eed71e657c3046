# Grows pipes to the host's largest size (fs.pipe-max-size) and fills them until it runs out
# of descriptors: pipe pages a cgroup v1 memory limit may not count. Says what F_SETPIPE_SZ
# answered, the capacity it got, and the bytes held per pipe.
import errno
import fcntl
import json
import os

answers, pipes, held = [], [], 0
try:
    while True:
        read_end, write_end = os.pipe()
        try:
            fcntl.fcntl(write_end, fcntl.F_SETPIPE_SZ, 1 << 20)
            answers.append("done")
        except OSError as error:
            answers.append(errno.errorcode.get(error.errno, str(error.errno)))
        os.set_blocking(write_end, False)
        try:
            while True:
                held += os.write(write_end, b"x" * 65536)
        except BlockingIOError:
            pass
        pipes.append((read_end, write_end))
except OSError:  # out of descriptors
    pass
said = {
    "answers": sorted(set(answers)),
    "capacity": fcntl.fcntl(pipes[0][1], fcntl.F_GETPIPE_SZ),
    "per_pipe": held // len(pipes),
    "pipes": len(pipes),
}
print("CONJECT_CERT: " + json.dumps({"ok": True, "canonical": json.dumps(said)}))
