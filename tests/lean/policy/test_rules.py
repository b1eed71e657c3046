"""Each rule of the policy (jigcli/lean/policy/rules.py) refuses its construct on its line, by
every spelling that reaches it: the escape routes to build-time code."""

from __future__ import annotations

import pytest

from jigcli.lean.policy import (
    RULES,
    Violation,
    scan,
)

from .conftest import DATA, LINE, PREAMBLE, found, on_line_6

# rule construct -> (source on line 6, the construct the scan reports)
EXAMPLES: dict[str, tuple[str, str]] = {
    "sorry": ("theorem t : 1 = 1 := by sorry", "sorry"),
    "admit": ("theorem t : 1 = 1 := by admit", "admit"),
    "stop": ("theorem t : 1 = 1 := by stop rfl", "stop"),
    "sorryAx": ("theorem t : 1 = 1 := sorryAx _ false", "sorryAx"),
    "apply?": ("theorem t : 1 = 1 := by apply?", "apply?"),
    "hint": ("theorem t : 1 = 1 := by hint", "hint"),
    "plausible": ("theorem t (n : ℕ) : n < 100 := by plausible", "plausible"),
    "slim_check": ("theorem t (n : ℕ) : n < 100 := by slim_check", "slim_check"),
    "rw?": ("theorem t (n : ℕ) : n + 0 = n := by rw?", "rw?"),
    "observe": ("theorem t : True := by observe h : 1 = 1; trivial", "observe"),
    "library_search": ("theorem t : 1 = 1 := by library_search", "library_search"),
    "polyrith": ("theorem t (x : ℚ) (h : x = 1) : 2 * x = 2 := by polyrith", "polyrith"),
    "axiom": ("axiom cheat : False", "axiom"),
    "native_decide": ("example : 2 ∣ 4 := by native_decide", "native_decide"),
    "bv_decide": ("example (x : BitVec 2) : x = x := by bv_decide", "bv_decide"),
    "bv_check": ('example (x : BitVec 2) : x = x := by bv_check "p.lrat"', "bv_check"),
    "ofReduceBool": ("example := Lean.ofReduceBool", "ofReduceBool"),
    "ofReduceNat": ("example := Lean.ofReduceNat", "ofReduceNat"),
    "trustCompiler": ("example := Lean.trustCompiler", "trustCompiler"),
    "decide +native": ("example : 2 ∣ 4 := by decide +native", "decide +native"),
    "native := …": (
        "example : 2 ∣ 4 := by decide (config := { native := true })",
        "native := …",
    ),
    "(option := …)": (
        "example : 2 ∣ 4 := by decide (config := myConfig)",
        "(config := …)",
    ),
    "DecideConfig": ("def c := Parser.Tactic.DecideConfig.mk true", "DecideConfig"),
    "unsafe": ("unsafe def f : ℕ := 0", "unsafe"),
    "unsafe…": ("def f : ℕ := unsafeBaseIO (pure 1)", "unsafeBaseIO"),
    "…IO…": ("def f : IO Unit := pure ()", "IO"),
    "dbg…": ('def f (n : ℕ) : ℕ := dbgTrace "x" fun _ => n', "dbgTrace"),
    "System": ("def f := System.Platform.numBits", "System"),
    "Internal": ("def f := Std.Internal.Parsec.pure", "Internal"),
    "include_str": ('def s : String := include_str "secret.txt"', "include_str"),
    "on_failure": ("example : True := by grind on_failure f", "on_failure"),
    "tactic": ("example : True := by aesop (add safe tactic myTac)", "tactic"),
    "glued name": ("example := ∯xsorry", "xsorry"),
    "redefined literal": (
        "def true := false example : 1 = 1 := by simp (decide := true)",
        "(decide := …)",
    ),
    "@[aesop] not on a lemma": ("@[aesop safe] def d := 0", "@[aesop] not on a lemma"),
    "partial": ("partial def f (n : ℕ) : ℕ := f n", "partial"),
    "implemented_by": ("@[implemented_by g] def f : ℕ := 0", "implemented_by"),
    "extern": ('@[extern "c_f"] opaque f : ℕ', "extern"),
    "compile_def": ("compile_def Foo.rec", "compile_def"),
    "macro": ('macro "zero" : term => `(0)', "macro"),
    "macro_rules": ("macro_rules | `(zero) => `(0)", "macro_rules"),
    "syntax": ('syntax "zero" : term', "syntax"),
    "elab": ('elab "zero" : term => pure default', "elab"),
    "elab_rules": ("elab_rules : term | `(zero) => pure default", "elab_rules"),
    "notation token": ('notation "a--" => 0', '"a--"'),
    "unreadable notation": ("notation " + '"x" ' * 70 + "=> 0", "unreadable notation"),
    "unknown #command": ("#frobnicate Nat.succ", "#frobnicate"),
    "meta": ("meta def f : ℕ := 0", "meta"),
    "binder_predicate": ('binder_predicate x " > " y:term => `($x > $y)', "binder_predicate"),
    "run_cmd": ("run_cmd pure ()", "run_cmd"),
    "run_elab": ("run_elab pure ()", "run_elab"),
    "run_meta": ("run_meta pure ()", "run_meta"),
    "run_tac": ("example : True := by run_tac pure ()", "run_tac"),
    "by_elab": ("example : ℕ := by_elab pure default", "by_elab"),
    "simproc": ("simproc reduceFoo (foo _) := fun _ => pure .continue", "simproc"),
    "dsimproc": ("dsimproc reduceFoo (foo _) := fun _ => pure .continue", "dsimproc"),
    "simproc_decl": ("simproc_decl reduceFoo (foo _) := fun _ => pure .continue", "simproc_decl"),
    "dsimproc_decl": ("dsimproc_decl r (foo _) := fun _ => pure .continue", "dsimproc_decl"),
    "add_aesop_rules": ("add_aesop_rules safe tactic myTac", "add_aesop_rules"),
    "with_weak_namespace": ("with_weak_namespace Foo def x := 0", "with_weak_namespace"),
    "init_quot": ("init_quot", "init_quot"),
    "register_…": ("register_simp_attr my_simps", "register_…"),
    "declare_…": ("declare_syntax_cat thing", "declare_…"),
    "initialize…": ("initialize pure ()", "initialize…"),
    "builtin_…": ("builtin_initialize pure ()", "builtin_…"),
    "addDecl": ("def f := addDecl d", "addDecl"),
    "addDeclCore": ("def f := Environment.addDeclCore e 0 d none", "addDeclCore"),
    "addDeclWithoutChecking": ("def f := e.addDeclWithoutChecking d", "addDeclWithoutChecking"),
    "addAndCompile": ("def f := addAndCompile d", "addAndCompile"),
    "MetaM": ("def f : MetaM Unit := pure ()", "MetaM"),
    "TacticM": ("def f : Elab.Tactic.TacticM Unit := pure ()", "TacticM"),
    "TermElabM": ("def f : TermElabM Unit := pure ()", "TermElabM"),
    "CommandElabM": ("def f : CommandElabM Unit := pure ()", "CommandElabM"),
    "CoreM": ("def f : CoreM Unit := pure ()", "CoreM"),
    "MacroM": ("def f : MacroM Unit := pure ()", "MacroM"),
    "DelabM": ("def f : DelabM Unit := pure ()", "DelabM"),
    "#eval": ("#eval (1 : ℕ)", "#eval"),
    "#exit": ("#exit", "#exit"),
    "#guard_msgs": ("#guard_msgs in example := 1", "#guard_msgs"),
    "set_option debug.*": (
        "set_option debug.skipKernelTC true in",
        "set_option debug.skipKernelTC",
    ),
    "@[…]": ("@[my_attribute] def f := 0", "@[my_attribute]"),
    "#…": ("#loogle Nat.succ", "#loogle"),
    "set_option …": ("set_option hygiene false", "set_option hygiene"),
    "escaped identifier": ("theorem «sorry» : True := trivial", "«sorry»"),
    "reaches a protected namespace": ("namespace Lean.Grind", "namespace Lean.Grind"),
    "unreadable declaration": (
        "instance (priority := " + "1 + " * 20 + "1) i : Inhabited ℕ := ⟨0⟩",
        "instance",
    ),
    "Lean.…": ("open Lean in", "Lean"),
    "Qq": ("open Qq in", "Qq"),
    "`(…)": ("example := `(tactic| rfl)", "`(…)"),
    "name literal": ("example := `Lean.Elab.Command.elabCommand", "`Lean.Elab.Command.elabCommand"),
    "word%": ("example := eval% 2 ^ 10", "eval%"),
    "string with braces": ('def s := s!"{"" ++ ""}"', "string with braces"),
    "open private": ("open private secret in Foo", "open private"),
    "import": ("import Mathlib.Tactic", "import"),
    "glued comment": ("example := f <|-- a comment glued to an operator", "glued comment"),
    "glued literal": ("example := c =='a'", "glued literal"),
    "malformed literal": ('def t := "never closed', "malformed literal"),
    "not Lean text": ("def x := 1 \u202e", "U+202E"),
}
EXAMPLES |= {
    rule.construct: (f"@[{rule.construct} foo] def f := 0", f"@[{rule.construct}]")
    for rule in RULES
    if rule.where == "attribute"
}
HEADER_ONLY = {"module", "prelude"}


