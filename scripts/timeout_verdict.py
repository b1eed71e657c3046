"""Write a red `timeout` verdict to PATH unless a verdict is already there.

The GitHub workflow runs this in an `if: always()` step: when the runner killed the job (or
jig itself died) before a verdict was written, the dispatch still ends with a verdict that
says what happened, never with silence.

    python scripts/timeout_verdict.py PATH SUBMISSION [STATEMENT_ID]
"""

from __future__ import annotations

import sys
from pathlib import Path

from jigcli.verdict import Verdict


def main(argv: list[str]) -> int:
    if len(argv) not in (2, 3):
        print("usage: timeout_verdict.py PATH SUBMISSION [STATEMENT_ID]", file=sys.stderr)
        return 2
    path = Path(argv[0])
    if path.is_file() and path.stat().st_size > 0:
        return 0
    verdict = Verdict(submission=argv[1], statement_id=argv[2] if len(argv) == 3 else None)
    verdict.fail("timeout", "step=job: the CI job ended before jig wrote a verdict")
    verdict.finish().write(path)
    print(f"wrote a red timeout verdict to {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
