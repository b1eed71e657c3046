"""The command line: the only place arguments are parsed.

Each command parses its options and hands them to `jigcli.commands.<name>.run`, which returns
the exit code. Command modules are imported inside the command so that `jig verify` does not
pay for LaTeX or git imports. `jig verify`'s and `jig compile`'s options are declared from the
tables in `jigcli.options`, which `jigcli.fastpath` walks too. Every `JigError` is turned into
one line and an exit code here.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer

from jigcli import __version__
from jigcli.errors import UsageError, guarded
from jigcli.options import ALLOW_NO_NETNS_ENV, FORMAT, JSON, MIN_SECONDS, ROOT, Option
from jigcli.options.compile import ENGINE, NO_BUILD, WATCH
from jigcli.options.verify import ALLOW_NO_NETNS, JOBS, LANE, OUT, STATEMENT, TIMEOUT
from jigcli.verify.context import DEFAULT_TIMEOUT_SEC

app = typer.Typer(
    name="jig",
    help="Decide, the same way every time, whether a submission proves what was posted.",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)
pose_app = typer.Typer(
    help="Add a canonical statement or a certificate problem; check write-once in CI.",
    no_args_is_help=True,
    rich_markup_mode=None,
)
app.add_typer(pose_app, name="pose")


class _Global:
    root: Path | None = None


def _done(code: int) -> NoReturn:
    raise typer.Exit(code)


def _version(value: bool) -> None:
    if value:
        print(version_line())
        raise typer.Exit(0)


def version_line() -> str:
    """`jig 0.1.0 (commit 1a2b3c4d5e6f) · Lean 4.33.0 · Mathlib db584cd…`: jig's version, the
    commit of its checkout when it runs from one, and the pins of the repo above the working
    directory when there is one (what a verdict here is judged against)."""
    from jigcli.errors import JigError
    from jigcli.ownsource import identity
    from jigcli.repo import Repo

    commit = identity()["commit"]
    said = f"jig {__version__}" + (f" (commit {commit[:12]})" if commit else "")
    try:
        repo = Repo.locate(None)
        return f"{said} · Lean {repo.lean_version} · Mathlib {repo.mathlib_rev}"
    except (JigError, OSError, ValueError):  # outside a repo, or unreadable pins: jig alone
        return said


def _declared(option: Option[Any], **more: Any) -> Any:
    """typer's option for a table entry (`jigcli.options`): its flag, help and env variable."""
    return typer.Option(option.flag, help=option.help, envvar=option.envvar, **more)


RootOpt = Annotated[Path | None, _declared(ROOT)]
JsonOpt = Annotated[bool, _declared(JSON)]
FormatOpt = Annotated[str | None, _declared(FORMAT)]


def _finite_seconds(value: float | None) -> float | None:
    # typer's float accepts inf and nan, which no clock can count down
    if value is not None and not math.isfinite(value):
        raise typer.BadParameter(f"{value} is not a finite number of seconds; give one like 600")
    return value


@app.callback()
def _main(
    root: RootOpt = None,
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            "-V",
            callback=_version,
            is_eager=True,
            help="Show jig's version and the repo's Lean and Mathlib pins.",
        ),
    ] = False,
) -> None:
    _Global.root = root


def _root(local: Path | None) -> Path | None:
    return local if local is not None else _Global.root


# -- verify ------------------------------------------------------------------------------


