"""A stand-in Lean toolchain (`lake`, `lean`, and the judge `lake build` makes) for tests on
machines with no Lean.

It replays Lean 4.33's real output formats; each reply below names the real output it
follows. What it replies is chosen by the test through a scenario JSON file named by
`JIG_STANDIN_SCENARIO`; every invocation is appended to the log file named by
`JIG_STANDIN_LOG` (one JSON line: {"tool", "argv"}), so a test can count builds and runs.

It does not elaborate anything. `lean --json FILE` (for `jig lean-check` and `jig pose`)
answers the `#print axioms` commands in FILE the way the scenario says Lean would. `lake build
jig_judge …` (the trusted build) writes a stand-in judge to `.lake/build/bin/jig_judge` and a
stand-in `.olean` (a small JSON document) for each module target to `.lake/build/lib/lean/`.
`lake env` sets `LEAN_SYSROOT` and `LEAN_PATH` as Lake does, the sysroot a stand-in toolchain
folder it writes beside the scenario (`bin/lean`, this module, a copy of the scenario): that is
the `lean` jig runs in its sandbox, where nothing but that folder, the search path and the
build's own folder are visible, so it reads the scenario from its copy and logs nothing.
`lean FILE -o OLEAN --setup SETUP --json` (the submission's build, Lake's `compileLeanModule`
command) prints Lean's JSON messages, runs what the scenario says the submission's code does
at build time, and writes the stand-in `.olean` of the module `SETUP` names, its imports read
from FILE's header. The stand-in judge (`lake env jig_judge … --olean PATH`) writes one
`jig.judge.v1` report (the format of `Verify/Judge.lean`'s `render`, keys and stages as there)
from what the scenario says the kernel found, its imports read from that `.olean` as the real
judge reads them from the `.olean` header.

Scenario fields (all optional):
  version            `lean --version` number (default 4.33.0)
  trusted_build      "ok" | "error" | "hang" | "no_judge" (succeeds, writes no judge):
                     `lake build jig_judge …`
  build              "ok" | "error" | "hang": the submission's build (and any other `lake
                     build` but the trusted one)
  build_error        the Lean error text of a failing build
  build_output       extra lines the submission's build prints (text the submission controls:
                     forged `#print axioms` answers, `JIG:` markers, "Build completed …")
  build_writes       {path: text} files the submission's code tries to write at build time
                     (a relative path from the build's working folder)
  build_script       a /bin/sh script the submission's code runs at build time (`$OUT` is the
                     build's own folder, where the `.olean` goes below the module's path);
                     its output goes to stderr
  sorry_warning      the submission has a `sorry`: its build logs Lean's warning, an error
                     under `warningAsError`, which fails the build
  warning_as_error_off  the source says `set_option warningAsError false`: a warning stays one
  module_system      the module's header says `module`: its build writes the `.olean.server`,
                     `.olean.private` and `.ir` parts too
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
  lake_env           "fail": `lake env` cannot load the workspace and exits 1
  hang_pid_file      where a hanging run writes its grandchild's pid (where it may write)
  hang_marker        a word in the hanging grandchild's command line (default
                     jig-standin-hang), to find it on the host from outside a sandbox
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
JUDGE_EXE = "jig_judge"
EXPORTER_EXE = "jig_export"


def main(tool: str, argv: list[str]) -> int:
    _log(tool, argv)
    scenario = _scenario()
    if tool == "lake":
        return _lake(argv, scenario)
    if tool == "lean":
        return _lean(argv, scenario)
    if tool == "jig_judge":
        return _judge(argv, scenario)
    if tool == EXPORTER_EXE:
        return _export(argv, scenario)
    print(f"stand-in: unknown tool {tool}", file=sys.stderr)
    return 2


def _log(tool: str, argv: list[str]) -> None:
    path = os.environ.get("JIG_STANDIN_LOG")
    if path:
        entry = {"tool": tool, "argv": argv, "lean_path": os.environ.get("LEAN_PATH")}
        with open(path, "a", encoding="utf-8") as log:
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
        # folder and LEAN_PATH to the workspace's library folders, then runs CMD: here, the
        # stand-in on PATH, `printenv`, or the stand-in judge the trusted build wrote.
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
        if JUDGE_EXE in targets:
            return _trusted_build(targets, scenario)
        return _lake_build(targets, scenario)
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
    if mode != "no_exporter" and EXPORTER_EXE in targets:
        _write_atomically(Path.cwd() / ".lake" / "build" / "bin" / EXPORTER_EXE, _EXPORTER, 0o755)
    for target in targets:
        for module in _modules_of(target):
            olean = _lib_dir() / (module.replace(".", "/") + ".olean")
            _write_atomically(olean, _olean_text(module, [], _trusted_constants(module)))
    return _built(targets)


def _modules_of(target: str) -> list[str]:
    """A module target is itself; `Commons` (a `lean_lib` with no root module) is its files."""
    if target in (JUDGE_EXE, EXPORTER_EXE):
        return []
    if target == "Commons":
        found = sorted(Path.cwd().glob("Commons/**/*.lean"))
        return [".".join(path.relative_to(Path.cwd()).with_suffix("").parts) for path in found]
    return [target]


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


def _lake_build(targets: list[str], scenario: dict[str, Any]) -> int:
    mode = scenario.get("build", "ok")
    total = len(targets) + 1
    for line in scenario.get("build_output", []):
        print(line)
    if mode == "hang":
        _hang(scenario)
    module = targets[0]
    if mode == "error":
        message = scenario.get("build_error", "Unknown identifier `foo`")
        return _failed_build(module, message, total)
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
    _write_atomically(path, script, 0o755)


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
        return [_constant(f"{module}.statement", "def"), _constant(f"{module}.target", "thm")]
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

sys.exit(standin.main("lean", sys.argv[1:]))
"""


