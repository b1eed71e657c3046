"""lean4export's NDJSON as jig reads it (`jigcli/lean/export.py`): real lean4export output
(`../shared/data/lean4export`, copied into `tests/data/lean/lean4export/`), the format section
transcribed from lean4export's README, the walks (closure, axioms, the term hash) and every way
a hostile export is refused instead of read."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from jigcli.lean import export as exports
from jigcli.lean.export import ExportProblem, read_export

from .conftest import standin_module

DATA = Path(__file__).resolve().parent.parent / "data" / "lean"
REAL = DATA / "lean4export"
FORMAT = json.loads((DATA / "lean4export-format-3.1.0.json").read_text(encoding="utf-8"))
META = {
    "meta": {
        "exporter": {"name": "lean4export", "version": "3.1.0"},
        "format": {"version": "3.1.0"},
        "lean": {"githash": "d8b18978322de05a8f3dba51ef03cf5461676c17", "version": "4.33.0"},
    }
}


def ndjson(*records: dict[str, Any], meta: dict[str, Any] = META) -> bytes:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in (meta, *records)).encode()


# -- the format, as lean4export's README section writes it -----------------------------------


def conforms(value: Any, spec: Any) -> bool:
    """Whether `value` has the shape `spec` says, in the transcription's small type language."""
    if isinstance(spec, str):
        if spec in FORMAT["definitions"]:
            return conforms(value, FORMAT["definitions"][spec])
        kinds: dict[str, type] = {
            "integer": int,
            "number": int,
            "string": str,
            "boolean": bool,
            "object": dict,
        }
        wanted = kinds[spec]
        return type(value) is wanted and not (type(value) is int and value < 0)
    if isinstance(spec, list):
        if spec and spec[0] == "Array":
            return type(value) is list and all(conforms(item, spec[1]) for item in value)
        return (
            type(value) is list
            and len(value) == len(spec)
            and all(conforms(item, kind) for item, kind in zip(value, spec, strict=True))
        )
    if "enum" in spec:
        return value in spec["enum"]
    if "oneOf" in spec:
        return any(conforms(value, option) for option in spec["oneOf"])
    return (
        type(value) is dict
        and set(value) == set(spec)
        and all(conforms(value[key], kind) for key, kind in spec.items())
    )


def record_kinds(lines: list[str]) -> list[str]:
    """The format's name for each record; fails on a line matching none."""
    found = []
    for line in lines:
        record = json.loads(line)
        kinds = [name for name, spec in FORMAT["records"].items() if conforms(record, spec)]
        assert len(kinds) == 1, (line, kinds)
        found.append(kinds[0])
    return found


def real_block(number: int) -> bytes:
    return ndjson() + (REAL / f"Test.lean-block{number:02d}.ndjson").read_bytes()


def test_every_real_block_of_lean4exports_own_tests_is_read():
    for number in range(1, 15):
        block = (REAL / f"Test.lean-block{number:02d}.ndjson").read_text(encoding="utf-8")
        record_kinds(block.splitlines())
        read_export(real_block(number))


def test_the_real_inductive_blocks_give_their_constructors_and_recursor():
    nat = read_export(real_block(7))
    assert {n: c.kind for n, c in nat.constants.items()} == {
        "Nat": "inductive",
        "Nat.zero": "ctor",
        "Nat.succ": "ctor",
        "Nat.rec": "rec",
    }
    assert nat.ctors == {"Nat": ("Nat.zero", "Nat.succ")}
    assert set(nat.closure("Nat.rec")) == {"Nat.rec", "Nat", "Nat.zero", "Nat.succ"}
    lists = read_export(real_block(9))
    assert lists.ctors == {"List": ("List.nil", "List.cons")}
    assert len(lists.constants["List"].level_params) == 1


def test_the_real_definition_and_opaque_blocks_keep_their_values():
    identity = read_export(real_block(8)).constants["id"]
    assert (identity.kind, identity.value is not None) == ("def", True)
    opaque = read_export(real_block(10)).constants["Lean.opaqueId"]
    assert (opaque.kind, opaque.value is not None) == ("opaque", True)


