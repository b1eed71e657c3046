from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jigcli.lean.lexer import Lexer
from jigcli.lean.policy import (
    ALLOWED_IMPORT_ROOTS,
    REJECTED_IMPORT_ROOTS,
    RULES,
    SourceUnreadable,
    Violation,
    _Scan,
    scan,
    scan_file,
)

DATA = Path(__file__).resolve().parents[1] / "data" / "lean" / "policy"
REPO = Path(__file__).resolve().parents[2]

# Five lines of ordinary code, with a comment and a string over two lines each, so every
# construct below sits on line 6 and a wrong line count shows.
PREAMBLE = (
    'import Mathlib\n/- a comment\n   over two lines -/\ndef s := "a string\nover two lines"\n'
)
LINE = 6


def found(text: str) -> set[tuple[int, str]]:
    return {(v.line, v.construct) for v in scan(text)}


# rule construct -> (source on line 6, the construct the scan reports)
EXAMPLES: dict[str, tuple[str, str]] = {
    "sorry": ("theorem t : 1 = 1 := by sorry", "sorry"),
    "admit": ("theorem t : 1 = 1 := by admit", "admit"),
    "stop": ("theorem t : 1 = 1 := by stop rfl", "stop"),
    "sorryAx": ("theorem t : 1 = 1 := sorryAx _ false", "sorryAx"),
    "axiom": ("axiom cheat : False", "axiom"),
    "native_decide": ("example : 2 ∣ 4 := by native_decide", "native_decide"),
    "bv_decide": ("example (x : BitVec 2) : x = x := by bv_decide", "bv_decide"),
    "bv_check": ('example (x : BitVec 2) : x = x := by bv_check "p.lrat"', "bv_check"),
    "ofReduceBool": ("example := Lean.ofReduceBool", "ofReduceBool"),
    "ofReduceNat": ("example := Lean.ofReduceNat", "ofReduceNat"),
    "trustCompiler": ("example := Lean.trustCompiler", "trustCompiler"),
    "decide +native": ("example : 2 ∣ 4 := by decide +native", "decide +native"),
    "native := true": (
        "example : 2 ∣ 4 := by decide (config := { native := true })",
        "native := true",
    ),
    "decide (config := …)": (
        "example : 2 ∣ 4 := by decide (config := myConfig)",
        "decide (config := …)",
    ),
    "DecideConfig": ("def c := Lean.Parser.Tactic.DecideConfig.mk true", "DecideConfig"),
    "unsafe": ("unsafe def f : ℕ := 0", "unsafe"),
    "partial": ("partial def f (n : ℕ) : ℕ := f n", "partial"),
    "implemented_by": ("@[implemented_by g] def f : ℕ := 0", "implemented_by"),
    "extern": ('@[extern "c_f"] opaque f : ℕ', "extern"),
    "export": ("export Nat (succ)", "export"),
    "macro": ('macro "zero" : term => `(0)', "macro"),
    "macro_rules": ("macro_rules | `(zero) => `(0)", "macro_rules"),
    "syntax": ('syntax "zero" : term', "syntax"),
    "declare_syntax_cat": ("declare_syntax_cat thing", "declare_syntax_cat"),
    "elab": ('elab "zero" : term => pure default', "elab"),
    "elab_rules": ("elab_rules : term | `(zero) => pure default", "elab_rules"),
    "notation": ('notation "ℕ²" => ℕ × ℕ', "notation"),
    "notation3": ('notation3 "ℕ²" => ℕ × ℕ', "notation3"),
    "infix": ('infix:65 " + => Nat.add', "infix"),
    "infixl": ('infixl:65 " + => Nat.add', "infixl"),
    "infixr": ('infixr:65 " + => Nat.add', "infixr"),
    "prefix": ('prefix:max "√" => Nat.sqrt', "prefix"),
    "postfix": ('postfix:max "!" => Nat.factorial', "postfix"),
    "binder_predicate": ('binder_predicate x " > " y:term => `($x > $y)', "binder_predicate"),
    "run_cmd": ("run_cmd pure ()", "run_cmd"),
    "run_elab": ("run_elab pure ()", "run_elab"),
    "run_meta": ("run_meta pure ()", "run_meta"),
    "run_tac": ("example : True := by run_tac pure ()", "run_tac"),
    "by_elab": ("example : ℕ := by_elab pure default", "by_elab"),
    "initialize": ("initialize pure ()", "initialize"),
    "builtin_initialize": ("builtin_initialize pure ()", "builtin_initialize"),
    "simproc": ("simproc reduceFoo (foo _) := fun _ => pure .continue", "simproc"),
    "dsimproc": ("dsimproc reduceFoo (foo _) := fun _ => pure .continue", "dsimproc"),
    "simproc_decl": ("simproc_decl reduceFoo (foo _) := fun _ => pure .continue", "simproc_decl"),
    "dsimproc_decl": ("dsimproc_decl r (foo _) := fun _ => pure .continue", "dsimproc_decl"),
    "register_simp_attr": ("register_simp_attr my_simps", "register_simp_attr"),
    "register_option": ("register_option my.opt : Bool := {}", "register_option"),
    "#eval": ("#eval (1 : ℕ)", "#eval"),
    "#exit": ("#exit", "#exit"),
    "addDecl": ("def f := addDecl d", "addDecl"),
    "addDeclCore": ("def f := Environment.addDeclCore e 0 d none", "addDeclCore"),
    "addDeclWithoutChecking": ("def f := e.addDeclWithoutChecking d", "addDeclWithoutChecking"),
    "addAndCompile": ("def f := addAndCompile d", "addAndCompile"),
    "MetaM": ("def f : MetaM Unit := pure ()", "MetaM"),
    "TacticM": ("def f : Lean.Elab.Tactic.TacticM Unit := pure ()", "TacticM"),
    "TermElabM": ("def f : TermElabM Unit := pure ()", "TermElabM"),
    "CommandElabM": ("def f : CommandElabM Unit := pure ()", "CommandElabM"),
    "CoreM": ("def f : CoreM Unit := pure ()", "CoreM"),
    "MacroM": ("def f : MacroM Unit := pure ()", "MacroM"),
    "DelabM": ("def f : DelabM Unit := pure ()", "DelabM"),
    "IO": ("def f : IO Unit := pure ()", "IO"),
    "EIO": ("def f : EIO String Unit := pure ()", "EIO"),
    "BaseIO": ("def f : BaseIO Unit := pure ()", "BaseIO"),
    "builtin_…": ("@[builtin_term_elab foo] def f := 0", "@[builtin_term_elab]"),
    "set_option debug.*": (
        "set_option debug.skipKernelTC true in",
        "set_option debug.skipKernelTC",
    ),
    "open private": ("open private secret in Foo", "open private"),
    "Lean.…": ("open Lean in", "Lean"),
    "Qq": ("open Qq in", "Qq"),
    "import": ("import Mathlib.Tactic", "import"),
    "glued comment": ("example := f <|-- a comment glued to an operator", "glued comment"),
    "glued char literal": ("example := c =='a'", "glued char literal"),
    "malformed literal": ('def t := "never closed', "malformed literal"),
}
EXAMPLES |= {
    rule.construct: (f"@[{rule.construct} foo] def f := 0", f"@[{rule.construct}]")
    for rule in RULES
    if rule.where == "attribute" and rule.construct != "builtin_…"
}
HEADER_ONLY = {"module", "prelude"}