def _toolchain(scenario: dict[str, Any]) -> Path:
    """The stand-in toolchain folder, (re)written: `bin/lean`, this module in `lib/standin`,
    the scenario as it is now, and a stand-in `Init` in `lib/lean` (Lean's own library)."""
    given = os.environ.get("JIG_STANDIN_SCENARIO")
    base = Path(given).parent if given else Path(tempfile.gettempdir())
    prefix = base / "standin-toolchain"
    _write_atomically(prefix / "bin" / "lean", _LAUNCHER, 0o755)
    here = Path(__file__).resolve()
    _write_atomically(prefix / "lib" / "standin" / "standin.py", here.read_text("utf-8"))
    _write_atomically(prefix / "scenario.json", json.dumps(scenario))
    _write_atomically(prefix / "lib" / "lean" / "Init.olean", _olean_text("Init", []))
    return prefix


# -- the exporter ------------------------------------------------------------------------------

# The stand-in exporter the trusted build writes to `.lake/build/bin/jig_export`. It runs in the
# build's sandbox, where only the toolchain folder (`LEAN_SYSROOT`) holds this module.
_EXPORTER = """#!/usr/bin/env python3
\"\"\"The stand-in `jig_export`, written by the stand-in `lake build jig_export`.\"\"\"
import os
import sys

prefix = os.environ["LEAN_SYSROOT"]
sys.path.insert(0, os.path.join(prefix, "lib", "standin"))
os.environ["JIG_STANDIN_SCENARIO"] = os.path.join(prefix, "scenario.json")
import standin  # noqa: E402

sys.exit(standin.main("jig_export", sys.argv[1:]))
"""


def _export(argv: list[str], scenario: dict[str, Any]) -> int:
    """`jig_export --module M --out FILE` (`Verify/Export.lean`): M found on `LEAN_PATH` and
    read as Lean's importer reads it (`findOLeanParts`, src/Lean/Environment.lean: the
    `.olean`, then `.olean.server` and `.olean.private` where each exists, links followed;
    the last part holds every constant), its constants written to FILE in lean4export's
    format 3.1.0, dependencies first. A part planted by the build's code is read like any
    other: a part saying `exploit` stands for crafted bytes that took the exporter over, whose
    export then says whatever the part asks."""
    args = dict(zip(argv[::2], argv[1::2], strict=False))
    module, out = args["--module"], Path(args["--out"])
    if scenario.get("exporter") == "crash":
        print("INTERNAL PANIC: out of memory", file=sys.stderr)
        return 1
    try:
        data = json.loads(_olean_parts(module)[-1].read_text(encoding="utf-8"))
    except (OSError, ValueError, IndexError) as unreadable:
        # Real: `readModuleData` refuses a file that is not an `.olean` of this Lean.
        print(
            f"uncaught exception: failed to read file of module {module}: {unreadable}",
            file=sys.stderr,
        )
        return 1
    exploit = data.get("exploit")
    if exploit is not None:
        return _exploited(exploit, module, data, out)
    out.write_text(export_text(module, data.get("constants", [])), encoding="utf-8")
    return 0