def test_a_format_3_0_export_with_the_old_inductive_layout_is_refused():
    # lean4export's examples/Nat.add_succ.ndjson: format 3.0.0, `inductiveVals` records.
    with pytest.raises(ExportProblem, match="malformed inductive block"):
        read_export((REAL / "Nat.add_succ.ndjson").read_bytes())


def test_the_sample_of_every_record_kind_is_read():
    sample = read_export((DATA / "export" / "every-kind.ndjson").read_bytes())
    assert sample.constants["Sample.2"].kind == "def"  # a numeric name part
    assert sample.constants["Quot"].kind == "quot"
    assert sample.axioms_of("Sample.ax") == ["Sample.ax"]


def test_the_stand_ins_export_is_in_lean4exports_format():
    standin = standin_module()
    constants = [
        {"name": "M.ax", "kind": "axiom", "type_uses": [], "value_uses": []},
        {"name": "M.proof", "kind": "thm", "type_uses": [], "value_uses": ["M.ax"]},
        {"name": "M.d", "kind": "def", "type_uses": [], "value_uses": [], "term": "t"},
    ]
    lines = standin.export_text(constants).splitlines()
    assert conforms(json.loads(lines[0]), FORMAT["meta"])
    assert {"Axiom", "Theorems", "Definition", "Expr.lit (Literal.strVal)"} <= set(
        record_kinds(lines[1:])
    )
    assert read_export("\n".join(lines).encode() + b"\n").axioms_of("M.proof") == ["M.ax"]


# -- a small export written by hand -------------------------------------------------------------


class Writer:
    """Records of one export, numbered as lean4export numbers them."""

    def __init__(self) -> None:
        self.records: list[dict[str, Any]] = []
        self.names: dict[str, int] = {"": 0}
        self.exprs = 0
        self.levels = 1

    def name(self, dotted: str) -> int:
        if dotted not in self.names:
            pre, _, last = dotted.rpartition(".")
            body = {"pre": self.name(pre), "str": last}
            self.names[dotted] = len(self.names)
            self.records.append({"in": self.names[dotted], "str": body})
        return self.names[dotted]

    def level_param(self, param: str) -> int:
        self.records.append({"il": self.levels, "param": self.name(param)})
        self.levels += 1
        return self.levels - 1

    def expr(self, kind: str, body: Any) -> int:
        self.records.append({"ie": self.exprs, kind: body})
        self.exprs += 1
        return self.exprs - 1

    def const(self, name: str, levels: tuple[int, ...] = ()) -> int:
        return self.expr("const", {"name": self.name(name), "us": list(levels)})

    def lam(self, binder: str, type_: int, body: int, info: str = "default") -> int:
        fields = {"name": self.name(binder), "type": type_, "body": body, "binderInfo": info}
        return self.expr("lam", fields)

    def app(self, fn: int, arg: int) -> int:
        return self.expr("app", {"fn": fn, "arg": arg})

    def declare(self, kind: str, name: str, type_: int, value: int | None = None, **more: Any):
        body: dict[str, Any] = {"name": self.name(name), "levelParams": [], "type": type_}
        if value is not None:
            body.update(value=value, all=[body["name"]])
        self.records.append({kind: {**body, **more}})

    def bytes(self) -> bytes:
        return ndjson(*self.records)


def proof_of(binder: str = "h", info: str = "default", mdata: bool = False) -> bytes:
    """`M.proof : P := fun binder => M.ax binder`, with `P` and `M.ax` declared first."""
    out = Writer()
    prop = out.expr("sort", 0)
    out.declare("axiom", "M.P", prop, isUnsafe=False)
    p = out.const("M.P")
    out.declare("axiom", "M.ax", p, isUnsafe=False)
    body = out.app(out.const("M.ax"), out.expr("bvar", 0))
    if mdata:
        body = out.expr("mdata", {"data": {"note": "x"}, "expr": body})
    out.declare("thm", "M.proof", p, out.lam(binder, p, body, info))
    return out.bytes()


def test_closure_and_axioms_follow_types_and_values():
    read = read_export(proof_of())
    assert set(read.closure("M.proof")) == {"M.proof", "M.P", "M.ax"}
    assert read.axioms_of("M.proof") == ["M.P", "M.ax"]


