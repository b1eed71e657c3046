"""The export of a built module as jig reads it (`jigcli/lean/export.py`): lean4export's NDJSON
format 3.1.0, checked against the format section transcribed from lean4export
(`tests/data/lean/lean4export-format-3.1.0.json`), and every way an export can be unusable."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from jigcli.lean import export as exports
from jigcli.lean.export import ExportProblem, check_export, read_export

from .conftest import standin_module

DATA = Path(__file__).resolve().parent.parent / "data" / "lean"
FORMAT = json.loads((DATA / "lean4export-format-3.1.0.json").read_text(encoding="utf-8"))
EVERY_KIND = (DATA / "export" / "every-kind.ndjson").read_bytes()
BOB = "Submissions.S001.BobParity"


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


def record_kinds(text: str) -> list[str]:
    """The format's name for each record after the header; fails on a line matching none."""
    found = []
    for line in text.splitlines()[1:]:
        record = json.loads(line)
        kinds = [name for name, spec in FORMAT["records"].items() if conforms(record, spec)]
        assert len(kinds) == 1, (line, kinds)
        found.append(kinds[0])
    return found


def header_conforms(text: str) -> bool:
    meta = json.loads(text.splitlines()[0])
    # lean4export's meta object, plus jig's own `meta.jig` (which module, how many records).
    jig = meta["meta"].pop("jig")
    return conforms(meta, FORMAT["meta"]) and set(jig) == {"module", "declarations"}


def bob_constants() -> list[dict[str, Any]]:
    source = (DATA.parent.parent.parent / "Submissions" / "S001" / "BobParity.lean").read_text()
    return list(standin_module()._source_constants(source))


def test_the_stand_ins_export_is_in_lean4exports_format():
    text = standin_module().export_text(BOB, bob_constants())
    assert header_conforms(text)
    kinds = record_kinds(text)
    assert {"Name.str", "Level.param", "Expr.sort", "Expr.const", "Expr.app"} <= set(kinds)
    assert {"Expr.lam", "Expr.lit (Literal.natVal)", "Theorems"} <= set(kinds)


def test_the_sample_holds_every_record_kind_of_the_format_and_jig_reads_it():
    text = EVERY_KIND.decode("utf-8")
    assert header_conforms(text)
    assert set(record_kinds(text)) == set(FORMAT["records"])
    read = check_export(EVERY_KIND, "Sample")
    assert read.declarations[:3] == ["Sample.T", "Sample.T.mk", "Sample.T.rec"]
    assert "Sample.2" in read.declarations  # a numeric name part
    assert (read.names, read.levels, read.expressions) == (12, 4, 14)


def test_the_stand_ins_export_puts_each_helper_before_the_proof_that_uses_it():
    text = standin_module().export_text(BOB, list(reversed(bob_constants())))
    read = check_export(text.encode(), BOB)
    assert read.declarations == [f"{BOB}.parity_split", f"{BOB}.proof"]


def test_a_replay_walk_that_skipped_proofs_would_send_bobs_proof_before_its_lemma():
    # The stand-in judge replays in the order of its own walk (the real judge's `usedConstants`),
    # starting from the export's last constant: the walk alone must put the lemma first.
    standin = standin_module()
    text = standin.export_text(BOB, bob_constants())
    exported = {c["name"]: c for c in standin.read_export_constants(text)}
    assert standin._replay_order(exported) is None
    walk = list(standin._replay_walk(exported))
    assert walk.index(f"{BOB}.parity_split") < walk.index(f"{BOB}.proof")
    types_only = {name: {**c, "value_uses": []} for name, c in exported.items()}
    skipped = list(standin._replay_walk(types_only))
    assert skipped.index(f"{BOB}.proof") < skipped.index(f"{BOB}.parity_split")


# -- unusable exports -------------------------------------------------------------------------


def alice_export() -> str:
    proof = {"name": "M.proof", "kind": "thm", "type_uses": [], "value_uses": []}
    return str(standin_module().export_text("M", [proof]))


def lines_of(text: str) -> list[str]:
    return text.splitlines()


def joined(lines: list[str]) -> bytes:
    return ("\n".join(lines) + "\n").encode()


def with_header(**jig: Any) -> bytes:
    lines = lines_of(alice_export())
    meta = json.loads(lines[0])
    meta["meta"]["jig"].update(jig)
    return joined([json.dumps(meta), *lines[1:]])


def test_an_honest_export_reads_back_its_constants():
    assert check_export(alice_export().encode(), "M").declarations == ["M.proof"]


