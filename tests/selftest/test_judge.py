from pathlib import Path

import pytest

from jigcli.hashing import sha256_tagged
from jigcli.repo import Repo
from jigcli.selftest.discover import discover
from jigcli.selftest.judge import judge
from jigcli.selftest.runner import Outcome

H1, H2 = sha256_tagged("proof one"), sha256_tagged("proof two")


def verdict(answer: str, reason: str = "ok", term_hash: str | None = None, detail: str = ""):
    return {
        "verdict": answer,
        "reason": reason,
        "detail": detail,
        "elaborated_term_hash": term_hash,
    }


def judged(root: Path, documents: dict[str, dict], require_lean: bool = False):
    repo = Repo(root)
    outcomes = [Outcome(c, documents[c.rel], cached=False) for c in discover(repo)]
    return {r.case.rel: r for r in judge(outcomes, repo, require_lean=require_lean)}


A, B, C = (f"Submissions/S001/{name}.json" for name in ("A", "B", "C"))


def test_a_green_that_was_expected_matches(repo_root, kit):
    kit.lean_manifest(repo_root, A)
    result = judged(repo_root, {A: verdict("green", term_hash=H1)})[A]
    assert result.matched and not result.problems


def test_a_red_for_the_expected_reason_matches(repo_root, kit):
    kit.lean_manifest(repo_root, A, "red", "restatement")
    assert judged(repo_root, {A: verdict("red", "restatement")})[A].matched


def test_a_red_without_expect_reason_matches_any_red(repo_root, kit):
    kit.lean_manifest(repo_root, A, "red")
    assert judged(repo_root, {A: verdict("red", "sorry")})[A].matched


def test_a_red_for_the_wrong_reason_fails_and_names_both_reasons(repo_root, kit):
    kit.lean_manifest(repo_root, A, "red", "restatement")
    result = judged(repo_root, {A: verdict("red", "build_failed", detail="unknown identifier")})[A]
    assert not result.matched and result.failed
    assert result.problems == [
        "expected red `restatement`, got red `build_failed`: unknown identifier"
    ]


def test_a_green_where_a_red_was_expected_fails(repo_root, kit):
    kit.lean_manifest(repo_root, A, "red", "sorry")
    result = judged(repo_root, {A: verdict("green", term_hash=H1)})[A]
    assert result.problems == ["expected red `sorry`, got green"]


def test_a_red_where_a_green_was_expected_fails_with_the_detail(repo_root, kit):
    kit.lean_manifest(repo_root, A)
    result = judged(repo_root, {A: verdict("red", "sorry", detail="sorryAx in proof")})[A]
    assert result.problems == ["expected green, got red `sorry`: sorryAx in proof"]


def test_a_lean_green_without_a_hash_fails(repo_root, kit):
    kit.lean_manifest(repo_root, A)
    result = judged(repo_root, {A: verdict("green")})[A]
    assert result.failed and "elaborated_term_hash" in result.problems[0]


def test_a_certificate_green_needs_no_hash(repo_root, kit):
    kit.certificate_manifest(repo_root, "C001", "w")
    rel = "Certificates/C001/submissions/w.json"
    assert judged(repo_root, {rel: verdict("green")})[rel].matched


def test_a_lean_case_without_toolchain_is_skipped_with_its_reason(repo_root, kit):
    kit.lean_manifest(repo_root, A)
    result = judged(repo_root, {A: verdict("red", "toolchain_missing", detail="no lake")})[A]
    assert result.skipped and not result.matched and not result.failed
    assert result.reason == "toolchain_missing"


def test_require_lean_makes_a_missing_toolchain_a_failure(repo_root, kit):
    kit.lean_manifest(repo_root, A)
    result = judged(repo_root, {A: verdict("red", "toolchain_missing")}, require_lean=True)[A]
    assert result.failed and "--require-lean" in result.problems[0]


def test_a_policy_red_runs_without_a_toolchain_and_counts(repo_root, kit):
    kit.lean_manifest(repo_root, A, "red", "forbidden_syntax")
    assert judged(repo_root, {A: verdict("red", "forbidden_syntax")}, require_lean=True)[A].matched