def test_the_term_hash_ignores_binder_names_binder_info_and_mdata():
    hashes = {
        read_export(data).hash_of("M.proof", set())
        for data in (proof_of(), proof_of("x"), proof_of(info="implicit"), proof_of(mdata=True))
    }
    assert len(hashes) == 1
    assert hashes.pop().startswith("sha256:")


def test_the_term_hash_tells_different_terms_apart():
    out = Writer()
    prop = out.expr("sort", 0)
    out.declare("axiom", "M.P", prop, isUnsafe=False)
    p = out.const("M.P")
    out.declare("axiom", "M.ax", p, isUnsafe=False)
    out.declare("axiom", "M.other", p, isUnsafe=False)
    out.declare("thm", "M.a", p, out.const("M.ax"))
    out.declare("thm", "M.b", p, out.const("M.other"))
    read = read_export(out.bytes())
    assert read.hash_of("M.a", set()) != read.hash_of("M.b", set())


def test_inlining_the_submitters_own_lemma_gives_the_hash_of_the_inlined_proof():
    out = Writer()
    prop = out.expr("sort", 0)
    out.declare("axiom", "M.P", prop, isUnsafe=False)
    p = out.const("M.P")
    out.declare("axiom", "M.ax", p, isUnsafe=False)
    out.declare("thm", "M.helper", p, out.const("M.ax"))
    out.declare("thm", "M.via_helper", p, out.const("M.helper"))
    out.declare("thm", "M.direct", p, out.const("M.ax"))
    read = read_export(out.bytes())
    assert read.hash_of("M.via_helper", {"M.helper"}) == read.hash_of("M.direct", set())
    assert read.hash_of("M.via_helper", set()) != read.hash_of("M.direct", set())


def test_a_constant_that_inlines_itself_ends_instead_of_looping():
    out = Writer()
    prop = out.expr("sort", 0)
    out.declare("def", "M.loop", prop, out.const("M.loop"), hints="opaque", safety="safe")
    read = read_export(out.bytes())
    assert read.hash_of("M.loop", {"M.loop"}) == read.hash_of("M.loop", {"M.loop"})


def test_a_proof_term_a_hundred_thousand_applications_deep_is_walked_without_recursion():
    out = Writer()
    prop = out.expr("sort", 0)
    out.declare("axiom", "M.f", prop, isUnsafe=False)
    term = out.const("M.f")
    f = term
    for _ in range(100_000):
        term = out.app(f, term)
    out.declare("thm", "M.deep", prop, term)
    read = read_export(out.bytes())
    assert read.axioms_of("M.deep") == ["M.f"]
    assert read.hash_of("M.deep", set()).startswith("sha256:")
    assert read.render(term, limit=100).endswith("…")


def test_forty_thousand_names_are_read_as_parts_not_as_dotted_strings():
    records = [{"in": 1, "str": {"pre": 0, "str": "N"}}]
    records += [{"in": i, "num": {"pre": 1, "i": i}} for i in range(2, 40_002)]
    read = read_export(ndjson(*records))
    assert len(read.names) == 40_002
    assert read.name(40_001) == "N.40001"


def test_a_name_guillemets_a_part_that_holds_a_dot():
    read = read_export(ndjson({"in": 1, "str": {"pre": 0, "str": "a.b"}}))
    assert read.name(1) == "«a.b»"


# -- bounds -----------------------------------------------------------------------------------


def test_a_name_deeper_than_the_bound_is_refused():
    depth = exports.MAX_NAME_DEPTH + 1
    records = [{"in": i, "str": {"pre": i - 1, "str": "x"}} for i in range(1, depth + 1)]
    with pytest.raises(ExportProblem, match=f"line {depth + 1} .* more than 256 parts deep"):
        read_export(ndjson(*records))


def test_a_level_nested_deeper_than_the_bound_is_refused():
    records = [{"il": i, "succ": i - 1} for i in range(1, exports.MAX_NAME_DEPTH + 2)]
    with pytest.raises(ExportProblem, match="is a level more than 256 deep"):
        read_export(ndjson(*records))


def test_a_literal_or_name_part_past_the_bound_is_refused(monkeypatch):
    monkeypatch.setattr(exports, "MAX_LITERAL_CHARS", 10)
    with pytest.raises(ExportProblem, match=r"malformed expression \(strVal\)"):
        read_export(ndjson({"ie": 0, "strVal": "x" * 11}))
    with pytest.raises(ExportProblem, match="malformed name"):
        read_export(ndjson({"in": 1, "str": {"pre": 0, "str": "x" * 11}}))
    read_export(ndjson({"ie": 0, "strVal": "x" * 10}))