@app.command()
def verify(
    manifest: Annotated[
        list[Path],
        typer.Argument(
            metavar="MANIFEST...",
            help="Submission manifests (.json), folders of them, or quoted globs.",
        ),
    ],
    statement_id: Annotated[str | None, _declared(STATEMENT)] = STATEMENT.default,
    out: Annotated[Path | None, _declared(OUT)] = OUT.default,
    as_json: JsonOpt = JSON.default,
    output_format: FormatOpt = FORMAT.default,
    timeout: Annotated[
        float,
        _declared(TIMEOUT, min=MIN_SECONDS, callback=_finite_seconds, metavar="<seconds>"),
    ] = TIMEOUT.default,
    lane: Annotated[str, _declared(LANE)] = LANE.default,
    allow_no_netns: Annotated[bool, _declared(ALLOW_NO_NETNS)] = ALLOW_NO_NETNS.default,
    jobs: Annotated[int | None, _declared(JOBS, min=1, metavar="<n>")] = JOBS.default,
    root: RootOpt = ROOT.default,
) -> None:
    """Verify submissions, Lean proofs or certificate witnesses: exit 0 all green, 1 a red, 4
    one not checked here, 2 usage."""
    from jigcli.commands import verify as command

    _done(
        command.run(
            manifest,
            jobs=jobs,
            statement_id=statement_id,
            out=out,
            as_json=as_json,
            output_format=output_format,
            timeout=timeout,
            lane=lane,
            allow_no_netns=allow_no_netns,
            root=_root(root),
        )
    )


# -- selftest ----------------------------------------------------------------------------


@app.command()
def selftest(
    paths: Annotated[
        list[Path] | None,
        typer.Argument(metavar="[PATH]...", help="Manifests or folders (default: the whole repo)."),
    ] = None,
    jobs: Annotated[
        int | None, typer.Option("--jobs", "-j", help="Parallel jobs.", min=1, metavar="<n>")
    ] = None,
    shard: Annotated[
        str | None, typer.Option("--shard", help="Run only shard I of N, written I/N.")
    ] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Ignore cached verdicts.")] = False,
    require_lean: Annotated[
        bool, typer.Option("--require-lean", help="Fail when Lean manifests cannot run here.")
    ] = False,
    json_out: JsonOpt = False,
    output_format: FormatOpt = None,
    timeout: Annotated[
        float,
        typer.Option(
            "--timeout",
            help="Wall budget per submission in seconds.",
            min=MIN_SECONDS,
            callback=_finite_seconds,
            metavar="<seconds>",
        ),
    ] = DEFAULT_TIMEOUT_SEC,
    budget: Annotated[
        float | None,
        typer.Option(
            "--budget",
            help="Wall budget for the whole run in seconds; each submission gets at most "
            "what is left, and those it leaves unstarted fail as timeouts.",
            min=MIN_SECONDS,
            callback=_finite_seconds,
            metavar="<seconds>",
        ),
    ] = None,
    allow_no_netns: Annotated[
        bool,
        typer.Option(
            "--allow-no-netns",
            help="Where no sandbox works, run checkers and Lean builds without one (dev only).",
            envvar=ALLOW_NO_NETNS_ENV,
        ),
    ] = False,
    root: RootOpt = None,
) -> None:
    """Verify every manifest that declares `expect` and compare: exit 0 when all match."""
    from jigcli.commands import selftest as command

    _done(
        command.run(
            paths or [],
            jobs=jobs,
            shard=shard,
            use_cache=not no_cache,
            require_lean=require_lean,
            as_json=json_out,
            output_format=output_format,
            timeout=timeout,
            budget=budget,
            allow_no_netns=allow_no_netns,
            root=_root(root),
        )
    )


# -- pose --------------------------------------------------------------------------------

POSE_LEAN_EPILOG = (
    "\b\n"
    "Example:\n"
    '  jig pose lean S002 --prop "∀ n : ℕ, Even n → Even (n ^ 2)" \\\n'
    "    --import Mathlib.Algebra.Group.Nat.Even \\\n"
    '    --doc "The square of an even natural number is even." \\\n'
    "    --green EvenSquare.lean --red Weakened.lean --red-reason restatement \\\n"
    "    --build --commit\n"
    "\n"
    # Prose without \b, so that click wraps it to the terminal; code keeps its lines.
    "Each example is copied unchanged to Submissions/S002/<name>.lean beside a manifest "
    "(module Submissions.S002.<name>, decl Submissions.S002.<name>.proof, expect), so it "
    "declares `theorem proof` inside `namespace Submissions.S002.<name>`. EvenSquare.lean:\n"
    "\n"
    "\b\n"
    "  import Mathlib.Algebra.Group.Nat.Even\n"
    "  namespace Submissions.S002.EvenSquare\n"
    "  theorem proof : ∀ n : ℕ, Even n → Even (n ^ 2) :=\n"
    "    fun n h => Nat.even_pow.mpr ⟨h, by decide⟩\n"
    "  end Submissions.S002.EvenSquare\n"
    "\n"
    "Refused, with nothing written: a label that is not a plain identifier, or whose "
    "Statements/LABEL.lean exists or ever existed in git history; bare `import Mathlib`; "
    "imports outside Mathlib, Batteries, Std, Init, Aesop, Plausible, Commons; a proposition "
    "the static policy rejects or that declares more than `statement`; an example the "
    "static policy decides otherwise than declared. A scoped notation is opened inside the "
    'proposition itself: --prop "open scoped Nat in …".'
)


