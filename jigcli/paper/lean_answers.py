"""What Lean answers about a paper's declarations (`ask_lean`): at most one check of the
sibling `.lean` and one check of the names declared elsewhere in the Lake project, each ONE
`lean` process.

1. The sibling check: ONE Lean run over the sibling `.lean`, through
   `jigcli.lean.backend.elaborate` (`lake env lean --json`). The generated check file is the
   paper's `.lean` verbatim — so every message's line is the paper's own line and falls inside
   the declaration it is about — then an `end` for every scope still open at its end, then
   `#print axioms` for every declaration of the sibling paired with a statement (and every
   blueprint name found nowhere in the project, which the sibling's imports may bring). From
   that one run, per declaration, first match wins:
   - an error inside its line range (or in the file's header, before any declaration, or at
     its own `#print axioms`, e.g. an unknown name) → `error`;
   - Lean's "declaration uses `sorry`" warning inside its range → its own proof has a hole →
     `sorry`;
   - `sorryAx` among its axioms without such a warning → its own proof is complete but it uses
     a declaration that is not → `conditional` (proved modulo an open lemma; the declarations
     of the file with a hole or an error that its source names are named);
   - native computation (`Lean.ofReduceBool`, `…._native.….ax_…`) or an axiom the file does not
     declare → `error` (not a kernel proof from the standard axioms);
   - an `axiom` the file declares → `assumed`;
   - otherwise `proved`: axioms within `propext`, `Classical.choice`, `Quot.sound`.
   Lean reports "declaration uses `sorry`" only for a declaration whose own elaborated term
   contains an explicit `sorry`, while `#print axioms` is transitive, so the two together tell a
   hole of its own from an open lemma it relies on.
2. The project check, for the blueprint names declared elsewhere in the Lake project (a
   leanblueprint project names declarations across its libraries and has no sibling): one
   `lake build` of every library's root modules (those that exist) and of each module found
   declaring a name, then ONE Lean run over a generated file that imports them (the roots, as
   checkdecls does; the found modules, which no root may reach) and asks `#print axioms` of
   each name. A name Lean does not know is an `error`; otherwise the axioms decide as above, a
   `sorry` of its own read from the declaration's source (`conditional` when the hole is in
   something it uses), an `axiom` the project declares being `assumed`.
3. Without a usable toolchain (no Lake project above the paper, no `lake`/`lean`, or not the
   pinned version) there is no check at all, and the answer says why.

The paper's own `.lean` is the author's code, elaborated the way `lake build` would; the
submission policy of `jig verify` (for untrusted sources) does not apply to it. The check files
and Lean's whole output are kept as evidence under `<project>/.jig/lean-check/`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from jigcli.console import shown_path
from jigcli.lean.declarations import Decl, LeanFile, plain_name, unprivate
from jigcli.paper.pairing import Pair, Paper
from jigcli.verifiers.contract import Status, Why
from jigcli.verifiers.registry import verifier_status

if TYPE_CHECKING:
    from jigcli.lean.backend import Toolchain, ToolchainProblem
    from jigcli.lean.lakefile import LakeProject
    from jigcli.lean.messages import LeanMessage, LeanOutput
    from jigcli.repo import Repo

VERIFIER = "lean"
SORRY_WARNING = "declaration uses"
HOLES = frozenset({"sorry", "admit"})


@dataclass(frozen=True)
class Outcome:
    """One verdict of the `lean` verifier, and what it adds to its words: a detail, or why
    Lean could not answer."""

    verdict: str
    detail: str = ""
    why: Why | None = None

    @property
    def status(self) -> Status:
        return verifier_status(VERIFIER, self.verdict)


@dataclass(frozen=True)
class LeanAnswer:
    """What the Lean checks said about each declaration, or why there was no check."""

    outcomes: dict[str, Outcome]
    engine: str | None = None
    evidence: tuple[Path, ...] = ()
    not_set_up: str | None = None  # why Lean is not set up here, and what to do


def ask_lean(paper: Paper, goal: list[Pair]) -> LeanAnswer:
    """Each declaration of `goal` checked by Lean: the sibling's in one check, the project's in
    another."""
    from jigcli.lean import backend
    from jigcli.repo import Repo

    project = paper.project
    if project is None:
        return LeanAnswer({}, not_set_up=NOT_IN_A_PROJECT)
    repo = Repo(project.root)
    try:
        toolchain = backend.detect(repo)
    except backend.ToolchainProblem as problem:
        return LeanAnswer({}, not_set_up=_set_up_words(problem, project.root))
    in_sibling = [p for p in goal if _for_sibling(paper, p)]
    in_project = [p for p in goal if not _for_sibling(paper, p)]
    outcomes: dict[str, Outcome] = {}
    evidence: list[Path] = []
    if in_sibling:
        assert paper.lean_file is not None  # `_for_sibling` holds only with a sibling
        names = list(dict.fromkeys(p.decl_name for p in in_sibling))
        found, check_output = _check_sibling(toolchain, repo, paper.lean_file, names)
        outcomes |= found
        evidence.append(check_output)
    if in_project:
        found, kept = _check_in_project(toolchain, repo, project, paper, in_project)
        outcomes |= found
        evidence += kept
    return LeanAnswer(outcomes, _engine_words(toolchain.lean_version, repo), tuple(evidence))


NOT_IN_A_PROJECT = (
    "the paper is not inside a Lake project that requires Mathlib; put it in one, install "
    "elan, then run lake exe cache get there"
)


def _set_up_words(problem: ToolchainProblem, root: Path) -> str:
    """Why Lean is not set up for a paper inside the Lake project at `root`, and what to do
    there: the project exists, so only the toolchain (or its version) is missing."""
    if problem.kind == "version":
        return str(problem)  # it names the pinned version and says to install it with elan
    where = shown_path(root)
    there = "here" if where == "." else f"in {where}"
    # The summary already says Lean isn't set up: keep what is missing, not that again.
    why = str(problem).removeprefix("no Lean toolchain here: ")
    return f"{why}; install elan, then run lake exe cache get {there}"


def _for_sibling(paper: Paper, pair: Pair) -> bool:
    """Checked in the sibling check: declared in the sibling, or, beside a sibling, declared in
    no project module (a Mathlib name the sibling's imports bring)."""
    if paper.lean_file is None:
        return False
    return pair.where is paper.lean_file or pair.decl is None


def _elaborate(
    toolchain: Toolchain, repo: Repo, check_file: Path
) -> tuple[LeanOutput | None, Outcome | None, Path]:
    """One `lake env lean --json` over `check_file`, its output kept beside it; the outcome
    every name gets when Lean could not answer at all."""
    from jigcli.lean import backend
    from jigcli.verify.context import DEFAULT_TIMEOUT_SEC  # the budget jig verify gives

    elaboration = backend.elaborate(toolchain, repo, check_file, timeout=DEFAULT_TIMEOUT_SEC)
    evidence = check_file.with_suffix(".out")
    evidence.write_text(elaboration.result.output, encoding="utf-8")
    if elaboration.result.timed_out or elaboration.crashed:
        why: Why = "too_big" if elaboration.result.timed_out else "unreachable"
        return None, Outcome("pending", why=why), evidence
    return elaboration.output, None, evidence


# -- 1. the sibling check ---------------------------------------------------------------------


def _check_sibling(
    toolchain: Toolchain, repo: Repo, lean: LeanFile, names: list[str]
) -> tuple[dict[str, Outcome], Path]:
    check_file, print_lines = _write_check_file(repo.work_dir / "lean-check", lean, names)
    output, failed, evidence = _elaborate(toolchain, repo, check_file)
    if output is None:
        assert failed is not None
        return {name: failed for name in names}, evidence
    return _read_answers(lean, names, print_lines, output), evidence


def _write_check_file(
    folder: Path, lean: LeanFile, names: list[str]
) -> tuple[Path, dict[int, str]]:
    """The paper's .lean, its open scopes closed, then one `#print axioms` per name."""
    text = lean.read_text if lean.read_text.endswith("\n") else lean.read_text + "\n"
    lines = ["-- jig lean-check: the paper's .lean above, its axioms below"]
    lines += [f"end {scope}".rstrip() for scope in reversed(lean.open_scopes)]
    first = text.count("\n") + 1
    path = folder / f"{lean.path.stem}.check.lean"
    return path, _write_prints(path, text, lines, first, names)


def _write_prints(
    path: Path, text: str, lines: list[str], first: int, names: list[str]
) -> dict[int, str]:
    """`text`, then `lines`, then one `#print axioms` per name (line → name, 1-based)."""
    print_lines = {}
    for name in names:
        print_lines[first + len(lines)] = name
        lines.append(f"#print axioms {_lean_ident(name)}")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text + "\n".join(lines) + "\n", encoding="utf-8")
    return print_lines


