"""lean4export's NDJSON, read in Python: what jig learns from the solution's export after
comparator has answered (the axioms in a constant's closure, its type, its term's hash).

The format (`format_ndjson.md` of leanprover/lean4export, transcribed in
`tests/data/lean/lean4export-format-3.1.0.json`): a first line with the `meta` object, then
one record per line, names numbered from 1 (`in`, 0 the anonymous name), levels from 1 (`il`,
0 level zero), expressions from 0 (`ie`), each referring only to what came before it, and
declaration records (`axiom`, `def`, `opaque`, `thm`, `quot`, `inductive`).

The export is the submission's to shape (its build wrote the `.olean` files lean4export
read), so reading it is bounded: one pass, each record kept as a small tuple (a name as its
prefix's number and its last part, never the whole dotted string, so a chain of 40,000 names
costs what its text does), names at most `MAX_NAME_DEPTH` parts deep, literals at most
`MAX_LITERAL_CHARS`, the file at most `MAX_EXPORT_BYTES`. Anything else is `ExportProblem`.
Walking the expressions afterwards visits each node once (`closure`, `axioms_of`, `hash_of`).
Nothing read here turns a verdict green: comparator decided that.
"""

from __future__ import annotations

import hashlib
import json
import json.scanner
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, cast

MAX_EXPORT_BYTES = 1024 * 1024 * 1024
MAX_NAME_DEPTH = 256  # parts of a name, and nesting of a universe level
MAX_LITERAL_CHARS = 1024 * 1024
DECLARATION_KINDS = ("axiom", "def", "opaque", "thm", "quot", "inductive")
_BINDER_INFOS = frozenset(("default", "implicit", "strictImplicit", "instImplicit"))
_SCAN = json.scanner.make_scanner(cast(Any, json.JSONDecoder()))


_Levels = tuple[tuple[int, str], ...]  # a universe parameter's name number, and what it is
_Key = tuple[int, _Levels]  # an expression under those universe parameters


class ExportProblem(Exception):
    """The export cannot be read; `str()` says why, as the end of a sentence."""


@dataclass(frozen=True)
class Constant:
    name: str
    kind: str  # axiom, def, opaque, thm, quot, inductive, ctor, rec
    level_params: tuple[int, ...]  # name numbers
    type: int
    value: int | None = None


