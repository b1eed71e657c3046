"""The export of a built submission: the one file the build's sandbox writes that jig reads.

After the submission's module is built, a second step in the same sandbox runs `jig_export`
(`Verify/Export.lean`, built by the trusted build), which imports the module the way Lean's
importer does (every `.olean` part, at the private level) and writes the module's own
constants as text in lean4export's NDJSON format 3.1.0 (`format_ndjson.md` of
leanprover/lean4export, transcribed in `tests/data/lean/lean4export-format-3.1.0.json`). The
trusted judge (`Verify/Judge.lean`) parses that text with a bounded parser and replays it
through the kernel; it never maps a file the build wrote.

This module is jig's side of that file: `read_export` opens it without following links, as a
regular file of at most `MAX_EXPORT_BYTES`, and checks it before the judge is started, so that
a malformed, truncated, oversized or foreign export is a red `verifier_error` with a sentence
saying why. The judge checks everything again; nothing here decides a verdict's green.

What is checked: UTF-8 text of whole lines; a first line with lean4export's `meta` object
(format version 3.1.0) and jig's own `meta.jig` (the module exported, the number of
declaration records that follow, so a file cut at a line boundary is caught); then one record
per line, each a JSON object of one kind the format defines, names numbered from 1 (`in`),
levels from 1 (`il`), expressions from 0 (`ie`), in order, each referring only to what came
before it.
"""

from __future__ import annotations

import json
import json.scanner
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from jigcli.safefiles import Unreadable, read_beneath

FORMAT_VERSION = "3.1.0"
# The export of one module is a few MB even for a long proof; a file past this is refused
# before a byte of it is parsed (the judge's parser has the same cap).
MAX_EXPORT_BYTES = 256 * 1024 * 1024
# The file `jig_export` writes in its output folder.
EXPORT_NAME = "export.ndjson"

# The format's declaration records (`format_ndjson.md`, "Declarations").
DECLARATION_KINDS = ("axiom", "def", "opaque", "thm", "quot", "inductive")
_BINDER_INFOS = frozenset(("default", "implicit", "strictImplicit", "instImplicit"))


class ExportProblem(Exception):
    """The export cannot be used; `str()` says why, as the end of a sentence."""


@dataclass
class Export:
    """A checked export: its bytes (what the judge is given) and what a reader is told."""

    data: bytes
    module: str
    declarations: list[str] = field(default_factory=list)  # every constant's name, in order
    names: int = 0
    levels: int = 0
    expressions: int = 0


def read_export(folder: Path, module: str) -> Export:
    """The export `jig_export` wrote in `folder`, checked to be an export of `module`."""
    try:
        data = read_beneath(folder, EXPORT_NAME, MAX_EXPORT_BYTES)
    except Unreadable as unusable:
        raise ExportProblem(f"the build's export {unusable}") from None
    return check_export(data, module)


