"""Checker for C001: integers a, b, c with a^3 + b^3 + c^3 = 42.

Witness: three whitespace-separated decimal integers (ASCII, optional sign). The cubes are
summed with Python's exact integers. The canonical form is the triple sorted ascending, so
every ordering of one solution is the same certificate.
Standard library only, deterministic, no clock, no randomness, no files besides the witness.
"""

import json
import re
import sys

TARGET = 42
MAX_BYTES = 4096
INTEGER = re.compile(r"[+-]?[0-9]{1,200}")


def emit(ok, reason, canonical=None):
    payload = {"ok": ok, "reason": reason}
    if canonical is not None:
        payload["canonical"] = canonical
    print("CONJECT_CERT: " + json.dumps(payload, sort_keys=True))
    sys.exit(0)


def main():
    with open(sys.argv[1], "rb") as handle:
        raw = handle.read(MAX_BYTES + 1)
    if len(raw) > MAX_BYTES:
        emit(False, f"the witness is longer than {MAX_BYTES} bytes")
    try:
        tokens = raw.decode("ascii").split()
    except UnicodeDecodeError:
        emit(False, "the witness must be ASCII text")
    if len(tokens) != 3:
        emit(False, f"the witness must be exactly three integers, not {len(tokens)} tokens")
    bad = [token for token in tokens if not INTEGER.fullmatch(token)]
    if bad:
        emit(False, f"not a decimal integer of at most 200 digits: {bad[0][:40]!r}")
    a, b, c = sorted(int(token) for token in tokens)
    total = a**3 + b**3 + c**3
    canonical = f"{a} {b} {c}"
    if total != TARGET:
        emit(False, f"the cubes sum to {total}, not {TARGET}")
    cubes = " + ".join(f"({n})^3" if n < 0 else f"{n}^3" for n in (a, b, c))
    emit(True, f"{cubes} = {TARGET}", canonical)


if __name__ == "__main__":
    main()
