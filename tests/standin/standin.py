"""A stand-in Lean toolchain (`lake`, `lean`, and the judge `lake build` makes) for tests on
machines with no Lean.

It replays Lean 4.33's real output formats; each reply below names the real output it
follows. What it replies is chosen by the test through a scenario JSON file named by
`JIG_STANDIN_SCENARIO`; every invocation is appended to the log file named by
`JIG_STANDIN_LOG` (one JSON line: {"tool", "argv"}), so a test can count builds and runs.

It does not elaborate anything. `lean --json FILE` (for `jig lean-check` and `jig pose`)
answers the `#print axioms` commands in FILE the way the scenario says Lean would. `lake build
jig_judge …` (the trusted build) writes a stand-in judge to `.lake/build/bin/jig_judge`, which
`lake env` then runs like the real one: it writes one `jig.judge.v1` report (the format of
`Verify/Judge.lean`'s `render`, keys and stages as there) from what the scenario says the
kernel found, its imports read from the module's source as the real judge reads them from the
`.olean` header.

Scenario fields (all optional):
  version            `lean --version` number (default 4.33.0)
  trusted_build      "ok" | "error" | "hang" | "no_judge" (succeeds, writes no judge):
                     `lake build jig_judge …`
  build              "ok" | "error" | "hang": the submission's `lake build --wfail M`
  build_error        the Lean error text of a failing build
  build_output       extra lines the submission's build prints (text the submission controls:
                     forged `#print axioms` answers, `JIG:` markers, "Build completed …")
  build_writes       {repo-relative path: text} files the submission's build writes (it runs
                     the submission's code)
  sorry_warning      the submission has a `sorry`: its build logs Lean's warning, which
                     `--wfail` turns into a failed build
  judge              how the judge ends: "ok" | "hang" | "crash" (SIGABRT, no report) |
                     "silent" (exit 0, no report) | "exit_1" (a report, then exit 1) |
                     "stdout" (a report, and a line on stdout) | "truncated" | "not_json" |
                     "duplicate_keys" | "wrong_types" | "other_decl" (a report about another
                     decl) | "bad_utf8"
  judge_stderr       text the judge prints on stderr (diagnostics; never read)
  judge_failure      "load" | "import": the stage at which the judge could not decide
  report_nulls       report keys the judge leaves null although it should have answered them
  extra_imports      imports the module's `.olean` header has beyond its source's (as if the
                     policy had missed one)
  decl_in_module     false: the decl is not a constant of the module
  statement_module   the module that declared `Statements.<id>.statement` (default the right one)
  clashes            names of module constants already in the trusted environment
  duplicates         module theorems identical to trusted ones
  unchecked          [{"name", "why"}] code the kernel does not check
  module_axioms      axioms the submitted module declares
  replay             "accepted" | "rejected" | "budget": the kernel replay of the module
  bridge             "accepted" | "rejected" | "budget": the anti-restatement bridge
  submitted_type / canonical_type   pretty-printed types
  axioms             the decl's transitive axioms (default [propext]); a list for every decl,
                     or {decl: list} per decl (a decl it leaves out: [propext]); also what
                     `#print axioms` lists
  term               the normalized term text (default: derived from decl); str or {decl: str}
  truncated          the term serialization ran out of fuel
  refutation         "accepted" | "rejected" | "budget"
  unknown            decls `#print axioms` answers "Unknown constant" for
  private            decls `#print axioms` names by their private name `_private.….0.<decl>`
  lean               "ok" | "crash" | "hang": `lean --json`
  messages           what Lean said while elaborating the file's own lines, printed first:
                     [{"line", "column", "severity", "data", "kind"?}] (e.g. a
                     "declaration uses `sorry`" warning or an error inside a declaration)
  lake_warning       a line `lake env` prints on stderr before running the tool (Lake's own
                     `warning: …` lines, e.g. about a package with local changes)
  hang_pid_file      where a hanging run writes its grandchild's pid
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

COMMIT = "d8b18978322de05a8f3dba51ef03cf5461676c17"
JUDGE_EXE = "jig_judge"


def main(tool: str, argv: list[str]) -> int:
    _log(tool, argv)
    scenario = _scenario()
    if tool == "lake":
        return _lake(argv, scenario)
    if tool == "lean":
        return _lean(argv, scenario)
    if tool == "jig_judge":
        return _judge(argv, scenario)
    print(f"stand-in: unknown tool {tool}", file=sys.stderr)
    return 2


def _log(tool: str, argv: list[str]) -> None:
    path = os.environ.get("JIG_STANDIN_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as log:
            log.write(json.dumps({"tool": tool, "argv": argv}) + "\n")


def _scenario() -> dict[str, Any]:
    path = os.environ.get("JIG_STANDIN_SCENARIO")
    if not path:
        return {}
    data: dict[str, Any] = json.loads(Path(path).read_text(encoding="utf-8"))
    return data


def _version(scenario: dict[str, Any]) -> str:
    return str(scenario.get("version", "4.33.0"))


# -- lake -------------------------------------------------------------------------------------


def _lake(argv: list[str], scenario: dict[str, Any]) -> int:
    if argv == ["--version"]:
        # Real: "Lake version 5.0.0-src+d8b1897 (Lean version 4.33.0)" (recorded transcripts).
        print(f"Lake version 5.0.0-src+d8b1897 (Lean version {_version(scenario)})")
        return 0
    if argv and argv[0] == "env":
        # Real `lake env CMD ARGS` sets LEAN_PATH and runs CMD: here, the stand-in on PATH (or
        # the stand-in judge the trusted build wrote).
        if scenario.get("lake_warning"):
            print(scenario["lake_warning"], file=sys.stderr)
        os.execvp(argv[1], argv[1:])
    if argv and argv[0] == "build":
        flags = [a for a in argv[1:] if a.startswith("-")]
        targets = [a for a in argv[1:] if not a.startswith("-")]
        if JUDGE_EXE in targets:
            return _trusted_build(targets, scenario)
        return _lake_build(targets, "--wfail" in flags, scenario)
    print(f"error: unknown command '{' '.join(argv)}'", file=sys.stderr)
    return 1


def _trusted_build(targets: list[str], scenario: dict[str, Any]) -> int:
    mode = scenario.get("trusted_build", "ok")
    if mode == "hang":
        _hang(scenario)
    if mode == "error":
        return _failed_build("Statements.S001", "Unknown identifier `Nat.nope`", len(targets) + 1)
    if mode != "no_judge":
        _write_judge(Path.cwd() / ".lake" / "build" / "bin" / JUDGE_EXE)
    return _built(targets)


def _lake_build(targets: list[str], fail_on_warnings: bool, scenario: dict[str, Any]) -> int:
    mode = scenario.get("build", "ok")
    total = len(targets) + 1
    for line in scenario.get("build_output", []):
        print(line)
    for rel, text in scenario.get("build_writes", {}).items():
        target = Path.cwd() / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    if mode == "hang":
        _hang(scenario)
    module = targets[0]
    if mode == "error":
        message = scenario.get("build_error", "Unknown identifier `foo`")
        return _failed_build(module, message, total)
    if scenario.get("sorry_warning"):
        # Real (Lean's warning, printed by Lake like an error, `warning: path:line:col: …`);
        # with `--wfail` the build fails after it. Only the exit status decides anything.
        path = module.replace(".", "/") + ".lean"
        print(f"⚠ [1/{total}] Built {module} (0.4s)")
        print(f"warning: {path}:9:8: declaration uses 'sorry'")
        if fail_on_warnings:
            print("error: build failed", file=sys.stderr)
            return 1
    return _built(targets)


def _failed_build(module: str, message: str, total: int) -> int:
    # Real (Lake 5.0.0 / Lean 4.3x, recorded): "✖ [989/989] Building M (1.4s)",
    # "error: path:49:6: Type mismatch: …", "error: Lean exited with code 1",
    # "Some required targets logged failures:", "- M"; stderr "error: build failed".
    path = module.replace(".", "/") + ".lean"
    print(f"✖ [1/{total}] Building {module} (0.4s)")
    print(f"error: {path}:3:2: {message}")
    print("error: Lean exited with code 1")
    print("Some required targets logged failures:")
    print(f"- {module}")
    print("error: build failed", file=sys.stderr)
    return 1


def _built(targets: list[str]) -> int:
    # Real (recorded 4.33.0): "✔ [3/4] Built SorryLab (716ms)", then
    # "Build completed successfully (4 jobs)."
    total = len(targets) + 1
    for index, target in enumerate(targets, start=1):
        print(f"✔ [{index}/{total}] Built {target} (120ms)")
    print(f"Build completed successfully ({total} jobs).")
    return 0


def _write_judge(path: Path) -> None:
    """The executable the real trusted build links from Verify/Judge.lean; here a script that
    comes back to this module. Written whole, then renamed: parallel builds share it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    here = Path(__file__).resolve().parent
    script = (
        "#!/usr/bin/env python3\n"
        '"""The stand-in judge, written by the stand-in `lake build jig_judge`."""\n'
        "import sys\n"
        f"sys.path.insert(0, {str(here)!r})\n"
        "import standin  # noqa: E402\n"
        f"sys.exit(standin.main({JUDGE_EXE!r}, sys.argv[1:]))\n"
    )
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    tmp.write_text(script, encoding="utf-8")
    tmp.chmod(0o755)
    os.replace(tmp, path)


