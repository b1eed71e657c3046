"""A paper's statements paired with the declarations of its sibling `.lean` and of the Lake
project around it (declarations are read by `jigcli.lean.declarations`).

A statement pairs with declarations by the first rule that finds any:

1. `blueprint`: its `\\lean{A, B}` names (several allowed), each matched to a declaration by
   full name or by the name inside the file's namespaces; a name the file does not declare
   is looked up, by its full name, in the sources of the Lake project around the paper (the
   import closure of its `lean_lib`s, as Lake builds it, then the packages it requires, when
   fetched: `jigcli.lean.index`), and is kept as written when it is not there either (a
   name of Lean's core, or of a package not fetched);
2. `tex-comment`: declarations marked `-- tex: <label>` with its label;
3. `docstring`: declarations whose docstring names its label;
4. `name`: its label turned into a name — `thm:main` ↔ `main` or `thm_main` (`-` and `:` read
   as `_`) — declared inside the file's namespaces. When both exist nothing is guessed: the
   statement stays unpaired and says why.

A top-level `theorem` / `lemma` of the sibling file that no statement pairs with is
`unstated` unless it is `private` or a helper. Declarations elsewhere in the project never
are: a project holds far more lemmas than its blueprint states.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from jigcli.errors import UsageError
from jigcli.latex.statements import read_statements
from jigcli.latex.statements.model import Document, Statement
from jigcli.lean.declarations import PROVED_KINDS, Decl, LeanFile, plain_name, read_lean

if TYPE_CHECKING:
    from jigcli.lean.index import ProjectIndex, SourceModule
    from jigcli.lean.lakefile import LakeProject


@dataclass(frozen=True)
class Pair:
    statement: Statement
    decl_name: str  # fully qualified
    decl: Decl | None  # None: declared in no source jig can read (a Mathlib lemma, a typo)
    rule: str  # blueprint | tex-comment | docstring | name
    where: LeanFile | None = None  # the file declaring `decl`: the sibling or a project module
    module: SourceModule | None = None  # the module of the closure declaring it, if not the sibling

    @property
    def found(self) -> str:
        """Where the name was found: `sibling`, `project`, `dependency` (only in a package the
        project requires) or `nowhere` (declared in no source jig can read)."""
        if self.decl is None:
            return "nowhere"
        if self.module is None:
            return "sibling"
        return "project" if self.module.in_project else "dependency"

    def judged(self, project: LakeProject | None) -> str:
        """What a judgement of this pair's declaration covers: its judged source, wherever it
        lives; for one no readable source declares (a Mathlib lemma), its name and the exact
        package revisions the project pins, so that a dependency bump makes it stale."""
        if self.decl is not None:
            return self.decl.judged_text
        return f"{self.decl_name} · declared outside the sources · {_pins(project)}"


def _pins(project: LakeProject | None) -> str:
    """The package revisions `lake-manifest.json` pins, one `name@rev` each, sorted."""
    import json

    if project is None:
        return "no Lake project"
    try:
        manifest = json.loads((project.root / "lake-manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return "no lake-manifest.json"
    packages = manifest.get("packages", []) if isinstance(manifest, dict) else []
    pins = sorted(f"{p.get('name')}@{p.get('rev')}" for p in packages if isinstance(p, dict))
    return ", ".join(pins) or "no packages"


@dataclass(frozen=True)
class Pairing:
    pairs: tuple[Pair, ...]
    unpaired: tuple[Statement, ...]
    unstated: tuple[Decl, ...]
    why_unpaired: dict[Statement, str]

    def pairs_of(self, statement: Statement) -> list[Pair]:
        return list(self._by_statement.get(id(statement), ()))

    @cached_property
    def _by_statement(self) -> dict[int, list[Pair]]:
        """The pairs of each statement, by the statement's identity: comparing statements
        field by field for every pair would make a 250-statement blueprint quadratic."""
        found: dict[int, list[Pair]] = {}
        for pair in self.pairs:
            found.setdefault(id(pair.statement), []).append(pair)
        return found


# -- pairing ---------------------------------------------------------------------------------


def _label_names(label: str) -> list[str]:
    """`thm:main` → [`main`, `thm_main`]; `lem:key-step` → [`key_step`, `lem_key_step`]."""

    def as_name(text: str) -> str:
        return re.sub(r"[^\w.']", "_", text)

    names = []
    if ":" in label:
        names.append(as_name(label.split(":", 1)[1]))
    names.append(as_name(label))
    return list(dict.fromkeys(n for n in names if n))


def _declared_as(decl: Decl, name: str) -> bool:
    """`name` names `decl` as written or inside the file's namespaces."""
    return decl.full_name == name or decl.full_name.endswith("." + name) or decl.name == name


def _mentions(text: str, label: str) -> bool:
    return re.search(rf"(?<![\w:.\-]){re.escape(label)}(?![\w:\-]|\.\w)", text) is not None