def test_every_rule_has_an_example_here():
    assert {rule.construct for rule in RULES} - HEADER_ONLY == set(EXAMPLES)


@pytest.mark.parametrize("construct", sorted(EXAMPLES))
def test_each_forbidden_construct_is_found_on_its_line(construct: str):
    source, reported = EXAMPLES[construct]
    assert (LINE, reported) in on_line_6(source)


# A direction-changing character is refused in a comment too: that is where it hides code.
@pytest.mark.parametrize("construct", sorted(set(EXAMPLES) - {"not Lean text"}))
def test_each_forbidden_construct_is_inert_inside_a_comment(construct: str):
    source, _ = EXAMPLES[construct]
    commented = PREAMBLE + "/- " + source.replace("-/", "") + " -/\n"
    assert found(commented) == set()


def test_every_violation_carries_its_rules_message():
    messages = {rule.construct: rule.message for rule in RULES}
    (violation,) = scan("theorem t : 1 = 1 := by\n  sorry\n")
    assert violation == Violation(2, "sorry", messages["sorry"])


def test_a_source_with_every_trap_is_clean():
    assert scan((DATA / "lean" / "policy" / "traps.lean").read_text(encoding="utf-8")) == []


# -- escape routes ----------------------------------------------------------------------------
# Each source below is one the denylist policy before issue 10 accepted (checked against that
# code when these were written); each now names its line and construct.