def test_every_rule_has_an_example_here():
    assert {rule.construct for rule in RULES} - HEADER_ONLY == set(EXAMPLES)


@pytest.mark.parametrize("construct", sorted(EXAMPLES))
def test_each_forbidden_construct_is_found_on_its_line(construct: str):
    source, reported = EXAMPLES[construct]
    assert (LINE, reported) in found(PREAMBLE + source + "\n")


@pytest.mark.parametrize("construct", sorted(EXAMPLES))
def test_each_forbidden_construct_is_inert_inside_a_comment(construct: str):
    source, _ = EXAMPLES[construct]
    commented = PREAMBLE + "/- " + source.replace("-/", "") + " -/\n"
    assert found(commented) == set()


def test_every_violation_carries_its_rules_message():
    messages = {rule.construct: rule.message for rule in RULES}
    (violation,) = scan("theorem t : 1 = 1 := by\n  sorry\n")
    assert violation == Violation(2, "sorry", messages["sorry"])


def test_a_source_with_every_trap_is_clean():
    assert scan((DATA / "traps.lean").read_text(encoding="utf-8")) == []


# -- traps, one by one ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "source",
    [
        "-- sorry",
        "/- sorry /- axiom -/ native_decide -/",
        "/-- sorry -/ def x := 1",
        "/-! axiom -/",
        '"sorry"',
        '"escaped \\" sorry \\" quote"',
        '"backslash \\\\" ++ "sorry"',
        'r#"raw "quoted" sorry"#',
        'r##"has "# then sorry"##',
        "'\"' = 'x'",
        "«sorry» «axiom»",
        "partial_sum sorry_free h'sorry",
        "Foo.sorry Nat.decide Decidable.decide unsafe_cast",
        "h' h'' f' x'",
        "`sorry `Lean.ofReduceBool",
        "by decide",
        "by decide (config := { kernel := true })",
        "by decide -native",
        "set_option maxHeartbeats 0 in",
        "set_option trace.Meta.synthInstance true in",
        "open Nat Finset in",
        "open Lean.Grind in",
        "opaque secret : ℕ",
        "#check sorry_free",
        "f ⁻¹' s ∪ f '' t",
    ],
)
def test_policy_ignores_forbidden_words_that_are_not_code(source: str):
    assert found(f"import Mathlib\nexample := {source}\n") == set()


