"""A stand-in Lean toolchain (`lake`, `lean`, and the comparator and lean4export the trusted
build makes) for tests on machines with no Lean.

It replays the real tools' command lines, output formats and exit statuses; each reply below
names the real output it follows. What it replies is chosen by the test through a scenario JSON
file named by `JIG_STANDIN_SCENARIO`; every invocation outside a sandbox is appended to the log
file named by `JIG_STANDIN_LOG` (one JSON line: {"tool", "argv"}), so a test can count runs.

It elaborates nothing. A `.olean` here is a small JSON document: the module, its imports, its
constants (each `{"name", "kind", "type_uses", "value_uses"}`: the constants its type and its
value name). The tools:

- `lean --json FILE` (for `jig lean-check` and `jig pose`) answers the `#print axioms` commands
  in FILE the way the scenario says Lean would; `lean --print-prefix` names the toolchain;
- `lake build @Comparator/comparator @lean4export/lean4export …` (the trusted build) writes the
  two programs where Lake puts a package's executables and an `.olean` for each module target;
  `lake env` sets `LEAN_SYSROOT` and `LEAN_PATH` as Lake does, the sysroot a stand-in toolchain
  folder written beside the scenario (`bin/lean`, `bin/lake`, this module, a copy of the
  scenario, `lib/lean/Init.olean` with the axioms and primitives Lean's `Init` has);
- `lake build M` in a run's project (inside jig's sandbox, where it reads the scenario from
  the toolchain's copy and logs nothing): `JigChallenge`, `JigSolution` and the submission's
  module, each after what it imports, the submission's code run at build time as the
  scenario says;
- `lean4export M [--ignore-missing] -- NAMES` (leanprover/lean4export `Main.lean`): the closure
  of NAMES in M's environment on stdout in NDJSON format 3.1.0; a missing name panics
  (SIGABRT under `LEAN_ABORT_ON_PANIC=1`) unless `--ignore-missing`;
- `comparator CONFIG` (leanprover/comparator `Main.lean` at `v4.33.0`): `lean --print-prefix`,
  `which git`, then through `$COMPARATOR_LANDRUN` with the tag's exact arguments: build and
  export the challenge, build and export the solution; compare each theorem's kind and the
  closure of its type, check the axioms, "replay" the solution (the scenario says whether the
  kernel accepts), and print "Your solution is okay!" (exit 0); any failure is an uncaught
  exception (exit 1), as at the tag.

Scenario fields (all optional):
  version            `lean --version` number (default 4.33.0)
  trusted_build      "ok" | "error" | "hang" | "no_comparator" (succeeds, writes no comparator)
  challenge          "ok" | "error" (an import that does not exist) | "link_error" (the
                     refutation link is not `Iff.rfl`): the challenge's build
  build              "ok" | "error" | "hang": the submission module's build
  build_error        the Lean error text of a failing build
  build_output       extra lines the submission's build prints (text the submission controls)
  build_writes       {path: text} files the submission's code tries to write at build time
  build_script       a /bin/sh script the submission's code runs at build time (`$OUT` is the
                     project's `.lake/build`); its output goes to stderr
  solution           "ok" | "type_mismatch" | "shadowed" | "unknown_decl": the solution's build
  axioms             the decl's axioms (default [propext]); a list, or {decl: list}; also what
                     `#print axioms` lists
  declares_decl      false: the submission module does not declare the decl (another module of
                     the trusted side does: the provenance attack)
  replay             "accepted" | "rejected": what comparator's kernel replay finds
  mismatch           true: the solution's statement differs from the challenge's (a forged
                     `.olean` of the statement), which comparator's comparison finds
  comparator         "ok" | "crash" (SIGSEGV) | "hang"
  export             "ok" | "garbage" (lean4export prints what is not NDJSON)
  lean               "ok" | "crash" | "hang": `lean --json`
  messages, unknown, private   what `lean --json` says (see `_answers`)
  lake_warning, lake_env       `lake env`'s stderr line; "fail": it cannot load the workspace
  hang_pid_file, hang_marker   where a hanging run writes its grandchild's pid; its marker
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

COMMIT = "d8b18978322de05a8f3dba51ef03cf5461676c17"
COMPARATOR = ("Comparator", "comparator")
LEAN4EXPORT = ("lean4export", "lean4export")
CHALLENGE, SOLUTION, GOAL, LINK = "JigChallenge", "JigSolution", "JigRun.goal", "JigRun.refutes"
# What Lean's `Init` holds that these tests need: the axioms, and the primitives comparator
# exports beside the theorems (`primitiveTargets` in `Main.lean` at the tag).
INIT_AXIOMS = ("propext", "Quot.sound", "Classical.choice", "sorryAx", "Lean.ofReduceBool")
PRIMITIVES = (
    *(f"Nat.{op}" for op in ("add", "sub", "mul", "pow", "gcd", "div", "mod", "beq", "ble")),
    *(f"Nat.{op}" for op in ("land", "lor", "xor", "shiftLeft", "shiftRight")),
    "String.ofList",
    "Char.ofNat",
    "List",
    "eagerReduce",
)
PANIC_STATUS = 134


def main(tool: str, argv: list[str]) -> int:
    _log(tool, argv)
    scenario = _scenario()
    if tool == "lake":
        return _lake(argv, scenario)
    if tool == "lean":
        return _lean(argv, scenario)
    if tool == "lean4export":
        return _lean4export(argv, scenario)
    if tool == "comparator":
        return _comparator(argv, scenario)
    print(f"stand-in: unknown tool {tool}", file=sys.stderr)
    return 2


def _log(tool: str, argv: list[str]) -> None:
    path = os.environ.get("JIG_STANDIN_LOG")
    if path:
        entry = {"tool": tool, "argv": argv, "cwd": os.getcwd()}
        with contextlib.suppress(OSError), open(path, "a", encoding="utf-8") as log:
            log.write(json.dumps(entry) + "\n")


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
        # Real `lake env CMD ARGS` (`lake help env`) sets LEAN_SYSROOT to the toolchain's
        # folder and LEAN_PATH to the workspace's library folders, then runs CMD.
        if scenario.get("lake_warning"):
            print(scenario["lake_warning"], file=sys.stderr)
        if scenario.get("lake_env") == "fail":
            # Real: Lake cannot load the workspace, says why on stderr and exits 1.
            print("error: lakefile.toml: configuration has errors", file=sys.stderr)
            return 1
        os.environ["LEAN_SYSROOT"] = str(_toolchain(scenario))
        os.environ["LEAN_PATH"] = os.pathsep.join(str(folder) for folder in _lean_path())
        os.execvp(argv[1], argv[1:])
    if argv and argv[0] == "build":
        targets = [a for a in argv[1:] if not a.startswith("-")]
        if any(t.startswith("@") for t in targets):
            return _trusted_build(targets, scenario)
        if len(targets) == 1 and (Path.cwd() / f"{CHALLENGE}.lean").is_file():
            return _run_build(targets[0], scenario)
        return _project_build(targets, scenario)
    print(f"error: unknown command '{' '.join(argv)}'", file=sys.stderr)
    return 1


def _trusted_build(targets: list[str], scenario: dict[str, Any]) -> int:
    mode = scenario.get("trusted_build", "ok")
    if mode == "hang":
        _hang(scenario)
    if mode == "error":
        return _failed_build("Statements.S001", "Unknown identifier `Nat.nope`", len(targets) + 1)
    toolchain = _toolchain(scenario)
    for package, exe in (COMPARATOR, LEAN4EXPORT):
        if (package, exe) == COMPARATOR and mode == "no_comparator":
            continue
        if f"@{package}/{exe}" in targets:
            where = Path.cwd() / ".lake" / "packages" / package / ".lake" / "build" / "bin" / exe
            _write_program(where, exe, toolchain)
    for target in targets:
        for module in _modules_of(target):
            olean = _lib_dir() / (module.replace(".", "/") + ".olean")
            _write_atomically(olean, _olean_text(module, ["Init"], _trusted_constants(module)))
    return _built(targets)


def _project_build(targets: list[str], scenario: dict[str, Any]) -> int:
    """`lake build [targets]` of an ordinary project (a paper's, a poser's): it builds or
    fails as the scenario says, and writes nothing the tests read."""
    for line in scenario.get("build_output", []):
        print(line)
    if scenario.get("build") == "hang":
        _hang(scenario)
    if scenario.get("build") == "error":
        message = scenario.get("build_error", "Unknown identifier `foo`")
        return _failed_build(targets[0] if targets else "Main", message, len(targets) + 1)
    return _built(targets or ["default"])


def _modules_of(target: str) -> list[str]:
    """A module target is itself; `Commons` (a `lean_lib` with no root module) is its files."""
    if target.startswith("@"):
        return []
    if target == "Commons":
        found = sorted(Path.cwd().glob("Commons/**/*.lean"))
        return [".".join(path.relative_to(Path.cwd()).with_suffix("").parts) for path in found]
    return [target]


def _write_program(path: Path, tool: str, toolchain: Path) -> None:
    """The executable the real trusted build links; here a script that comes back to this
    module's copy in the stand-in toolchain folder (which every sandboxed step is shown)."""
    script = (
        "#!/usr/bin/env python3\n"
        f'"""The stand-in {tool}, written by the stand-in trusted build."""\n'
        "import os, sys\n"
        f"prefix = {str(toolchain)!r}\n"
        'sys.path.insert(0, os.path.join(prefix, "lib", "standin"))\n'
        'os.environ.setdefault("JIG_STANDIN_SCENARIO", os.path.join(prefix, "scenario.json"))\n'
        "import standin  # noqa: E402\n"
        f"sys.exit(standin.main({tool!r}, sys.argv[1:]))\n"
    )
    _write_atomically(path, script, 0o755)


