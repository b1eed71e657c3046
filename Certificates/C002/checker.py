"""Checker for C002: a proper factor of the Fermat number F5 = 2^32 + 1.

Witness: one decimal integer d with 1 < d < F5 that divides F5 (Euler, 1732: 641 does).
The canonical form is the factor pair "p q" with p <= q and p * q = F5, so naming either
factor of the same split is the same certificate.
Standard library only, deterministic, no clock, no randomness, no files besides the witness.
"""

import json
import re
import sys

F5 = 2**32 + 1
MAX_BYTES = 64


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
    text = raw.decode("ascii", "replace").strip()
    if not re.fullmatch(r"[0-9]{1,20}", text):
        emit(False, "the witness must be one positive decimal integer")
    d = int(text)
    if not 1 < d < F5:
        emit(False, f"{d} is not a proper factor candidate: it must lie strictly between 1 and F5")
    if F5 % d:
        emit(False, f"{d} does not divide F5 = {F5} (remainder {F5 % d})")
    p, q = sorted((d, F5 // d))
    emit(True, f"F5 = {F5} = {p} * {q}", f"{p} {q}")


if __name__ == "__main__":
    main()
