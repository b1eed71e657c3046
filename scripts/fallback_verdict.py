"""Write a red verdict saying why jig wrote none, unless jig wrote one in this run.

The dispatch job of the GitHub workflow runs this in an `if: always()` step, so a dispatch
always ends with a verdict that says what happened, never with silence:

    python scripts/fallback_verdict.py --out=PATH --outcome=OUTCOME [--exit-code=CODE]
        [--job-status=STATUS] -- SUBMISSION [STATEMENT_ID [REF]]

The step's own facts come as `--name=value` (so an empty value is still a value), and the
dispatch's inputs, which anyone who may dispatch chooses, only after `--`, where nothing is
read as an option: a `statement_id` of `-h` is a statement id, not a request for help. Each
input is checked against the pattern the schemas and the dispatch use (`STATEMENT_ID` the
submission schema's, `SUBMISSION` and `REF` `take_submission.py`'s) and only a valid one is
written into the verdict. OUTCOME is the `jig verify` step's `steps.<id>.outcome`; CODE the
exit status it recorded (empty when it never got to record one); STATUS is `job.status`.

Why no verdict, first match wins:

- the step was called wrongly (an unknown or malformed option, no `--`): a red
  `verifier_error` naming what was wrong, and exit 2, so the broken workflow shows;
- an input is malformed: a red `unknown_statement` (the statement id) or `bad_manifest`
  (the submission path or the ref), quoting it safely;
- jig exited 2 — it refused its arguments, which in this workflow means the manifest: a red
  `bad_manifest` saying no manifest could be read at that path on that ref;
- the runner cancelled or killed the job before jig ended (a cancellation, the job's time
  cap, a lost runner) — a red `runner_stopped`: the infrastructure stopped it, not the proof
  (jig's own deadline ends before the job's cap, so a slow proof gets jig's `timeout`);
- anything else (jig crashed, was killed, or a set-up step failed before it ran) — a red
  `verifier_error`: not the submission's fault.

The verdict also goes into the job summary, as `jig verify` would have put it there. Only a
verdict jig wrote in this run counts: jig exited 0, 1 or 4 (it exits so only after writing
`--out`) and PATH holds a JSON object. Anything else at PATH — a verdict committed to the
ref under test, a link, a folder, a write cut short — is replaced, never trusted.

It must work even when the job died before jig was installed, so it imports jig from the
checkout beside it (`jigcli.verdict`, `jigcli.summary`, `jigcli.safefiles`,
`jigcli.safewrite` and `jigcli.display` need only the standard library).
"""

from __future__ import annotations

import json
import re
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from take_submission import SUBMISSION_PATH, Refused, plain_ref

from jigcli.display import one_line
from jigcli.safefiles import Unreadable, read_file
from jigcli.summary import append_step_summary, verdict_markdown
from jigcli.verdict import Verdict

OUTCOMES = ("success", "failure", "cancelled", "skipped")
OPTIONS = ("out", "outcome", "exit-code", "job-status")
DEFAULT_OUT = Path("verdicts/verdict.json")
VERDICT_CAP = 16 * 1024 * 1024  # a verdict or manifest read back (never a FIFO, never GBs)
USAGE_ERROR = 2  # jig's exit status for arguments it refuses
USAGE = (
    "usage: fallback_verdict.py --out=PATH --outcome=OUTCOME [--exit-code=CODE] "
    "[--job-status=STATUS] -- SUBMISSION [STATEMENT_ID [REF]]"
)
_SCHEMAS = Path(__file__).resolve().parent.parent / "jigcli" / "schemas"


@dataclass
class Call:
    """What the step passed: its own facts, the dispatch's inputs, and what was wrong."""

    options: dict[str, str] = field(default_factory=dict)
    inputs: list[str] = field(default_factory=list)
    wrong: list[str] = field(default_factory=list)

    def get(self, name: str) -> str:
        return self.options.get(name, "")

    @property
    def out(self) -> Path:
        return Path(self.get("out")) if self.get("out") else DEFAULT_OUT


def parse(argv: list[str]) -> Call:
    """Read `argv` without ever giving up: every problem is noted, never raised."""
    call = Call()
    if "--" not in argv:
        call.wrong.append("no `--` before the dispatch's inputs")
    split = argv.index("--") if "--" in argv else len(argv)
    for arg in argv[:split]:
        name, equals, value = arg.removeprefix("--").partition("=")
        if not arg.startswith("--") or not equals or name not in OPTIONS:
            call.wrong.append(f"{_quoted(arg)} is not --NAME=VALUE for a NAME in {OPTIONS}")
        else:
            call.options[name] = value
    call.inputs = argv[split + 1 :]
    if len(call.inputs) > 3:
        call.wrong.append(f"{len(call.inputs)} inputs after `--`; give at most 3")
    if not call.inputs and "--" in argv:
        call.wrong.append("no SUBMISSION after `--`")
    if "outcome" not in call.options:
        call.wrong.append("no --outcome=")
    elif call.get("outcome") not in ("", *OUTCOMES):
        call.wrong.append(f"--outcome={_quoted(call.get('outcome'))} is none of {OUTCOMES}")
    return call


@dataclass
class Inputs:
    """The dispatch's inputs, each kept only when valid; `refusal` says which one was not."""

    submission: str | None = None
    statement_id: str | None = None
    ref: str = ""
    refusal: tuple[str, str] | None = None


