# Makes a socket of each family named in the witness ({"families": {name: number}}), and a
# vsock listener when it can: "done" or the errno's name for each.
import errno
import json
import socket
import sys

said = {}
for name, family in json.load(open(sys.argv[1]))["families"].items():
    for kind in (socket.SOCK_STREAM, socket.SOCK_DGRAM, socket.SOCK_RAW):
        try:
            sock = socket.socket(family, kind)
        except OSError as error:
            said[name] = errno.errorcode.get(error.errno, str(error.errno))
            continue
        said[name] = "done"
        if name == "AF_VSOCK":
            try:
                sock.bind((0xFFFFFFFF, 5005))  # VMADDR_CID_ANY
                sock.listen()
                said[name] = "listening"
            except OSError:
                pass
        sock.close()
        break
print("CONJECT_CERT: " + json.dumps({"ok": True, "canonical": json.dumps(said, sort_keys=True)}))