def test_policy_flags_decide_native_but_not_decide():
    assert found("example := by decide") == set()
    assert found("example := by decide +native") == {(1, "decide +native")}
    assert found("example := by decide (native := true)") == {(1, "native := true")}


def test_an_escaped_constant_name_is_still_the_constant():
    assert found("example := Lean.«ofReduceBool»") == {(1, "ofReduceBool")}


def test_a_keyword_followed_by_a_bang_or_question_mark_is_still_the_keyword():
    assert found("example := by bv_decide?\nexample := by sorry!") == {
        (1, "bv_decide"),
        (2, "sorry"),
    }


def test_a_hash_command_is_found_by_prefix_as_leans_token_table_reads_it():
    assert found("#evalIO.println 1") == {(1, "#eval")}


def test_attribute_arguments_are_judged_as_code():
    assert found("@[simp, to_additive (attr := command_elab)] def f := 0") == {
        (1, "@[command_elab]")
    }
    assert found("attribute [init] foo") == {(1, "@[init]")}
    assert found("@[simp, norm_cast, ext] def f := 0") == set()


def test_the_policy_reads_on_past_a_broken_literal():
    # Lean's recovery reads what the unterminated string would have hidden as code.
    assert found('def s := "never closed\n#eval 1\n') == {(1, "malformed literal"), (2, "#eval")}


def test_lines_are_right_after_multiline_comments_and_strings():
    source = '/- a\nb\nc -/\ndef s := "x\ny\n"\n\n  sorry\n'
    assert found(source) == {(8, "sorry")}


@pytest.mark.parametrize("source", ["x <-- y", "x ||-- y", "x \\/-- y -/", "p |-- q"])
def test_a_comment_glued_to_an_operator_is_refused_whatever_lean_makes_of_it(source: str):
    # `<-` is a token, so Lean reads `<-` `-` `y`; `||` is one too, so there it reads a comment.
    assert (1, "glued comment") in found(source)


def test_one_violation_per_construct_and_line():
    assert [v.construct for v in scan("example := by sorry; sorry\n")] == ["sorry"]


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


