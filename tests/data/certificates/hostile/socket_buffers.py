# Asks for the largest socket buffers the host allows, then queues all it can on local
# socket pairs until it runs out of descriptors: what no cgroup v1 memory limit counts.
# Says what setsockopt answered, the send buffer it got, and the bytes queued per pair.
import json
import socket

answers, pairs, queued = [], [], 0
try:
    while True:
        a, b = socket.socketpair()
        for sock, option in ((a, socket.SO_SNDBUF), (b, socket.SO_RCVBUF)):
            try:
                sock.setsockopt(socket.SOL_SOCKET, option, 1 << 30)
                answers.append("done")
            except OSError as error:
                answers.append(error.__class__.__name__)
        a.setblocking(False)
        try:
            while True:
                queued += a.send(b"x" * 65536)
        except BlockingIOError:
            pass
        pairs.append((a, b))
except OSError:  # out of descriptors
    pass
said = {
    "answers": sorted(set(answers)),
    "sndbuf": pairs[0][0].getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF),
    "per_pair": queued // len(pairs),
    "pairs": len(pairs),
}
print("CONJECT_CERT: " + json.dumps({"ok": True, "canonical": json.dumps(said)}))