@pytest.mark.parametrize(
    ("source", "construct"),
    [
        pytest.param("@[«macro» myMacro] def m := 0", "@[macro]", id="macro"),
        pytest.param("@[«never_extract» myElab] def c := 0", "@[never_extract]", id="compiler"),
        pytest.param("@[«implemented_by» g] def f := 0", "@[implemented_by]", id="implemented_by"),
        pytest.param('@[«extern» "c_f"] opaque f : ℕ', "@[extern]", id="extern"),
        pytest.param("@[«export» lean_f] def f := 0", "@[export]", id="export"),
        pytest.param("attribute [«init»] foo", "@[init]", id="attribute-command-init"),
        pytest.param("@[local «macro_inline»] def t := 0", "@[macro_inline]", id="local-prefix"),
    ],
)
def test_an_attribute_spelled_with_guillemets_is_refused(source: str, construct: str):
    assert (LINE, construct) in on_line_6(source)


@pytest.mark.parametrize(
    ("source", "construct"),
    [
        pytest.param("theorem t : False := «sorry»", "«sorry»", id="sorry"),
        pytest.param("«axiom» cheat : False", "«axiom»", id="axiom"),
        pytest.param("example : 2 ∣ 4 := by «native_decide»", "«native_decide»", id="tactic"),
        pytest.param("example := by decide +«native»", "«native»", id="decide-option"),
        pytest.param("open «Lake» in", "«Lake»", id="namespace-part"),
        pytest.param("set_option «pp».all true in", "«pp»", id="option-part"),
        pytest.param("example := Nat.«macro»", "«macro»", id="last-part"),
        pytest.param("example := `«sorryAx»", "«sorryAx»", id="in-a-name-literal"),
    ],
)
def test_an_escaped_keyword_or_plain_word_is_refused(source: str, construct: str):
    assert (LINE, construct) in on_line_6(source)