@pose_app.command("lean", epilog=POSE_LEAN_EPILOG)
def pose_lean(
    label: Annotated[
        str, typer.Argument(metavar="LABEL", help="The new statement's label (a Lean identifier).")
    ],
    prop: Annotated[str, typer.Option("--prop", help="The proposition, verbatim Lean.")],
    imports: Annotated[
        list[str] | None, typer.Option("--import", help="A module the proposition needs.")
    ] = None,
    doc: Annotated[str | None, typer.Option("--doc", help="The statement in prose.")] = None,
    green: Annotated[
        Path | None, typer.Option("--green", help="An example proof that must verify green.")
    ] = None,
    red: Annotated[
        list[Path] | None, typer.Option("--red", help="An adversarial example that must be red.")
    ] = None,
    red_reason: Annotated[
        list[str] | None,
        typer.Option(
            "--red-reason",
            help="The reason the --red in the same position must fail with: give one per --red, "
            "in order (e.g. restatement, forbidden_syntax, sorry).",
        ),
    ] = None,
    build: Annotated[bool, typer.Option("--build", help="Elaborate it with Lean now.")] = False,
    commit: Annotated[bool, typer.Option("--commit", help="Commit exactly the new files.")] = False,
    root: RootOpt = None,
) -> None:
    """Write Statements/LABEL.lean (write-once), with examples the selftest guards."""
    from jigcli.commands import pose as command

    _done(
        command.run_lean(
            label,
            prop=prop,
            imports=imports or [],
            doc=doc,
            green=green,
            red=red or [],
            red_reasons=red_reason or [],
            build=build,
            commit=commit,
            root=_root(root),
        )
    )


POSE_CERTIFICATE_EPILOG = (
    "\b\n"
    "Example:\n"
    '  jig pose certificate C003 --title "A perfect number" \\\n'
    '    --statement "Exhibit a perfect number" \\\n'
    '    --witness-format "one decimal integer" \\\n'
    "    --checker checker.py --green good.txt --red bad.txt\n"
    "\n"
    "The checker runs as `python -S -B checker.py WITNESS`, standard library only, and "
    "prints exactly one line (canonical: the witness in normal form; its SHA-256 is the "
    "submission's hash):\n"
    "\n"
    "\b\n"
    '  CONJECT_CERT: {"ok": true, "reason": "...", "canonical": "..."}\n'
    "\n"
    "The contract, the lanes and their limits: docs/guides/posers.md."
)