def _lean_ident(name: str) -> str:
    """A dotted name as a Lean identifier, every component in «» so no keyword can break it."""
    return ".".join(f"«{part}»" for part in name.split("."))


def _read_answers(
    lean: LeanFile, names: list[str], print_lines: dict[int, str], output: LeanOutput
) -> dict[str, Outcome]:
    first_decl = min((d.line for d in lean.decls), default=None)
    header_errors = [
        m
        for m in output.errors
        if m.line not in print_lines and (first_decl is None or m.line < first_decl)
    ]
    printed = _printed_axioms(output)
    outcomes = {}
    for line, name in print_lines.items():
        decl = lean.by_full_name(name)
        errors = [m for m in output.errors if m.line == line]
        errors += (_errors_in(decl, output) if decl is not None else []) + header_errors
        if errors:
            said = f"{_place(lean, errors[0])} {errors[0].headline()}"
            if decl is None and lean.exit_line is not None:
                said += f"; Lean reads {lean.path.name} no further than its #exit (line"
                said += f" {lean.exit_line})"
            outcomes[name] = Outcome("error", said)
        elif decl is not None and _own_sorry(decl, output):
            where = f"{lean.path.name}:{decl.keyword_line}"
            outcomes[name] = Outcome("sorry", f"{where} has a sorry of its own")
        elif name not in printed:
            outcomes[name] = Outcome("pending", "Lean printed no axioms for it")
        else:
            outcomes[name] = _by_axioms(lean, decl, printed[name], output)
    return outcomes