@pytest.mark.parametrize(
    ("source", "construct"),
    [
        pytest.param("namespace Lean.Grind", "namespace Lean.Grind", id="namespace-Lean.Grind"),
        pytest.param("namespace Lake", "namespace Lake", id="namespace-Lake"),
        pytest.param("namespace Verify.Guard", "namespace Verify.Guard", id="namespace-Verify"),
        pytest.param("namespace Statements.S001", "namespace Statements.S001", id="Statements"),
        pytest.param("namespace Jig", "namespace Jig", id="namespace-Jig"),
        pytest.param("namespace _root_.Lake", "namespace _root_.Lake", id="namespace-root"),
        pytest.param(
            "def _root_.Lean.Grind.f := 0", "def _root_.Lean.Grind.f", id="root-decl-in-Lean"
        ),
        pytest.param(
            "theorem _root_.Statements.S001.statement : True := trivial",
            "theorem _root_.Statements.S001.statement",
            id="root-decl-shadowing-the-statement",
        ),
        pytest.param("def Lean.Grind.evil := 0", "def Lean.Grind.evil", id="dotted-def"),
        pytest.param(
            "theorem /- a comment -/ Lean.Omega.t : True := trivial",
            "theorem Lean.Omega.t",
            id="comment-before-the-name",
        ),
        pytest.param("def\n  Lean.Order.f := 0", "def Lean.Order.f", id="name-on-the-next-line"),
        pytest.param(
            "private theorem Lean.Omega.t : True := trivial",
            "theorem Lean.Omega.t",
            id="private-dotted-theorem",
        ),
        pytest.param(
            "protected abbrev Lean.Order.a := 0", "abbrev Lean.Order.a", id="protected-abbrev"
        ),
        pytest.param(
            "instance (priority := low) Lean.Grind.i : Inhabited ℕ := ⟨0⟩",
            "instance Lean.Grind.i",
            id="instance-with-priority",
        ),
        pytest.param("structure Lean.Grind.S where", "structure Lean.Grind.S", id="structure"),
        pytest.param(
            "class inductive Lean.Grind.C", "inductive Lean.Grind.C", id="class-inductive"
        ),
        pytest.param("inductive Lean.Order.I", "inductive Lean.Order.I", id="inductive"),
        pytest.param("opaque Lean.Grind.o : ℕ", "opaque Lean.Grind.o", id="opaque"),
        pytest.param("alias ⟨Lean.Grind.mp, mpr⟩ := h", "alias Lean.Grind.mp", id="alias"),
        pytest.param("with_weak_namespace Lean.Grind", "with_weak_namespace", id="weak-namespace"),
        pytest.param(
            "def f := g where _root_.Lean.Grind.aux := 0",
            "_root_.Lean.Grind",
            id="rooted-where-declaration",
        ),
    ],
)
def test_declaring_into_a_protected_namespace_is_refused_by_every_route(
    source: str, construct: str
):
    assert (LINE, construct) in on_line_6(source)


@pytest.mark.parametrize(
    ("source", "construct"),
    [
        pytest.param("open Lake in", "Lake", id="open-Lake"),
        pytest.param("open Verify", "Verify", id="open-Verify"),
        pytest.param("open Jig in", "Jig", id="open-Jig"),
        pytest.param("open _root_.Lean.Elab in", "_root_.Lean.Elab", id="open-root-Lean"),
        pytest.param("section open Statements.S001", "Statements", id="section-open"),
        pytest.param("example := Statements.S001.statement", "Statements", id="reference"),
        pytest.param("def f : Lean.Name := .anonymous", "Lean.Name", id="Lean-data"),
        pytest.param("instance : Lean.ToExpr Foo := ⟨⟩", "Lean.ToExpr", id="meta-class"),
        pytest.param(
            "example := _root_.Lean.Elab.Command.elabCommand", "_root_.Lean.Elab", id="root"
        ),
    ],
)
def test_reaching_a_protected_namespace_is_refused(source: str, construct: str):
    assert (LINE, construct) in on_line_6(source)


