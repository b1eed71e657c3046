"""`jig pose check` on real git repositories: BASE against HEAD."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from jigcli.errors import UsageError
from jigcli.pose.check import check
from jigcli.pose.lean import LeanPose, pose_lean
from jigcli.pose.statement import render
from jigcli.repo import Repo

DATA = Path(__file__).resolve().parents[2] / "tests" / "data" / "pose"
REPO_LAKEFILE = Path(__file__).resolve().parents[2] / "lakefile.toml"

EVEN = "Mathlib.Algebra.Group.Nat.Even"
CHECKER = DATA / "certificates" / "square_checker.py"
SPEC = {
    "schema": "conject.certificate.v1",
    "id": "C100",
    "title": "A square root of 49",
    "statement": "Exhibit an integer whose square is 49.",
    "witness_format": "one decimal integer",
    "limits": {"wall_sec": 20, "cpu_sec": 10, "address_space_mb": 512, "output_bytes": 65536},
}


def _base(verifier) -> str:
    return verifier.git.head.commit.hexsha


def _failures(report) -> dict[str, str]:
    return {finding.path: finding.problem for finding in report.failures}


def _add_problem(verifier, spec=SPEC, folder="C100") -> None:
    verifier.write(f"Certificates/{folder}/spec.json", json.dumps(spec))
    shutil.copyfile(CHECKER, verifier.root / "Certificates" / folder / "checker.py")
    verifier.commit(f"Add {folder}", "Certificates")


def test_adding_a_posed_statement_passes(verifier):
    base = _base(verifier)
    pose_lean(Repo(verifier.root), LeanPose("S002", "∀ n : ℕ, Even (2 * n)", [EVEN], commit=True))
    report = check(Repo(verifier.root), base)
    assert report.ok, report.failures
    assert report.new_statements == ["Statements/S002.lean"]
    assert report.protected == ["Statements/S001.lean"]
    assert (report.base, report.base_ref) == (base, base)


def test_an_edited_statement_fails_naming_the_file(verifier):
    base = _base(verifier)
    path = verifier.root / "Statements" / "S001.lean"
    path.write_text(path.read_text().replace("n * (n + 1)", "n * (n + 2)"))
    verifier.commit("Weaken S001", "Statements")
    report = check(Repo(verifier.root), base)
    assert not report.ok
    assert _failures(report)["Statements/S001.lean"].startswith(f"changed since {base[:7]}")


def test_a_deleted_statement_fails_naming_the_file(verifier):
    base = _base(verifier)
    (verifier.root / "Statements" / "S001.lean").unlink()
    verifier.commit("Remove S001", "Statements")
    failures = _failures(check(Repo(verifier.root), base))
    assert failures["Statements/S001.lean"].startswith(f"deleted since {base[:7]}")


def test_an_edited_checker_or_a_deleted_spec_fails(verifier):
    _add_problem(verifier)
    base = _base(verifier)
    checker = verifier.root / "Certificates" / "C100" / "checker.py"
    checker.write_text(checker.read_text() + "\n# accept more\n")
    (verifier.root / "Certificates" / "C100" / "spec.json").unlink()
    verifier.commit("Loosen C100", "Certificates")
    failures = _failures(check(Repo(verifier.root), base))
    assert failures["Certificates/C100/checker.py"].startswith("changed since")
    assert failures["Certificates/C100/spec.json"].startswith("deleted since")


def test_new_examples_beside_a_protected_checker_pass(verifier):
    _add_problem(verifier)
    base = _base(verifier)
    verifier.write("Certificates/C100/submissions/seven.witness", "7\n")
    verifier.commit("A witness", "Certificates")
    assert check(Repo(verifier.root), base).ok


def test_a_new_malformed_statement_fails_with_its_line(verifier):
    base = _base(verifier)
    verifier.write("Statements/S003.lean", render("S003", "True", ["Mathlib"], None))
    verifier.commit("Add S003 by hand", "Statements")
    [finding] = check(Repo(verifier.root), base).failures
    assert (finding.path, finding.line) == ("Statements/S003.lean", 1)
    assert "bare `import Mathlib`" in finding.problem


def test_a_new_statement_whose_label_was_used_before_fails(verifier):
    verifier.write("Statements/S004.lean", render("S004", "True", [], None))
    verifier.commit("Add S004", "Statements")
    (verifier.root / "Statements" / "S004.lean").unlink()
    base = verifier.commit("Remove S004", "Statements")
    verifier.write("Statements/S004.lean", render("S004", "False", [], None))
    verifier.commit("Re-add S004 with another proposition", "Statements")
    failures = _failures(check(Repo(verifier.root), base))
    assert "existed before" in failures["Statements/S004.lean"]


def test_a_non_statement_file_in_statements_fails(verifier):
    base = _base(verifier)
    verifier.write("Statements/notes.md", "drafts\n")
    verifier.commit("Notes", "Statements")
    failures = _failures(check(Repo(verifier.root), base))
    assert failures["Statements/notes.md"].startswith("not a statement file")


def test_a_new_certificate_problem_with_a_valid_spec_passes(verifier):
    base = _base(verifier)
    _add_problem(verifier)
    report = check(Repo(verifier.root), base)
    assert report.ok, report.failures
    assert report.new_problems == ["Certificates/C100"]


def test_a_new_certificate_problem_with_a_broken_spec_fails(verifier):
    base = _base(verifier)
    _add_problem(verifier, spec={**SPEC, "id": "C999"})
    failures = _failures(check(Repo(verifier.root), base))
    assert "must be the folder's name" in failures["Certificates/C100/spec.json"]


def test_a_new_certificate_problem_without_checker_fails(verifier):
    base = _base(verifier)
    verifier.write("Certificates/C100/spec.json", json.dumps(SPEC))
    verifier.commit("Half a problem", "Certificates")
    assert "missing" in _failures(check(Repo(verifier.root), base))["Certificates/C100/checker.py"]


def _edit_json(verifier, rel: str, change) -> None:
    path = verifier.root / rel
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data, indent=1))


def _mathlib(data) -> dict:
    return next(p for p in data["packages"] if p["name"] == "mathlib")


def test_a_moved_manifest_pin_fails(verifier):
    base = _base(verifier)
    _edit_json(verifier, "lake-manifest.json", lambda d: _mathlib(d).update(rev="0" * 40))
    verifier.commit("Bump", "lake-manifest.json")
    failures = _failures(check(Repo(verifier.root), base))
    assert failures["lake-manifest.json"].startswith(
        f"the locked packages changed since {base[:7]}"
    )
    assert "re-derived" in failures["lake-manifest.json"]


def test_a_reformatted_manifest_is_not_a_change(verifier):
    base = _base(verifier)
    _edit_json(verifier, "lake-manifest.json", lambda d: None)
    verifier.commit("Reformat", "lake-manifest.json")
    assert check(Repo(verifier.root), base).ok


def test_a_lakefile_pin_the_manifest_does_not_lock_fails_twice(verifier):
    base = _base(verifier)
    lakefile = verifier.root / "lakefile.toml"
    lakefile.write_text(lakefile.read_text().replace('rev = "v4.33.0"', 'rev = "v4.34.0"'))
    verifier.commit("Ask for another Mathlib", "lakefile.toml")
    failures = _failures(check(Repo(verifier.root), base))
    assert "lakefile.toml asks for 'v4.34.0'" in failures["lake-manifest.json"]
    assert failures["lakefile.toml"].startswith("its requirements changed")


def test_a_removed_pin_file_fails(verifier):
    base = _base(verifier)
    (verifier.root / "lean-toolchain").unlink()
    verifier.commit("Unpin Lean", "lean-toolchain")
    assert _failures(check(Repo(verifier.root), base))["lean-toolchain"].startswith(
        "the file was removed since"
    )


def test_a_first_pin_is_not_drift(verifier):
    (verifier.root / "lean-toolchain").unlink()
    base = verifier.commit("No Lean pin yet", "lean-toolchain")
    verifier.write("lean-toolchain", "leanprover/lean4:v4.33.0\n")
    verifier.commit("Pin Lean", "lean-toolchain")
    assert check(Repo(verifier.root), base).ok


def test_an_edit_to_the_lakefile_that_moves_no_pin_still_fails_as_the_judges_build(verifier):
    base = _base(verifier)
    lakefile = verifier.root / "lakefile.toml"
    text = lakefile.read_text()
    assert 'globs = ["Commons.+"]' in text
    lakefile.write_text(text.replace('globs = ["Commons.+"]', 'globs = ["Commons.+", "Run"]'))
    verifier.commit("Build one more module with the trusted side", "lakefile.toml")
    (finding,) = check(Repo(verifier.root), base).failures
    assert finding.path == "lakefile.toml"
    assert finding.problem.startswith(f"changed since {base[:7]}: it says how the judge is built")
    assert "comparator and lean4export decide every Lean verdict" in finding.problem


# What the trusted build compiles outside the sandbox from this repo's own files: Commons,
# which statements import. A submission's pull request must not change it.
TRUSTED = {"Commons": "Commons is built outside"}


@pytest.mark.parametrize("folder", sorted(TRUSTED))
@pytest.mark.parametrize("change", ["edited", "added", "removed", "linked", "submodule"])
def test_any_change_under_the_trusted_build_fails_naming_the_file(verifier, folder, change):
    verifier.write(f"{folder}/Main.lean", "def double (n : Nat) : Nat := 2 * n\n")
    base = verifier.commit("The trusted side", folder)
    main = verifier.root / folder / "Main.lean"
    path, said = f"{folder}/Main.lean", "changed"
    if change == "edited":
        main.write_text("def double (n : Nat) : Nat := 0\n")
    elif change == "added":
        verifier.write(f"{folder}/Run.lean", 'initialize IO.println "at build time"\n')
        path, said = f"{folder}/Run.lean", "added"
    elif change == "removed":
        main.unlink()
        said = "deleted"
    elif change == "linked":
        main.unlink()
        main.symlink_to("../Submissions/S001/AliceDirect.lean")
    else:  # a submodule, which a plain file listing would miss
        sha = verifier.git.head.commit.hexsha
        verifier.git.git.update_index("--add", "--cacheinfo", f"160000,{sha},{folder}/Vendored")
        path, said = f"{folder}/Vendored", "added"
    if change == "submodule":  # staged as it is: no folder of it to add
        verifier.git.git.commit("-m", "Vendor it")
    else:
        verifier.commit(f"{folder} {change}", folder)
    (finding,) = check(Repo(verifier.root), base).failures
    assert finding.path == path
    assert finding.problem.startswith(f"{said} since {base[:7]}; {TRUSTED[folder]}")


def test_the_first_lakefile_of_a_repo_is_no_change_to_the_judge(verifier):
    (verifier.root / "lakefile.toml").unlink()
    base = verifier.commit("No lakefile yet", "lakefile.toml")
    verifier.write("lakefile.toml", REPO_LAKEFILE.read_text())
    verifier.commit("The lakefile", "lakefile.toml")
    assert check(Repo(verifier.root), base).ok


def test_a_changed_lean_toolchain_fails(verifier):
    base = _base(verifier)
    verifier.write("lean-toolchain", "leanprover/lean4:v4.34.0\n")
    verifier.commit("Bump Lean", "lean-toolchain")
    failures = _failures(check(Repo(verifier.root), base))
    assert failures["lean-toolchain"].startswith("the Lean pin changed")


def test_pins_that_disagree_already_at_base_still_fail(verifier):
    _edit_json(verifier, "lake-manifest.json", lambda d: _mathlib(d).update(inputRev="main"))
    base = verifier.commit("Drift", "lake-manifest.json")
    verifier.write("notes.txt", "x\n")
    verifier.commit("Notes", "notes.txt")
    failures = _failures(check(Repo(verifier.root), base))
    assert "locks mathlib at 'main'" in failures["lake-manifest.json"]


def test_the_default_base_is_the_merge_base_with_origin_main(verifier):
    fork = _base(verifier)
    path = verifier.root / "Statements" / "S001.lean"
    path.write_text(path.read_text() + "\n")
    verifier.commit("Touch S001", "Statements")
    verifier.write("notes.txt", "x\n")
    verifier.commit("Notes", "notes.txt")  # HEAD~1 already holds the edit
    verifier.git.git.update_ref("refs/remotes/origin/main", fork)
    report = check(Repo(verifier.root))
    assert (report.base, report.base_ref) == (fork, "merge base with origin/main")
    assert "Statements/S001.lean" in _failures(report)


def test_a_base_that_does_not_resolve_is_a_usage_error(verifier):
    with pytest.raises(UsageError, match="does not name a commit"):
        check(Repo(verifier.root), "origin/nowhere")


def test_check_outside_git_is_a_usage_error(tmp_path):
    (tmp_path / "lakefile.toml").write_text("")
    with pytest.raises(UsageError, match="not in a git repository"):
        check(Repo(tmp_path), "HEAD")


def test_the_report_as_json_names_every_failure(verifier):
    base = _base(verifier)
    (verifier.root / "Statements" / "S001.lean").unlink()
    verifier.commit("Remove S001", "Statements")
    document = check(Repo(verifier.root), base).to_json()
    assert document["ok"] is False
    assert document["base"] == {"ref": base, "commit": base}
    assert [f["path"] for f in document["failures"]] == ["Statements/S001.lean"]