def checked(values: list[str]) -> Inputs:
    submission, statement_id, ref = [*values, "", "", ""][:3]
    inputs = Inputs()
    if SUBMISSION_PATH.fullmatch(submission):
        inputs.submission = submission
    elif submission:
        inputs.refusal = ("bad_manifest", _not_a_manifest(submission))
    if _statement_id_pattern().fullmatch(statement_id) and len(statement_id) <= 128:
        inputs.statement_id = statement_id
    elif statement_id and inputs.refusal is None:
        inputs.refusal = (
            "unknown_statement",
            f"the dispatch's statement_id {_quoted(statement_id)} is not a statement id: "
            "ASCII letters, digits, `_` and `-`, starting with a letter or digit",
        )
    try:
        inputs.ref = plain_ref(ref) if ref else ""
    except Refused:
        if inputs.refusal is None:
            inputs.refusal = (
                "bad_manifest",
                f"the dispatch's ref {_quoted(ref)} is not a plain branch, tag or commit id, so "
                "no manifest was read from it",
            )
    return inputs


def _statement_id_pattern() -> re.Pattern[str]:
    schema = json.loads((_SCHEMAS / "submission.schema.json").read_text(encoding="utf-8"))
    return re.compile(schema["properties"]["statement_id"]["pattern"])


def _not_a_manifest(submission: str) -> str:
    return (
        f"the dispatch's submission {_quoted(submission)} is not a manifest path: give "
        "Submissions/<id>/<name>.json or Certificates/<id>/submissions/<name>.json"
    )


def _quoted(text: str) -> str:
    """An untrusted value shown safely: one line, short, in quotes."""
    return repr(one_line(text, limit=80))


def main(argv: list[str]) -> int:
    call = parse(argv)
    inputs = checked(call.inputs)
    if not call.wrong and _jig_wrote(call.get("exit-code")) and _has_verdict(call.out):
        return 0
    if call.wrong:
        reason, detail = (
            "verifier_error",
            "the fallback step was called wrongly: " + "; ".join(call.wrong),
        )
    elif inputs.refusal is not None:
        reason, detail = inputs.refusal
    elif inputs.submission is None:
        reason, detail = "bad_manifest", _not_a_manifest("")
    else:
        reason, detail = why(call, inputs)
    verdict = Verdict(
        kind=_kind(inputs.submission),
        submission=inputs.submission,
        statement_id=inputs.statement_id,
    )
    verdict.fail(reason, detail)
    _clear(call.out)
    verdict.finish().write(call.out)
    append_step_summary(lambda: verdict_markdown(verdict.to_json()))
    print(f"wrote a red {reason} verdict to {call.out}: {detail}")
    if call.wrong:
        print(USAGE, file=sys.stderr)
        return 2
    return 0


def why(call: Call, inputs: Inputs) -> tuple[str, str]:
    """The reason and detail for the missing verdict; jig's own exit status decides first,
    since once it ended by itself a later cancellation did not cause the silence."""
    exit_code, outcome = call.get("exit-code").strip(), call.get("outcome")
    code = int(exit_code) if exit_code.isdigit() else None
    if code == USAGE_ERROR:
        return "bad_manifest", _unreadable(Path(inputs.submission or ""), inputs.ref)
    if code is None and "cancelled" in (outcome, call.get("job-status")):
        return (
            "runner_stopped",
            "step=job: the CI runner cancelled or stopped the job (a cancellation, the job's "
            "time cap or a lost runner) before jig wrote a verdict; nothing was decided about "
            "the submission",
        )
    if code is not None:
        how = f"exited {code}" + (f" (killed by signal {code - 128})" if code > 128 else "")
        return "verifier_error", f"jig verify {how} without writing a verdict; see the step's log"
    if outcome in ("skipped", ""):
        return (
            "verifier_error",
            "jig verify never ran: a set-up step before it failed; see the job log",
        )
    return (
        "verifier_error",
        f"the jig verify step ended ({outcome}) without a verdict or an exit status",
    )


def _unreadable(manifest: Path, ref: str) -> str:
    where = f"no manifest could be read at {manifest} on {ref or 'this checkout'}"
    if manifest.is_dir():
        return f"{where}: it is a folder; dispatch the path of one submission's .json"
    if not manifest.exists():
        return f"{where}: the file does not exist there; check the submission path and the ref"
    return f"{where}: jig verify refused it (exit 2); its message is in the step's log"


def _jig_wrote(exit_code: str) -> bool:
    """Whether jig verify ended having written its verdict: 0 green, 1 red, 4 red because
    this runner could not check it (no Lean, no sandbox)."""
    return exit_code.strip() in ("0", "1", "4")


def _has_verdict(path: Path) -> bool:
    try:
        return isinstance(json.loads(read_file(path, VERDICT_CAP)), dict)
    except (Unreadable, ValueError):
        return False


def _clear(path: Path) -> None:
    """Remove whatever is at `path` (a file, a link, a folder) so the verdict replaces it."""
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path)


def _kind(manifest: str | None) -> str:
    """The manifest's kind when it can be read, so a certificate is not called a Lean proof."""
    if manifest is None:
        return "lean"
    try:
        kind = json.loads(read_file(Path(manifest), VERDICT_CAP)).get("kind")
    except (Unreadable, ValueError, AttributeError):
        return "lean"
    return kind if kind in ("lean", "certificate") else "lean"


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
