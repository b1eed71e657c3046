"""The imports jig reads from a source's header and hands to the judge (`jigcli/lean/header.py`)."""

from __future__ import annotations

from jigcli.lean.header import imports


def test_the_module_systems_header_forms_are_read():
    text = (
        "module\n-- a comment\npublic import Mathlib.A\nimport all Commons.B /- x -/\n"
        "public meta import «Odd».Name\n\ntheorem t : True := trivial\n"
    )
    assert imports(text) == ["Mathlib.A", "Commons.B", "«Odd».Name"]


def test_an_import_after_the_first_command_or_in_a_comment_is_not_an_import():
    text = "import Mathlib.A\n/- import Fake.B -/\ndef x := 1\nimport Mathlib.C\n"
    assert imports(text) == ["Mathlib.A"]


def test_each_module_once_and_nothing_for_a_file_without_imports():
    assert imports("import Mathlib.A\nimport Mathlib.A\n") == ["Mathlib.A"]
    assert imports("theorem t : True := trivial\n") == []
    assert imports("prelude\nimport Init.Core\n") == ["Init.Core"]


def test_a_header_that_breaks_off_keeps_what_came_before():
    assert imports('import Mathlib.A\nimport "x"\nimport Mathlib.B\n') == ["Mathlib.A"]
    assert imports("import") == []


def test_a_doc_comment_ends_the_header_as_it_does_for_lean():
    """`/--` and `/-!` are tokens to Lean, not whitespace (real Lean 4.35's `--deps-json`
    reads no import after them: tests/real_lean/test_header.py)."""
    assert imports("import Mathlib.A\n/-- doc -/\nimport Mathlib.B\n") == ["Mathlib.A"]
    assert imports("/-! # Title -/\nimport Mathlib.A\n") == []


def test_modifiers_count_only_in_lean_order_public_then_meta():
    assert imports("module\nmeta public import Mathlib.A\n") == []
    assert imports("module\npublic public import Mathlib.A\n") == []