@dataclass
class Export:
    """The records of one export, as numbers into its tables."""

    format_version: str = ""
    names: list[tuple[int, str]] = field(default_factory=lambda: [(0, "")])
    depths: list[int] = field(default_factory=lambda: [0])
    levels: list[tuple[Any, ...]] = field(default_factory=lambda: [("zero",)])
    level_depths: list[int] = field(default_factory=lambda: [0])
    exprs: list[tuple[Any, ...]] = field(default_factory=list)
    constants: dict[str, Constant] = field(default_factory=dict)
    ctors: dict[str, tuple[str, ...]] = field(default_factory=dict)  # of each inductive type

    def name(self, index: int) -> str:
        """The dotted name numbered `index` (parts holding a dot keep their guillemets)."""
        parts: list[str] = []
        while index:
            pre, part = self.names[index]
            parts.append(f"«{part}»" if "." in part else part)
            index = pre
        return ".".join(reversed(parts))

    # -- walks ---------------------------------------------------------------------------------

    def constants_in(self, root: int) -> Iterator[str]:
        """The constants expression `root` names, each node visited once."""
        seen: set[int] = set()
        stack = [root]
        while stack:
            index = stack.pop()
            if index in seen:
                continue
            seen.add(index)
            node = self.exprs[index]
            if node[0] == "const":
                yield self.name(node[1])
            stack.extend(child for child in _children(node))

    def closure(self, start: str) -> list[str]:
        """Every constant `start` depends on through types and values, as Lean's
        `CollectAxioms` walks them (`src/Lean/Util/CollectAxioms.lean`): a constructor or
        recursor through its type, an inductive through its type and its constructors."""
        order: list[str] = []
        seen: set[str] = set()
        stack = [start]
        while stack:
            name = stack.pop()
            if name in seen:
                continue
            seen.add(name)
            order.append(name)
            constant = self.constants.get(name)
            if constant is None:
                continue
            roots = [constant.type] + ([] if constant.value is None else [constant.value])
            for root in roots:
                stack.extend(self.constants_in(root))
            if constant.kind == "inductive":
                stack.extend(self.ctors.get(name, ()))
        return order

    def axioms_of(self, start: str) -> list[str]:
        """The axioms in `start`'s closure, sorted."""
        kinds = {name: c.kind for name, c in self.constants.items()}
        return sorted(n for n in self.closure(start) if kinds.get(n) == "axiom")

    # -- rendering and hashing -----------------------------------------------------------------

    def render(self, root: int, limit: int = 2000) -> str:
        """`root` as a short text (bound variables as `#i`), for a verdict's detail."""
        out: list[str] = []
        size = 0
        stack: list[Any] = [root]
        while stack and size < limit:
            item = stack.pop()
            if isinstance(item, str):
                out.append(item)
                size += len(item)
                continue
            node = self.exprs[item]
            kind = node[0]
            if kind == "const":
                text = self.name(node[1])
            elif kind == "bvar":
                text = f"#{node[1]}"
            elif kind == "sort":
                text = "Sort"
            elif kind in ("natVal", "strVal"):
                text = json.dumps(node[1], ensure_ascii=False) if kind == "strVal" else node[1]
            elif kind == "app":
                stack += [")", node[2], " ", node[1]]
                text = "("
            elif kind in ("lam", "forallE"):
                word = "fun" if kind == "lam" else "∀"
                stack += [")", node[3], ", ", node[2]]
                text = f"({word} {self.name(node[1])} : "
            elif kind == "letE":
                stack += [")", node[4], "; ", node[3], " := ", node[2]]
                text = f"(let {self.name(node[1])} : "
            elif kind == "proj":
                stack += [f").{node[2] + 1}", node[3]]
                text = "("
            else:  # mdata
                stack.append(node[1])
                continue
            out.append(text)
            size += len(text)
        text = "".join(out)
        return text if size < limit else text[:limit] + "…"

    def hash_of(self, start: str, inline: set[str]) -> str:
        """SHA-256 of `start`'s value, normalized as PRODUCT.md §4 says: binder names, binder
        info and `mdata` dropped, universe parameters by position, the constants in `inline`
        (the submitter's own) replaced by their values; every other constant by name. Each
        (node, universe parameters) pair is digested once, children first, with no recursion
        (a proof term is deep); a constant met again while it is being inlined stays a name."""
        constant = self.constants[start]
        root = constant.value if constant.value is not None else constant.type
        memo: dict[_Key, str] = {}
        opened: set[_Key] = set()
        start_key = (root, tuple((p, f"u{i}") for i, p in enumerate(constant.level_params)))
        stack: list[_Key] = [start_key]
        while stack:
            key = stack[-1]
            if key in memo:
                stack.pop()
                continue
            needed = [d for d in self._parts(*key, inline) if isinstance(d, tuple)]
            waiting = [d for d in needed if d not in memo and d not in opened]
            if key not in opened and waiting:
                opened.add(key)
                stack.extend(waiting)
                continue
            stack.pop()
            opened.discard(key)
            parts = self._parts(*key, inline)
            if parts[0] == "same":  # mdata, or an inlined constant: its expression's digest
                memo[key] = memo.get(parts[1], "cycle")
                continue
            text = " ".join(
                memo.get(part, "cycle") if isinstance(part, tuple) else part for part in parts
            )
            memo[key] = hashlib.sha256(text.encode()).hexdigest()
        return "sha256:" + memo[start_key]

    def _parts(self, index: int, params: _Levels, inline: set[str]) -> list[Any]:
        """What a node's digest is made of: words, and the (node, parameters) pairs whose
        digests stand for its children."""
        node = self.exprs[index]
        kind = node[0]
        if kind == "const":
            name = self.name(node[1])
            target = self.constants.get(name)
            levels = [self._level(level, params) for level in node[2]]
            if name in inline and target is not None and target.value is not None:
                # The value stands in its place, its universe parameters instantiated (a
                # count that does not match is the kernel's to refuse, not the hash's).
                levels_of = tuple(zip(target.level_params, levels, strict=False))
                return ["same", (target.value, levels_of)]
            return ["const", name, *levels]
        if kind == "sort":
            return ["sort", self._level(node[1], params)]
        if kind == "mdata":
            return ["same", (node[1], params)]
        return [
            kind,
            *(
                (part, params) if isinstance(part, int) else part
                for part in _scalars_and_children(node)
            ),
        ]

    def _level(self, index: int, params: _Levels) -> str:
        node = self.levels[index]
        if node[0] == "zero":
            return "0"
        if node[0] == "succ":
            return f"(+1 {self._level(node[1], params)})"
        if node[0] == "param":
            return dict(params).get(node[1]) or self.name(node[1])
        return f"({node[0]} {self._level(node[1], params)} {self._level(node[2], params)})"


def _children(node: tuple[Any, ...]) -> list[int]:
    kind = node[0]
    if kind == "app":
        return [node[1], node[2]]
    if kind in ("lam", "forallE"):
        return [node[2], node[3]]
    if kind == "letE":
        return [node[2], node[3], node[4]]
    if kind == "proj":
        return [node[3]]
    if kind == "mdata":
        return [node[1]]
    return []