def check_export(data: bytes, module: str) -> Export:
    """`data` checked as an export of `module` (see the module docstring)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as bad:
        raise ExportProblem(f"the export is not UTF-8 (byte {bad.start})") from None
    if not text.endswith("\n"):
        raise ExportProblem("the export is truncated: its last line has no end")
    first, start = _load(text, 0, 1)
    expected = _meta(first, module)
    export = Export(data, module)
    checker = _Checker(export)
    checker.run(text, start)
    if checker.records != expected:
        raise ExportProblem(
            f"the export is truncated: it has {checker.records} declarations, "
            f"its header promises {expected}"
        )
    return export


# The JSON scanner `json.loads` runs under its wrappers, called once per line at its start: a
# line must be exactly one JSON value (no blank before it, its newline right after it; a JSON
# string holds no raw newline), read as strictly as `json.loads` reads it.
# (`JSONDecoder` is the context the standard library hands it; typeshed types it otherwise.)
_SCAN = json.scanner.make_scanner(cast(Any, json.JSONDecoder()))


def _load(text: str, pos: int, number: int) -> tuple[dict[str, Any], int]:
    """The JSON object on the line starting at `pos`, and where the next line starts."""
    try:
        value, end = _SCAN(text, pos)
    except (StopIteration, ValueError, RecursionError):
        raise ExportProblem(f"line {number} of the export is not JSON") from None
    if text[end : end + 1] != "\n":
        raise ExportProblem(f"line {number} of the export is not one JSON value")
    if type(value) is not dict:
        raise ExportProblem(f"line {number} of the export is not a JSON object")
    return value, end + 1


def _meta(first: dict[str, Any], module: str) -> int:
    """The declaration count the header promises, once the header is right."""
    meta = first.get("meta")
    if len(first) != 1 or type(meta) is not dict:
        raise ExportProblem("the export does not begin with lean4export's meta object")
    version = _field(meta, "format", dict).get("version")
    if version != FORMAT_VERSION:
        raise ExportProblem(f"the export is in format {version!r}, not {FORMAT_VERSION}")
    for part in ("exporter", "lean"):
        _field(meta, part, dict)
    jig = _field(meta, "jig", dict)
    named = jig.get("module")
    if named != module:
        raise ExportProblem(f"the export is of module {named!r}, not {module}")
    count = jig.get("declarations")
    if type(count) is not int or count < 0:
        raise ExportProblem("the export's header does not say how many declarations follow")
    return count


def _field(record: dict[str, Any], key: str, kind: type) -> Any:
    value = record.get(key)
    if type(value) is not kind:
        raise ExportProblem(f"the export's meta object has no {key} object")
    return value


class _Checker:
    """One pass over the records after the header; each checked against what came before."""

    def __init__(self, export: Export) -> None:
        self.export = export
        self.names: list[str] = [""]  # 0 is the anonymous name
        self.levels = 1  # 0 is level zero
        self.exprs = 0
        self.line = 1
        self.records = 0  # declaration lines
        self._decls: dict[str, Callable[[Any], None]] = {
            "axiom": self._axiom,
            "def": self._definition,
            "opaque": self._definition,
            "thm": self._definition,
            "quot": self._quot,
            "inductive": self._inductive,
        }

    def run(self, text: str, pos: int) -> None:
        """Every line from `pos` on (the header's end) to the end of `text`. The commonest
        lines, one JSON object each and an application at that, are read and checked here in
        line, exactly as `_load` and `_expr` would: the loop is the reader's whole cost."""
        end, scan = len(text), _SCAN
        while pos < end:
            self.line += 1
            try:
                record, stop = scan(text, pos)
            except (StopIteration, ValueError, RecursionError):
                raise self.fail("is not JSON") from None
            if type(record) is not dict or text[stop : stop + 1] != "\n":
                _load(text, pos, self.line)  # says which way the line is wrong
            pos = stop + 1
            if "ie" in record:
                app = record.get("app")
                if type(app) is dict and len(app) == 2 and len(record) == 2:
                    index, fn, arg = record["ie"], app.get("fn"), app.get("arg")
                    if (
                        type(index) is int
                        and index == self.exprs
                        and type(fn) is int
                        and type(arg) is int
                        and 0 <= fn < index
                        and 0 <= arg < index
                    ):
                        self.exprs = index + 1
                        continue
                self._expr(record)
            elif "in" in record:
                self._name(record)
            elif "il" in record:
                self._level(record)
            else:
                self._declaration(record)
        export = self.export
        export.names, export.levels, export.expressions = (
            len(self.names) - 1,
            self.levels - 1,
            self.exprs,
        )

    def fail(self, why: str) -> ExportProblem:
        return ExportProblem(f"line {self.line} of the export {why}")

    # -- primitives ----------------------------------------------------------------------------

    def _name(self, record: dict[str, Any]) -> None:
        if not _is(record["in"], len(self.names)) or len(record) != 2:
            raise self.fail("is not the next name")
        if "str" in record:
            body = record["str"]
            part = body.get("str") if type(body) is dict else None
            if type(part) is not str:
                raise self.fail("is a malformed name")
        elif "num" in record and type(record["num"]) is dict:
            body = record["num"]
            part = body.get("i")
            if type(part) is not int or part < 0:
                raise self.fail("is a malformed name")
        else:
            raise self.fail("is a malformed name")
        pre = self._name_ref(body.get("pre"))
        self.names.append(f"{self.names[pre]}.{part}" if pre else str(part))

    def _level(self, record: dict[str, Any]) -> None:
        if not _is(record["il"], self.levels) or len(record) != 2:
            raise self.fail("is not the next level")
        if "succ" in record:
            self._level_ref(record["succ"])
        elif "max" in record or "imax" in record:
            pair = record.get("max", record.get("imax"))
            if type(pair) is not list or len(pair) != 2:
                raise self.fail("is a malformed level")
            self._level_ref(pair[0])
            self._level_ref(pair[1])
        elif "param" in record:
            self._name_ref(record["param"])
        else:
            raise self.fail("is a malformed level")
        self.levels += 1

    def _expr(self, record: dict[str, Any]) -> None:
        index = record.pop("ie")
        if type(index) is not int or index != self.exprs or len(record) != 1:
            raise self.fail("is not the next expression")
        kind = next(iter(record))
        body = record[kind]
        check = _EXPRS.get(kind)
        if check is None or not check(self, body):
            raise self.fail(f"is a malformed expression ({kind})")
        self.exprs += 1

    def _name_ref(self, index: Any) -> int:
        if type(index) is not int or not 0 <= index < len(self.names):
            raise self.fail("refers to a name not defined before it")
        return index

    def _level_ref(self, index: Any) -> None:
        if type(index) is not int or not 0 <= index < self.levels:
            raise self.fail("refers to a level not defined before it")

    def _expr_ref(self, index: Any) -> None:
        if type(index) is not int or not 0 <= index < self.exprs:
            raise self.fail("refers to an expression not defined before it")

    # -- declarations --------------------------------------------------------------------------

    def _declaration(self, record: dict[str, Any]) -> None:
        if len(record) != 1:
            raise self.fail("is not a name, level, expression or declaration")
        ((kind, body),) = record.items()
        check = self._decls.get(kind)
        if check is None or type(body) is not dict:
            raise self.fail(f"is not a record of the export format ({kind})")
        check(body)
        self.records += 1

    def _constant(self, body: dict[str, Any]) -> None:
        """The fields every constant has: its name, universe parameters and type."""
        name = self._name_ref(body.get("name"))
        if name == 0:
            raise self.fail("declares a constant with no name")
        params = body.get("levelParams")
        if type(params) is not list:
            raise self.fail("is a declaration without levelParams")
        for param in params:
            self._name_ref(param)
        self._expr_ref(body.get("type"))
        self.export.declarations.append(self.names[name])

    def _axiom(self, body: dict[str, Any]) -> None:
        self._constant(body)
        self._flag(body, "isUnsafe")

    def _definition(self, body: dict[str, Any]) -> None:
        self._constant(body)
        self._expr_ref(body.get("value"))
        self._names(body, "all")

    def _quot(self, body: dict[str, Any]) -> None:
        self._constant(body)
        if body.get("kind") not in ("type", "ctor", "lift", "ind"):
            raise self.fail("is a quot with an unknown kind")

    def _inductive(self, body: dict[str, Any]) -> None:
        lists: list[Any] = [body.get(key) for key in ("types", "ctors", "recs")]
        if any(type(items) is not list for items in lists) or not lists[0]:
            raise self.fail("is a malformed inductive block")
        for items in lists:
            for item in items:
                if type(item) is not dict:
                    raise self.fail("is a malformed inductive block")
                self._constant(item)

    def _names(self, body: dict[str, Any], key: str) -> None:
        items = body.get(key)
        if type(items) is not list:
            raise self.fail(f"is a declaration without {key}")
        for item in items:
            self._name_ref(item)

    def _flag(self, body: dict[str, Any], key: str) -> None:
        if type(body.get(key)) is not bool:
            raise self.fail(f"is a declaration without {key}")


def _is(index: Any, expected: int) -> bool:
    """`index` is the number `expected` (a JSON `true` is not 1)."""
    return type(index) is int and index == expected


def _binder(checker: _Checker, body: Any) -> bool:
    if type(body) is not dict or body.get("binderInfo") not in _BINDER_INFOS:
        return False
    checker._name_ref(body.get("name"))
    checker._expr_ref(body.get("type"))
    checker._expr_ref(body.get("body"))
    return True


def _const(checker: _Checker, body: Any) -> bool:
    if type(body) is not dict or type(body.get("us")) is not list:
        return False
    checker._name_ref(body.get("name"))
    levels: list[Any] = body["us"]
    for level in levels:
        checker._level_ref(level)
    return True


def _app(checker: _Checker, body: Any) -> bool:
    if type(body) is not dict:
        return False
    checker._expr_ref(body.get("fn"))
    checker._expr_ref(body.get("arg"))
    return True


def _let(checker: _Checker, body: Any) -> bool:
    if type(body) is not dict or type(body.get("nondep")) is not bool:
        return False
    checker._name_ref(body.get("name"))
    for key in ("type", "value", "body"):
        checker._expr_ref(body.get(key))
    return True


def _proj(checker: _Checker, body: Any) -> bool:
    if type(body) is not dict or type(body.get("idx")) is not int or body["idx"] < 0:
        return False
    checker._name_ref(body.get("typeName"))
    checker._expr_ref(body.get("struct"))
    return True


def _mdata(checker: _Checker, body: Any) -> bool:
    if type(body) is not dict or type(body.get("data")) is not dict:
        return False
    checker._expr_ref(body.get("expr"))
    return True


def _index(kind: Callable[[_Checker, Any], None]) -> Callable[[_Checker, Any], bool]:
    def check(checker: _Checker, body: Any) -> bool:
        kind(checker, body)
        return True

    return check


def _nat_text(checker: _Checker, body: Any) -> bool:
    return type(body) is str and body.isascii() and body.isdigit()


_EXPRS: dict[str, Callable[[_Checker, Any], bool]] = {
    "bvar": lambda checker, body: type(body) is int and body >= 0,
    "sort": _index(_Checker._level_ref),
    "const": _const,
    "app": _app,
    "lam": _binder,
    "forallE": _binder,
    "letE": _let,
    "proj": _proj,
    "natVal": _nat_text,
    "strVal": lambda checker, body: type(body) is str,
    "mdata": _mdata,
}
