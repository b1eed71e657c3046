"""Where a Lake project's declarations are: the modules `lake build` builds, and per name the
file and line that declares it. Read without Lean, from the sources alone.

1. The workspace: the project's own package and every package Lake has fetched for it, each
   from `lake-manifest.json` (`packagesDir`, default `.lake/packages`; a git package is
   `<packagesDir>/<name>[/<subDir>]`, a path package its `dir`), read only when its folder is
   there. Each package's lakefile is read as data (`jigcli.lean.lakefile`).
2. The starting modules: every module the project's own libraries build by their globs
   (`LeanLibConfig.getModuleArray`), and their roots (which `checkdecls` imports).
3. The import closure, as Lake builds it: each module's imports are read from its file's header
   (Lean's `Module.header`: an optional `module`, an optional `prelude`, then
   `[public] [meta] import [all] M`, one module each), and each import is found as Lake's
   `Workspace.findModule?` finds it: in the first package (the project first) with a library
   for which it is local (`LeanLibConfig.isLocalModule`: a root is a prefix of it or a glob
   matches it), at `<library srcDir>/A/B/C.lean`. An import no package holds (`Init`, `Lean`,
   `Std`, a package not fetched) is the toolchain's or missing: outside the index.
4. Per name: its declaration in the project's own modules (in closure order), else in a
   fetched package's, else nowhere. A module's declarations are read (`jigcli.lean.declarations`)
   only when its text mentions the last part of a name still sought.

Cache: what each file gave (its imports, its declarations once read, the name parts sought
and found absent from it) is kept in jig's cache under the SHA-256 of the file's bytes, one JSON
file per project, so a second run on an unchanged project hashes its files and reads no Lean.
An entry stands for the exact bytes it was computed from, so an edit is simply a miss; a
fetched package's file (pinned, and with Mathlib there are thousands) is taken as the bytes the
cache saw while its size and modification time are unchanged, and its text is not kept in
memory. An unreadable cache is an empty one; entries of files the closure no longer holds are
dropped on the next write, which goes through no link (`jigcli.safewrite`). The index only
locates: what a declaration proves is Lean's to say (`jigcli.paper.lean_answers`).

Sources (leanprover/lean4 at v4.33.0): `src/lake/Lake/Config/Glob.lean`,
`src/lake/Lake/Config/LeanLibConfig.lean` (`isLocalModule`, `getModuleArray`),
`src/lake/Lake/Config/Workspace.lean` (`findModule?`), `src/Lean/Parser/Module.lean`
(`Module.header`, `«import»`), `src/Lean/Util/Path.lean` (`modToFilePath`).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections import deque
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

from jigcli.errors import UsageError
from jigcli.lean.declarations import Decl, LeanFile, parse_lean, plain_name
from jigcli.lean.lakefile import LAKEFILES, LakeProject, LeanLib, module_parts, read_project

CACHE_FORMAT = 3  # 3: a doc comment ends the header (imports read before it differ)
_CACHE_CAP = 512 * 1024 * 1024  # the index of a project the size of Mathlib is some tens of MB
_PACKAGES_DIR = ".lake/packages"
# A module name component that is a file name and nothing more: no separator, not `.`/`..`.
_COMPONENT = re.compile(r"^[^/\\\x00]+$")


@dataclass(frozen=True)
class SourceModule:
    """One module of the closure: its name, its file, and whether the project itself holds it
    (else a fetched package does, named `package`)."""

    name: str
    path: Path
    package: str
    in_project: bool


@dataclass(frozen=True)
class Found:
    """Where a name is declared."""

    module: SourceModule
    lean: LeanFile
    decl: Decl

    @property
    def place(self) -> str:
        return f"{self.module.path}:{self.decl.keyword_line}"


@dataclass
class _Entry:
    """What one file's bytes gave: its imports, its declarations once read, and the name parts
    already sought in it and found absent from its text (so it need not be read for them
    again)."""

    imports: list[str]
    decls: list[dict[str, object]] | None = None
    scopes: list[str] = field(default_factory=list)
    absent: list[str] = field(default_factory=list)


@dataclass
class ProjectIndex:
    """The import closure of a Lake project and the declarations found in it so far."""

    project: LakeProject
    modules: dict[str, SourceModule]  # in the order Lake would reach them
    _entries: dict[str, _Entry]  # by file digest
    _stats: dict[str, list[int | str]]  # a package file's path → [size, mtime_ns, digest]
    _cache: tuple[Path, str] | None  # (the cache folder, the index's file below it)
    _digests: dict[str, str] = field(default_factory=dict)  # module → its file's digest
    _texts: dict[str, str] = field(default_factory=dict)  # module → its text, once read
    _dirty: bool = False

    def locate(self, names: Iterable[str]) -> dict[str, Found]:
        """Where each of `names` (full names, `_root_.` allowed) is declared: the project's own
        modules first, then the fetched packages'. A name declared nowhere is left out."""
        wanted = {plain_name(n).removeprefix("_root_."): n for n in names}
        found: dict[str, Found] = {}
        for in_project in (True, False):
            for module in self.modules.values():
                if module.in_project != in_project or len(found) == len(wanted):
                    continue
                sought = {full for full, asked in wanted.items() if asked not in found}
                for full, (lean, decl) in self._look_in(module, sought).items():
                    found[wanted[full]] = Found(module, lean, decl)
        self._save()
        return found

    def _look_in(self, module: SourceModule, sought: set[str]) -> dict[str, tuple[LeanFile, Decl]]:
        """The sought names `module` declares. Its declarations are read only when its text
        mentions a sought name's last part; a part found absent is remembered for its bytes."""
        entry = self._entries[self._digests[module.name]]
        if entry.decls is None:
            lasts = {full.rsplit(".", 1)[-1] for full in sought} - set(entry.absent)
            if not lasts:
                return {}
            text = self._text(module)
            missing = sorted(last for last in lasts if last not in text)
            if missing:
                entry.absent = sorted({*entry.absent, *missing})
                self._dirty = True
            if len(missing) == len(lasts):
                return {}
        elif not sought & {str(record.get("full_name")) for record in entry.decls}:
            return {}
        lean = self._declarations(module, entry)
        return {d.full_name: (lean, d) for d in reversed(lean.decls) if d.full_name in sought}

    def _declarations(self, module: SourceModule, entry: _Entry) -> LeanFile:
        text = self._text(module)
        cached = _from_entry(module.path, text, entry) if entry.decls is not None else None
        if cached is not None:
            return cached
        lean = parse_lean(module.path, text)
        entry.decls = [_decl_record(d) for d in lean.decls]
        entry.scopes = list(lean.open_scopes)
        self._dirty = True
        return lean

    def _text(self, module: SourceModule) -> str:
        """The module's text: kept for the project's files, read again for a package's (the
        closure of a project that requires Mathlib holds thousands of them)."""
        if module.name in self._texts:
            return self._texts[module.name]
        try:
            return module.path.read_bytes().decode("utf-8", errors="replace")
        except OSError:
            return ""

    def _save(self) -> None:
        if self._cache is None or not self._dirty:
            return
        from jigcli.safewrite import write_beneath

        kept = {d: asdict(self._entries[d]) for d in set(self._digests.values())}
        stats = {path: stat for path, stat in self._stats.items() if stat[2] in kept}
        document = {"format": CACHE_FORMAT, "files": kept, "stats": stats}
        data = json.dumps(document, separators=(",", ":")).encode("utf-8")
        try:
            base, relative = self._cache
            base.mkdir(parents=True, exist_ok=True)
            write_beneath(base, relative, data)
        except OSError:
            return  # a cache that cannot be written only costs the next run its time
        self._dirty = False


