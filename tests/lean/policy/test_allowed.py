"""What the policy must keep accepting: honest proofs written the way Mathlib-era Lean is
written (precision: a policy that refuses them gets switched off)."""

from __future__ import annotations

import pytest

from jigcli.lean.policy import (
    ALLOWED_ATTRIBUTES,
    ALLOWED_COMMANDS,
    LEAN_MATH_NAMESPACES,
    scan,
)

from .conftest import LINE, found, on_line_6

# -- what stays allowed -----------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(ALLOWED_ATTRIBUTES))
def test_every_allowlisted_attribute_is_accepted_in_every_form(name: str):
    source = (
        f"@[{name}] theorem t : True := trivial\n"
        f"@[local {name}, scoped {name}] theorem u : True := trivial\n"
    )
    if name != "aesop":  # the command names a declaration the scan cannot see (below)
        source += f"attribute [{name}] t\nattribute [-{name}] u\n"
    assert found(source) == set()


@pytest.mark.parametrize(
    "source",
    [
        "@[aesop safe apply] def d : ℕ := 0",
        "@[aesop unsafe 10%] instance i : Inhabited ℕ := ⟨0⟩",
        "attribute [aesop safe apply] d",
    ],
)
def test_an_aesop_rule_on_anything_but_a_proved_lemma_is_refused(source: str):
    assert (1, "@[aesop] not on a lemma") in found(source)


@pytest.mark.parametrize(
    "source",
    [
        "@[simp ←, simp ↓ 1100, simp high, norm_cast] theorem t : True := trivial",
        "@[instance 100, reducible] def i : Inhabited ℕ := ⟨0⟩",
        '@[to_additive (attr := simp, norm_cast) "doc"] theorem t : True := trivial',
        "@[to_additive existing (reorder := 1 2)] theorem t : True := trivial",
        "@[grind =, grind →] theorem t : True := trivial",
        "@[nolint unusedArguments] def f (n : ℕ) := 0",
        "@[ext (iff := false)] structure P where x : ℕ",
        "scoped instance (priority := high) : Inhabited ℕ := ⟨0⟩",
    ],
)
def test_allowlisted_attributes_take_their_arguments(source: str):
    assert found(source) == set()


@pytest.mark.parametrize("command", sorted(ALLOWED_COMMANDS))
def test_allowlisted_commands_are_accepted(command: str):
    assert found(f"{command} Nat.succ\n") == set()


@pytest.mark.parametrize(
    "option",
    [
        *("maxHeartbeats 0", "maxRecDepth 2000", "synthInstance.maxHeartbeats 40000"),
        *("pp.all true", "trace.Meta.synthInstance true", "linter.unusedVariables false"),
        *("autoImplicit false", "backward.isDefEq.lazyWhnfCore false", "diagnostics true"),
    ],
)
def test_allowlisted_options_are_accepted(option: str):
    assert found(f"set_option {option} in\ntheorem t : True := trivial\n") == set()


@pytest.mark.parametrize("namespace", sorted(LEAN_MATH_NAMESPACES))
def test_leans_math_namespaces_may_be_cited_and_opened_but_not_declared_in(namespace: str):
    cited = f"open Lean.{namespace} in\nexample := Lean.{namespace}.foo\n"
    assert found(cited) == set()
    assert found(f"theorem Lean.{namespace}.mine : True := trivial") == {
        (1, f"theorem Lean.{namespace}.mine")
    }


