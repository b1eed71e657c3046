"""Reading a user's JSON document: one sentence for each way it can be wrong."""

from __future__ import annotations

from pathlib import Path

import pytest

from jigcli.certificates.spec import SpecError, read_spec
from jigcli.jsondoc import JsonProblem, parse_json


def test_a_valid_document_is_read() -> None:
    assert parse_json(b'{"limits": {"wall_sec": 2.5}}', "spec.json") == {
        "limits": {"wall_sec": 2.5}
    }


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_are_not_json_and_are_refused(constant: str) -> None:
    # Python's json reads them, but no JSON document holds them, and a NaN limit compares
    # false with every ceiling: it would switch the limit off instead of being clamped.
    with pytest.raises(JsonProblem, match=f"{constant}.*not a JSON number"):
        parse_json(f'{{"wall_sec": {constant}}}'.encode(), "spec.json")


def test_a_spec_with_a_nan_wall_clock_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "C001"
    folder.mkdir()
    (folder / "spec.json").write_text(
        '{"schema": "conject.certificate.v1", "id": "C001", "title": "t", "statement": "s",'
        ' "witness_format": "w", "limits": {"wall_sec": NaN, "cpu_sec": 1,'
        ' "address_space_mb": 256, "output_bytes": 4096}}'
    )
    with pytest.raises(SpecError, match="NaN"):
        read_spec(folder)


def test_bytes_that_are_not_utf8_name_the_byte() -> None:
    with pytest.raises(JsonProblem, match="not UTF-8 \\(byte 1\\)"):
        parse_json(b"{\xff}", "the manifest")


def test_a_repeated_key_is_refused_when_keys_must_be_unique() -> None:
    raw = b'{"verdict": "rejected", "nested": {"a": 1}, "verdict": "accepted"}'
    assert parse_json(raw, "the report") == {"verdict": "accepted", "nested": {"a": 1}}
    with pytest.raises(JsonProblem, match="the report is not valid JSON: the key 'verdict'"):
        parse_json(raw, "the report", unique_keys=True)


def test_a_repeated_key_inside_a_nested_object_is_refused_too() -> None:
    with pytest.raises(JsonProblem, match="'ok' appears twice"):
        parse_json(b'{"checks": [{"ok": true, "ok": false}]}', "the report", unique_keys=True)