def index_project(project: LakeProject, *, cache_dir: Path | None = None) -> ProjectIndex:
    """The import closure of `project`'s libraries, with what the cache already knows of it."""
    cache = _cache_file(project, cache_dir)
    entries, stats = _load_cache(cache)
    packages = [(project.root.name, project, True)]
    packages += [(name, package, False) for name, package in _fetched_packages(project)]
    index = ProjectIndex(project, {}, entries, stats, cache)
    queue = deque(_starting_modules(project))
    seen = set(queue)
    while queue:
        name = queue.popleft()
        module = _find_module(name, packages)
        if module is None:
            continue  # the toolchain's (`Init`, `Lean`, `Std`), or a package not fetched
        imports = _read_module(index, module)
        for imported in imports:
            if imported not in seen and _well_formed(imported):
                seen.add(imported)
                queue.append(imported)
    index._save()
    return index


def _starting_modules(project: LakeProject) -> list[str]:
    """What `lake build` of the project's libraries builds (their globs), then their roots."""
    built = [module for lib in project.libs for module, _ in lib.modules()]
    return list(dict.fromkeys([*built, *project.roots]))


def _find_module(name: str, packages: list[tuple[str, LakeProject, bool]]) -> SourceModule | None:
    """Lake's `Workspace.findModule?`: the first package with a library the module is local to;
    it is there only if its file is."""
    for package_name, package, in_project in packages:
        lib = _owner(package.libs, name)
        if lib is None:
            continue
        path = lib.module_file(name)
        if not path.is_file():
            return None
        return SourceModule(name, path, package_name, in_project)
    return None