def _printed_axioms(output: LeanOutput) -> dict[str, tuple[str, ...]]:
    from jigcli.lean.messages import parse_print_axioms

    printed: dict[str, tuple[str, ...]] = {}
    for message in output.messages:
        for report in parse_print_axioms(message.data):
            printed[_user_name(report.decl)] = report.axioms
    return printed


def _user_name(printed: str) -> str:
    """The name a `#print axioms` answer is about, as the paper's .lean spells it: Lean prints
    a `private` declaration by its real name `_private.<module>.0.<name>` and escapes parts
    that are not identifiers with «»."""
    return plain_name(unprivate(printed))


def _by_axioms(
    lean: LeanFile, decl: Decl | None, axioms: tuple[str, ...], output: LeanOutput
) -> Outcome:
    from jigcli.lean.axioms import axiom_reason

    reasons = {axiom: axiom_reason(axiom) for axiom in axioms}
    if "sorry" in reasons.values():
        holes = [d for d in lean.decls if _own_sorry(d, output) or _errors_in(d, output)]
        named = _mentioned(decl, holes) if decl is not None else []
        return Outcome("conditional", f"uses {', '.join(named) or 'a declaration'}, not proved yet")
    declared = {d.full_name for d in lean.axioms}
    return _beyond_sorry(reasons, declared, lean.path.name)