def _lib_dir() -> Path:
    """Where Lake puts the root package's `.olean` files: `<buildDir>/<leanLibDir>`."""
    return Path.cwd() / ".lake" / "build" / "lib" / "lean"


def _lean_path() -> list[Path]:
    """The root package's library folder, then each locked package's, as Lake's workspace
    search path lists them (whether or not they exist yet)."""
    folders = [_lib_dir()]
    manifest = Path.cwd() / "lake-manifest.json"
    if manifest.is_file():
        packages = json.loads(manifest.read_text(encoding="utf-8")).get("packages", [])
        for package in packages:
            root = Path.cwd() / ".lake" / "packages" / package["name"]
            folders.append(root / ".lake" / "build" / "lib" / "lean")
    return folders


def _failed_build(module: str, message: str, total: int, line: int = 3) -> int:
    # Real (Lake 5.0.0 / Lean 4.3x, recorded): "✖ [989/989] Building M (1.4s)",
    # "error: path:49:6: Type mismatch: …", "error: Lean exited with code 1",
    # "Some required targets logged failures:", "- M"; stderr "error: build failed".
    path = module.replace(".", "/") + ".lean"
    print(f"✖ [1/{total}] Building {module} (0.4s)")
    print(f"error: {path}:{line}:2: {message}")
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


