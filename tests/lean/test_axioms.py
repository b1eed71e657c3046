from jigcli.lean.axioms import axiom_reason


def test_the_three_trusted_axioms_are_allowed():
    assert {axiom_reason(a) for a in ("propext", "Classical.choice", "Quot.sound")} == {None}


def test_axioms_map_to_the_escape_hatch_they_stand_for():
    assert axiom_reason("sorryAx") == "sorry"
    assert axiom_reason("M.proof._native.native_decide.ax_1_1") == "native_decide"
    assert axiom_reason("M.t._native.bv_decide.ax_2_7") == "native_decide"
    assert axiom_reason("Lean.ofReduceBool") == "native_decide"
    assert axiom_reason("Lean.trustCompiler") == "native_decide"
    assert axiom_reason("M.cheat") == "disallowed_axiom"
    assert axiom_reason("M.native_sum_ax") == "disallowed_axiom"