def _beyond_sorry(reasons: dict[str, str | None], declared: set[str], where: str) -> Outcome:
    """The verdict once `sorry` is ruled out: native computation, axioms, or proved."""
    native = [a for a, r in reasons.items() if r == "native_decide"]
    if native:
        return Outcome("error", f"trusts native computation ({native[0]}), not the kernel")
    others = [a for a, r in reasons.items() if r == "disallowed_axiom"]
    foreign = [a for a in others if a not in declared]
    if foreign:
        return Outcome("error", f"depends on {foreign[0]}, an axiom {where} does not declare")
    if others:
        return Outcome("assumed", f"assumes {', '.join(others)}, declared in {where}")
    return Outcome("proved")


# -- 2. the project check ---------------------------------------------------------------------


def _check_in_project(
    toolchain: Toolchain, repo: Repo, project: LakeProject, paper: Paper, pairs: list[Pair]
) -> tuple[dict[str, Outcome], list[Path]]:
    """The modules to look in built, then imported, then each name's axioms printed."""
    from jigcli.lean import backend
    from jigcli.verify.context import DEFAULT_TIMEOUT_SEC

    names = list(dict.fromkeys(p.decl_name for p in pairs))
    modules = _modules_to_import(project, pairs)
    if not modules:
        lakefile = project.lakefile.name
        return {
            n: Outcome("pending", f"{lakefile} declares no lean_lib module to look in")
            for n in names
        }, []
    folder = repo.work_dir / "lean-check"
    folder.mkdir(parents=True, exist_ok=True)
    build = backend.build(toolchain, repo, modules, timeout=DEFAULT_TIMEOUT_SEC)
    build_log = folder / f"{paper.tex.stem}.build.out"
    build_log.write_text(build.result.output, encoding="utf-8")
    if not build.ok:
        first = next((d for d in build.diagnostics if d.severity == "error"), None)
        words = f"{first.where()} {first.message}" if first else "see the build's output"
        return {n: Outcome("error", f"the project does not build: {words}") for n in names}, [
            build_log
        ]
    check_file = folder / f"{paper.tex.stem}.names.lean"
    header = "-- jig lean-check: the project's libraries, as checkdecls imports them\n"
    imports = "".join(f"import {module}\n" for module in modules)
    print_lines = _write_prints(check_file, header + imports, [], imports.count("\n") + 2, names)
    output, failed, evidence = _elaborate(toolchain, repo, check_file)
    if output is None:
        assert failed is not None
        return {name: failed for name in names}, [build_log, evidence]
    located: dict[str, tuple[LeanFile | None, Decl | None]] = {
        p.decl_name: (p.where, p.decl) for p in pairs if p.decl is not None
    }
    answers = _read_project_answers(paper, print_lines, output, located)
    return answers, [build_log, evidence]


def _modules_to_import(project: LakeProject, pairs: list[Pair]) -> list[str]:
    """What checkdecls imports, every library's root module (those that exist: a library may
    have only a glob), then each module found declaring a name the roots may not reach."""
    roots = [root for lib in project.libs for root in lib.roots if lib.module_file(root).is_file()]
    found = [p.module.name for p in pairs if p.module is not None]
    return list(dict.fromkeys([*roots, *found]))


def _read_project_answers(
    paper: Paper,
    print_lines: dict[int, str],
    output: LeanOutput,
    located: dict[str, tuple[LeanFile | None, Decl | None]],
) -> dict[str, Outcome]:
    printed = _printed_axioms(output)
    header_errors = [m for m in output.errors if m.line not in print_lines]
    assert paper.project is not None  # a project check runs only inside a project
    libraries = ", ".join(lib.name for lib in paper.project.libs)
    outcomes = {}
    for line, name in print_lines.items():
        errors = [m for m in output.errors if m.line == line] + header_errors
        where, decl = located.get(name, (None, None))
        if errors:
            said = errors[0].headline()
            if errors[0].line == line and "unknown" in said.casefold():
                said += f": no module of {libraries} (nor what they import) declares it"
            outcomes[name] = Outcome("error", said)
        elif name not in printed:
            outcomes[name] = Outcome("pending", "Lean printed no axioms for it")
        else:
            outcomes[name] = _project_axioms(paper, printed[name], where, decl)
    return outcomes