def pair_statements(statements: tuple[Statement, ...], lean: LeanFile | None) -> Pairing:
    """Each statement's declarations by the first rule that finds any, in reading order."""
    decls = lean.decls if lean is not None else ()
    named = [d for d in decls if d.name]
    pairs: list[Pair] = []
    unpaired: list[Statement] = []
    why: dict[Statement, str] = {}
    for statement in statements:
        found = _pair_one(statement, named, why)
        if found:
            pairs.extend(found)
        else:
            unpaired.append(statement)
    pairs = [replace(p, where=lean) if p.decl is not None else p for p in pairs]
    claimed = {p.decl for p in pairs if p.decl is not None}
    unstated = tuple(
        d
        for d in named
        if d.kind in PROVED_KINDS and d not in claimed and not d.private and not d.helper
    )
    return Pairing(tuple(pairs), tuple(unpaired), unstated, why)


def _pair_one(statement: Statement, decls: list[Decl], why: dict[Statement, str]) -> list[Pair]:
    if statement.lean:
        return [_blueprint(statement, name, decls) for name in statement.lean]
    label = statement.label
    if label is None:
        why[statement] = "it has no \\label and no \\lean{…} to pair it by"
        return []
    marked = [d for d in decls if label in d.tex_labels]
    if marked:
        return [Pair(statement, d.full_name, d, "tex-comment") for d in marked]
    documented = [d for d in decls if d.docstring and _mentions(d.docstring, label)]
    if documented:
        return [Pair(statement, d.full_name, d, "docstring") for d in documented]
    candidates = _label_names(label)
    matches = [d for d in decls if any(_declared_as(d, name) for name in candidates)]
    if len(matches) == 1:
        return [Pair(statement, matches[0].full_name, matches[0], "name")]
    if matches:
        names = ", ".join(d.full_name for d in matches)
        why[statement] = f"its label {label} could name {names}; mark one with -- tex: {label}"
    else:
        why[statement] = "no declaration names it (\\lean{…}, -- tex: or its label)"
    return []


def _blueprint(statement: Statement, name: str, decls: list[Decl]) -> Pair:
    name = plain_name(name)
    exact = next((d for d in decls if d.full_name == name.removeprefix("_root_.")), None)
    if exact is not None:
        return Pair(statement, exact.full_name, exact, "blueprint")
    inside = [d for d in decls if d.full_name.endswith("." + name)]
    if len(inside) == 1:
        return Pair(statement, inside[0].full_name, inside[0], "blueprint")
    return Pair(statement, name, None, "blueprint")


# -- a paper and its sibling --------------------------------------------------------------------


@dataclass(frozen=True)
class Paper:
    """A paper's root document, its sibling `.lean` (None when there is none yet), the Lake
    project around it (None outside one), and how their statements and declarations pair."""

    tex: Path
    lean: Path | None
    document: Document
    lean_file: LeanFile | None
    pairing: Pairing
    project: LakeProject | None = None
    index: ProjectIndex | None = None  # the project's import closure, when there is a project


def open_paper(file: Path) -> Paper:
    """The paper `file` belongs to: a `.tex` (its root document is found) or its `.lean`."""
    from jigcli.latex.root import find_root

    if file.suffix == ".lean":
        if not file.is_file():
            raise UsageError(f"No such file: {file}; pass the paper's .tex or its .lean.")
        tex = file.with_suffix(".tex")
        if not tex.is_file():
            raise UsageError(
                f"No paper beside {file}: put {tex.name} next to it, or pass the paper's .tex."
            )
        tex = find_root(tex)
    else:
        tex = find_root(file)
    from jigcli.lean.lakefile import find_project

    sibling = tex.with_suffix(".lean")
    lean = sibling if sibling.is_file() else None
    document = read_statements(tex)
    lean_file = read_lean(lean) if lean is not None else None
    pairing = pair_statements(document.statements, lean_file)
    project = find_project(tex.parent)
    index = None
    if project is not None and any(p.decl is None for p in pairing.pairs):
        from jigcli.lean.index import index_project

        index = index_project(project)
        pairing = _in_project(pairing, index)
    return Paper(tex, lean, document, lean_file, pairing, project, index)


def _in_project(pairing: Pairing, index: ProjectIndex) -> Pairing:
    """The blueprint names the sibling does not declare, found in the project's import closure
    (`jigcli.lean.index`): its own modules first, then the packages it requires."""
    found = index.locate({p.decl_name for p in pairing.pairs if p.decl is None})
    pairs = tuple(
        replace(p, decl=hit.decl, where=hit.lean, module=hit.module)
        if p.decl is None and (hit := found.get(p.decl_name)) is not None
        else p
        for p in pairing.pairs
    )
    return replace(pairing, pairs=pairs)