def test_module_system_import_forms_are_judged_by_their_root():
    source = "import all Mathlib.A\npublic import Statements.S001\nmeta import Lean.Elab\n"
    assert found(source) == {(2, "import Statements.S001"), (3, "import Lean.Elab")}


def test_an_escaped_import_root_is_unescaped():
    assert found("import «Statements».S001\n") == {(1, "import «Statements».S001")}


def test_prelude_and_the_module_header_are_refused():
    assert found("module\n\nprelude\nimport Init\n") == {(1, "module"), (3, "prelude")}


def test_an_import_after_a_command_is_refused():
    assert found("import Mathlib\nopen Nat\nimport Mathlib.Tactic\n") == {(3, "import")}


# -- files -----------------------------------------------------------------------------------


def test_scan_file_reports_a_file_that_is_not_utf8(tmp_path: Path):
    path = tmp_path / "latin1.lean"
    path.write_bytes(b"import Mathlib\n-- caf\xe9\n")
    assert scan_file(path) == [
        Violation(2, "encoding", "not valid UTF-8, and Lean reads only UTF-8 sources")
    ]


def test_scan_file_refuses_what_it_cannot_read(tmp_path: Path):
    with pytest.raises(SourceUnreadable, match="cannot read"):
        scan_file(tmp_path)


def test_the_repo_examples_are_judged_as_their_manifests_expect():
    examples = REPO / "Submissions" / "S001"
    assert scan_file(examples / "AliceDirect.lean") == []
    assert [v.construct for v in scan_file(examples / "MalloryAxiom.lean")] == ["axiom"]
    assert [v.construct for v in scan_file(examples / "MalloryNative.lean")] == ["native_decide"]


# -- properties -------------------------------------------------------------------------------


def scan_every_token(text: str) -> list[Violation]:
    """The scan without its bulk skipping: every token goes through the rules one by one."""
    state = _Scan(text)
    lexer = Lexer(text)
    pos = state.header()
    while pos < len(text):
        kind, end = lexer.at(pos)
        pos = end if kind == "ws" else state.token(kind, pos, end)
    return sorted(state.found.values(), key=lambda v: (v.line, v.construct))


PIECES = [
    *(" ", "\n", "  ", "\t"),
    *("sorry", "axiom", "decide", "native", "+", "(", ")", "config", ":=", "{", "}", "true"),
    *("import", "Mathlib", "Lean", "Elab", ".", "«", "»", "set_option", "debug", "open"),
    *("private", "attribute", "[", "]", "@[", "init", "#eval", "#check", "x", "h'", "'"),
    *('"', "\\", "r#", '"#', "--", "/-", "-/", "-", "/", "<|", "∑'", "''", "`", "partial_sum"),
    *("ofReduceBool", "MetaM", "r", "a'b", "0", "λ", "ℕ", "export", "Qq"),
]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=40).map("".join))
def test_bulk_skipping_finds_exactly_what_token_by_token_scanning_finds(text: str):
    assert scan(text) == scan_every_token(text)


@settings(max_examples=300)
@given(st.one_of(st.text(max_size=300), st.binary(max_size=300).map(lambda b: b.decode("latin-1"))))
def test_scan_never_raises(text: str):
    for violation in scan(text):
        assert 1 <= violation.line <= text.count("\n") + 1


# A hang guard, not a speed target: each text is a few hundred KB of one broken construct, which
# a scan that rescans to the end after every failure would take many minutes over.
@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    "text",
    [
        "«" * 200_000,
        "a.«x " * 50_000,
        'r#"' * 70_000,
        "/- " * 70_000,
        '"\\q' * 70_000,
        "attribute [" * 20_000,
        "decide (config := x) " * 10_000,
        "/- " * 30_000 + "-/ " * 30_000,
    ],
    ids=[
        *("guillemets", "escaped-parts", "raw-strings", "comments", "escapes", "attributes"),
        *("configs", "deep-comments"),
    ],
)
def test_broken_input_is_scanned_in_linear_time(text: str):
    assert all(violation.line == 1 for violation in scan(text))