def _olean_parts(module: str) -> list[Path]:
    relative = module.replace(".", "/") + ".olean"
    for folder in os.environ.get("LEAN_PATH", "").split(os.pathsep):
        olean = Path(folder) / relative
        if olean.exists():
            parts = [olean]
            for suffix in (".server", ".private"):
                part = olean.with_name(olean.name + suffix)
                if not part.exists():
                    break
                if not part.is_file():
                    raise OSError(f"{part} is not a file")
                parts.append(part)
            return parts
    print(f"object file of module {module} does not exist", file=sys.stderr)
    return []


def _exploited(exploit: dict[str, Any], module: str, data: dict[str, Any], out: Path) -> int:
    """What a taken-over exporter writes: `text` as it is, an export of `module` (another
    module's name) with the part's constants, the real export cut at `cut` bytes, `sparse`
    bytes of nothing, or a link to `link`."""
    real = export_text(exploit.get("module", module), data.get("constants", []))
    if "text" in exploit:
        out.write_text(exploit["text"], encoding="utf-8")
    elif "cut" in exploit:
        out.write_bytes(real.encode("utf-8")[: exploit["cut"]])
    elif "sparse" in exploit:
        with out.open("wb") as file:
            file.truncate(exploit["sparse"])
    elif "link" in exploit:
        out.symlink_to(exploit["link"])
    else:
        out.write_text(real, encoding="utf-8")
    return 0


