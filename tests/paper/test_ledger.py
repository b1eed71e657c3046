"""The audit ledger: round-trips, schema, currency by hashes, atomic writes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jigcli.paper.ledger import (
    JIG,
    Judge,
    Judgement,
    Ledger,
    LedgerUnreadable,
    ledger_path,
    load,
    now,
    save,
)
from jigcli.schemas import validate

HEX_A, HEX_B, HEX_C = "a" * 64, "b" * 64, "c" * 64


def _judgement(verdict: str = "faithful", **changes: object) -> Judgement:
    fields: dict[str, object] = {
        "label": "thm:main",
        "decl": "Paper.main",
        "verdict": verdict,
        "reason": "same hypotheses, same conclusion",
        "judged_by": Judge("reader", "python judge.py"),
        "when": now(),
        "statement_hash": HEX_A,
        "decl_hash": HEX_B,
    }
    fields.update(changes)
    return Judgement(**fields)  # type: ignore[arg-type]


def test_a_ledger_round_trips_through_its_file(tmp_path: Path) -> None:
    ledger = Ledger(HEX_A, HEX_B, [_judgement(), _judgement("unstated", label=None, judged_by=JIG)])
    path = ledger_path(tmp_path / "paper.tex")
    save(ledger, path)
    assert path.name == "paper.audit.json"
    assert load(path) == ledger


def test_the_written_ledger_follows_its_schema(tmp_path: Path) -> None:
    path = tmp_path / "paper.audit.json"
    save(Ledger(HEX_A, None, [_judgement()]), path)
    data = json.loads(path.read_text())
    assert data["schema"] == "jig.audit.v1"
    assert data["sourceHashes"] == {"tex": HEX_A, "lean": None}
    assert validate(data, "audit") == []


def test_the_schema_refuses_a_verdict_outside_the_five() -> None:
    pair = _judgement().to_json() | {"verdict": "proved"}
    document = {
        "schema": "jig.audit.v1",
        "sourceHashes": {"tex": None, "lean": None},
        "pairs": [pair],
    }
    assert validate(document, "audit")


def test_a_judgement_is_current_only_while_both_hashes_match() -> None:
    judgement = _judgement()
    assert judgement.is_current(HEX_A, HEX_B)
    assert not judgement.is_current(HEX_C, HEX_B)
    assert not judgement.is_current(HEX_A, HEX_C)


def test_recording_replaces_the_earlier_judgement_on_the_same_pair() -> None:
    ledger = Ledger(None, None, [_judgement("mismatch")])
    ledger.record(_judgement("faithful"))
    assert [j.verdict for j in ledger.pairs] == ["faithful"]


def test_a_missing_ledger_is_none_and_a_broken_one_says_what_to_do(tmp_path: Path) -> None:
    path = tmp_path / "paper.audit.json"
    assert load(path) is None
    path.write_text('{"schema": "jig.audit.v1", "pairs": []}')
    with pytest.raises(LedgerUnreadable, match="'sourceHashes' is required"):
        load(path)
    path.write_text("{not json")
    with pytest.raises(LedgerUnreadable, match="not valid JSON"):
        load(path)


def test_an_interrupted_save_leaves_the_old_ledger_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "paper.audit.json"
    save(Ledger(HEX_A, HEX_B, [_judgement()]), path)
    before = path.read_text()

    def crash(source: str, target: str) -> None:
        raise OSError("disk full")

    monkeypatch.setattr("jigcli.paper.ledger.os.replace", crash)
    with pytest.raises(OSError):
        save(Ledger(HEX_C, HEX_C, []), path)
    assert path.read_text() == before
    assert [p.name for p in tmp_path.iterdir()] == ["paper.audit.json"]