@pose_app.command("certificate", epilog=POSE_CERTIFICATE_EPILOG)
def pose_certificate(
    problem_id: Annotated[str, typer.Argument(metavar="ID", help="The new problem's id.")],
    title: Annotated[str, typer.Option("--title", help="A one-line title.")],
    statement: Annotated[str, typer.Option("--statement", help="What a witness must exhibit.")],
    witness_format: Annotated[str, typer.Option("--witness-format", help="The witness format.")],
    checker: Annotated[Path, typer.Option("--checker", help="The checker script (Python).")],
    green: Annotated[Path, typer.Option("--green", help="A witness that must be accepted.")],
    red: Annotated[
        list[Path] | None, typer.Option("--red", help="A witness that must be rejected.")
    ] = None,
    wall_sec: Annotated[
        float | None,
        typer.Option(
            "--wall-sec",
            help="Wall clock per checker run, s (default 20).",
            callback=_finite_seconds,
        ),
    ] = None,
    cpu_sec: Annotated[
        int | None, typer.Option("--cpu-sec", help="CPU per checker run, s (default 10).")
    ] = None,
    address_space_mb: Annotated[
        int | None, typer.Option("--address-space-mb", help="Address space, MB (default 512).")
    ] = None,
    output_bytes: Annotated[
        int | None, typer.Option("--output-bytes", help="Output cap, bytes (default 65536).")
    ] = None,
    commit: Annotated[bool, typer.Option("--commit", help="Commit exactly the new files.")] = False,
    allow_no_netns: Annotated[
        bool,
        typer.Option(
            "--allow-no-netns",
            help="Run the checker without isolation (dev only).",
            envvar=ALLOW_NO_NETNS_ENV,
        ),
    ] = False,
    root: RootOpt = None,
) -> None:
    """Write Certificates/ID/ after running the checker on every example."""
    from jigcli.commands import pose as command

    _done(
        command.run_certificate(
            problem_id,
            title=title,
            statement=statement,
            witness_format=witness_format,
            checker=checker,
            green=green,
            red=red or [],
            wall_sec=wall_sec,
            cpu_sec=cpu_sec,
            address_space_mb=address_space_mb,
            output_bytes=output_bytes,
            commit=commit,
            allow_no_netns=allow_no_netns,
            root=_root(root),
        )
    )


@pose_app.command("check")
def pose_check(
    base: Annotated[
        str | None, typer.Option("--base", help="The ref to compare with (default: merge base).")
    ] = None,
    json_out: JsonOpt = False,
    output_format: FormatOpt = None,
    root: RootOpt = None,
) -> None:
    """Fail when a posed statement or checker changed or vanished since BASE."""
    from jigcli.commands import pose as command

    _done(
        command.run_check(
            base=base, as_json=json_out, output_format=output_format, root=_root(root)
        )
    )


# -- policy ------------------------------------------------------------------------------


@app.command()
def policy(
    files: Annotated[
        list[Path], typer.Argument(metavar="FILE.lean...", help="Lean sources to scan.")
    ],
    json_out: JsonOpt = False,
    output_format: FormatOpt = None,
) -> None:
    """The static policy scan alone: exit 0 clean, 1 when any file has a violation."""
    from jigcli.commands import policy as command

    _done(command.run(files, as_json=json_out, output_format=output_format))


# -- the paper verifiers -----------------------------------------------------------------


@app.command()
def compile(
    file: Annotated[
        Path, typer.Argument(metavar="FILE.tex", help="The .tex file (or a file it includes).")
    ],
    as_json: JsonOpt = JSON.default,
    output_format: FormatOpt = FORMAT.default,
    watch: Annotated[bool, _declared(WATCH)] = WATCH.default,
    no_build: Annotated[bool, _declared(NO_BUILD)] = NO_BUILD.default,
    engine: Annotated[str | None, _declared(ENGINE)] = ENGINE.default,
) -> None:
    """Compile a LaTeX paper (shell escape off) and report its diagnostics."""
    from jigcli.commands import compile as command

    _done(
        command.run(
            file,
            as_json=as_json,
            output_format=output_format,
            watch=watch,
            no_build=no_build,
            engine=engine,
        )
    )


@app.command("lean-check")
def lean_check(
    file: Annotated[
        Path, typer.Argument(metavar="FILE", help="The paper (.tex) or its sibling .lean.")
    ],
    json_out: JsonOpt = False,
    watch: Annotated[bool, typer.Option("--watch", help="Re-check on every settled edit.")] = False,
    graph: Annotated[
        Path | None,
        typer.Option(
            "--graph",
            metavar="FILE",
            help="Write the dependency graph: .dot/.gv, .json, or .svg/.png/.pdf (Graphviz).",
        ),
    ] = None,
) -> None:
    """Check each statement of a paper against its declaration in the sibling .lean or the
    Lake project around it."""
    from jigcli.commands import lean_check as command

    _done(command.run(file, as_json=json_out, watch=watch, graph=graph))