@pytest.mark.parametrize(
    ("source", "construct"),
    [
        pytest.param(
            "example := `Lean.Elab.Command.elabCommand",
            "`Lean.Elab.Command.elabCommand",
            id="meta-api",
        ),
        pytest.param(
            "example := ``Lean.Meta.evalExpr", "`Lean.Meta.evalExpr", id="double-backtick"
        ),
        pytest.param("example := `Lean.ofReduceBool", "ofReduceBool", id="native-axiom"),
        pytest.param("example := `sorryAx", "sorryAx", id="sorryAx"),
        pytest.param("example := `_root_.Lake.x", "`_root_.Lake.x", id="rooted"),
        pytest.param("example := `MetaM", "MetaM", id="meta-monad"),
        pytest.param("example := `Statements.S001.statement", "`Statements.S001.statement", id="S"),
    ],
)
def test_a_name_literal_naming_a_meta_api_or_an_escape_hatch_is_refused(
    source: str, construct: str
):
    assert (LINE, construct) in on_line_6(source)


@pytest.mark.parametrize(
    "source",
    [
        pytest.param("example := `(1 + 1)", id="term"),
        pytest.param("example := `(tactic| rfl)", id="tactic"),
        pytest.param("example := `(command| example := 1)", id="command"),
        pytest.param("example := ``(Nat.succ)", id="prechecked"),
    ],
)
def test_a_syntax_quotation_is_refused(source: str):
    assert (LINE, "`(…)") in on_line_6(source)


@pytest.mark.parametrize(
    ("source", "construct"),
    [
        pytest.param("example : 2 ^ 10 = eval% 2 ^ 10 := rfl", "eval%", id="eval"),
        pytest.param("example : 1 = 1 := exact?%", "exact?%", id="exact-term"),
        pytest.param("gen_injective_theorems% Nat", "gen_injective_theorems%", id="bootstrap"),
        pytest.param("example (n : ℕ) := n% 2", "n%", id="written-like-an-elaborator"),
    ],
)
def test_a_word_glued_to_percent_is_refused(source: str, construct: str):
    assert (LINE, construct) in on_line_6(source)


@pytest.mark.parametrize(
    "command",
    [
        *("#guard_msgs", "#guard", "#loogle", "#leansearch", "#moogle", "#time"),
        *("#with_exporting", "#check_failure", "#find", "#help", "#eval!", "#check_simp"),
    ],
)
def test_a_hash_command_off_the_allowlist_is_refused(command: str):
    assert (LINE, command) in on_line_6(f"{command} example := 1")


@pytest.mark.parametrize(
    "tactic",
    [
        *("apply?", "rw?", "hint", "plausible", "slim_check", "polyrith"),
        *("observe", "library_search"),
    ],
)
def test_a_goal_admitting_or_search_tactic_is_refused(tactic: str):
    assert (LINE, tactic) in on_line_6(f"theorem t (n : ℕ) : n + 0 = n := by {tactic}")


@pytest.mark.parametrize("value", ["!false", "(true)", "Bool.true", "t", "«true»"])
def test_native_in_any_spelling_but_false_is_refused(value: str):
    source = f"example : 2 ∣ 4 := by decide (config := {{ native := {value} }})"
    assert (LINE, "native := …") in on_line_6(source)


@pytest.mark.parametrize(
    "option",
    [
        *("allowUnsafeReducibility", "hygiene", "compiler.extract_closed"),
        *("interpreter.prefer_native", "bootstrap.genMatcherCode"),
        *("genInjectivity", "Elab.async"),
    ],
)
def test_an_option_off_the_allowlist_is_refused(option: str):
    assert (LINE, f"set_option {option}") in on_line_6(f"set_option {option} false in")


def test_an_allowlisted_option_with_a_string_value_is_refused():
    # `trace.profiler.output` names a file Lean writes the profile to while elaborating.
    source = 'set_option trace.profiler.output "/root/.bashrc" in'
    assert (LINE, "set_option trace.profiler.output") in on_line_6(source)