def test_an_export_past_the_size_cap_is_refused_before_it_is_decoded(monkeypatch):
    monkeypatch.setattr(exports, "MAX_EXPORT_BYTES", 100)
    with pytest.raises(ExportProblem, match="larger than 100 bytes"):
        read_export(b"\xff" * 101)


def test_json_nested_past_pythons_recursion_is_refused_not_a_crash():
    deep = '{"ie":0,"mdata":{"data":' + "[" * 100000 + "]" * 100000 + ',"expr":0}}\n'
    with pytest.raises(ExportProblem, match="line 2 of the export is not JSON"):
        read_export(ndjson() + deep.encode())


# -- unusable exports -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "said"),
    [
        (b"\xff\n", "the export is not UTF-8"),
        (ndjson()[:-1], "its last line has no end"),
        (b"", "its last line has no end"),
        (b"{}\n", "does not begin with lean4export's meta object"),
        (b"[1]\n", "line 1 of the export is not one JSON object"),
        (b"{\n", "line 1 of the export is not JSON"),
        (b'{"meta":{}} {}\n', "line 1 of the export is not one JSON object"),
        (ndjson(meta={"meta": {"format": {"version": "2.0.0"}}}), "format '2.0.0', not 3.x"),
    ],
)
def test_an_unusable_export_says_why(data, said):
    with pytest.raises(ExportProblem) as refused:
        read_export(data)
    assert said in str(refused.value)


@pytest.mark.parametrize(
    ("record", "said"),
    [
        ({"ie": 5, "bvar": 0}, "is not the next expression"),
        ({"ie": "0", "bvar": 0}, "is not the next expression"),
        ({"ie": True, "bvar": 0}, "is not the next expression"),
        ({"ie": 0, "app": {"fn": 0, "arg": 0}}, "refers to an expression not defined before it"),
        ({"ie": 0, "const": {"name": 99, "us": []}}, "refers to a name not defined before it"),
        ({"ie": 0, "sort": 1}, "refers to a level not defined before it"),
        ({"ie": 0, "sort": True}, "refers to a level not defined before it"),
        ({"ie": 0, "bvar": -1}, "is a malformed expression (bvar)"),
        ({"ie": 0, "natVal": "12a"}, "is a malformed expression (natVal)"),
        ({"ie": 0, "natVal": "١٢"}, "is a malformed expression (natVal)"),
        ({"ie": 0, "fvar": 1}, "is a malformed expression (fvar)"),
        ({"ie": 0, "bvar": 0, "x": 1}, "is not the next expression"),
        ({"in": 2, "str": {"pre": 0, "str": "a"}}, "is not the next name"),
        ({"in": 1, "str": {"pre": 1, "str": "a"}}, "refers to a name not defined before it"),
        ({"in": 1, "num": {"pre": 0, "i": -1}}, "is a malformed name"),
        ({"il": 1, "succ": 1}, "refers to a level not defined before it"),
        ({"il": 1, "max": [0]}, "is a malformed level"),
        ({"mvar": {}}, "is not a record of the export format (mvar)"),
        ({"axiom": {"name": 0, "levelParams": [], "type": 0}}, "without a name or levelParams"),
        ({"axiom": [], "def": []}, "is not a name, level, expression or declaration"),
        ({"inductive": {"types": [], "ctors": [], "recs": []}}, "malformed inductive block"),
    ],
)
def test_a_malformed_record_names_its_line(record, said):
    with pytest.raises(ExportProblem) as refused:
        read_export(ndjson(record))
    assert str(refused.value).startswith("line 2 of the export")
    assert said in str(refused.value)


def test_a_constant_declared_twice_is_refused():
    out = Writer()
    prop = out.expr("sort", 0)
    out.declare("axiom", "M.P", prop, isUnsafe=False)
    out.declare("axiom", "M.P", prop, isUnsafe=False)
    with pytest.raises(ExportProblem, match=r"declares M\.P twice"):
        read_export(out.bytes())