def _scalars_and_children(node: tuple[Any, ...]) -> list[Any]:
    """What the hash keeps of a node that is not a constant, sort or mdata: its children
    (ints) and the scalars that matter (a bound variable's index, a literal, a projection's
    structure and field), never a binder's name or info."""
    kind = node[0]
    if kind in ("bvar", "natVal"):
        return [str(node[1])]
    if kind == "strVal":
        return [json.dumps(node[1])]
    if kind == "proj":
        return [f"p{node[1]}", f"i{node[2]}", node[3]]
    return _children(node)


# -- reading --------------------------------------------------------------------------------------


def read_export(data: bytes) -> Export:
    """`data` read as one lean4export export (see the module docstring)."""
    if len(data) > MAX_EXPORT_BYTES:
        raise ExportProblem(f"the export is larger than {MAX_EXPORT_BYTES} bytes")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as bad:
        raise ExportProblem(f"the export is not UTF-8 (byte {bad.start})") from None
    if not text.endswith("\n"):
        raise ExportProblem("the export is truncated: its last line has no end")
    reader = _Reader(text)
    reader.meta()
    reader.records()
    return reader.export


class _Reader:
    def __init__(self, text: str) -> None:
        self.text, self.pos, self.line = text, 0, 0
        self.export = Export()

    def fail(self, why: str) -> ExportProblem:
        return ExportProblem(f"line {self.line} of the export {why}")

    def next_record(self) -> dict[str, Any]:
        self.line += 1
        try:
            value, end = _SCAN(self.text, self.pos)
        except (StopIteration, ValueError, RecursionError):
            raise self.fail("is not JSON") from None
        if self.text[end : end + 1] != "\n" or type(value) is not dict:
            raise self.fail("is not one JSON object")
        self.pos = end + 1
        return cast(dict[str, Any], value)

    def meta(self) -> None:
        first = self.next_record()
        meta = first.get("meta")
        version = meta.get("format", {}).get("version") if type(meta) is dict else None
        if len(first) != 1 or type(version) is not str:
            raise ExportProblem("the export does not begin with lean4export's meta object")
        if version.split(".")[0] != "3":
            raise ExportProblem(f"the export is in format {version!r}, not 3.x")
        self.export.format_version = version

    def records(self) -> None:
        while self.pos < len(self.text):
            record = self.next_record()
            if "ie" in record:
                self._expr(record)
            elif "in" in record:
                self._name(record)
            elif "il" in record:
                self._level(record)
            else:
                self._declaration(record)

    # -- names, levels, expressions ------------------------------------------------------------

    def _name(self, record: dict[str, Any]) -> None:
        export = self.export
        if not _is(record.pop("in"), len(export.names)) or len(record) != 1:
            raise self.fail("is not the next name")
        ((kind, body),) = record.items()
        part = body.get("str" if kind == "str" else "i") if type(body) is dict else None
        if kind == "str" and type(part) is str and len(part) <= MAX_LITERAL_CHARS:
            pass
        elif kind == "num" and type(part) is int and part >= 0:
            part = str(part)
        else:
            raise self.fail("is a malformed name")
        pre = self._ref(body.get("pre"), len(export.names), "a name")
        depth = export.depths[pre] + 1
        if depth > MAX_NAME_DEPTH:
            raise self.fail(f"is a name more than {MAX_NAME_DEPTH} parts deep")
        export.names.append((pre, part))
        export.depths.append(depth)

    def _level(self, record: dict[str, Any]) -> None:
        levels = self.export.levels
        if not _is(record.pop("il"), len(levels)) or len(record) != 1:
            raise self.fail("is not the next level")
        ((kind, body),) = record.items()
        if kind == "succ":
            levels.append(("succ", self._ref(body, len(levels), "a level")))
        elif kind in ("max", "imax") and type(body) is list and len(body) == 2:
            levels.append((kind, *(self._ref(b, len(levels), "a level") for b in body)))
        elif kind == "param":
            levels.append(("param", self._ref(body, len(self.export.names), "a name")))
        else:
            raise self.fail("is a malformed level")
        below = [self.export.level_depths[i] for i in levels[-1][1:] if kind != "param"]
        self.export.level_depths.append(1 + max(below, default=0))
        if self.export.level_depths[-1] > MAX_NAME_DEPTH:
            raise self.fail(f"is a level more than {MAX_NAME_DEPTH} deep")

    def _expr(self, record: dict[str, Any]) -> None:
        exprs = self.export.exprs
        if not _is(record.pop("ie"), len(exprs)) or len(record) != 1:
            raise self.fail("is not the next expression")
        ((kind, body),) = record.items()
        reader = _EXPRS.get(kind)
        node = reader(self, body) if reader is not None else None
        if node is None:
            raise self.fail(f"is a malformed expression ({kind})")
        exprs.append((kind, *node))

    def _ref(self, index: Any, bound: int, what: str) -> int:
        if type(index) is not int or not 0 <= index < bound:
            raise self.fail(f"refers to {what} not defined before it")
        return index

    def name_ref(self, index: Any) -> int:
        return self._ref(index, len(self.export.names), "a name")

    def level_ref(self, index: Any) -> int:
        return self._ref(index, len(self.export.levels), "a level")

    def expr_ref(self, index: Any) -> int:
        return self._ref(index, len(self.export.exprs), "an expression")

    # -- declarations --------------------------------------------------------------------------

    def _declaration(self, record: dict[str, Any]) -> None:
        if len(record) != 1:
            raise self.fail("is not a name, level, expression or declaration")
        ((kind, body),) = record.items()
        if kind not in DECLARATION_KINDS or type(body) is not dict:
            raise self.fail(f"is not a record of the export format ({kind})")
        if kind != "inductive":
            value = self.expr_ref(body.get("value")) if kind in ("def", "opaque", "thm") else None
            self._constant(body, kind, value)
            return
        lists: list[Any] = [body.get(key) for key in ("types", "ctors", "recs")]
        if any(type(items) is not list for items in lists) or not lists[0]:
            raise self.fail("is a malformed inductive block")
        for items, member in zip(lists, ("inductive", "ctor", "rec"), strict=True):
            for item in items:
                if type(item) is not dict:
                    raise self.fail("is a malformed inductive block")
                constant = self._constant(item, member, None)
                if member == "inductive":
                    ctors = item.get("ctors")
                    if type(ctors) is not list:
                        raise self.fail("is an inductive type without ctors")
                    named = tuple(self.export.name(self.name_ref(c)) for c in ctors)
                    self.export.ctors[constant.name] = named

    def _constant(self, body: dict[str, Any], kind: str, value: int | None) -> Constant:
        name_index = self.name_ref(body.get("name"))
        params = body.get("levelParams")
        if name_index == 0 or type(params) is not list:
            raise self.fail("is a declaration without a name or levelParams")
        constant = Constant(
            self.export.name(name_index),
            kind,
            tuple(self.name_ref(p) for p in params),
            self.expr_ref(body.get("type")),
            value,
        )
        if constant.name in self.export.constants:
            raise self.fail(f"declares {constant.name} twice")
        self.export.constants[constant.name] = constant
        return constant


