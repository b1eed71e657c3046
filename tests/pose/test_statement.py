"""The rules for Statements/<label>.lean and the text `jig pose lean` generates."""

from __future__ import annotations

from pathlib import Path

import pytest

from jigcli.pose.statement import (
    doc_problem,
    import_problem,
    label_problem,
    render,
    statement_problems,
)

REPO = Path(__file__).resolve().parents[2]
PROP = "∀ n : ℕ, Even n → Even (n ^ 2)"


def _problems(prop: str) -> list[str]:
    return [p.message for p in statement_problems("S002", render("S002", prop, [], None))]


def test_render_writes_the_one_statement_shape_with_the_proposition_verbatim():
    text = render("S002", PROP, ["Mathlib.Algebra.Group.Nat.Even"], "Squares of evens are even.")
    assert text.splitlines()[:6] == [
        "import Mathlib.Algebra.Group.Nat.Even",
        "",
        "namespace Statements.S002",
        "",
        "/-- Squares of evens are even. -/",
        f"abbrev statement : Prop := {PROP}",
    ]
    assert "theorem target : statement := sorry" in text.splitlines()
    assert text.endswith("end Statements.S002\n")
    assert statement_problems("S002", text) == []


def test_render_without_doc_or_imports_starts_at_the_namespace():
    text = render("S002", "True", [], None)
    assert text.startswith("namespace Statements.S002\n\nabbrev statement : Prop := True\n")


def test_the_repos_own_s001_is_a_well_formed_statement():
    text = (REPO / "Statements" / "S001.lean").read_text(encoding="utf-8")
    assert statement_problems("S001", text) == []


def test_a_file_under_another_label_breaks_the_shape():
    text = (REPO / "Statements" / "S001.lean").read_text(encoding="utf-8")
    [problem] = statement_problems("S002", text)
    assert "expected `Statements.S002` but found `Statements.S001`" in problem.message


def test_the_target_sorry_is_allowed_and_any_other_sorry_is_not():
    assert _problems("True") == []
    [message] = _problems("sorry")
    assert message.startswith("`sorry` is refused by the static policy")


def test_a_proposition_the_policy_rejects_is_a_problem():
    [message] = _problems("by native_decide")
    assert "`native_decide` is refused by the static policy" in message


@pytest.mark.parametrize(
    ("prop", "word"),
    [
        ("True\n\nend Statements.S002\ndef x : Nat := 1", "end"),
        ("True @[simp] theorem", "@["),
        ("True\nopen Nat", "open"),
        ("True\nalias t := trivial", "alias"),
    ],
)
def test_a_proposition_may_not_start_another_command(prop, word):
    assert any(f"holds `{word}`, which starts another Lean command" in m for m in _problems(prop))


def test_a_proposition_that_declares_a_theorem_breaks_the_shape():
    [message] = _problems("True theorem evil : 1 = 1 := rfl")
    assert "expected `target` but found `evil`" in message


def test_term_level_open_in_is_part_of_the_proposition():
    assert _problems("open scoped Nat in ∀ n : ℕ, 0 < n + 1") == []


def test_an_empty_proposition_is_a_problem():
    [message] = _problems("")
    assert "the proposition is empty" in message


def test_extra_declarations_after_the_namespace_are_problems():
    text = render("S002", "True", [], None) + "theorem extra : True := trivial\n"
    [problem] = statement_problems("S002", text)
    assert "`theorem` follows the namespace's end" in problem.message


def test_header_imports_are_judged_by_the_import_rules_with_their_line():
    text = "import Mathlib\n\n" + render("S002", "True", [], None)
    [problem] = statement_problems("S002", text)
    assert (problem.line, "bare `import Mathlib`" in problem.message) == (1, True)


@pytest.mark.parametrize("label", ["S.2", "a/b", "..", "2S", "S 2", "Ŝ2", "", "end"])
def test_a_label_must_be_a_plain_identifier(label):
    assert label_problem(label) is not None


@pytest.mark.parametrize("label", ["S002", "s_2", "Goldbach"])
def test_plain_labels_pass(label):
    assert label_problem(label) is None


def test_bare_mathlib_is_refused_with_why_and_what_instead():
    why = import_problem("Mathlib")
    assert why is not None
    assert "~2 GB" in why and "--import Mathlib." in why


@pytest.mark.parametrize(
    ("module", "said"),
    [
        ("Statements.S001", "a statement may not import Statements.S001"),
        ("Verify.Guard", "a statement may not import Verify.Guard"),
        ("Submissions.S001.AliceDirect", "may not import Submissions.S001.AliceDirect"),
        ("Lean.Elab.Command", "may not import Lean.Elab.Command"),
        ("Foo.Bar", "outside the allowed import roots"),
        ("Mathlib..Foo", "not a module name"),
    ],
)
def test_imports_outside_the_allowed_roots_are_refused(module, said):
    why = import_problem(module)
    assert why is not None and said in why


@pytest.mark.parametrize("module", ["Mathlib.Algebra.Group.Nat.Even", "Commons.Basic", "Aesop"])
def test_imports_from_the_allowed_roots_pass(module):
    assert import_problem(module) is None


@pytest.mark.parametrize("doc", ["ends here -/ theorem x", "opens /- a comment"])
def test_doc_text_cannot_close_or_nest_its_docstring(doc):
    assert doc_problem(doc) is not None
