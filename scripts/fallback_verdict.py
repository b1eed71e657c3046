"""Write a red `timeout` verdict to PATH unless a verdict is already there.

The GitHub workflow runs this in an `if: always()` step: when the runner killed the job (or
jig itself died) before a verdict was written, the dispatch still ends with a verdict that
says what happened, never with silence.

    python scripts/timeout_verdict.py PATH SUBMISSION [STATEMENT_ID]

It must work even when the job died before jig was installed, so it imports jig from the
checkout beside it (`jigcli.verdict` needs only the standard library). A file at PATH that
is not a JSON object — a write cut short — counts as no verdict.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from jigcli.verdict import Verdict


def main(argv: list[str]) -> int:
    if len(argv) not in (2, 3):
        print("usage: timeout_verdict.py PATH SUBMISSION [STATEMENT_ID]", file=sys.stderr)
        return 2
    path, submission = Path(argv[0]), argv[1]
    if _has_verdict(path):
        return 0
    verdict = Verdict(
        kind=_kind(Path(submission)),
        submission=submission,
        statement_id=argv[2] if len(argv) == 3 else None,
    )
    verdict.fail("timeout", "step=job: the CI job ended before jig wrote a verdict")
    verdict.finish().write(path)
    print(f"wrote a red timeout verdict to {path}")
    return 0


def _has_verdict(path: Path) -> bool:
    try:
        return isinstance(json.loads(path.read_text(encoding="utf-8")), dict)
    except (OSError, ValueError):
        return False


def _kind(manifest: Path) -> str:
    """The manifest's kind when it can be read, so a certificate is not called a Lean proof."""
    try:
        kind = json.loads(manifest.read_text(encoding="utf-8")).get("kind")
    except (OSError, ValueError, AttributeError):
        return "lean"
    return kind if kind in ("lean", "certificate") else "lean"


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
