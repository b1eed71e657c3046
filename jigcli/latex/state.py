"""What the last build read, so that a rebuild with nothing changed never starts TeX.

After each build the engine's recorder file (`<root>.fls`) lists every file it read. They are
kept in jig's cache (`jigcli.cachedir`, one folder per root document, named by the SHA-256 of
its path: nothing of jig's is left in the paper's folder for git to see), with the build's
result:

- the project's own sources (named relative to the build folder in the `.fls`: the paper,
  its chapters, its figures, the `.bbl`, plus the `.bib` files the `.aux` names, which only
  BibTeX reads) by the SHA-256 of their content;
- the TeX distribution's files (named by absolute path: classes, packages, fonts, the format)
  by size and modification time, which change only when TeX Live is updated;
- the build's outputs (`.log`, `.pdf`) by size and modification time, so a deleted or
  replaced PDF is a change too.

Files the build wrote (the `.aux`, `.toc`, …) are outputs, not sources; so is everything in
a confined build's own output folder (`build_folder`).

The same folder remembers the engine the user last asked for with `--engine`, so the next
call without it builds the same way.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from jigcli import __version__
from jigcli.cachedir import private_root
from jigcli.latex.diagnostic import Diagnostic

FORMAT = 2
_ENGINE_FILE = "engine"

# A source edited while TeX was reading it: recorded as never matching, so the next
# build runs again instead of trusting a PDF made from the older text.
_EDITED_DURING_BUILD = "edited-during-build"
_TOOL_OUTPUTS = frozenset({".bbl", ".ind", ".gls", ".nls", ".acr"})


@dataclass
class Recorded:
    """A finished build's result, as kept beside it."""

    verdict: str
    diagnostics: list[Diagnostic]
    engine_words: str | None
    pdf: bool
    missing_files: list[str] = field(default_factory=list)


@dataclass
class State:
    path: Path  # the record itself
    folder: Path  # the build's folder: the root document's
    engine: str
    project: dict[str, str]  # relative to the build folder → sha256 hex
    system: dict[str, list[int]]  # absolute path → [size, mtime_ns]
    outputs: dict[str, list[int]]  # relative → [size, mtime_ns]
    result: Recorded

    def changes(self) -> list[str]:
        """The sources and outputs that differ from what the last build saw, in that order."""
        folder = self.folder
        changed = [
            name for name, digest in self.project.items() if _sha256(folder / name) != digest
        ]
        changed += [name for name, sig in self.system.items() if _stat(Path(name)) != sig]
        changed += [name for name, sig in self.outputs.items() if _stat(folder / name) != sig]
        return changed

    def project_files(self) -> list[Path]:
        return [(self.folder / name).resolve() for name in self.project]


def paper_folder(root: Path) -> Path:
    """jig's own folder for the paper whose root document is `root`, in the cache folder once
    it is the user's alone (`NotPrivate`, a usage error, otherwise: a build's record and its
    confined output must be jig's own)."""
    key = hashlib.sha256(os.fsencode(root.resolve())).hexdigest()[:32]
    return private_root() / "tex" / key


def state_path(root: Path) -> Path:
    return paper_folder(root) / "state.json"


def build_folder(root: Path) -> Path:
    """Where a confined build writes everything (`jigcli.latex.confine`)."""
    return paper_folder(root) / "build"


def remembered_engine(root: Path) -> tuple[str, str] | None:
    """The engine last asked for with `--engine` for this paper, and what the paper itself
    declared then (`% !TEX program`, latexmkrc: `declared_engine`), if any was asked."""
    try:
        lines = (paper_folder(root) / _ENGINE_FILE).read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    if not lines or not lines[0].strip():
        return None
    return lines[0].strip(), (lines[1].strip() if len(lines) > 1 else "")


def remember_engine(root: Path, engine: str, declared: str) -> None:
    folder = paper_folder(root)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / _ENGINE_FILE).write_text(f"{engine}\n{declared}\n", encoding="utf-8")


def forget_engine(root: Path) -> None:
    (paper_folder(root) / _ENGINE_FILE).unlink(missing_ok=True)