def test_a_statement_file_may_use_its_own_namespace_and_no_other():
    source = (
        "namespace Statements.S001\nabbrev statement : Prop := True\n"
        "example := Statements.S001.statement\nend Statements.S001\n"
        "example := Statements.S002.statement\n"
    )
    assert found(source, home="Statements.S001") == {(5, "Statements")}
    assert (1, "namespace Statements.S001") in found(source)


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
        'r"raw {sorry} is never interpolated"',
        '"{x}: braces around plain code"',
        "'\"' = 'x'",
        "«my lemma» «term_+_» «1st»",
        "partial_sum sorry_free h'sorry",
        "Foo.sorry Nat.decide Decidable.decide safe_cast",
        "h' h'' f' x'",
        "`sorry `axiom `Nat.succ",
        "by decide",
        "by decide (config := { kernel := true })",
        "by decide (config := { native := false })",
        "by decide -native",
        "set_option maxHeartbeats 0 in",
        "set_option trace.Meta.synthInstance true in",
        "open Nat Finset in",
        "open Lean.Grind in",
        "opaque secret : ℕ",
        "#check sorry_free",
        "f ⁻¹' s ∪ f '' t",
        "n % 2 = 0",
        'fun (s : String) => s!"n = {n}"',
        "LeanStuff.x Leaning MyLean.Elab",
    ],
)
def test_policy_ignores_forbidden_words_that_are_not_code(source: str):
    assert found(f"import Mathlib\nexample := {source}\n") == set()


@pytest.mark.parametrize(
    "source",
    [
        pytest.param("by\n  simp (maxSteps := 100000) [foo]", id="number"),
        pytest.param("by simp +arith -zeta (decide := true)", id="flags-and-bool"),
        pytest.param("by simp (config := { maxSteps := 10, zeta := false }) at h", id="struct"),
        pytest.param(
            "by\n  simp (config := {\n    zeta := false\n    decide := true })", id="lines"
        ),
        pytest.param("by grind (splits := 12) (gen := 4)", id="grind"),
        pytest.param("by simp (transparency := .reducible)", id="enum"),
        pytest.param("by field_simp (disch := simp [f x])", id="discharger"),
        pytest.param("by aesop (add unsafe 50% apply foo) (rule_sets := [A, B])", id="aesop"),
        pytest.param("by\n  rw (occs := .pos [2, 3]) [h]", id="occurrences"),
        pytest.param("by\n  rw (occs := [2]) [h]", id="occurrences-list"),
        pytest.param("by\n  linear_combination (norm := ring_nf) (exp := 2) h", id="norm"),
        pytest.param("by\n  exact le_trans (b := c) h₁ h₂", id="named-argument"),
        pytest.param("by\n  refine foo (n := k) ?_\n  · exact bar (f := g) h", id="after-refine"),
        pytest.param("by\n  exact\n    foo (n := k)", id="continuation-after-exact"),
        pytest.param("le_trans (b := c)\n  h₁ h₂", id="term-mode"),
        pytest.param(":=\n  le_trans (b := c) h₁ h₂", id="term-mode-next-line"),
        pytest.param("fun x hx =>\n    le_trans (b := f x) hx h", id="lambda-body-next-line"),
        pytest.param("by\n  refine fun x ↦\n    le_trans (b := f x) ?_ h", id="maps-to"),
        pytest.param("⟨foo (n := k), bar (m := j)⟩", id="anonymous-constructor"),
        pytest.param("by\n  rw [foo (n := k)]", id="rewrite-rule"),
    ],
)
def test_literal_configurations_and_named_arguments_are_accepted(source: str):
    assert found(f"import Mathlib\nexample := {source}\n") == set()


def test_instance_priorities_are_not_configurations():
    assert found("instance (priority := low) : Inhabited ℕ := ⟨0⟩\n") == set()