def export_text(module: str, constants: list[dict[str, Any]]) -> str:
    """The constants in lean4export's NDJSON format 3.1.0 (leanprover/lean4export
    `format_ndjson.md` and `Export.lean`: a `meta` line, then each name, level and expression
    once, numbered `in` from 1, `il` from 1, `ie` from 0, before the first record naming it;
    keys sorted, as Lean's `Json.compress` prints an object), the module's own constants only,
    each after the module's constants it uses in its type or its value. `meta.jig` says which
    module this is and how many declaration records follow."""
    ordered = _dependencies_first(constants)
    writer = _ExportWriter()
    for constant in ordered:
        writer.constant(constant)
    meta = {
        "meta": {
            "exporter": {"name": "jig_export", "version": "1"},
            "lean": {"githash": COMMIT, "version": "4.33.0"},
            "format": {"version": "3.1.0"},
            "jig": {"module": module, "declarations": len(ordered)},
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
        type_ = self.applied(prop, constant["type_uses"])
        body: dict[str, Any] = {
            "name": self.name(constant["name"]),
            "levelParams": params,
            "type": type_,
        }
        if kind == "axiom":
            self.lines.append({"axiom": {**body, "isUnsafe": False}})
            return
        nat = self.expr("natVal", "0")
        inner = self.applied(nat, constant["value_uses"])
        value = self.expr(
            "lam", {"name": self.name("n"), "type": prop, "body": inner, "binderInfo": "default"}
        )
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
    if "--json" not in argv:
        print("stand-in lean only answers --version and --json FILE", file=sys.stderr)
        return 2
    if "-o" in argv:
        return _compile(argv, scenario)
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


def _compile(argv: list[str], scenario: dict[str, Any]) -> int:
    """`lean FILE -o OLEAN --setup SETUP --json`, Lake's `compileLeanModule` command (lean4
    `src/lake/Lake/Build/Actions.lean`): the module's name and options come from SETUP, a
    `ModuleSetup` (`src/Lean/Setup.lean`); `runFrontend` (`src/Lean/Elab/Frontend.lean`) writes
    the `.olean` only when no error was logged, and `lean` then exits 0, else 1."""
    value = {flag: argv[argv.index(flag) + 1] for flag in ("-o", "--setup")}
    file = Path(next(arg for arg in argv if arg.endswith(".lean")))
    olean = Path(value["-o"])
    setup = json.loads(Path(value["--setup"]).read_text(encoding="utf-8"))
    as_errors = setup.get("options", {}).get("warningAsError") is True
    as_errors = as_errors and not scenario.get("warning_as_error_off")
    for line in scenario.get("build_output", []):
        print(line)
    depth = len(str(setup["name"]).split("."))
    _submission_code(scenario, olean.parents[depth - 1])
    mode = scenario.get("build", "ok")
    if mode == "hang":
        _hang(scenario)
    if mode == "error":
        message = scenario.get("build_error", "Unknown identifier `foo`")
        _print_message(_message(file, 3, 2, message, "error"))
        return 1
    if scenario.get("sorry_warning"):
        # Real 4.33 (recorded): "declaration uses `sorry`", kind `hasSorry`, a warning that
        # `warningAsError` logs as an error (`logAt`, src/Lean/Log.lean).
        severity = "error" if as_errors else "warning"
        sorry = _message(file, 9, 8, "declaration uses `sorry`", severity, "hasSorry")
        _print_message(sorry)
        if as_errors:
            return 1
    text = file.read_text(encoding="utf-8")
    imports = _IMPORT.findall(text)
    constants = scenario.get("constants", _source_constants(text))
    olean.write_text(_olean_text(setup["name"], imports, constants), encoding="utf-8")
    if scenario.get("module_system"):
        # `writeModule` (src/Lean/Environment.lean) for a `module` header: three parts and IR;
        # the private part holds every constant, the others what their level exports.
        public = [c for c in constants if c["kind"] != "thm"]
        olean.write_text(_olean_text(setup["name"], imports, public), encoding="utf-8")
        for suffix in (".server", ".private"):
            part = olean.with_name(olean.name + suffix)
            part.write_text(_olean_text(setup["name"], imports, constants), encoding="utf-8")
        olean.with_suffix(".ir").write_text("ir", encoding="utf-8")
    return 0


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
    pairs = list(zip(argv[::2], argv[1::2], strict=False))
    args: dict[str, Any] = dict(pairs)
    args["--import"] = [value for flag, value in pairs if flag == "--import"]
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


def _report(args: dict[str, Any], scenario: dict[str, Any]) -> dict[str, Any]:
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
    export = Path(args["--export"])
    if scenario.get("judge_failure") == "load" or not export.is_file():
        report["failure"] = f"load: {export} does not exist"
        return report
    try:
        exported = {c["name"]: c for c in read_export_constants(export.read_text("utf-8"))}
    except (ValueError, KeyError, TypeError, AttributeError) as malformed:
        # Real (`Verify/ExportParse.lean`): the line and why, and no verdict.
        report["failure"] = f"parse: the export is malformed: {malformed!r}"
        return report
    imported = [*args["--import"], *scenario.get("extra_imports", [])]
    refused = [m for m in imported if m.split(".")[0] not in ALLOWED_ROOTS]
    report["imports"] = {"modules": imported, "refused": refused}
    if refused:
        return report
    if scenario.get("judge_failure") == "import":
        report["failure"] = "import: object file … of module Mathlib.Nope does not exist"
        return report
    statement = f"Statements.{statement_id}.statement"
    trusted = [n for n in exported if n.startswith(("Statements.", "_jig_judge"))]
    clashes = [
        {
            "name": n,
            "module": f"Statements.{statement_id}"
            if n.startswith("Statements.")
            else "Mathlib.Algebra.Group.Nat.Even",
        }
        for n in [*trusted, *scenario.get("clashes", [])]
    ]
    provenance = {
        "decl_in_module": scenario.get("decl_in_module", True) and decl in exported,
        "statement_module": scenario.get("statement_module", f"Statements.{statement_id}"),
        "clashes": clashes,
        "duplicates": scenario.get("duplicates", []),
    }
    report["provenance"] = provenance
    declared = [n for n, c in exported.items() if c["kind"] == "axiom"]
    report["module_axioms"] = [*declared, *scenario.get("module_axioms", [])]
    canonical = scenario.get("canonical_type", "∀ (n : Nat), Even (n * (n + 1))")
    report["types"] = {"canonical": canonical, "submitted": None}
    if (
        not provenance["decl_in_module"]
        or clashes
        or provenance["statement_module"] != f"Statements.{statement_id}"
    ):
        return report
    report["unchecked"] = _unchecked(exported) + scenario.get("unchecked", [])
    if report["unchecked"]:
        return report
    replay = scenario.get("replay", "accepted")
    report["replay"] = _kernel_check(replay, f"while replaying '{decl}': ")
    if replay != "accepted":
        return report
    missing = _replay_order(exported)
    if missing:
        # Real (`Kernel.Exception.toMessageData`): "(kernel) unknown constant 'c'".
        report["replay"] = _kernel_check("rejected", f"while replaying '{missing[0]}': ")
        report["replay"]["detail"] = (
            f"while replaying '{missing[0]}': (kernel) unknown constant '{missing[1]}'"
        )
        return report
    report["replay"]["constants"] = len(exported)
    bridge = scenario.get("bridge", "accepted")
    report["bridge"] = _kernel_check(bridge, "")
    if bridge != "accepted":
        submitted = scenario.get("submitted_type", "∀ (n : Nat), Even n → Even (n * (n + 1))")
        report["types"]["submitted"] = submitted
    report["axioms"] = _axioms_of(decl, scenario) + _own_axioms(decl, exported)
    terms = scenario.get("term", {})
    text = terms.get(decl, f"C{decl}{{}} ") if isinstance(terms, dict) else str(terms)
    report["term"] = {"text": text, "truncated": bool(scenario.get("truncated", False))}
    report["statement_term"] = {"text": f"C{statement}{{}} ", "truncated": False}
    if refutes:
        report["refutation"] = _kernel_check(scenario.get("refutation", "accepted"), "")
    return report


def _unchecked(exported: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """`unsafe` and `partial` constants, but the compiler's `f._unsafe_rec` copy of a safe `f`."""
    found = []
    for name, constant in exported.items():
        base, _, last = name.rpartition(".")
        safe_base = exported.get(base, {}).get("safety") == "safe"
        if constant["safety"] in ("unsafe", "partial") and not (
            last == "_unsafe_rec" and safe_base
        ):
            found.append({"name": name, "why": constant["safety"]})
    return found


def _replay_order(exported: dict[str, dict[str, Any]]) -> tuple[str, str] | None:
    """The judge's replay, as the real one orders it: each constant after the module's
    constants its type and its value use (a theorem's proof included). With the constants
    replayed in the export's order, a constant using one not yet replayed is the kernel's
    "unknown constant"; the first such (constant, used), else None."""
    replayed: set[str] = set()
    for name, constant in _replay_walk(exported).items():
        for used in [*constant["type_uses"], *constant["value_uses"]]:
            if used in exported and used not in replayed and used != name:
                return name, used
        replayed.add(name)
    return None


def _replay_walk(exported: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    order: dict[str, dict[str, Any]] = {}

    def visit(name: str) -> None:
        if name in order or name not in exported:
            return
        order[name] = exported[name]
        for used in [*exported[name]["type_uses"], *exported[name]["value_uses"]]:
            visit(used)
        order[name] = order.pop(name)

    # The real judge walks a hash map, in no order the export chose: the walk alone must put
    # each constant after what it uses. Here the export's order, reversed.
    for name in reversed(exported):
        visit(name)
    return order


def _own_axioms(decl: str, exported: dict[str, dict[str, Any]]) -> list[str]:
    """The module's own axioms `decl` depends on, through types and values."""
    seen: set[str] = set()
    todo = [decl]
    while todo:
        name = todo.pop()
        if name in seen or name not in exported:
            continue
        seen.add(name)
        todo += exported[name]["type_uses"] + exported[name]["value_uses"]
    return sorted(n for n in seen if exported[n]["kind"] == "axiom")


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
    marker = scenario.get("hang_marker", "jig-standin-hang")
    child = subprocess.Popen(["/bin/sh", "-c", f"sleep 300; : {marker}"])
    pid_file = scenario.get("hang_pid_file")
    if pid_file:
        with contextlib.suppress(OSError):  # not from inside a sandbox
            Path(pid_file).write_text(str(child.pid), encoding="utf-8")
    time.sleep(300)