# -- lean -------------------------------------------------------------------------------------


def _lean(argv: list[str], scenario: dict[str, Any]) -> int:
    if argv == ["--version"]:
        # Real: "Lean (version 4.33.0, x86_64-unknown-linux-gnu, commit d8b18978…, Release)".
        platform = "x86_64-unknown-linux-gnu"
        print(f"Lean (version {_version(scenario)}, {platform}, commit {COMMIT}, Release)")
        return 0
    if "--json" not in argv:
        print("stand-in lean only answers --version and --json FILE", file=sys.stderr)
        return 2
    file = Path(argv[-1])
    mode = scenario.get("lean", "ok")
    if mode == "hang":
        _hang(scenario)
    if mode == "crash":
        # Real (recorded lake log): stderr "Stack overflow detected. Aborting." then the
        # process dies by SIGABRT (Lake reports "Lean exited with code 134").
        sys.stdout.flush()
        print("Stack overflow detected. Aborting.", file=sys.stderr)
        sys.stderr.flush()
        os.abort()
    messages = _answers(file, scenario)
    for message in messages:
        print(json.dumps(message, ensure_ascii=False, separators=(",", ":"), sort_keys=True))
    return 1 if any(m["severity"] == "error" for m in messages) else 0


def _message(
    file: Path,
    line: int,
    column: int,
    data: str,
    severity: str = "information",
    kind: str = "[anonymous]",
    end: tuple[int, int] | None = None,
) -> dict[str, Any]:
    # Real 4.33 `lean --json` line (recorded 4.33.1): keys caption, data, endPos, fileName,
    # isSilent, keepFullRange, kind, pos, severity; pos line 1-based, column 0-based.
    end_line, end_column = end or (line, column + 1)
    return {
        "caption": "",
        "data": data,
        "endPos": {"column": end_column, "line": end_line},
        "fileName": str(file),
        "isSilent": False,
        "keepFullRange": False,
        "kind": kind,
        "pos": {"column": column, "line": line},
        "severity": severity,
    }


