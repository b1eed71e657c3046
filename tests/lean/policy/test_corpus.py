"""The policy against its two corpora: every attack in `tests/data/lean/attacks/` refused by
the rule its header names, and every honest proof in `tests/data/lean/real/` accepted."""

from __future__ import annotations

from pathlib import Path

import pytest

from jigcli.lean.policy import FORMS, scan_file, tables

LEAN = Path(__file__).resolve().parents[2] / "data" / "lean"
ATTACKS = sorted((LEAN / "attacks").glob("*.lean"))
REAL = sorted((LEAN / "real").glob("*.lean"))
# Honest proofs written with the module system (a switch of the policy).
REAL_MODULES = sorted((LEAN / "real" / "module").glob("*.lean"))
REFUSED_BY = "-- refused by: "


def expected_constructs(path: Path) -> set[str]:
    """The constructs an attack's header says the policy reports (`-- refused by: X` lines)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return {line.removeprefix(REFUSED_BY) for line in lines if line.startswith(REFUSED_BY)}


def test_the_corpora_are_there():
    assert len(ATTACKS) >= 20
    assert len(REAL) >= 10
    assert REAL_MODULES
    assert all(expected_constructs(path) for path in ATTACKS)


@pytest.mark.parametrize("path", ATTACKS, ids=[path.stem for path in ATTACKS])
def test_every_attack_is_refused_by_the_rule_it_names(path: Path):
    found = {violation.construct for violation in scan_file(path)}
    assert expected_constructs(path) <= found, found


@pytest.mark.parametrize("path", REAL, ids=[path.stem for path in REAL])
def test_every_real_proof_is_accepted(path: Path):
    assert scan_file(path) == []


@pytest.mark.parametrize("path", REAL_MODULES, ids=[path.stem for path in REAL_MODULES])
def test_every_module_system_proof_is_accepted(path: Path):
    assert scan_file(path) == []


@pytest.mark.parametrize("path", REAL_MODULES, ids=[path.stem for path in REAL_MODULES])
def test_a_module_system_proof_is_refused_only_for_the_module_system_when_it_is_off(
    path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(tables, "MODULE_SYSTEM_ACCEPTED", False)
    found = scan_file(path)
    assert found
    assert {violation.message for violation in found} == {FORMS["module"].message}
