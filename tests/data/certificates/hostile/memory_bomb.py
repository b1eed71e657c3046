# Allocates without bound.
hoard = []
while True:
    hoard.append(bytearray(64 * 1024 * 1024))