def load(root: Path) -> State | None:
    """The state of the last build of `root`, or None when there is none jig can trust."""
    path = state_path(root)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("format") != FORMAT or data.get("jig") != __version__:
            return None  # another jig may read logs differently: build again
        result = data["result"]
        return State(
            path=path,
            folder=root.parent,
            engine=data["engine"],
            project=dict(data["project"]),
            system={k: list(v) for k, v in data["system"].items()},
            outputs={k: list(v) for k, v in data["outputs"].items()},
            result=Recorded(
                verdict=result["verdict"],
                diagnostics=[Diagnostic(**d) for d in result["diagnostics"]],
                engine_words=result["engine_words"],
                pdf=bool(result["pdf"]),
                missing_files=list(result.get("missing_files", [])),
            ),
        )
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def record(
    root: Path, engine: str, result: Recorded, *, started_ns: int, out: Path | None = None
) -> None:
    """Keep what this build read and what it said (atomically); `out` is a confined build's
    output folder, where its recorder file is and whose files are all outputs."""
    folder = root.parent
    inputs, outputs = _recorded_files((out or folder) / (root.stem + ".fls"))
    inputs.update(_bib_files(root.with_suffix(".aux")))
    if out is not None:
        inside = str(out.resolve()) + os.sep
        inputs = {name for name in inputs if not name.startswith(inside)}
    project: dict[str, str] = {}
    system: dict[str, list[int]] = {}
    for name in sorted(inputs - outputs):
        path = Path(name) if os.path.isabs(name) else folder / name
        if os.path.isabs(name):
            sig = _stat(path)
            if sig is not None:
                system[name] = sig
            continue
        key = os.path.normpath(name)
        if key in project or not path.is_file():
            continue
        # A tool the build ran (BibTeX, makeindex) may have written it just now; anything
        # else newer than the build's start was edited while TeX was reading it.
        edited = path.suffix not in _TOOL_OUTPUTS and path.stat().st_mtime_ns > started_ns
        project[key] = _EDITED_DURING_BUILD if edited else (_sha256(path) or "")
    kept_outputs = {
        name: sig
        for name in (root.with_suffix(".log").name, root.with_suffix(".pdf").name)
        if (sig := _stat(folder / name)) is not None
    }
    document = {
        "format": FORMAT,
        "jig": __version__,
        "engine": engine,
        "project": project,
        "system": system,
        "outputs": kept_outputs,
        "result": {
            "verdict": result.verdict,
            "diagnostics": [d.to_json() for d in result.diagnostics],
            "engine_words": result.engine_words,
            "pdf": result.pdf,
            "missing_files": result.missing_files,
        },
    }
    path = state_path(root)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    temporary.replace(path)


def forget(root: Path) -> None:
    with contextlib.suppress(OSError):
        state_path(root).unlink()


def _recorded_files(fls: Path) -> tuple[set[str], set[str]]:
    """(INPUT names, OUTPUT names) from a recorder file, relative names against its PWD."""
    inputs: set[str] = set()
    outputs: set[str] = set()
    try:
        lines = fls.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return inputs, outputs
    for line in lines:
        kind, _, name = line.partition(" ")
        if kind == "INPUT":
            inputs.add(os.path.normpath(name))
        elif kind == "OUTPUT":
            outputs.add(os.path.normpath(name))
    return inputs, outputs


_BIBDATA = re.compile(r"\\bibdata\{([^}]*)\}")


def _bib_files(aux: Path) -> set[str]:
    """The project `.bib` files the `.aux` hands to BibTeX (which the `.fls` never sees)."""
    try:
        text = aux.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return set()
    names: set[str] = set()
    for group in _BIBDATA.findall(text):
        for name in group.split(","):
            name = name.strip()
            bib = name if name.endswith(".bib") else name + ".bib"
            if name and (aux.parent / bib).is_file():
                names.add(os.path.normpath(bib))
    return names


def _sha256(path: Path) -> str | None:
    try:
        with path.open("rb") as handle:
            return hashlib.file_digest(handle, "sha256").hexdigest()
    except OSError:
        return None


def _stat(path: Path) -> list[int] | None:
    try:
        info = path.stat()
    except OSError:
        return None
    return [info.st_size, info.st_mtime_ns]