_PRINT_AXIOMS = re.compile(r"^#print axioms\s+(\S+)")


def _answers(file: Path, scenario: dict[str, Any]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [
        _message(
            file,
            m["line"],
            m.get("column", 0),
            m["data"],
            m.get("severity", "error"),
            m.get("kind", "[anonymous]"),
        )
        for m in scenario.get("messages", [])
    ]
    for number, line in enumerate(file.read_text(encoding="utf-8").splitlines(), start=1):
        match = _PRINT_AXIOMS.match(line.strip())
        if match:
            decl = match.group(1).replace("«", "").replace("»", "")
            out.append(_print_axioms_answer(file, number, decl, scenario))
    return out


def _print_axioms_answer(
    file: Path, line: int, decl: str, scenario: dict[str, Any]
) -> dict[str, Any]:
    if decl in scenario.get("unknown", []):
        # Real 4.33 (`realizeGlobalConstNoOverload`): "Unknown constant `d`", at the name.
        return _message(file, line, 14, f"Unknown constant `{decl}`", "error")
    # Real (src/Lean/Elab/Print.lean `printAxiomsOf`): "'d' does not depend on any axioms" or
    # "'d' depends on axioms: [a, b]" (recorded 4.33.0 transcript, e.g.
    # "'SorryLab.compiled' depends on axioms: [SorryLab.compiled._native.native_decide.ax_1_1]").
    # A `private` declaration is printed under its real name, e.g. "'_private._stdin.0.Test.x'
    # depends on axioms: […]" (recorded `lake env lean` transcript).
    axioms = _axioms_of(decl, scenario)
    shown = f"_private._stdin.0.{decl}" if decl in scenario.get("private", []) else decl
    if not axioms:
        return _message(file, line, 0, f"'{shown}' does not depend on any axioms")
    return _message(file, line, 0, f"'{shown}' depends on axioms: [{', '.join(axioms)}]")


def _axioms_of(decl: str, scenario: dict[str, Any]) -> list[str]:
    axioms = scenario.get("axioms", ["propext"])
    if isinstance(axioms, dict):
        return list(axioms.get(decl, ["propext"]))
    return list(axioms)


# -- the judge ---------------------------------------------------------------------------------

ALLOWED_ROOTS = ("Mathlib", "Batteries", "Std", "Init", "Aesop", "Plausible", "Commons")
_IMPORT = re.compile(r"^import\s+(\S+)", re.MULTILINE)


def _judge(argv: list[str], scenario: dict[str, Any]) -> int:
    args = dict(zip(argv[::2], argv[1::2], strict=False))
    mode = scenario.get("judge", "ok")
    if scenario.get("judge_stderr"):
        print(scenario["judge_stderr"], file=sys.stderr)
    if mode == "hang":
        _hang(scenario)
    if mode == "crash":
        # Real: a stack overflow aborts the process (SIGABRT) before anything is written.
        print("Stack overflow detected. Aborting.", file=sys.stderr)
        sys.stderr.flush()
        os.abort()
    if mode == "silent":
        return 0
    report = _report(args, scenario)
    for key in scenario.get("report_nulls", []):
        report[key] = None
    if mode == "other_decl":
        report["decl"] = "Submissions.S001.Someone.proof"
    if mode == "wrong_types":
        report["axioms"] = "propext"
    text = json.dumps(report, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    if mode == "duplicate_keys":
        # A later "axioms" in the same object: a reader keeping the last one would see none.
        text = text[:-1] + ',"axioms":[]}'
    if mode == "truncated":
        text = text[: len(text) // 2]
    if mode == "not_json":
        text = "JIG:report:" + text
    data = text.encode("utf-8")
    if mode == "bad_utf8":
        data = b"\xff" + data
    # Real: `writeAtomically`, a `.tmp` sibling then a rename.
    out = Path(args["--out"])
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, out)
    if mode == "stdout":
        print('{"verdict": "green"}')
    return 1 if mode == "exit_1" else 0


def _report(args: dict[str, str], scenario: dict[str, Any]) -> dict[str, Any]:
    """`Verify/Judge.lean`'s report: every key present, null for a stage not reached."""
    statement_id, module, decl = args["--statement"], args["--module"], args["--decl"]
    refutes = args.get("--refutes")
    report: dict[str, Any] = {
        "schema": "jig.judge.v1",
        "statement_id": statement_id,
        "module": module,
        "decl": decl,
        "refutes": refutes,
        "failure": None,
        **dict.fromkeys(
            ("imports", "provenance", "unchecked", "module_axioms", "replay", "bridge"), None
        ),
        **dict.fromkeys(("axioms", "term", "statement_term", "refutation", "types"), None),
    }
    if scenario.get("judge_failure") == "load":
        olean = f".lake/build/lib/lean/{module.replace('.', '/')}.olean"
        report["failure"] = f"load: {olean} does not exist: the module was not built"
        return report
    source = Path(module.replace(".", "/") + ".lean")
    imported = _IMPORT.findall(source.read_text(encoding="utf-8")) if source.is_file() else []
    imported += scenario.get("extra_imports", [])
    refused = [m for m in imported if m.split(".")[0] not in ALLOWED_ROOTS]
    report["imports"] = {"modules": imported, "refused": refused}
    if refused:
        return report
    if scenario.get("judge_failure") == "import":
        report["failure"] = "import: object file … of module Mathlib.Nope does not exist"
        return report
    statement = f"Statements.{statement_id}.statement"
    clashes = [
        {
            "name": n,
            "module": f"Statements.{statement_id}"
            if n.startswith("Statements.")
            else "Mathlib.Algebra.Group.Nat.Even",
        }
        for n in scenario.get("clashes", [])
    ]
    provenance = {
        "decl_in_module": scenario.get("decl_in_module", True),
        "statement_module": scenario.get("statement_module", f"Statements.{statement_id}"),
        "clashes": clashes,
        "duplicates": scenario.get("duplicates", []),
    }
    report["provenance"] = provenance
    report["module_axioms"] = scenario.get("module_axioms", [])
    canonical = scenario.get("canonical_type", "∀ (n : Nat), Even (n * (n + 1))")
    report["types"] = {"canonical": canonical, "submitted": None}
    if (
        not provenance["decl_in_module"]
        or clashes
        or provenance["statement_module"] != f"Statements.{statement_id}"
    ):
        return report
    report["unchecked"] = scenario.get("unchecked", [])
    if report["unchecked"]:
        return report
    replay = scenario.get("replay", "accepted")
    report["replay"] = _kernel_check(replay, f"while replaying '{decl}': ")
    if replay != "accepted":
        return report
    report["replay"]["constants"] = 3
    bridge = scenario.get("bridge", "accepted")
    report["bridge"] = _kernel_check(bridge, "")
    if bridge != "accepted":
        submitted = scenario.get("submitted_type", "∀ (n : Nat), Even n → Even (n * (n + 1))")
        report["types"]["submitted"] = submitted
    report["axioms"] = _axioms_of(decl, scenario)
    terms = scenario.get("term", {})
    text = terms.get(decl, f"C{decl}{{}} ") if isinstance(terms, dict) else str(terms)
    report["term"] = {"text": text, "truncated": bool(scenario.get("truncated", False))}
    report["statement_term"] = {"text": f"C{statement}{{}} ", "truncated": False}
    if refutes:
        report["refutation"] = _kernel_check(scenario.get("refutation", "accepted"), "")
    return report


def _kernel_check(verdict: str, context: str) -> dict[str, Any]:
    # Real (`Kernel.Exception.toMessageData`, src/Lean/Message.lean): "(kernel) declaration
    # type mismatch, …"; a budget: "(kernel) deterministic timeout", "(kernel) deep recursion
    # detected", "(kernel) excessive memory consumption detected".
    said = {
        "accepted": "",
        "rejected": "(kernel) declaration type mismatch, '_jig_judge.bridge' has type\n  "
        "∀ (n : Nat), Even n → Even (n * (n + 1))\nbut it is expected to have type\n  "
        "Statements.S001.statement",
        "budget": "(kernel) deep recursion detected",
    }[verdict]
    return {"verdict": verdict, "detail": context + said if said else ""}


# -- hanging ----------------------------------------------------------------------------------


def _hang(scenario: dict[str, Any]) -> None:
    """Sleep with a grandchild in the same process group, as a wedged Lean would."""
    child = subprocess.Popen(["sleep", "300"])
    pid_file = scenario.get("hang_pid_file")
    if pid_file:
        Path(pid_file).write_text(str(child.pid), encoding="utf-8")
    time.sleep(300)