@app.command()
def audit(
    file: Annotated[
        Path, typer.Argument(metavar="FILE", help="The paper (.tex) or Statements/LABEL.lean.")
    ],
    review: Annotated[bool, typer.Option("--review", help="Judge each pair yourself.")] = False,
    reader: Annotated[
        str | None, typer.Option("--reader", help="A command that judges each pair (JSON lines).")
    ] = None,
    json_out: JsonOpt = False,
    label: Annotated[
        list[str] | None,
        typer.Option("--label", metavar="PATTERN", help="Only labels matching (e.g. 'lem:*')."),
    ] = None,
    only_file: Annotated[
        list[Path] | None,
        typer.Option("--file", metavar="PATH", help="Only statements or declarations in PATH."),
    ] = None,
) -> None:
    """Does each declaration say what its statement says? Kept in <stem>.audit.json."""
    from jigcli.commands import audit as command

    _done(
        command.run(
            file,
            review=review,
            reader=reader,
            as_json=json_out,
            labels=label or (),
            files=only_file or (),
        )
    )


# -- the machine -------------------------------------------------------------------------


@app.command()
def verifiers(json_out: JsonOpt = False, root: RootOpt = None) -> None:
    """List the registered verifiers, their verdict words and statuses, and which are on."""
    from jigcli.commands import verifiers as command

    _done(command.run(as_json=json_out, root=_root(root)))


@app.command()
def doctor(
    verifiers: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="[VERIFIER]...",
            help="Exit 0 when these can run here (default: the verifiers the repo switches on), "
            "e.g. `jig doctor submission` for certificate work.",
        ),
    ] = None,
    json_out: JsonOpt = False,
    root: RootOpt = None,
) -> None:
    """What this machine has: Lean and its pins, sandbox routes, TeX engines, and which
    verifiers can run here."""
    from jigcli.commands import doctor as command

    _done(command.run(as_json=json_out, root=_root(root), verifiers=verifiers))


# click's words for a value it could not read, said the way a person reads them.
_PLAINER = (
    (re.compile(r"'(.*)' is not a valid float range"), r"'\1' is not a number"),
    (re.compile(r"'(.*)' is not a valid int(?:eger)? range"), r"'\1' is not a whole number"),
    (re.compile(r"'(.*)' is not a valid float"), r"'\1' is not a number"),
    (re.compile(r"'(.*)' is not a valid int(?:eger)?"), r"'\1' is not a whole number"),
    (
        re.compile(r"'(.*)' is not a valid boolean\. Recognized values: [^;]*"),
        r"'\1' is not a yes or no: use 1 or 0 (or true, false)",
    ),
)


def _parse_error_sentence(error: Any) -> str:
    """typer's parse error as one jig sentence that ends by pointing at the right --help."""
    message = str(error.format_message())
    for pattern, plainer in _PLAINER:
        message = pattern.sub(plainer, message)
    message = message.rstrip(".")
    if error.ctx is None:
        return message + "."
    where = f"see '{error.ctx.command_path} --help'."
    return (
        f"{message} {where[0].upper()}{where[1:]}"
        if message.endswith("?")
        else f"{message}; {where}"
    )


def main() -> None:
    guarded(_parse_and_run)


def _parse_and_run() -> int | None:
    """The app, with typer's own parse errors (a missing argument, an unknown option, a
    malformed value) said the way every jig error is: one line, `jig: …; see '… --help'.`"""
    from typer._click.exceptions import NoArgsIsHelpError
    from typer._click.exceptions import UsageError as ParseError

    try:
        result: int | None = app(standalone_mode=False, prog_name="jig")
    except NoArgsIsHelpError as error:  # plain `jig` or `jig pose`: the help, as typer shows it
        error.show()
        return error.exit_code
    except ParseError as error:
        raise UsageError(_parse_error_sentence(error)) from None
    except typer.Abort:  # end of input at a prompt
        return 1
    return result