@pytest.mark.parametrize(
    ("data", "said"),
    [
        (b"\xff\n", "the export is not UTF-8"),
        (alice_export().encode()[:-1], "its last line has no end"),
        (b"", "its last line has no end"),
        (b"{}\n", "does not begin with lean4export's meta object"),
        (b"[1]\n", "line 1 of the export is not a JSON object"),
        (b"{\n", "line 1 of the export is not JSON"),
        (with_header(module="Other"), "the export is of module 'Other', not M"),
        (with_header(declarations=2), "it has 1 declarations, its header promises 2"),
        (with_header(declarations=True), "does not say how many declarations follow"),
    ],
)
def test_an_unusable_export_says_why(data, said):
    with pytest.raises(ExportProblem) as refused:
        check_export(data, "M")
    assert said in str(refused.value)


def test_a_format_other_than_3_1_0_is_refused():
    meta = json.loads(lines_of(alice_export())[0])
    meta["meta"]["format"]["version"] = "2.0.0"
    with pytest.raises(ExportProblem, match=r"format '2\.0\.0', not 3\.1\.0"):
        check_export(joined([json.dumps(meta)]), "M")


def test_an_export_cut_at_a_line_boundary_is_truncated():
    lines = lines_of(alice_export())
    with pytest.raises(ExportProblem, match=r"truncated: it has 0 declarations"):
        check_export(joined(lines[:-1]), "M")


@pytest.mark.parametrize(
    ("record", "said"),
    [
        ({"ie": 5, "bvar": 0}, "is not the next expression"),
        ({"ie": "0", "bvar": 0}, "is not the next expression"),
        ({"ie": 0, "app": {"fn": 0, "arg": 0}}, "refers to an expression not defined before it"),
        ({"ie": 0, "const": {"name": 99, "us": []}}, "refers to a name not defined before it"),
        ({"ie": 0, "sort": 1}, "refers to a level not defined before it"),
        ({"ie": 0, "sort": True}, "refers to a level not defined before it"),
        ({"ie": 0, "bvar": -1}, "is a malformed expression (bvar)"),
        ({"ie": 0, "natVal": "12a"}, "is a malformed expression (natVal)"),
        ({"ie": 0, "fvar": 1}, "is a malformed expression (fvar)"),
        ({"ie": 0, "bvar": 0, "x": 1}, "is not the next expression"),
        ({"in": 2, "str": {"pre": 0, "str": "a"}}, "is not the next name"),
        ({"in": 1, "str": {"pre": 1, "str": "a"}}, "refers to a name not defined before it"),
        ({"in": 1, "num": {"pre": 0, "i": -1}}, "is a malformed name"),
        ({"il": 1, "succ": 1}, "refers to a level not defined before it"),
        ({"il": 1, "max": [0]}, "is a malformed level"),
        ({"mvar": {}}, "is not a record of the export format (mvar)"),
        ({"thm": {"name": 0, "levelParams": [], "type": 0}}, "declares a constant with no name"),
        ({"axiom": [], "def": []}, "is not a name, level, expression or declaration"),
    ],
)
def test_a_malformed_record_names_its_line(record, said):
    header = lines_of(alice_export())[0]
    with pytest.raises(ExportProblem) as refused:
        check_export(joined([header, json.dumps(record)]), "M")
    assert str(refused.value).startswith("line 2 of the export")
    assert said in str(refused.value)


def test_json_nested_past_pythons_recursion_is_refused_not_a_crash():
    header = lines_of(alice_export())[0]
    deep = '{"ie":0,"mdata":{"data":' + "[" * 100000 + "]" * 100000 + ',"expr":0}}'
    with pytest.raises(ExportProblem, match="line 2 of the export is not JSON"):
        check_export(joined([header, deep]), "M")


# -- reading the file -------------------------------------------------------------------------


def test_the_export_is_read_from_its_folder(tmp_path):
    (tmp_path / exports.EXPORT_NAME).write_text(alice_export())
    assert read_export(tmp_path, "M").declarations == ["M.proof"]


def test_a_missing_linked_or_special_export_is_refused_without_reading_through_it(tmp_path):
    with pytest.raises(ExportProblem, match="does not exist"):
        read_export(tmp_path, "M")
    secret = tmp_path / "secret"
    secret.write_text(alice_export())
    (tmp_path / exports.EXPORT_NAME).symlink_to(secret)
    with pytest.raises(ExportProblem, match="symbolic link"):
        read_export(tmp_path, "M")
    os.unlink(tmp_path / exports.EXPORT_NAME)
    os.mkfifo(tmp_path / exports.EXPORT_NAME)
    with pytest.raises(ExportProblem, match="is a FIFO, not a regular file"):
        read_export(tmp_path, "M")  # and does not block


def test_an_export_past_its_cap_is_refused_before_a_byte_is_read(tmp_path, monkeypatch):
    monkeypatch.setattr(exports, "MAX_EXPORT_BYTES", 1000)
    with (tmp_path / exports.EXPORT_NAME).open("wb") as file:
        file.truncate(1001)
    with pytest.raises(ExportProblem, match="is 1001 bytes; at most 1000 are read"):
        read_export(tmp_path, "M")