def _project_axioms(
    paper: Paper, axioms: tuple[str, ...], where: LeanFile | None, decl: Decl | None
) -> Outcome:
    from jigcli.lean.axioms import axiom_reason

    reasons = {axiom: axiom_reason(axiom) for axiom in axioms}
    place = f"{where.path.name}:{decl.keyword_line}" if where and decl else None
    if "sorry" in reasons.values():
        if decl is None or has_hole(decl.source):
            return Outcome("sorry", f"{place} has a sorry of its own" if place else "uses sorry")
        return Outcome("conditional", "uses a declaration that is not proved yet")
    custom = {a for a, r in reasons.items() if r == "disallowed_axiom"}
    return _beyond_sorry(reasons, _declared_axioms(paper, custom), "the project")


def _declared_axioms(paper: Paper, names: set[str]) -> set[str]:
    """Those of `names` the project (or a package it requires) declares as an `axiom`."""
    from jigcli.lean.index import index_project

    if not names or paper.project is None:
        return set()
    index = paper.index or index_project(paper.project)
    return {name for name, hit in index.locate(names).items() if hit.decl.kind == "axiom"}


# -- reading a declaration against Lean's messages ----------------------------------------------


def has_hole(source: str) -> bool:
    """Whether Lean code has a `sorry` or an `admit` as a token: not in a comment, a string or
    a longer name (`Foo.sorry`, `sorry_lemma`, `«sorry»` are names, not holes)."""
    from jigcli.lean.lexer import tokenize

    return any(t.text in HOLES for t in tokenize(source) if t.kind == "keyword")


def _in_range(decl: Decl, message: LeanMessage) -> bool:
    return decl.line <= message.line <= decl.end_line


def _errors_in(decl: Decl, output: LeanOutput) -> list[LeanMessage]:
    return [m for m in output.errors if _in_range(decl, m)]


def _own_sorry(decl: Decl, output: LeanOutput) -> bool:
    """Lean's "declaration uses `sorry`" inside the declaration's own lines."""
    return any(
        m.severity == "warning"
        and m.mentions(SORRY_WARNING)
        and m.mentions("sorry")
        and _in_range(decl, m)
        for m in output.messages
    )


def _mentioned(decl: Decl, holes: list[Decl]) -> list[str]:
    """The declarations with a hole that `decl`'s source names (for the words only)."""
    from jigcli.lean.lexer import tokenize

    idents = {plain_name(t.text) for t in tokenize(decl.source) if t.kind == "ident"}
    return [
        h.full_name
        for h in holes
        if h is not decl
        and any(i == h.full_name or i == h.name or h.full_name.endswith("." + i) for i in idents)
    ]


def _place(lean: LeanFile, message: LeanMessage) -> str:
    line = message.line if message.line <= lean.read_text.count("\n") + 1 else None
    return f"{lean.path.name}:{line}:" if line is not None else "at its #print axioms:"


def _engine_words(lean_version: str, repo: Repo) -> str:
    """ "Checked by Lean 4.33.0 · Mathlib v4.33.0": Lean's own version, Mathlib's from Lake."""
    words = f"Checked by Lean {lean_version}"
    mathlib = _mathlib_version(repo)
    return f"{words} · Mathlib {mathlib}" if mathlib else words


def _mathlib_version(repo: Repo) -> str | None:
    for package in (repo.lake_manifest or {}).get("packages", []):
        if isinstance(package, dict) and package.get("name") == "mathlib":
            tag, rev = package.get("inputRev"), package.get("rev")
            if isinstance(tag, str) and tag[:1] == "v" and tag[1:2].isdigit():
                return tag
            return rev[:12] if isinstance(rev, str) else None
    return None