def _owner(libs: tuple[LeanLib, ...], name: str) -> LeanLib | None:
    return next((lib for lib in libs if lib.owns(name)), None)


def _well_formed(module: str) -> bool:
    """A module name whose file stays inside its library's folder: Lean's `modToFilePath` makes
    each component a path step, so `A.«..».«..».X` would climb out (not followed here)."""
    return all(_COMPONENT.match(p) and p not in (".", "..") for p in module_parts(module))


def _read_module(index: ProjectIndex, module: SourceModule) -> list[str]:
    """Record the module in the index and return its imports, from the cache when its bytes
    are known. A package's file whose size and modification time are those the cache saw is
    taken as the same bytes without reading it (packages are pinned and large); the project's
    own files are always read and hashed."""
    digest = _known_digest(index, module)
    if digest is None:
        try:
            data = module.path.read_bytes()
        except OSError:
            return []
        digest = hashlib.sha256(data).hexdigest()
        text = data.decode("utf-8", errors="replace")
        if module.in_project:
            index._texts[module.name] = text
        else:
            index._stats[str(module.path)] = [*_signature(module.path), digest]
            index._dirty = True
        if digest not in index._entries:
            index._entries[digest] = _Entry(imports=header_imports(text))
            index._dirty = True
    index.modules[module.name] = module
    index._digests[module.name] = digest
    return index._entries[digest].imports


def _known_digest(index: ProjectIndex, module: SourceModule) -> str | None:
    if module.in_project:
        return None
    known = index._stats.get(str(module.path))
    if known is None or known[2] not in index._entries:
        return None
    return str(known[2]) if known[:2] == _signature(module.path) else None


def _signature(path: Path) -> list[int | str]:
    try:
        found = path.stat()
    except OSError:
        return [-1, -1]
    return [found.st_size, found.st_mtime_ns]


def header_imports(text: str) -> list[str]:
    """The modules a Lean file's header imports, in order, as names (`jigcli.lean.header`)."""
    from jigcli.lean.header import imports

    return [plain_name(module) for module in imports(text)]


# -- the packages Lake fetched ------------------------------------------------------------------