@pytest.mark.parametrize(
    ("source", "construct"),
    [
        pytest.param("by simp (maxSteps := f 100)", "(maxSteps := …)", id="call"),
        pytest.param("by omega (splitDisjunctions := b)", "(splitDisjunctions := …)", id="name"),
        pytest.param("by decide (config := { kernel := k })", "(config := …)", id="field"),
        pytest.param("by simp (config := { c with zeta := false })", "(config := …)", id="with"),
        pytest.param("by simp (maxSteps := 2 ^ 20)", "(maxSteps := …)", id="arithmetic"),
        pytest.param("by simp (transparency := .mine)", "(transparency := …)", id="enum"),
        pytest.param("by try simp (maxSteps := f 1)", "(maxSteps := …)", id="try"),
        pytest.param("by all_goals (simp (maxSteps := f 1))", "(maxSteps := …)", id="parens"),
        pytest.param("by iterate 2 simp (maxSteps := f 1)", "(maxSteps := …)", id="iterate"),
        pytest.param("by rfl <;> simp (maxSteps := f 1)", "(maxSteps := …)", id="then-all"),
        pytest.param("by\n  · simp (maxSteps := f 1)", "(maxSteps := …)", id="focus-dot"),
        pytest.param("by simp +arith (a := 1)\n  (maxSteps := f 1)", "(maxSteps := …)", id="chain"),
        pytest.param("by aesop (add safe h) (config := c)", "(config := …)", id="aesop-later"),
        pytest.param("by simp (maxSteps := f (1))", "(maxSteps := …)", id="nested"),
        pytest.param("by rw (occs := .pos (f 2)) [h]", "(occs := …)", id="occurrences-call"),
        pytest.param("by rw (occs := .pos [f 2]) [h]", "(occs := …)", id="occurrences-list"),
        pytest.param("by rw (occs := [2, k]) [h]", "(occs := …)", id="bare-list"),
        pytest.param("by simp (maxSteps := " + "(" * 300, "(maxSteps := …)", id="unclosed"),
    ],
)
def test_a_tactic_configuration_that_is_not_literal_is_refused(source: str, construct: str):
    assert construct in {construct for _, construct in on_line_6(f"example := {source}")}


@pytest.mark.parametrize(
    ("source", "construct"),
    [
        pytest.param("unsafeBaseIO (pure 1)", "unsafeBaseIO", id="unsafeBaseIO"),
        pytest.param("unsafeIO (pure 1)", "unsafeIO", id="unsafeIO"),
        pytest.param("_root_.unsafeEIO x", "unsafeEIO", id="unsafeEIO"),
        pytest.param("unsafeCast 1", "unsafeCast", id="unsafeCast"),
        pytest.param("x.unsafeThing", "unsafeThing", id="dot-notation"),
        pytest.param("`unsafeCast", "unsafeCast", id="name-literal"),
        pytest.param("Foo.«unsafeCast»", "unsafeCast", id="escaped"),
        pytest.param("System.FilePath.pathExists", "System", id="FilePath"),
        pytest.param("Std.Internal.Parsec.pure 1", "Internal", id="Std.Internal"),
        pytest.param("IO.FS.Handle.mk", "IO", id="IO.FS"),
        pytest.param("x.toIO", "toIO", id="toIO"),
        pytest.param("IORef.mk", "IORef", id="IORef"),
        pytest.param("Aesop.RuleTac", "Aesop", id="Aesop"),
        pytest.param("Mathlib.Tactic.Ring.ExSum", "Mathlib.Tactic", id="Mathlib.Tactic"),
        pytest.param("Mathlib.Meta.NormNum.Result", "Mathlib.Meta", id="Mathlib.Meta"),
    ],
)
def test_escape_hatch_families_are_refused_under_every_namespace(source: str, construct: str):
    assert (LINE, construct) in on_line_6(f"def f := {source}")


@pytest.mark.parametrize("source", ["def f := 1, unsafe def g := 2", "(add unsafe def g := 2)"])
def test_the_unsafe_modifier_is_not_mistaken_for_an_aesop_phase(source: str):
    assert (LINE, "unsafe") in on_line_6(source)


def test_policy_flags_decide_native_but_not_decide():
    assert found("example := by decide") == set()
    assert found("example := by decide +native") == {(1, "decide +native")}
    assert found("example := by decide (native := true)") == {(1, "native := …")}


def test_an_escaped_constant_name_is_still_the_constant():
    assert (1, "ofReduceBool") in found("example := Lean.«ofReduceBool»")


def test_a_keyword_followed_by_a_bang_or_question_mark_is_still_the_keyword():
    assert found("example := by bv_decide?\nexample := by sorry!") == {
        (1, "bv_decide"),
        (2, "sorry"),
    }


def test_a_hash_command_is_the_longest_token_lean_knows():
    # Lean reads `#evalIO` as `#eval IO`, and `#checkx` as `#check x`.
    assert found("#evalIO.println 1") == {(1, "#eval"), (1, "IO")}
    assert found("#checkx\n#check_failure x") == {(2, "#check_failure")}