def _write_atomically(path: Path, text: str, mode: int = 0o644) -> None:
    """Written whole, then renamed: parallel runs share these files."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.chmod(mode)
    os.replace(tmp, path)


def _olean_text(
    module: str, imports: list[str], constants: list[dict[str, Any]] | None = None
) -> str:
    """A stand-in `.olean`: the module's name, its imports and its constants (each `{"name",
    "kind", "type_uses", "value_uses"}`: the constants its type and its value name), as JSON."""
    return json.dumps(
        {"standin": "olean", "module": module, "imports": imports, "constants": constants or []}
    )


def _trusted_constants(module: str) -> list[dict[str, Any]]:
    if module.startswith("Statements."):
        statement = _constant(f"{module}.statement", "def", [], ["Nat.add"])
        source = Path.cwd() / Path(*module.split(".")).with_suffix(".lean")
        if source.is_file():  # the statement's text stands for its elaborated value
            found = _STATEMENT.search(source.read_text(encoding="utf-8"))
            statement["term"] = " ".join(found.group(1).split()) if found else "?"
        return [statement, _constant(f"{module}.target", "thm", [statement["name"]], ["sorryAx"])]
    return []


def _constant(
    name: str, kind: str, type_uses: list[str] | None = None, value_uses: list[str] | None = None
) -> dict[str, Any]:
    return {
        "name": name,
        "kind": kind,
        "type_uses": type_uses or [],
        "value_uses": value_uses or [],
    }


_STATEMENT = re.compile(r"^(?:abbrev|def) statement : Prop :=(.*?)(?:\n\n|\Z)", re.M | re.S)
_DECLARATION = re.compile(
    r"^(?:(?:private|protected|noncomputable|partial|unsafe)\s+)*"
    r"(theorem|lemma|def|abbrev|axiom|opaque|instance)\s+([^\s:(\[{]+)",
    re.MULTILINE,
)
_NAMESPACE = re.compile(r"^namespace\s+(\S+)", re.MULTILINE)
_KINDS = {"theorem": "thm", "lemma": "thm", "axiom": "axiom", "opaque": "opaque"}


def _source_constants(text: str) -> list[dict[str, Any]]:
    """The constants a source declares, read as a reader would: `namespace N` prefixes the
    names after it; a declaration's type is its text before `:=`, its value the rest up to the
    next declaration; each uses the module's constants it names."""
    found = list(_DECLARATION.finditer(text))
    spaces = [(m.start(), m.group(1)) for m in _NAMESPACE.finditer(text)]
    constants = []
    for index, match in enumerate(found):
        space = [name for start, name in spaces if start < match.start()]
        prefix = f"{space[-1]}." if space else ""
        end = found[index + 1].start() if index + 1 < len(found) else len(text)
        body = text[match.end() : end]
        head, _, value = body.partition(":=")
        kind = _KINDS.get(match.group(1), "def")
        constants.append((prefix + match.group(2), match.group(2), kind, head, value))
    short = {own: full for full, own, *_ in constants}

    def uses(text: str) -> list[str]:
        words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_'.]*", text))
        return [full for own, full in short.items() if own in words or full in words]

    return [
        _constant(full, kind, uses(head), uses(value) if kind != "axiom" else [])
        for full, _, kind, head, value in constants
    ]


# -- the stand-in toolchain folder ------------------------------------------------------------

_LAUNCHER = """#!/usr/bin/env python3
\"\"\"The stand-in `lean` of a stand-in toolchain folder (`lake env`'s LEAN_SYSROOT).\"\"\"
import os
import sys

prefix = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
sys.path.insert(0, os.path.join(prefix, "lib", "standin"))
os.environ["JIG_STANDIN_SCENARIO"] = os.path.join(prefix, "scenario.json")
import standin  # noqa: E402

sys.exit(standin.main(os.path.basename(sys.argv[0]), sys.argv[1:]))
"""


def _toolchain(scenario: dict[str, Any]) -> Path:
    """The stand-in toolchain folder, (re)written: `bin/lean`, this module in `lib/standin`,
    the scenario as it is now, and a stand-in `Init` in `lib/lean` (Lean's own library)."""
    given = os.environ.get("JIG_STANDIN_SCENARIO")
    base = Path(given).parent if given else Path(tempfile.gettempdir())
    prefix = base / "standin-toolchain"
    for tool in ("lean", "lake"):
        _write_atomically(prefix / "bin" / tool, _LAUNCHER, 0o755)
    here = Path(__file__).resolve()
    _write_atomically(prefix / "lib" / "standin" / "standin.py", here.read_text("utf-8"))
    _write_atomically(prefix / "scenario.json", json.dumps(scenario))
    init = [_constant(name, "axiom") for name in INIT_AXIOMS]
    init += [_constant(name, "def") for name in (*PRIMITIVES, "True", "Iff.rfl")]
    init += [_constant(name, "thm") for name in scenario.get("trusted_constants", [])]
    _write_atomically(prefix / "lib" / "lean" / "Init.olean", _olean_text("Init", [], init))
    return prefix


# -- builds in a run's project (inside jig's sandbox) ------------------------------------------


def _run_build(target: str, scenario: dict[str, Any]) -> int:
    """`lake build M` in a run's project: each module after those it imports, as Lake orders
    them; one already built is not built again (its trace is up to date). Lake finds the
    project's own modules in its `.lake/build/lib/lean`."""
    os.environ["LEAN_PATH"] = str(_lib_dir())
    if target == CHALLENGE:
        return _build_challenge(scenario)
    if target == SOLUTION:
        module = _imports(Path(f"{SOLUTION}.lean"))[-1]
        status = _build_submission(module, scenario)
        return status if status else _build_solution(module, scenario)
    return _build_submission(target, scenario) or _built([target])


def _imports(file: Path) -> list[str]:
    return _IMPORT.findall(file.read_text(encoding="utf-8"))


_IMPORT = re.compile(r"^import\s+(\S+)", re.MULTILINE)


def _build_trusted_imports(file: Path) -> None:
    for module in _imports(file):
        if module.startswith(("Statements.", "Commons.")) and not _olean_of(module).exists():
            _write_atomically(
                _olean_of(module), _olean_text(module, ["Init"], _trusted_constants(module))
            )


def _olean_of(module: str) -> Path:
    return _lib_dir() / (module.replace(".", "/") + ".olean")


def _build_challenge(scenario: dict[str, Any]) -> int:
    file = Path(f"{CHALLENGE}.lean")
    mode = scenario.get("challenge", "ok")
    if mode == "error":
        # Real (Lean 4.33): "unknown module prefix 'Mathlib.Nope'" at the import, line 1.
        return _failed_build(CHALLENGE, "unknown module prefix 'Mathlib.Nope'", 2, line=2)
    text = file.read_text(encoding="utf-8")
    linked = re.search(r"theorem JigRun\.refutes : (\S+) ↔ ¬ (\S+) :=", text)
    if mode == "link_error" or (linked and linked.group(1) == linked.group(2)):
        # Real: `Iff.rfl` elaborated against the link's type: "Type mismatch" at its line.
        return _failed_build(CHALLENGE, "Type mismatch\n  Iff.rfl\nhas type …", 2, line=7)
    _build_trusted_imports(file)
    statement = _statement_of(file)
    constants = [_constant(GOAL, "thm", [statement], ["sorryAx"])]
    if LINK in file.read_text(encoding="utf-8"):
        constants.append(_constant(LINK, "thm", [statement], ["Iff.rfl"]))
    _write_atomically(_olean_of(CHALLENGE), _olean_text(CHALLENGE, _imports(file), constants))
    return _built([CHALLENGE])


def _decl_of() -> str:
    """The submitted decl, as the run's solution names it (`:= @decl`)."""
    found = re.search(r"^  @(\S+)$", Path(f"{SOLUTION}.lean").read_text(encoding="utf-8"), re.M)
    return found.group(1) if found else "?"


def _statement_of(file: Path) -> str:
    found = re.search(r"theorem JigRun\.goal : (\S+) :=", file.read_text(encoding="utf-8"))
    return found.group(1) if found else "?"


def _build_submission(module: str, scenario: dict[str, Any]) -> int:
    """The submission's module: its code runs now, as the scenario says; 0 once built."""
    if _olean_of(module).exists():
        return 0
    source = Path(*module.split(".")).with_suffix(".lean")
    for line in scenario.get("build_output", []):
        print(line)
    _submission_code(scenario, Path.cwd() / ".lake" / "build")
    mode = scenario.get("build", "ok")
    if mode == "hang":
        _hang(scenario)
    if mode == "error":
        message = scenario.get("build_error", "Unknown identifier `foo`")
        return _failed_build(module, message, 2)
    _build_trusted_imports(source)
    text = source.read_text(encoding="utf-8")
    constants = scenario.get("constants", _source_constants(text))
    decl = _decl_of()
    own = {c["name"] for c in constants}
    for constant in constants:
        if constant["name"] == decl:  # what the elaborated term stands for, in the export
            constant["term"] = scenario.get("term", _value_text(text, decl))
            declared = _declared_type(text, decl.rsplit(".", 1)[-1])
            if declared is not None:
                constant["type_text"] = declared
            if "term" in scenario:
                constant["value_uses"] = []
        axioms = _axioms_of(constant["name"], scenario) if constant["name"] == decl else []
        constant["value_uses"] = sorted({*constant["value_uses"], *axioms})
        for axiom in axioms:
            if axiom not in INIT_AXIOMS and axiom not in own:
                constants.append(_constant(axiom, "axiom"))
                own.add(axiom)
    if scenario.get("declares_decl") is False:
        constants = [c for c in constants if c["name"] != decl]
    if scenario.get("mismatch"):
        # The submission's code rewrites the statement's `.olean` in the run's `.lake`.
        statement = next(
            m for m in _imports(Path(f"{CHALLENGE}.lean")) if m.startswith("Statements.")
        )
        forged = [_constant(f"{statement}.statement", "def", [], ["True"])]
        _write_atomically(_olean_of(statement), _olean_text(statement, ["Init"], forged))
    imports = _imports(source) or ["Init"]
    _write_atomically(_olean_of(module), _olean_text(module, imports, constants))
    return 0


def _declared_type(text: str, short: str) -> str | None:
    found = re.search(
        rf"^(?:theorem|lemma|def|abbrev) {re.escape(short)} : (.*?) :=", text, re.M | re.S
    )
    return " ".join(found.group(1).split()) if found else None


def _value_text(text: str, decl: str) -> str:
    short = re.escape(decl.rsplit(".", 1)[-1])
    found = re.search(rf"^(?:theorem|lemma|def) {short} :.*?:=(.*?)(?:\n\n|\Z)", text, re.M | re.S)
    return " ".join(found.group(1).split()) if found else decl


def _states_the_statement(module: str, decl: str, solution: Path) -> bool:
    """What elaborating `@decl` against the statement finds, read from the sources: the
    decl's declared type is the statement's text or its name (a stand-in for defeq)."""
    source = Path(*module.split(".")).with_suffix(".lean").read_text(encoding="utf-8")
    statement = _statement_of(solution)
    declared = _declared_type(source, decl.rsplit(".", 1)[-1])
    module_file = Path(*statement.split(".")[:-1]).with_suffix(".lean")
    found = _STATEMENT.search(module_file.read_text(encoding="utf-8"))
    canonical = " ".join(found.group(1).split()) if found else None
    return declared is None or declared in (statement, canonical)


def _build_solution(module: str, scenario: dict[str, Any]) -> int:
    file = Path(f"{SOLUTION}.lean")
    decl = _decl_of()
    mode = scenario.get("solution", "ok")
    if scenario.get("declares_decl") is False and decl not in _environment([module, "Init"]):
        mode = "unknown_decl"
    messages = {
        # Real 4.33 wording, recorded: "Type mismatch", "Unknown identifier `x`", and the
        # importer's "import M failed, environment already contains 'c' from N".
        "type_mismatch": f"Type mismatch\n  @{decl}\nhas type … but is expected to have type …",
        "unknown_decl": f"Unknown identifier `{decl}`",
        "shadowed": (
            f"import {module} failed, environment already contains "
            f"'{_statement_of(file)}' from {_statement_of(file).rsplit('.', 1)[0]}"
        ),
    }
    if mode == "ok" and not _states_the_statement(module, decl, file):
        mode = "type_mismatch"
    if mode in messages:
        return _failed_build(SOLUTION, messages[mode], 3, line=4 if mode != "shadowed" else 1)
    statement = _statement_of(file)
    constants = [_constant(GOAL, "thm", [statement], [decl])]
    if LINK in file.read_text(encoding="utf-8"):
        constants.append(_constant(LINK, "thm", [statement], ["Iff.rfl"]))
    _write_atomically(_olean_of(SOLUTION), _olean_text(SOLUTION, _imports(file), constants))
    return _built([module, SOLUTION])


# -- lean4export ------------------------------------------------------------------------------


def _environment(modules: list[str]) -> dict[str, dict[str, Any]]:
    """The constants of `modules` and all they import, each `.olean` found on `LEAN_PATH`
    (the first folder that has it, as `findOLean` looks it up); a module not found is
    `FileNotFoundError`, as `importModules` refuses it."""
    found: dict[str, dict[str, Any]] = {}
    seen: set[str] = set()
    todo = list(modules)
    while todo:
        module = todo.pop()
        if module in seen:
            continue
        seen.add(module)
        if module.split(".")[0] in _CACHED and module != "Init":
            todo.append("Init")  # Mathlib's cache: nothing these tests need but Init's
            continue
        data = json.loads(_find_olean(module).read_text(encoding="utf-8"))
        for constant in data.get("constants", []):
            found.setdefault(constant["name"], constant)
        todo.extend(data.get("imports", []))
    return found


_CACHED = frozenset({"Mathlib", "Batteries", "Std", "Aesop", "Plausible", "Init", "Lean", "Qq"})


def _find_olean(module: str) -> Path:
    relative = module.replace(".", "/") + ".olean"
    # Real: `initSearchPath (← findSysroot)`: LEAN_PATH, then the toolchain's `lib/lean`,
    # the toolchain found through LEAN_SYSROOT or `lean --print-prefix` on PATH.
    sysroot = (
        os.environ.get("LEAN_SYSROOT")
        or subprocess.run(["lean", "--print-prefix"], capture_output=True, text=True).stdout.strip()
    )
    folders = [*os.environ.get("LEAN_PATH", "").split(os.pathsep), f"{sysroot}/lib/lean"]
    for folder in folders:
        if folder and (Path(folder) / relative).is_file():
            return Path(folder) / relative
    raise FileNotFoundError(f"object file of module {module} does not exist")


def _lean4export(argv: list[str], scenario: dict[str, Any]) -> int:
    """`lean4export MOD… [--ignore-missing] -- NAMES…` (lean4export `Main.lean`)."""
    if "--" not in argv:
        print("usage: lean4export MODULES [--ignore-missing] -- NAMES", file=sys.stderr)
        return 1
    head, names = argv[: argv.index("--")], argv[argv.index("--") + 1 :]
    modules = [a for a in head if not a.startswith("-")]
    try:
        env = _environment(modules)
    except FileNotFoundError as missing:
        print(f"uncaught exception: {missing}", file=sys.stderr)
        return 1
    wanted = []
    for name in names:
        if name in env:
            wanted.append(name)
        elif "--ignore-missing" not in head:
            # Real: `panic!` on an unknown constant; with LEAN_ABORT_ON_PANIC=1 Lean aborts.
            print(f"PANIC at lean4export: unknown constant '{name}'", file=sys.stderr)
            sys.stderr.flush()
            os.abort()
    if scenario.get("export") == "garbage":
        print("this is not an export")
        return 0
    sys.stdout.write(export_text(_closure(wanted, env)))
    return 0


def _closure(names: list[str], env: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    order: dict[str, dict[str, Any]] = {}
    todo = list(names)
    while todo:
        name = todo.pop()
        if name in order or name not in env:
            continue
        order[name] = env[name]
        todo.extend([*env[name]["type_uses"], *env[name]["value_uses"]])
    return list(order.values())


# -- comparator -------------------------------------------------------------------------------


class _Failed(Exception):
    pass


def _comparator(argv: list[str], scenario: dict[str, Any]) -> int:
    """comparator at `v4.33.0`: its steps in its order, every untrusted one through
    `$COMPARATOR_LANDRUN` with `buildLandrunArgs`' arguments; a failure is an uncaught
    exception (Lean's `main` prints "uncaught exception: …" and exits 1)."""
    mode = scenario.get("comparator", "ok")
    if mode == "hang":
        _hang(scenario)
    if mode == "crash":
        os.kill(os.getpid(), 11)
    try:
        _compare(json.loads(Path(argv[0]).read_text(encoding="utf-8")), scenario)
    except _Failed as failed:
        print(f"uncaught exception: {failed}", file=sys.stderr)
        return 1
    print("Your solution is okay!")
    return 0


def _compare(config: dict[str, Any], scenario: dict[str, Any]) -> None:
    project = Path.cwd()
    prefix = subprocess.run(["lean", "--print-prefix"], capture_output=True, text=True, check=True)
    git = subprocess.run(["which", "git"], capture_output=True, text=True, check=True)
    tools = (prefix.stdout.strip(), git.stdout.strip())
    theorems = list(config["theorem_names"])
    axioms = list(config.get("permitted_axioms", []))
    targets = [*theorems, *axioms, *PRIMITIVES, *config.get("definition_names", [])]
    exports = []
    for module in (config["challenge_module"], config["solution_module"]):
        print(f"Building {module}")
        (project / ".lake").mkdir(exist_ok=True)
        _landrun(
            ["PATH", "HOME", "LEAN_ABORT_ON_PANIC"],
            [project],
            [project / ".lake"],
            [Path(tools[0]), Path(tools[1])],
            ["lake", "build", module],
        )
        print(f"Exporting {targets} from {module}")
        exporter = os.environ.get("COMPARATOR_LEAN4EXPORT", "lean4export")
        said = _landrun(
            ["PATH", "HOME", "LEAN_PATH", "LEAN_ABORT_ON_PANIC"],
            [project, project / ".lake"],
            [],
            [Path(tools[0])],
            [exporter, module, "--", *targets],
            capture=True,
        )
        exports.append({c["name"]: c for c in read_export_constants(said)})
    challenge, solution = exports
    for name in theorems:
        _compare_theorem(name, challenge, solution)
    for name in theorems:
        for used in _closure([name], solution):
            if used["kind"] == "axiom" and used["name"] not in axioms:
                raise _Failed(f"Illegal axiom detected: {used['name']}")
    print("Running Lean default kernel on solution.")
    if scenario.get("replay") == "rejected":
        raise _Failed("(kernel) declaration type mismatch, 'JigRun.goal' has type …")


def _compare_theorem(name: str, challenge: dict[str, Any], solution: dict[str, Any]) -> None:
    """`compareAt`: both theorems, and every constant of the closure of the challenge's
    statement the same in the solution."""
    if name not in challenge or name not in solution:
        raise _Failed(f"Theorem {name} is missing")
    if challenge[name]["kind"] != "thm" or solution[name]["kind"] != "thm":
        raise _Failed(f"Theorem {name} is not a theorem in both")
    todo = list(challenge[name]["type_uses"])
    seen: set[str] = set()
    while todo:
        used = todo.pop()
        if used in seen or used not in challenge:
            continue
        seen.add(used)
        mine, theirs = challenge[used], solution.get(used)
        if theirs is None or (mine["kind"], mine["type_uses"], mine["value_uses"]) != (
            theirs["kind"],
            theirs["type_uses"],
            theirs["value_uses"],
        ):
            raise _Failed(f"Const does not match between challenge and solution: {used}")
        todo.extend([*mine["type_uses"], *mine["value_uses"]])


def _landrun(
    env: list[str],
    readable: list[Path],
    writable: list[Path],
    executable: list[Path],
    command: list[str],
    *,
    capture: bool = False,
) -> str:
    args = ["--best-effort", "--ro", "/", "--rw", "/dev", "-ldd", "-add-exec"]
    args += [a for name in env for a in ("--env", name)]
    args += [a for p in readable for a in ("--ro", str(p))]
    args += [a for p in writable for a in ("--rwx", str(p))]
    args += [a for p in executable for a in ("--rox", str(p))]
    landrun = os.environ.get("COMPARATOR_LANDRUN", "landrun")
    child_env = {**os.environ, "LEAN_ABORT_ON_PANIC": "1"}
    done = subprocess.run(
        [landrun, *args, "--", *command],
        env=child_env,
        stdout=subprocess.PIPE if capture else None,
        stderr=subprocess.PIPE if capture else None,
        text=True,
    )
    if capture:
        sys.stderr.write(done.stderr)
    if done.returncode != 0:
        raise _Failed(f"Child exited with {done.returncode}")
    return done.stdout if capture else ""


# -- the export format ----------------------------------------------------------------------


def export_text(constants: list[dict[str, Any]]) -> str:
    """The constants in lean4export's NDJSON format 3.1.0 (leanprover/lean4export
    `format_ndjson.md` and `Export.lean`: a `meta` line, then each name, level and expression
    once, numbered `in` from 1, `il` from 1, `ie` from 0, before the first record naming it;
    keys sorted, as Lean's `Json.compress` prints an object), each constant after the ones it
    uses in its type or its value."""
    ordered = _dependencies_first(constants)
    writer = _ExportWriter()
    for constant in ordered:
        writer.constant(constant)
    meta = {
        "meta": {
            "exporter": {"name": "lean4export", "version": "3.1.0"},
            "lean": {"githash": COMMIT, "version": "4.33.0"},
            "format": {"version": "3.1.0"},
        }
    }
    return "".join(_compact(line) + "\n" for line in [meta, *writer.lines])


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def _dependencies_first(constants: list[dict[str, Any]]) -> list[dict[str, Any]]:
    by_name = {c["name"]: c for c in constants}
    done: dict[str, dict[str, Any]] = {}

    def visit(name: str) -> None:
        if name in done or name not in by_name:
            return
        done[name] = by_name[name]
        for used in [*by_name[name]["type_uses"], *by_name[name]["value_uses"]]:
            visit(used)
        # Re-insert after the dependencies, keeping dict order as the output order.
        done[name] = done.pop(name)

    for constant in constants:
        visit(constant["name"])
    return list(done.values())


class _ExportWriter:
    def __init__(self) -> None:
        self.lines: list[dict[str, Any]] = []
        self.names: dict[str, int] = {"": 0}
        self.levels: dict[str, int] = {"0": 0}
        self.exprs: dict[str, int] = {}

    def name(self, text: str) -> int:
        if text in self.names:
            return self.names[text]
        pre, _, last = text.rpartition(".")
        body = {"pre": self.name(pre), "str": last}
        index = self.names[text] = len(self.names)
        self.lines.append({"in": index, "str": body})
        return index

    def level_param(self, param: str) -> int:
        key = f"param {param}"
        if key not in self.levels:
            body = self.name(param)
            self.levels[key] = len(self.levels)
            self.lines.append({"il": self.levels[key], "param": body})
        return self.levels[key]

    def expr(self, kind: str, body: Any) -> int:
        key = _compact([kind, body])
        if key not in self.exprs:
            self.exprs[key] = len(self.exprs)
            self.lines.append({"ie": self.exprs[key], kind: body})
        return self.exprs[key]

    def applied(self, base: int, uses: list[str]) -> int:
        for used in uses:
            const = self.expr("const", {"name": self.name(used), "us": []})
            base = self.expr("app", {"fn": base, "arg": const})
        return base

    def constant(self, constant: dict[str, Any]) -> None:
        kind = constant["kind"]
        params = [self.name("u")]
        self.level_param("u")
        prop = self.expr("sort", 0)
        # A declared type's text, where the stand-in knows it, stands for the type itself.
        shown = self.expr("strVal", constant["type_text"]) if "type_text" in constant else prop
        type_ = self.applied(shown, constant["type_uses"])
        body: dict[str, Any] = {
            "name": self.name(constant["name"]),
            "levelParams": params,
            "type": type_,
        }
        if kind == "axiom":
            self.lines.append({"axiom": {**body, "isUnsafe": False}})
            return
        base = self.expr("strVal", constant["term"]) if "term" in constant else None
        inner = self.applied(
            base if base is not None else self.expr("natVal", "0"), constant["value_uses"]
        )
        value = inner
        if base is None:
            binder = {"name": self.name("n"), "type": prop, "body": inner, "binderInfo": "default"}
            value = self.expr("lam", binder)
        body.update(value=value, all=[body["name"]])
        if kind == "thm":
            self.lines.append({"thm": body})
        elif kind == "opaque":
            self.lines.append({"opaque": {**body, "isUnsafe": constant.get("safety") == "unsafe"}})
        else:
            hints = {"regular": 1}
            safety = constant.get("safety", "safe")
            self.lines.append({"def": {**body, "hints": hints, "safety": safety}})


def read_export_constants(text: str) -> list[dict[str, Any]]:
    """The judge's side, as the stand-in judge reads an export: each declared constant's name,
    kind, safety and the constants its type and its value name (a reader of its own, apart
    from jig's, so a bug in jig's reader is not shared)."""
    names: dict[int, str] = {0: ""}
    exprs: dict[int, set[str]] = {}
    constants = []
    for line in text.splitlines()[1:]:
        record = json.loads(line)
        if "in" in record:
            body = record.get("str") or record.get("num")
            part = body.get("str", body.get("i"))
            pre = names[body["pre"]]
            names[record["in"]] = f"{pre}.{part}" if pre else str(part)
        elif "ie" in record:
            index = record.pop("ie")
            ((kind, body),) = record.items()
            used: set[str] = set()
            if kind == "const":
                used.add(names[body["name"]])
            elif isinstance(body, dict):
                for key in ("fn", "arg", "type", "body", "value", "struct", "expr"):
                    if key in body:
                        used |= exprs[body[key]]
            exprs[index] = used
        elif "il" not in record:
            ((kind, body),) = record.items()
            for item in body.get("types", [body]) + body.get("ctors", []) + body.get("recs", []):
                constants.append(
                    {
                        "name": names[item["name"]],
                        "kind": kind,
                        "safety": item.get("safety", "unsafe" if item.get("isUnsafe") else "safe"),
                        "type_uses": sorted(exprs[item["type"]]),
                        "value_uses": sorted(exprs.get(item.get("value", -1), set())),
                    }
                )
    return constants


# -- lean -------------------------------------------------------------------------------------


def _lean(argv: list[str], scenario: dict[str, Any]) -> int:
    if argv == ["--version"]:
        # Real: "Lean (version 4.33.0, x86_64-unknown-linux-gnu, commit d8b18978…, Release)".
        platform = "x86_64-unknown-linux-gnu"
        print(f"Lean (version {_version(scenario)}, {platform}, commit {COMMIT}, Release)")
        return 0
    if argv == ["--print-prefix"]:
        # Real: the toolchain's folder (`Lean.findSysroot`), one line.
        print(Path(__file__).resolve().parent.parent.parent)
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
        _print_message(message)
    return 1 if any(m["severity"] == "error" for m in messages) else 0


def _submission_code(scenario: dict[str, Any], out: Path) -> None:
    """What the submission's code does at build time, as the scenario says; whatever the
    sandbox refuses it is said on stderr, as a real build would."""
    for name, text in scenario.get("build_writes", {}).items():
        try:
            Path(name).parent.mkdir(parents=True, exist_ok=True)
            Path(name).write_text(text, encoding="utf-8")
        except OSError as refused:
            print(f"stand-in: could not write {name}: {refused.strerror}", file=sys.stderr)
    script = scenario.get("build_script")
    if script:
        env = {**os.environ, "OUT": str(out)}
        done = subprocess.run(
            ["/bin/sh", "-c", script], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
        )
        sys.stderr.write(done.stdout.decode("utf-8", "replace"))


def _print_message(message: dict[str, Any]) -> None:
    print(json.dumps(message, ensure_ascii=False, separators=(",", ":"), sort_keys=True))


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
        if line.startswith("#exit"):
            # Real (lean4 `elabExit`, src/Lean/Elab/BuiltinCommand.lean; seen on 4.35 in
            # tests/real_lean): one warning, then nothing after it is read or answered.
            out.append(_message(file, number, 0, "using 'exit' to interrupt Lean", "warning"))
            break
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
    # A `private` declaration is printed under its real name, its module then 0 before it,
    # e.g. "'_private.«.jig».«lean-check».«x.check».0.Test.x' depends on axioms: […]".
    axioms = _failed_axioms(file, decl, scenario)
    if axioms is None:
        axioms = _axioms_of(decl, scenario)
    shown = f"_private.{_module_of(file)}.0.{decl}" if decl in scenario.get("private", []) else decl
    if not axioms:
        return _message(file, line, 0, f"'{shown}' does not depend on any axioms")
    return _message(file, line, 0, f"'{shown}' depends on axioms: [{', '.join(axioms)}]")


_IDENT_PART = re.compile(r"^[A-Za-z_][A-Za-z0-9_']*$")


def _module_of(file: Path) -> str:
    """The module Lean names a file it was given without `--setup`: its path from the working
    folder (from `/` outside it), `.lean` dropped, each part not an identifier in «» (seen on
    4.35 in tests/real_lean: `.jig/lean-check/x.0.check.lean` is
    `«.jig».«lean-check».«x.0.check»`)."""
    path = Path(os.path.abspath(file)).with_suffix("")
    try:
        parts = path.relative_to(Path.cwd()).parts
    except ValueError:
        parts = path.parts[1:]
    return ".".join(p if _IDENT_PART.match(p) else f"«{p}»" for p in parts)


def _failed_axioms(file: Path, decl: str, scenario: dict[str, Any]) -> list[str] | None:
    """What a declaration with a scenario error in its lines answers, unless the scenario names
    its axioms: real Lean (4.35, tests/real_lean) still adds it, with `sorryAx` in the hole
    after an elaboration error, or as an axiom of its own once the kernel refused it."""
    named = scenario.get("axioms")
    if isinstance(named, dict) and decl in named:
        return None
    errors = [m for m in scenario.get("messages", []) if m.get("severity", "error") == "error"]
    span = _lines_of(file.read_text(encoding="utf-8"), decl)
    inside = [m for m in errors if span is not None and span[0] <= m["line"] < span[1]]
    if not inside:
        return None
    kernel = any(str(m["data"]).startswith("(kernel)") for m in inside)
    return [decl] if kernel else ["sorryAx"]


def _lines_of(text: str, decl: str) -> tuple[int, int] | None:
    """The lines `decl` spans in `text` (its keyword line up to the next declaration's)."""
    found = list(_DECLARATION.finditer(text))
    spaces = [(m.start(), m.group(1)) for m in _NAMESPACE.finditer(text)]
    for index, match in enumerate(found):
        space = [name for start, name in spaces if start < match.start()]
        name = f"{space[-1]}.{match.group(2)}" if space else match.group(2)
        if name.replace("«", "").replace("»", "") == decl:
            end = found[index + 1].start() if index + 1 < len(found) else len(text)
            return text.count("\n", 0, match.start()) + 1, text.count("\n", 0, end) + 1
    return None


def _axioms_of(decl: str, scenario: dict[str, Any]) -> list[str]:
    axioms = scenario.get("axioms", ["propext"])
    if isinstance(axioms, dict):
        return list(axioms.get(decl, ["propext"]))
    return list(axioms)


# -- hanging ----------------------------------------------------------------------------------


def _hang(scenario: dict[str, Any]) -> None:
    """Sleep with a grandchild in the same process group, as a wedged Lean would."""
    marker = scenario.get("hang_marker", "jig-standin-hang")
    child = subprocess.Popen(["/bin/sh", "-c", f"sleep 300; : {marker}"])
    pid_file = scenario.get("hang_pid_file")
    if pid_file:
        with contextlib.suppress(OSError):  # not from inside a sandbox
            Path(pid_file).write_text(str(child.pid), encoding="utf-8")
    time.sleep(300)