@pytest.mark.parametrize(
    ("source", "construct"),
    [
        pytest.param("@[never_extract] def f := 0", "@[never_extract]", id="never_extract"),
        pytest.param("@[macro_inline] def f := 0", "@[macro_inline]", id="macro_inline"),
        pytest.param("@[specialize] def f := 0", "@[specialize]", id="specialize"),
        # Aesop infers the rule builder from the type: a `RuleTac` becomes a tactic rule.
        pytest.param(
            "@[aesop safe 50%] def t := myRuleTac", "@[aesop] not on a lemma", id="aesop-rule"
        ),
        pytest.param("@[inductive_override] def f := 0", "@[inductive_override]", id="unknown"),
        pytest.param(
            "@[simp, to_additive (attr := simp, implemented_by)] def f := 0",
            "@[implemented_by]",
            id="nested-in-to_additive",
        ),
        pytest.param("@[scoped instance_elab] def f := 0", "@[instance_elab]", id="scoped"),
        pytest.param("attribute [local init] foo", "@[init]", id="attribute-command"),
        pytest.param("@[Mathlib.Tactic.foo] def f := 0", "@[Mathlib.Tactic.foo]", id="dotted"),
    ],
)
def test_an_attribute_off_the_allowlist_is_refused(source: str, construct: str):
    assert (LINE, construct) in on_line_6(source)


@pytest.mark.parametrize(
    ("source", "construct"),
    [
        pytest.param("register_hint simp", "register_…", id="register_hint"),
        pytest.param("register_label_attr my_label", "register_…", id="register_label_attr"),
        pytest.param('register_error_explanation e "x"', "register_…", id="explanation"),
        pytest.param("declare_simp_like_tactic mySimp", "declare_…", id="declare"),
        pytest.param("add_aesop_rules safe tactic t", "add_aesop_rules", id="aesop-rules"),
        pytest.param("init_quot", "init_quot", id="init_quot"),
    ],
)
def test_a_command_that_registers_code_or_changes_the_compiler_is_refused(
    source: str, construct: str
):
    assert (LINE, construct) in on_line_6(source)


@pytest.mark.parametrize(
    ("source", "construct"),
    [
        pytest.param(
            'def s : String := s!"{by_elab do IO.println \\"hi\\"; pure default}"',
            "string with braces",
            id="quoted-code-refused",
        ),
        pytest.param('def s : String := s!"{by_elab pure default}"', "by_elab", id="by_elab"),
        pytest.param('def s : String := s!"{(sorry : ℕ)}"', "sorry", id="sorry"),
        pytest.param(
            'def s : String := m!"{(by native_decide : 2 ∣ 4)}"', "native_decide", id="native"
        ),
        pytest.param('def s : String := s!"a {b} c {`Lean.Elab}"', "`Lean.Elab", id="second"),
        pytest.param(
            'def s : String := s!"{"" ++ toString (sorry : ℕ) ++ ""}"',
            "string with braces",
            id="quote-inside",
        ),
        pytest.param('def s : String := s!"{x"', "string with braces", id="unclosed"),
        pytest.param('def s : String := s!"{x -- }"', "string with braces", id="comment"),
    ],
)
def test_code_between_string_braces_is_scanned_or_the_string_refused(source: str, construct: str):
    assert (LINE, construct) in on_line_6(source)


def test_code_in_string_braces_is_found_on_its_own_line():
    source = 'def s : String := s!"one\n{\n  sorry}"\n'
    assert found(source) == {(3, "sorry")}


@pytest.mark.parametrize(
    ("source", "construct"),
    [
        pytest.param("def x := 1 -- \u202e reversed", "U+202E", id="bidi-in-comment"),
        pytest.param('def s := "\u2066"', "U+2066", id="isolate-in-string"),
        pytest.param("theorem sor\u200bry : True := trivial", "U+200B", id="zero-width"),
        pytest.param("def\u00a0x := 0", "U+00A0", id="no-break-space"),
        pytest.param("def x := 1\x00", "U+0000", id="nul"),
        pytest.param("def x := \ufeff1", "U+FEFF", id="bom"),
    ],
)
def test_a_character_that_is_not_lean_text_is_refused(source: str, construct: str):
    assert (LINE, construct) in on_line_6(source)


@pytest.mark.parametrize("source", ['def s := x ++"a"', 'def s := x =r"a"', 'def s := x ⬝"a"'])
def test_a_literal_glued_to_an_operator_is_refused(source: str):
    assert (LINE, "glued literal") in on_line_6(source)
