"""A stand-in Lean toolchain (`lake`, `lean`, `leanchecker`) for tests on machines with no Lean.

It replays Lean 4.33's real output formats; each reply below names the real output it
follows. What it replies is chosen by the test through a scenario JSON file named by
`JIG_STANDIN_SCENARIO`; every invocation is appended to the log file named by
`JIG_STANDIN_LOG` (one JSON line: {"tool", "argv"}), so a test can count builds and runs.

It does not elaborate anything: for `lean --json FILE` it reads the generated check file,
finds the commands jig wrote there, and answers each the way the scenario says Lean would.

Scenario fields (all optional):
  version            `lean --version` number (default 4.33.0)
  build              "ok" | "error" | "hang"
  build_error        the Lean error text of a failing build
  lean               "ok" | "crash" | "hang" | "import_conflict"
  import_conflict    {"module", "constant", "origin"}
  provenance         {decl: module actually declaring it} (default: the expected module)
  module_axioms      axioms the submitted module declares
  submitted_type / canonical_type   pretty-printed types for `#jig_types`
  restatement        null | "mismatch" | "heartbeats" | "kernel_timeout"
  axioms             what `#print axioms` lists for the decl (default [propext]); a list for
                     every decl, or {decl: list} per decl (a decl it leaves out: [propext])
  unknown            decls `#print axioms` answers "Unknown constant" for
  private            decls `#print axioms` names by their private name `_private.….0.<decl>`
  messages           what Lean said while elaborating the file's own lines, printed first:
                     [{"line", "column", "severity", "data", "kind"?}] (e.g. a
                     "declaration uses `sorry`" warning or an error inside a declaration)
  term               the normalized term text `#jig_term` writes (default: derived from decl)
  refutation         true | false
  replay             "ok" | "rejected"
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


def main(tool: str, argv: list[str]) -> int:
    _log(tool, argv)
    scenario = _scenario()
    if tool == "lake":
        return _lake(argv, scenario)
    if tool == "lean":
        return _lean(argv, scenario)
    if tool == "leanchecker":
        return _leanchecker(argv, scenario)
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
        # Real `lake env CMD ARGS` sets LEAN_PATH and runs CMD: here, the stand-in on PATH.
        os.execvp(argv[1], argv[1:])
    if argv and argv[0] == "build":
        return _lake_build(argv[1:], scenario)
    print(f"error: unknown command '{' '.join(argv)}'", file=sys.stderr)
    return 1


def _lake_build(targets: list[str], scenario: dict[str, Any]) -> int:
    mode = scenario.get("build", "ok")
    total = len(targets) + 1
    if mode == "hang":
        _hang(scenario)
    if mode == "error":
        # Real (Lake 5.0.0 / Lean 4.3x, recorded): "✖ [989/989] Building M (1.4s)",
        # "error: path:49:6: Type mismatch: …", "error: Lean exited with code 1",
        # "Some required targets logged failures:", "- M"; stderr "error: build failed".
        module = targets[0]
        path = module.replace(".", "/") + ".lean"
        message = scenario.get("build_error", "Unknown identifier `foo`")
        print(f"✖ [1/{total}] Building {module} (0.4s)")
        print(f"error: {path}:3:2: {message}")
        print("error: Lean exited with code 1")
        print("Some required targets logged failures:")
        print(f"- {module}")
        print("error: build failed", file=sys.stderr)
        return 1
    # Real (recorded 4.33.0): "✔ [3/4] Built SorryLab (716ms)", then
    # "Build completed successfully (4 jobs)."
    for index, target in enumerate(targets, start=1):
        print(f"✔ [{index}/{total}] Built {target} (120ms)")
    print(f"Build completed successfully ({total} jobs).")
    return 0


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


_COMMAND = re.compile(r"^(#jig_\w+|#print axioms|example :)(.*)$")
_STR = re.compile(r'"((?:[^"\\]|\\.)*)"')


def _answers(file: Path, scenario: dict[str, Any]) -> list[dict[str, Any]]:
    if scenario.get("lean") == "import_conflict":
        conflict = scenario["import_conflict"]
        # Real (src/Lean/Environment.lean `throwAlreadyImported`, recorded at 1:0):
        # "import M failed, environment already contains 'c' from M'".
        text = (
            f"import {conflict['module']} failed, environment already contains "
            f"'{conflict['constant']}' from {conflict['origin']}"
        )
        return [_message(file, 1, 0, text, "error")]
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
        match = _COMMAND.match(line.strip())
        if match:
            out.extend(_answer(file, number, match.group(1), match.group(2).strip(), scenario))
    return out


def _idents(args: str) -> list[str]:
    words = _STR.sub("", args).replace("@", " ").split()
    return [w.replace("«", "").replace("»", "") for w in words if w not in (":", ":=")]


def _strings(args: str) -> list[str]:
    return [s.replace('\\"', '"').replace("\\\\", "\\") for s in _STR.findall(args)]


def _marker(file: Path, line: int, check: str, payload: dict[str, Any]) -> dict[str, Any]:
    # jig's own marker, as Verify/Guard.lean logs it with `logInfo`: an information message
    # whose data is `JIG:<check>:<compressed json>` (Lean's `Json.compress`, keys sorted).
    body = json.dumps(payload, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    return _message(file, line, 0, f"JIG:{check}:{body}")


def _answer(
    file: Path, line: int, command: str, args: str, scenario: dict[str, Any]
) -> list[dict[str, Any]]:
    names, strings = _idents(args), _strings(args)
    if command == "#jig_provenance":
        decl, expected = names[0], strings[0]
        actual = scenario.get("provenance", {}).get(decl, expected)
        payload = {"decl": decl, "expected": expected, "actual": actual, "ok": actual == expected}
        return [_marker(file, line, "provenance", payload)]
    if command == "#jig_module_axioms":
        axioms = scenario.get("module_axioms", [])
        payload = {"module": strings[0], "imported": True, "axioms": axioms}
        return [_marker(file, line, "module_axioms", payload)]
    if command == "#jig_types":
        canonical = scenario.get("canonical_type", "∀ (n : ℕ), Even (n * (n + 1))")
        submitted = scenario.get("submitted_type", canonical)
        payload = {
            "decl": names[0],
            "statement": names[1],
            "submitted": submitted,
            "canonical": canonical,
        }
        return [_marker(file, line, "types", payload)]
    if command == "example :":
        return _bridge(file, line, names, scenario)
    if command == "#print axioms":
        if names[0] in scenario.get("unknown", []):
            # Real 4.33 (`realizeGlobalConstNoOverload`): "Unknown constant `d`", at the name.
            return [_message(file, line, 14, f"Unknown constant `{names[0]}`", "error")]
        return [_message(file, line, 0, _print_axioms(names[0], scenario))]
    if command == "#jig_term":
        return [_term(file, line, names[0], strings, scenario)]
    if command == "#jig_refutation":
        ok = bool(scenario.get("refutation", True))
        payload = {
            "lhs": names[0],
            "rhs": names[1],
            "ok": ok,
            "detail": "" if ok else "not definitionally equal",
        }
        return [_marker(file, line, "refutation", payload)]
    return []


def _bridge(
    file: Path, line: int, names: list[str], scenario: dict[str, Any]
) -> list[dict[str, Any]]:
    statement, decl = names[0], names[1]
    mode = scenario.get("restatement")
    if mode == "mismatch":
        # Real (Lean 4.3x elaborator, recorded): "Type mismatch\n  h\nhas type\n  a\nbut is
        # expected to have type\n  b" (capital T; older toolchains: "type mismatch"). The term
        # is the delaborated constant: a decl with no implicit binders prints without `@`.
        submitted = scenario.get("submitted_type", "∀ (n : ℕ), Even n → Even (n * (n + 1))")
        text = (
            f"Type mismatch\n  {decl}\nhas type\n  {submitted}\n"
            f"but is expected to have type\n  {statement}"
        )
        return [_message(file, line, 40, text, "error")]
    if mode == "heartbeats":
        # Real (src/Lean/CoreM.lean `throwMaxHeartbeat`, tagged runtime.maxHeartbeats; it
        # shows the option's value, here the check file's `set_option maxHeartbeats 2000000`
        # (the core limit is the option × 1000, printed ÷ 1000); the limit advice is a
        # `.note`, `useDiagnosticMsg` a `.hint'`, rendered as in #guard_msgs transcripts of
        # recent toolchains): "(deterministic) timeout at `whnf`, maximum number of heartbeats
        # (2000000) has been reached\n\nNote: Use `set_option maxHeartbeats <num>` …\n\nHint: …".
        text = (
            "(deterministic) timeout at `whnf`, maximum number of heartbeats (2000000) has been "
            "reached\n\nNote: Use `set_option maxHeartbeats <num>` to set the limit.\n\nHint: "
            "Additional diagnostic information may be available using the "
            "`set_option diagnostics true` command."
        )
        return [_message(file, line, 40, text, "error", kind="runtime.maxHeartbeats")]
    if mode == "kernel_timeout":
        # Real (src/Lean/Message.lean `Kernel.Exception.toMessageData`, recorded
        # "error: (kernel) deterministic timeout"): the elaborator accepted the bridge, the
        # kernel ran out of heartbeats checking it.
        return [_message(file, line, 0, "(kernel) deterministic timeout", "error")]
    return []


def _print_axioms(decl: str, scenario: dict[str, Any]) -> str:
    # Real (src/Lean/Elab/Print.lean `printAxiomsOf`): "'d' does not depend on any axioms" or
    # "'d' depends on axioms: [a, b]" (recorded 4.33.0 transcript, e.g.
    # "'SorryLab.compiled' depends on axioms: [SorryLab.compiled._native.native_decide.ax_1_1]").
    # A `private` declaration is printed under its real name, e.g. "'_private._stdin.0.Test.x'
    # depends on axioms: […]" (recorded `lake env lean` transcript).
    axioms = scenario.get("axioms", ["propext"])
    if isinstance(axioms, dict):
        axioms = axioms.get(decl, ["propext"])
    shown = f"_private._stdin.0.{decl}" if decl in scenario.get("private", []) else decl
    if not axioms:
        return f"'{shown}' does not depend on any axioms"
    return f"'{shown}' depends on axioms: [{', '.join(axioms)}]"


def _term(
    file: Path, line: int, decl: str, strings: list[str], scenario: dict[str, Any]
) -> dict[str, Any]:
    module, target = strings[0], Path(strings[1])
    terms = scenario.get("term", {})
    text = terms.get(decl, f"C{decl}{{}} ") if isinstance(terms, dict) else str(terms)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    payload = {
        "decl": decl,
        "module": module,
        "file": str(target),
        "bytes": len(text.encode("utf-8")),
        "truncated": False,
    }
    return _marker(file, line, "term", payload)


# -- leanchecker ------------------------------------------------------------------------------


def _leanchecker(argv: list[str], scenario: dict[str, Any]) -> int:
    module = argv[-1] if argv else "?"
    if scenario.get("lake_warning"):
        print(scenario["lake_warning"], file=sys.stderr)
    if scenario.get("replay", "ok") == "rejected":
        # Real (recorded): "leanchecker found a problem in Candidate\nuncaught exception:
        # while replaying declaration 'smuggled':\n(kernel) declaration type mismatch, …", exit 1;
        # all of it on stderr (src/LeanChecker.lean: `IO.eprintln` then the rethrown error,
        # which the runtime prints as "uncaught exception: …").
        print(f"leanchecker found a problem in {module}", file=sys.stderr)
        print(f"uncaught exception: while replaying declaration '{module}.proof':", file=sys.stderr)
        print(
            f"(kernel) declaration type mismatch, '{module}.proof' has type\n  True\n"
            "but it is expected to have type\n  False",
            file=sys.stderr,
        )
        return 1
    # Real: exit 0 and nothing printed.
    return 0


# -- hanging ----------------------------------------------------------------------------------


def _hang(scenario: dict[str, Any]) -> None:
    """Sleep with a grandchild in the same process group, as a wedged Lean would."""
    child = subprocess.Popen(["sleep", "300"])
    pid_file = scenario.get("hang_pid_file")
    if pid_file:
        Path(pid_file).write_text(str(child.pid), encoding="utf-8")
    time.sleep(300)
