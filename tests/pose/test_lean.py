"""`jig pose lean` on real git repositories: what it writes, and everything it refuses."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jigcli.errors import UsageError
from jigcli.pose import PoseRefused
from jigcli.pose.lean import LeanPose, pose_lean
from jigcli.repo import Repo
from jigcli.schemas import validate

DATA = Path(__file__).resolve().parents[2] / "tests" / "data" / "pose"

PROP = "∀ n : ℕ, Even n → Even (n ^ 2)"
EVEN = "Mathlib.Algebra.Group.Nat.Even"
GREEN = DATA / "lean" / "EvenSquare.lean"
WEAKENED = DATA / "lean" / "Weakened.lean"
NATIVE = DATA / "lean" / "Native.lean"


def _request(label: str = "S002", **changes) -> LeanPose:
    fields = {"label": label, "prop": PROP, "imports": [EVEN], **changes}
    return LeanPose(**fields)


def _pose(verifier, **changes):
    return pose_lean(Repo(verifier.root), _request(**changes))


def _refused(verifier, **changes) -> str:
    return verifier.refused(lambda: _pose(verifier, **changes))


# -- what a pose writes ---------------------------------------------------------------------------


def test_posing_writes_the_statement_with_the_proposition_verbatim(verifier):
    posed = _pose(verifier, doc="The square of an even natural number is even.")
    assert posed.files == ["Statements/S002.lean"]
    text = (verifier.root / "Statements" / "S002.lean").read_text(encoding="utf-8")
    lines = text.splitlines()
    assert lines[0] == f"import {EVEN}"
    assert "namespace Statements.S002" in lines
    doc_at = lines.index("/-- The square of an even natural number is even. -/")
    assert lines[doc_at + 1] == f"abbrev statement : Prop := {PROP}"
    assert "theorem target : statement := sorry" in lines
    assert lines[-1] == "end Statements.S002"
    assert posed.commit is None and posed.elaboration is None


def test_examples_are_copied_verbatim_with_manifests_carrying_expect(verifier):
    posed = _pose(verifier, green=GREEN, red=[WEAKENED, NATIVE],
                  red_reasons=["restatement", "forbidden_syntax"])  # fmt: skip
    folder = verifier.root / "Submissions" / "S002"
    assert posed.files == [
        "Statements/S002.lean",
        *("Submissions/S002/EvenSquare.lean", "Submissions/S002/EvenSquare.json"),
        *("Submissions/S002/Weakened.lean", "Submissions/S002/Weakened.json"),
        *("Submissions/S002/Native.lean", "Submissions/S002/Native.json"),
    ]
    assert (folder / "EvenSquare.lean").read_bytes() == GREEN.read_bytes()
    manifests = {name: json.loads((folder / f"{name}.json").read_text()) for name in
                 ("EvenSquare", "Weakened", "Native")}  # fmt: skip
    assert manifests["EvenSquare"] == {
        "schema": "conject.submission.v1",
        "kind": "lean",
        "statement_id": "S002",
        "module": "Submissions.S002.EvenSquare",
        "decl": "Submissions.S002.EvenSquare.proof",
        "expect": "green",
        "expect_reason": "ok",
    }
    assert (manifests["Weakened"]["expect"], manifests["Weakened"]["expect_reason"]) == (
        "red",
        "restatement",
    )
    assert manifests["Native"]["expect_reason"] == "forbidden_syntax"
    assert all(validate(m, "submission") == [] for m in manifests.values())


def test_imports_are_written_once_each_in_the_order_given(verifier):
    _pose(verifier, imports=[EVEN, "Commons.Basic", EVEN])
    text = (verifier.root / "Statements" / "S002.lean").read_text(encoding="utf-8")
    assert text.startswith(f"import {EVEN}\nimport Commons.Basic\n\n")


def test_commit_holds_exactly_the_new_files_with_the_message(verifier):
    verifier.write("notes.txt", "staged, not part of the pose\n")
    verifier.git.git.add("notes.txt")
    verifier.write("Commons/Basic.lean", "-- an unstaged edit\n")
    posed = _pose(verifier, green=GREEN, red=[WEAKENED], red_reasons=["restatement"], commit=True)
    head = verifier.git.head.commit
    assert posed.commit == head.hexsha
    assert head.message.strip() == "Add canonical statement S002"
    assert sorted(head.stats.files) == sorted(posed.files)
    assert len(head.parents) == 1
    status = verifier.status().splitlines()
    assert "A  notes.txt" in status  # still staged, not committed
    assert " M Commons/Basic.lean" in status  # untouched


def test_commit_outside_a_git_repository_is_a_usage_error_and_writes_nothing(tmp_path):
    root = tmp_path / "plain"
    root.mkdir()
    (root / "lakefile.toml").write_text("")
    with pytest.raises(UsageError, match="--commit needs a git repository"):
        pose_lean(Repo(root), _request(commit=True))
    assert sorted(p.name for p in root.iterdir()) == ["lakefile.toml"]


def test_posing_outside_git_checks_write_once_against_the_tree(tmp_path):
    root = tmp_path / "plain"
    (root / "Statements").mkdir(parents=True)
    (root / "lakefile.toml").write_text("")
    pose_lean(Repo(root), _request())
    with pytest.raises(PoseRefused, match=r"Statements/S002\.lean already exists"):
        pose_lean(Repo(root), _request())


# -- write-once -----------------------------------------------------------------------------------


def test_an_existing_label_is_refused(verifier):
    sentence = _refused(verifier, label="S001")
    assert sentence.startswith("Statements/S001.lean already exists: statements are write-once")


def test_a_label_posed_in_an_earlier_commit_is_refused(verifier):
    _pose(verifier, commit=True)
    sentence = _refused(verifier, prop="∀ n : ℕ, Even (2 * n)")
    assert "Statements/S002.lean already exists" in sentence


def test_a_deleted_label_stays_taken(verifier):
    _pose(verifier, commit=True)
    (verifier.root / "Statements" / "S002.lean").unlink()
    removal = verifier.commit("Remove S002", "Statements")
    sentence = _refused(verifier, prop="∀ n : ℕ, Even (2 * n)")
    assert sentence.startswith(
        f"Statements/S002.lean existed before (commit {removal[:7]} touched it last; "
        "deleting does not free a name)"
    )


def test_a_label_posed_on_another_branch_is_taken(verifier):
    main = verifier.git.active_branch
    verifier.git.git.checkout("-b", "elsewhere")
    _pose(verifier, commit=True)
    verifier.git.git.checkout(main.name)
    assert not (verifier.root / "Statements" / "S002.lean").exists()
    assert "existed before" in _refused(verifier)


def test_a_label_differing_only_in_case_is_taken(verifier):
    sentence = _refused(verifier, label="s001")
    assert "differs from it only in case" in sentence


# -- refusals of the inputs -----------------------------------------------------------------------


@pytest.mark.parametrize("label", ["S.2", "../S2", "Sub/S2", "2S", "end"])
def test_a_label_that_is_not_a_plain_identifier_is_refused(verifier, label):
    sentence = _refused(verifier, label=label)
    assert f"label {label!r} is" in sentence


def test_bare_import_mathlib_is_refused_with_why(verifier):
    sentence = _refused(verifier, imports=["Mathlib"])
    assert "bare `import Mathlib`" in sentence and "olean cache" in sentence


@pytest.mark.parametrize(
    "module", ["Statements.S001", "Verify.Guard", "Submissions.S001.AliceDirect", "Lean.Elab"]
)
def test_imports_of_trusted_or_unreviewed_roots_are_refused(verifier, module):
    assert f"a statement may not import {module}" in _refused(verifier, imports=[module])


def test_imports_outside_the_allowed_roots_are_refused(verifier):
    assert "outside the allowed import roots" in _refused(verifier, imports=["Foo.Bar"])


@pytest.mark.parametrize(
    ("prop", "said"),
    [
        ("sorry", "`sorry` is refused by the static policy"),
        ("by native_decide", "`native_decide` is refused by the static policy"),
        ("True\n\nend Statements.S002\naxiom cheat : False", "starts another Lean command"),
    ],
)
def test_a_proposition_the_rules_reject_is_refused(verifier, prop, said):
    sentence = _refused(verifier, prop=prop)
    assert sentence.startswith("Statements/S002.lean as generated breaks a rule at line")
    assert said in sentence


def test_an_empty_proposition_is_refused(verifier):
    assert "the proposition is empty" in _refused(verifier, prop="  ")


def test_doc_text_that_would_end_its_docstring_is_refused(verifier):
    assert "`-/`" in _refused(verifier, doc="done -/ theorem x : False := sorry")


# -- refusals of the examples ---------------------------------------------------------------------


def test_a_green_example_the_policy_rejects_is_refused(verifier):
    sentence = _refused(verifier, green=NATIVE)
    assert "green example Native.lean is refused by the static policy" in sentence
    assert "--red-reason forbidden_syntax" in sentence


def test_a_red_forbidden_syntax_example_the_policy_accepts_is_refused(verifier):
    sentence = _refused(verifier, red=[WEAKENED], red_reasons=["forbidden_syntax"])
    assert "passes the static policy, so it cannot end forbidden_syntax" in sentence


def test_a_red_reason_no_lean_example_can_end_with_is_refused(verifier):
    sentence = _refused(verifier, red=[WEAKENED], red_reasons=["invalid_witness"])
    assert "--red-reason 'invalid_witness' is not a reason a Lean example can end with" in sentence


def test_an_example_without_proof_in_its_namespace_is_refused(verifier):
    sentence = _refused(verifier, green=DATA / "lean" / "Elsewhere.lean")
    assert "declares no `Submissions.S002.Elsewhere.proof`" in sentence
    assert "namespace Submissions.S002.Elsewhere" in sentence


def test_an_example_whose_name_is_not_an_identifier_is_refused(verifier, tmp_path):
    odd = tmp_path / "even-square.lean"
    odd.write_bytes(GREEN.read_bytes())
    assert "plain Lean identifier" in _refused(verifier, green=odd)


def test_two_examples_with_one_name_are_refused(verifier, tmp_path):
    twin = tmp_path / "EvenSquare.lean"
    twin.write_bytes(WEAKENED.read_bytes())
    sentence = _refused(verifier, green=GREEN, red=[twin], red_reasons=["restatement"])
    assert "would both become Submissions/S002/EvenSquare.lean" in sentence


def test_an_example_file_that_exists_already_is_refused(verifier):
    verifier.write("Submissions/S002/EvenSquare.lean", "-- someone else's\n")
    sentence = _refused(verifier, green=GREEN)
    assert sentence.startswith("Submissions/S002/EvenSquare.lean already exists")


def test_red_examples_and_reasons_must_pair_up(verifier):
    with pytest.raises(UsageError, match="2 --red example"):
        _pose(verifier, red=[WEAKENED, NATIVE], red_reasons=["restatement"])
    assert not (verifier.root / "Statements" / "S002.lean").exists()


def test_a_missing_example_is_a_usage_error(verifier, tmp_path):
    with pytest.raises(UsageError, match="is not a file"):
        _pose(verifier, green=tmp_path / "Nope.lean")


# -- --build --------------------------------------------------------------------------------------


def test_build_elaborates_the_statement_through_lean(verifier, standin):
    posed = _pose(verifier, build=True)
    assert posed.elaboration is not None and posed.elaboration.ran
    assert "Lean 4.33.0" in posed.elaboration.detail
    [call] = [c for c in standin.calls() if c["tool"] == "lake" and c["argv"][0] == "env"]
    assert call["argv"][:3] == ["env", "lean", "--json"]
    assert call["argv"][3].endswith("/S002.lean")
    assert not call["argv"][3].startswith(str(verifier.root))  # a scratch copy


def test_build_ignores_the_targets_sorry_warning_and_keeps_others(verifier, standin):
    standin.scenario(
        {
            "messages": [
                {
                    "line": 10,
                    "column": 8,
                    "severity": "warning",
                    "data": "declaration uses `sorry`",
                },
                {"line": 6, "column": 4, "severity": "warning", "data": "unused variable `m`"},
            ]
        }
    )
    posed = _pose(verifier, build=True)
    assert posed.elaboration.warnings == ["Statements/S002.lean:6:5: unused variable `m`"]


def test_a_statement_lean_rejects_is_refused_and_nothing_written(verifier, standin):
    standin.scenario({"messages": [{"line": 6, "column": 35, "data": "Unknown identifier `Evn`"}]})
    sentence = _refused(verifier, build=True, prop="∀ n : ℕ, Evn n")
    assert sentence == (
        "Lean rejects Statements/S002.lean: Statements/S002.lean:6:36: Unknown identifier `Evn`"
    )


def test_build_without_a_toolchain_says_so_and_still_poses(verifier, standin):
    standin.uninstall()
    posed = _pose(verifier, build=True)
    assert posed.elaboration is not None and not posed.elaboration.ran
    assert posed.elaboration.detail.startswith("not elaborated: no Lean toolchain here")
    assert (verifier.root / "Statements" / "S002.lean").is_file()


def test_build_with_the_wrong_lean_version_says_so(verifier, standin):
    standin.scenario({"version": "4.20.0"})
    posed = _pose(verifier, build=True)
    assert not posed.elaboration.ran
    assert "this machine's Lean is 4.20.0" in posed.elaboration.detail
    assert standin.count("lake", "env") == 0