@pytest.mark.parametrize(
    "source",
    [
        pytest.param("example (s : Finset ℕ) : #s = s.card := rfl", id="card"),
        pytest.param("example (S : Finset ℕ) (h : #S ≤ 3) : #S < 4 := by omega", id="capital"),
        pytest.param("example : #hf.toFinset = 2 := by simp", id="dotted"),
        pytest.param("example := #sx + #t", id="short-names"),
        pytest.param("example := #[1, 2] ++ #v[3]", id="array-literals"),
    ],
)
def test_finset_card_notation_is_not_a_command(source: str):
    assert found(f"open Finset in\n{source}\n") == set()


def test_a_card_whose_name_starts_with_a_command_is_read_as_lean_reads_it():
    # `#simplices` is the `#simp` command token then `lices`, in Lean as here.
    assert found("example := #simplices\n") == {(1, "#simp")}


def test_an_unknown_hash_word_starting_a_line_is_refused():
    assert found("example := 1\n#frobnicate x\n") == {(2, "#frobnicate")}


def test_an_indented_hash_word_is_the_hash_token_then_a_name():
    # Mathlib's `#s` (`Finset.card s`) opening a continuation line, as Lean reads it.
    assert found("theorem t (s : Finset ℕ) :\n    #s\n      ≤ #s := le_rfl\n") == set()


@pytest.mark.parametrize(
    "source",
    [
        pytest.param("k%3 + C.card%3 + n % 2", id="modulo"),
        pytest.param("(n+1)%m + f x%(k+1)", id="modulo-before-parenthesis"),
        pytest.param("xs[i]'h + p.cells[p.cells.length - 2]'(by omega)", id="getElem-proof"),
    ],
)
def test_lean_reads_these_as_operators_and_so_does_the_scan(source: str):
    assert found(f"example := {source}\n") == set()


@pytest.mark.parametrize("source", ["eval%3", "exact?%", "mystery% 3", "decl_name%"])
def test_a_percent_token_or_a_word_written_like_one_is_refused(source: str):
    assert {c for _, c in found(f"example := {source}\n")} & {
        "eval%",
        "exact?%",
        "mystery%",
        "decl_name%",
    }


@pytest.mark.parametrize(
    "source",
    [
        pytest.param("theorem t (hint : 1 = 1) : 1 = 1 := hint", id="binder"),
        pytest.param("example (hint : P) : P := by\n  exact hint", id="argument"),
        pytest.param("example : P := by\n  rw [integral_integral hint]", id="rewrite"),
        pytest.param("example : P := by\n  have hint : Q := h\n  simpa using hint", id="have"),
        pytest.param(
            "theorem t (hvar : V)\n    (hint : Integrable f μ)\n    (hmean : M) : P := h",
            id="binder-line",
        ),
    ],
)
def test_hint_as_a_name_is_not_the_tactic(source: str):
    assert found(source) == set()


@pytest.mark.parametrize(
    "source",
    [
        "example : P := by\n  hint",
        "example : P := by hint",
        "example : P := by\n  try hint",
        "example : P := by\n  hint -- search",
        "example : P := by\n  (hint)",
        "example : P := by\n  constructor <;> hint",
    ],
)
def test_hint_in_tactic_position_is_refused(source: str):
    assert (2 if "\n" in source else 1, "hint") in found(source)


@pytest.mark.parametrize(
    "source",
    [
        pytest.param('local notation "‖" x "‖" => norm x', id="local"),
        pytest.param('notation:50 a " ≺ " b => R a b', id="mixfix"),
        pytest.param('scoped infixl:65 " +ᵥ " => f', id="infixl"),
        pytest.param('infixr:67 " ⊞ " => g', id="infixr"),
        pytest.param('prefix:max "√" => Nat.sqrt', id="prefix"),
        pytest.param('postfix:max "❗" => Nat.factorial', id="postfix"),
        pytest.param('notation3 "∑ᶠ "(...)", "r:67:(scoped f => finsum f) => r', id="notation3"),
        pytest.param('notation (priority := high) "𝔼" => E', id="priority"),
        pytest.param("#print prefix List", id="print-prefix"),
    ],
)
def test_notation_that_only_expands_to_terms_is_accepted(source: str):
    assert found(source + "\n") == set()


