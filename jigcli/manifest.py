"""Submission manifests (`conject.submission.v1`): read, validated, and typed.

A manifest that exists but is malformed is not a usage error: it is a red `bad_manifest`
verdict, so `ManifestError` carries a sentence naming the field for the verdict's detail.
Every field that names a statement, a Lean constant or a file is checked whole before any
step uses it (`_check_names`).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, NamedTuple

from jigcli.jsondoc import JsonProblem, is_unicode_text, parse_json
from jigcli.safefiles import SIZE, Unreadable, read_beneath, read_file
from jigcli.schemas import load_schema, validate

MAX_MANIFEST_BYTES = 1024 * 1024


class ManifestError(Exception):
    """The manifest cannot be used; `str()` says which field and why."""


class Manifest(NamedTuple):
    path: Path
    data: dict[str, Any]
    raw: bytes

    @property
    def kind(self) -> str:
        return str(self.data["kind"])

    @property
    def statement_id(self) -> str:
        return str(self.data["statement_id"])

    @property
    def module(self) -> str | None:
        return self.data.get("module")

    @property
    def decl(self) -> str | None:
        return self.data.get("decl")

    @property
    def refutes(self) -> str | None:
        return self.data.get("refutes")

    @property
    def witness(self) -> str | None:
        return self.data.get("witness")

    @property
    def expect(self) -> str | None:
        return self.data.get("expect")

    @property
    def expect_reason(self) -> str | None:
        return self.data.get("expect_reason")

    @property
    def duplicate_of(self) -> str | None:
        return self.data.get("duplicate_of")

    @property
    def folder(self) -> Path:
        return self.path.parent


def read_manifest(path: Path, beneath: Path | None = None) -> Manifest:
    """Parse and validate the manifest at `path`, never through a link: with `beneath` (the
    repo root, which `path` lies under) no part below it may be one, else only its last."""
    try:
        if beneath is not None:
            raw = read_beneath(beneath, path.relative_to(beneath).as_posix(), MAX_MANIFEST_BYTES)
        else:
            raw = read_file(path, MAX_MANIFEST_BYTES)
    except Unreadable as why:
        if why.kind == SIZE:
            raise ManifestError(f"the manifest is larger than {MAX_MANIFEST_BYTES} bytes") from None
        raise ManifestError(f"the manifest {why}") from None
    data = _parse_json(raw, path.relative_to(beneath) if beneath is not None else path)
    _check_text(data)
    problems = validate(data, "submission")
    if problems:
        raise ManifestError("; ".join(_with_misspellings(problems, data)))
    manifest = Manifest(path=path, data=data, raw=raw)
    _check_names(data)
    if manifest.kind == "lean":
        _check_lean_fields(manifest)
    return manifest


def _check_text(value: Any, field: str = "the manifest") -> None:
    """Every key and string is Unicode text: JSON's `\\ud800` escapes decode to a lone
    surrogate, which no file name, hash or output can hold."""
    if isinstance(value, str) and not is_unicode_text(value):
        raise ManifestError(
            f"{field}: holds a lone surrogate (an escape like \\ud800 alone), which is not "
            "Unicode text"
        )
    children = (
        value.items()
        if isinstance(value, dict)
        else enumerate(value)
        if isinstance(value, list)
        else ()
    )
    for key, child in children:
        name = str(key).encode("utf-8", "backslashreplace").decode()
        _check_text(key, name)
        _check_text(child, name)


# Fields naming a file or a Lean name, and the whole of what each may be. The schema's
# patterns are searched, and `$` there matches before a final newline, so `"S001\n"` passed
# them; these match the whole value.
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,127}")
_LEAN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_']*(\.[A-Za-z_][A-Za-z0-9_']*)*")
_NAMES = {"statement_id": _ID, "refutes": _ID, "module": _LEAN_NAME, "decl": _LEAN_NAME}
_PATHS = ("witness", "duplicate_of")


def _check_names(data: dict[str, Any]) -> None:
    """Every id, Lean name and path field, checked before anything uses it."""
    for field, whole in _NAMES.items():
        value = data.get(field)
        if isinstance(value, str) and not whole.fullmatch(value):
            raise ManifestError(f"{field}: {value!r} is not a valid {field.replace('_', ' ')}")
    for field in _PATHS:
        value = data.get(field)
        if isinstance(value, str):
            problem = path_problem(value)
            if problem is not None:
                raise ManifestError(f"{field}: {value!r} {problem}")


def path_problem(value: str) -> str | None:
    """Why `value` cannot name a file inside the repo relative to where it is named, else
    None: a control character (NUL, a newline), an absolute path, a `..`, an empty part."""
    if any(ord(char) < 0x20 or ord(char) == 0x7F for char in value):
        return "holds a control character"
    if value.startswith("/"):
        return "must be relative to the manifest, not an absolute path"
    parts = value.split("/")
    if ".." in parts:
        return "leaves its folder (..); name a file inside it"
    if any(part in ("", ".") for part in parts):
        return "has an empty or '.' part; write the plain relative path"
    return None


def _with_misspellings(problems: list[str], data: dict[str, Any]) -> list[str]:
    """Each "'x' is required" with the key of the manifest that looks like `x` misspelt
    (`statment_id`): the schema alone would only say the right one is missing."""
    import difflib

    known = _schema_fields(load_schema("submission"))
    unknown = [key for key in data if key not in known]
    said = []
    for problem in problems:
        match = _REQUIRED.fullmatch(problem)
        close = difflib.get_close_matches(match.group(1), unknown, n=1) if match else []
        said.append(f"{problem}; is {close[0]!r} a misspelling of it?" if close else problem)
    return said


_REQUIRED = re.compile(r"'([^']+)' is required")


def _schema_fields(schema: Any) -> set[str]:
    """Every field name the schema declares anywhere (in each kind's branch too)."""
    if isinstance(schema, list):
        return set().union(*map(_schema_fields, schema)) if schema else set()
    if not isinstance(schema, dict):
        return set()
    own = set(schema["properties"]) if isinstance(schema.get("properties"), dict) else set()
    return own.union(*map(_schema_fields, schema.values()))


def _parse_json(raw: bytes, where: Path) -> dict[str, Any]:
    """The manifest's object; a JSON error is `path:line:col: …`, as an editor opens it."""
    try:
        data = parse_json(raw, "the manifest")
    except JsonProblem as problem:
        if problem.place is None:
            raise ManifestError(str(problem)) from problem
        line, column = problem.place
        said = re.sub(r" at line \d+ column \d+", "", str(problem))
        raise ManifestError(f"{where.as_posix()}:{line}:{column}: {said}") from problem
    if not isinstance(data, dict):
        raise ManifestError("the manifest must be a JSON object")
    return data


def _check_lean_fields(manifest: Manifest) -> None:
    module, decl = manifest.module or "", manifest.decl or ""
    if not decl.startswith(module + "."):
        raise ManifestError(
            f"decl: {decl!r} must live inside module {module!r} (as {module}.<name>)"
        )
    if module.split(".")[0] != "Submissions":
        raise ManifestError(f"module: {module!r} must be a module under Submissions")


def check_module_location(manifest: Manifest, repo_root: Path) -> None:
    """The module must name a source in the manifest's own folder, never elsewhere."""
    module = manifest.module or ""
    source = repo_root.joinpath(*module.split(".")).with_suffix(".lean")
    if source.parent.resolve() != manifest.folder.resolve():
        raise ManifestError(
            f"module: {module!r} names {source.relative_to(repo_root).as_posix()}, which is not "
            f"in the manifest's own folder; name a module whose source sits beside the manifest"
        )