def test_a_missing_sandbox_is_a_failure_not_a_skip(repo_root, kit):
    kit.certificate_manifest(repo_root, "C001", "w")
    rel = "Certificates/C001/submissions/w.json"
    result = judged(repo_root, {rel: verdict("red", "sandbox_unavailable")})[rel]
    assert result.failed and not result.skipped
    assert "got red `sandbox_unavailable`" in result.problems[0]


def test_two_greens_with_one_hash_fail_both(repo_root, kit):
    kit.lean_manifest(repo_root, A)
    kit.lean_manifest(repo_root, B)
    results = judged(
        repo_root, {A: verdict("green", term_hash=H1), B: verdict("green", term_hash=H1)}
    )
    assert results[A].failed and results[B].failed
    assert B in results[A].problems[0] and "duplicate_of" in results[A].problems[0]
    assert A in results[B].problems[0]


def test_duplicate_of_allows_two_greens_with_one_hash(repo_root, kit):
    kit.lean_manifest(repo_root, A)
    kit.lean_manifest(repo_root, B, duplicate_of=A)
    results = judged(
        repo_root, {A: verdict("green", term_hash=H1), B: verdict("green", term_hash=H1)}
    )
    assert results[A].matched and results[B].matched


def test_equal_hashes_for_different_statements_are_no_duplicate(repo_root, kit):
    kit.lean_manifest(repo_root, A)
    kit.lean_manifest(repo_root, "Submissions/S002/A.json")
    results = judged(
        repo_root,
        {
            A: verdict("green", term_hash=H1),
            "Submissions/S002/A.json": verdict("green", term_hash=H1),
        },
    )
    assert all(r.matched for r in results.values())


def test_a_group_of_three_passes_only_when_duplicate_of_links_them_all(repo_root, kit):
    kit.lean_manifest(repo_root, A)
    kit.lean_manifest(repo_root, B, duplicate_of=A)
    kit.lean_manifest(repo_root, C)
    same = {rel: verdict("green", term_hash=H1) for rel in (A, B, C)}
    results = judged(repo_root, same)
    assert results[C].failed and A in results[C].problems[0] and B in results[C].problems[0]
    assert results[A].failed and results[A].problems[0].count("Submissions/") == 1  # only C
    kit.lean_manifest(repo_root, C, duplicate_of=B)
    assert all(r.matched for r in judged(repo_root, same).values())


def test_duplicate_of_with_different_hashes_fails(repo_root, kit):
    kit.lean_manifest(repo_root, A)
    kit.lean_manifest(repo_root, B, duplicate_of=A)
    results = judged(
        repo_root, {A: verdict("green", term_hash=H1), B: verdict("green", term_hash=H2)}
    )
    assert results[A].matched
    assert results[B].failed and "hash" in results[B].problems[0] and A in results[B].problems[0]


@pytest.mark.parametrize("target", ["Submissions/S001/Nobody.json", "/etc/passwd", "../x.json"])
def test_duplicate_of_naming_no_manifest_fails(repo_root, kit, target):
    kit.lean_manifest(repo_root, A, duplicate_of=target)
    result = judged(repo_root, {A: verdict("green", term_hash=H1)})[A]
    assert result.failed and "repo-relative path" in result.problems[0]


def test_duplicate_of_naming_itself_fails(repo_root, kit):
    kit.lean_manifest(repo_root, A, duplicate_of=A)
    assert judged(repo_root, {A: verdict("green", term_hash=H1)})[A].failed


def test_duplicate_of_a_manifest_outside_this_run_is_not_compared(repo_root, kit):
    kit.lean_manifest(repo_root, A)
    kit.lean_manifest(repo_root, B, duplicate_of=A)
    repo = Repo(repo_root)
    [only_b] = [c for c in discover(repo) if c.rel == B]
    [result] = judge(
        [Outcome(only_b, verdict("green", term_hash=H1), False)], repo, require_lean=False
    )
    assert result.matched


def test_skipped_cases_take_no_part_in_the_duplicate_check(repo_root, kit):
    kit.lean_manifest(repo_root, A)
    kit.lean_manifest(repo_root, B)
    results = judged(
        repo_root, {A: verdict("green", term_hash=H1), B: verdict("red", "toolchain_missing")}
    )
    assert results[A].matched and results[B].skipped