@pytest.mark.parametrize(
    ("source", "construct"),
    [
        pytest.param('notation "a--" => 0', '"a--"', id="line-comment"),
        pytest.param('infix " /- " => f', '"/-"', id="block-comment"),
        pytest.param('notation "x\\"" => 1', '"x\\""', id="quote"),
        pytest.param('prefix "\'" => f', '"\'"', id="char-quote"),
        pytest.param('notation "#ev" => 1', '"#ev"', id="hash"),
        pytest.param('notation "y" => by native_decide', "native_decide", id="right-hand-side"),
        pytest.param('macro "x" : term => `(0)', "macro", id="macro-stays-refused"),
    ],
)
def test_notation_that_could_change_the_reading_or_run_code_is_refused(source: str, construct: str):
    assert (1, construct) in found(source + "\n")


def test_attribute_arguments_are_judged_as_code():
    assert found("@[simp, to_additive (attr := command_elab)] def f := 0") == {
        (1, "@[command_elab]")
    }
    assert found("attribute [init] foo") == {(1, "@[init]")}
    assert (1, "sorry") in found("@[simp (config := by sorry)] def f := 0")


def test_the_policy_reads_on_past_a_broken_literal():
    # Lean's recovery reads what the unterminated string would have hidden as code.
    assert found('def s := "never closed\n#eval 1\n') == {(1, "malformed literal"), (2, "#eval")}


def test_lines_are_right_after_multiline_comments_and_strings():
    source = '/- a\nb\nc -/\ndef s := "x\ny\n"\n\n  sorry\n'
    assert found(source) == {(8, "sorry")}


@pytest.mark.parametrize("source", ["x <--- y", "x ||-- y", "x \\/-- y -/", "p |-- q"])
def test_a_comment_glued_to_an_operator_is_refused_whatever_lean_makes_of_it(source: str):
    # `||` is a token, so there Lean reads a comment; a table it extends could read otherwise.
    assert (1, "glued comment") in found(source)


def test_a_pinned_token_ending_in_a_dash_is_read_whole_as_lean_reads_it():
    # `<-` is core's ASCII `←`: Lean reads `<-` then `- sorry`, code, and so does the scan.
    assert (1, "sorry") in found("theorem t : False := x <-- sorry")


def test_the_fast_path_for_plain_declarations_and_opens_does_not_skip_a_comment():
    # `theorem aux` and `open Nat` stay in the bulk pattern; a comment in between must not.
    assert found("open /- c -/ private secret in Foo") == {(1, "open private")}
    assert found("theorem /- c -/ Lean.Omega.t : True := trivial") == {(1, "theorem Lean.Omega.t")}


def test_one_violation_per_construct_and_line():
    assert [v.construct for v in scan("example := by sorry; sorry\n")] == ["sorry"]


def test_stacked_attribute_lists_on_a_lemma_take_an_aesop_rule():
    assert found("@[aesop safe apply]\n@[simp] theorem t : True := trivial\n") == set()
    assert (1, "@[aesop] not on a lemma") in found("@[aesop safe apply] @[simp] def d := 0\n")


def test_simps_names_its_own_configurations_by_a_leading_dot():
    assert found("@[simps (config := .asFn)] def p : P := ⟨1⟩\n") == set()
    assert found("@[simps (config := .lemmasOnly)] def p : P := ⟨1⟩\n") == set()
    assert (1, "(config := …)") in found("@[simps (config := .mine)] def p : P := ⟨1⟩\n")


def test_a_configuration_after_an_interpolated_string_is_read_from_the_files_own_tokens():
    # The tokens inside `{…}` are the string's; read from there, the closing quote would open
    # a string that hides the tactic the group belongs to.
    padding = "x" * 300
    source = (
        f'def s (a : ℕ) : String := s!"{{a}} {padding}"\n'
        'example : 1 = 1 := by\n  simp (maxSteps := f 5) -- "\n'
    )
    assert (3, "(maxSteps := …)") in found(source)