def _is(index: Any, expected: int) -> bool:
    """`index` is the number `expected` (a JSON `true` is not 1)."""
    return type(index) is int and index == expected


def _binder(reader: _Reader, body: Any) -> tuple[Any, ...] | None:
    if type(body) is not dict or body.get("binderInfo") not in _BINDER_INFOS:
        return None
    name = reader.name_ref(body.get("name"))
    return (name, reader.expr_ref(body.get("type")), reader.expr_ref(body.get("body")))


def _const(reader: _Reader, body: Any) -> tuple[Any, ...] | None:
    if type(body) is not dict or type(body.get("us")) is not list:
        return None
    levels = tuple(reader.level_ref(level) for level in body["us"])
    return (reader.name_ref(body.get("name")), levels)


def _app(reader: _Reader, body: Any) -> tuple[Any, ...] | None:
    if type(body) is not dict:
        return None
    return (reader.expr_ref(body.get("fn")), reader.expr_ref(body.get("arg")))


def _let(reader: _Reader, body: Any) -> tuple[Any, ...] | None:
    if type(body) is not dict or type(body.get("nondep")) is not bool:
        return None
    name = reader.name_ref(body.get("name"))
    return (name, *(reader.expr_ref(body.get(key)) for key in ("type", "value", "body")))


def _proj(reader: _Reader, body: Any) -> tuple[Any, ...] | None:
    if type(body) is not dict or type(body.get("idx")) is not int or body["idx"] < 0:
        return None
    type_name = reader.name_ref(body.get("typeName"))
    return (reader.export.name(type_name), body["idx"], reader.expr_ref(body.get("struct")))


def _mdata(reader: _Reader, body: Any) -> tuple[Any, ...] | None:
    if type(body) is not dict or type(body.get("data")) is not dict:
        return None
    return (reader.expr_ref(body.get("expr")),)


def _literal(body: Any, digits: bool) -> tuple[Any, ...] | None:
    if type(body) is not str or len(body) > MAX_LITERAL_CHARS:
        return None
    if digits and not (body.isascii() and body.isdigit()):
        return None
    return (body,)


_EXPRS: dict[str, Any] = {
    "bvar": lambda reader, body: (body,) if type(body) is int and body >= 0 else None,
    "sort": lambda reader, body: (reader.level_ref(body),),
    "const": _const,
    "app": _app,
    "lam": _binder,
    "forallE": _binder,
    "letE": _let,
    "proj": _proj,
    "natVal": lambda reader, body: _literal(body, digits=True),
    "strVal": lambda reader, body: _literal(body, digits=False),
    "mdata": _mdata,
}