def _fetched_packages(project: LakeProject) -> list[tuple[str, LakeProject]]:
    """Each package `lake-manifest.json` lists whose folder holds a lakefile, read as data."""
    try:
        manifest = json.loads((project.root / "lake-manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    if not isinstance(manifest, dict):
        return []
    packages_dir = project.root / str(manifest.get("packagesDir") or _PACKAGES_DIR)
    found = []
    for entry in manifest.get("packages") or []:
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            continue
        folder = _package_folder(project.root, packages_dir, entry)
        if not any((folder / name).is_file() for name in LAKEFILES):
            continue
        try:
            found.append((entry["name"], read_project(folder)))
        except UsageError:
            continue  # a package whose lakefile jig cannot read holds no module it can find
    return found


def _package_folder(root: Path, packages_dir: Path, entry: dict[str, object]) -> Path:
    if entry.get("type") == "path" and isinstance(entry.get("dir"), str):
        return root / str(entry["dir"])
    folder = packages_dir / str(entry["name"])
    sub = entry.get("subDir")
    return folder / sub if isinstance(sub, str) and sub else folder


# -- the cache ----------------------------------------------------------------------------------


def _cache_file(project: LakeProject, cache_dir: Path | None) -> tuple[Path, str] | None:
    """Where the index is kept: below `cache_dir`, else jig's cache folder while it is the
    user's alone (`jigcli.cachedir`); None: not kept."""
    from jigcli.cachedir import usable_root

    base = cache_dir if cache_dir is not None else usable_root()
    if base is None:
        return None
    key = hashlib.sha256(os.fsencode(project.root.resolve())).hexdigest()[:32]
    return base, f"lean-index/{key}.json"


def _load_cache(
    cache: tuple[Path, str] | None,
) -> tuple[dict[str, _Entry], dict[str, list[int | str]]]:
    """The entries and package-file signatures of the last run; empty when there is no cache
    jig can read (read through no link below the cache folder)."""
    from jigcli.safefiles import Unreadable, read_beneath

    if cache is None:
        return {}, {}
    base, relative = cache
    try:
        data = json.loads(read_beneath(base, relative, _CACHE_CAP).decode("utf-8"))
        if data.get("format") != CACHE_FORMAT:
            return {}, {}
        entries = {digest: _Entry(**entry) for digest, entry in data["files"].items()}
        for entry in entries.values():
            if entry.decls is not None and not all(map(_is_record, entry.decls)):
                entry.decls = None  # not what jig writes: the file is read again
        stats = {
            str(path): list(stat)
            for path, stat in data["stats"].items()
            if isinstance(stat, list) and len(stat) == 3
        }
        return entries, stats
    except (Unreadable, OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}, {}


_DECL_FIELDS = tuple(f.name for f in fields(Decl) if f.name != "source")


def _is_record(record: object) -> bool:
    return (
        isinstance(record, dict)
        and all(name in record for name in _DECL_FIELDS)
        and isinstance(record["full_name"], str)
    )


def _decl_record(decl: Decl) -> dict[str, object]:
    """A declaration as the cache keeps it: every field but its source, which its lines give."""
    return {name: getattr(decl, name) for name in _DECL_FIELDS}


def _from_entry(path: Path, text: str, entry: _Entry) -> LeanFile | None:
    """The declarations the cache recorded for these bytes; None when the record is not one
    jig wrote (then the file is read again)."""
    try:
        return _decls_of(path, text, entry)
    except (TypeError, ValueError, KeyError):
        return None


def _decls_of(path: Path, text: str, entry: _Entry) -> LeanFile:
    lines = text.split("\n")
    decls = []
    for record in entry.decls or []:
        values = dict(record)
        values["namespaces"] = tuple(values["namespaces"])  # type: ignore[arg-type]
        values["tex_labels"] = tuple(values["tex_labels"])  # type: ignore[arg-type]
        first, last = int(values["line"]), int(values["end_line"])  # type: ignore[call-overload]
        decls.append(Decl(**values, source="\n".join(lines[first - 1 : last])))  # type: ignore[arg-type]
    return LeanFile(path, text, tuple(decls), tuple(entry.scopes))
