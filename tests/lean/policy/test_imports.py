"""Which imports a submission may make (jigcli/lean/policy/tables.py, allowed.yaml)."""

from __future__ import annotations

import pytest

from jigcli.lean.policy import (
    ALLOWED_IMPORT_ROOTS,
    REJECTED_IMPORT_ROOTS,
    Violation,
    scan,
    tables,
)

from .conftest import LINE, found, on_line_6

# -- imports ----------------------------------------------------------------------------------


@pytest.mark.parametrize("root", ALLOWED_IMPORT_ROOTS)
def test_allowed_import_roots(root: str):
    assert scan(f"import {root}.Something\nimport {root}\n") == []


@pytest.mark.parametrize("root", sorted(REJECTED_IMPORT_ROOTS))
def test_rejected_import_roots_say_why(root: str):
    (violation,) = scan(f"/- header -/\nimport {root}.Thing\n")
    assert violation == Violation(2, f"import {root}.Thing", REJECTED_IMPORT_ROOTS[root])


def test_an_unknown_import_root_names_the_allowed_ones():
    (violation,) = scan("import Foo.Bar\n")
    assert violation.construct == "import Foo.Bar"
    assert all(root in violation.message for root in ALLOWED_IMPORT_ROOTS)


def test_module_system_import_forms_are_judged_by_their_root(
    monkeypatch: pytest.MonkeyPatch,
):
    monkeypatch.setattr(tables, "MODULE_SYSTEM_ACCEPTED", True)
    source = "import all Mathlib.A\npublic import Statements.S001\nmeta import Lean.Elab\n"
    assert found(source) == {(2, "import Statements.S001"), (3, "import Lean.Elab"), (3, "meta")}


MODULE_FILE = (
    "module\n\npublic import Mathlib\nimport all Mathlib.Data.Nat.Basic\n\n"
    "@[expose] public section\n\ntheorem t : 1 + 1 = 2 := by norm_num\n\n"
    "private theorem u : True := trivial\n\nend\n"
)


def test_the_module_system_is_refused_with_a_way_out_when_switched_off(
    monkeypatch: pytest.MonkeyPatch,
):
    monkeypatch.setattr(tables, "MODULE_SYSTEM_ACCEPTED", False)
    assert found(MODULE_FILE) == {
        (1, "module"),
        (3, "public import"),
        (6, "@[expose]"),
        (6, "public"),
    }
    (violation, *_) = scan(MODULE_FILE)
    assert "drop the `module` line" in violation.message


def test_the_module_system_is_accepted_since_the_judge_reads_every_part():
    assert tables.MODULE_SYSTEM_ACCEPTED
    assert found(MODULE_FILE) == set()


@pytest.mark.parametrize(
    "source",
    ["meta def f : ℕ := 0", "meta section\nend", "public meta def f : ℕ := 0"],
)
def test_meta_stays_refused_with_the_module_system_on(source: str, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(tables, "MODULE_SYSTEM_ACCEPTED", True)
    assert (LINE, "meta") in on_line_6(source)


def test_an_escaped_import_root_is_unescaped():
    assert found("import «Statements».S001\n") == {(1, "import «Statements».S001")}


def test_prelude_is_refused_and_the_module_header_judged_by_the_switch(
    monkeypatch: pytest.MonkeyPatch,
):
    assert found("module\n\nprelude\nimport Init\n") == {(3, "prelude")}
    monkeypatch.setattr(tables, "MODULE_SYSTEM_ACCEPTED", False)
    assert found("module\n\nprelude\nimport Init\n") == {(1, "module"), (3, "prelude")}


def test_an_import_after_a_command_is_refused():
    assert found("import Mathlib\nopen Nat\nimport Mathlib.Data.Nat\n") == {(3, "import")}
