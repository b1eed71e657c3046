"""`jig audit`: pairs, unstated, readers (a scripted command and a person), the ledger."""

from __future__ import annotations

import io
import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from jigcli.commands import audit
from jigcli.errors import UsageError
from jigcli.hashing import file_sha256_hex
from jigcli.schemas import validate

from ..conftest import seeded_git_repo

DATA = Path(__file__).resolve().parent.parent / "data"
READER = DATA / "audit" / "reader.py"
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def paper(tmp_path: Path) -> Path:
    for name in ("paper.tex", "paper.lean"):
        shutil.copy(DATA / "papers" / "paired" / name, tmp_path / name)
    return tmp_path / "paper.tex"


class Reader:
    """The scripted reader: its answers table, its log of requests, its command line."""

    def __init__(self, folder: Path, answers: dict[str, str]) -> None:
        self.answers = folder / "answers.json"
        self.log = folder / "reader-log.jsonl"
        self.answer(answers)
        self.command = f"{sys.executable} {READER} {self.answers} {self.log}"

    def answer(self, answers: dict[str, str]) -> None:
        self.answers.write_text(json.dumps(answers))

    def requests(self) -> list[dict[str, Any]]:
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text().splitlines()]


ANSWERS = {
    "thm:main": '{"verdict": "Faithful", "reason": "same inequality"}',
    "lem:key": "partial: only one direction",
    "lem:doc": "mismatch: the docstring lemma is weaker",
    "thm:square": "it looks fine to me",
}


def _json(
    capsys: pytest.CaptureFixture[str], file: Path, **options: Any
) -> tuple[int, dict[str, Any]]:
    code = audit.run(
        file, review=options.get("review", False), reader=options.get("reader"), as_json=True
    )
    return code, json.loads(capsys.readouterr().out)


def _by_pair(document: dict[str, Any]) -> dict[tuple[str | None, str], tuple[str, str, bool]]:
    return {
        (p["label"], p["decl"]): (p["verdict"], p["status"], p["current"])
        for p in document["pairs"]
    }


def test_without_a_reader_nothing_is_guessed_and_unstated_is_jigs_own(
    paper: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, document = _json(capsys, paper)
    assert code == 1
    assert document["verifier"] == "audit"
    assert (document["status"], document["exit_code"]) == ("error", 1)  # the stray's
    assert document["ledger"].endswith("paper.audit.json")
    pairs = _by_pair(document)
    assert pairs[("thm:main", "Paper.main_theorem")] == ("pending", "pending", False)
    assert pairs[(None, "Paper.stray")] == ("unstated", "error", True)
    assert (None, "Paper.aux") not in pairs and (None, "Paper.hidden") not in pairs
    assert not paper.with_name("paper.audit.json").exists()


def test_a_scripted_reader_judges_each_pair_and_the_ledger_records_it(
    paper: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    reader = Reader(tmp_path, ANSWERS)
    code, document = _json(capsys, paper, reader=reader.command)
    assert code == 1
    pairs = _by_pair(document)
    assert pairs[("thm:main", "Paper.main_theorem")] == ("faithful", "ok", True)
    assert pairs[("lem:key", "Paper.key_step")] == ("partial", "warn", True)
    assert pairs[("lem:doc", "Paper.documented")] == ("mismatch", "error", True)
    assert pairs[("thm:square", "Paper.square")] == ("pending", "pending", False)
    assert pairs[("cor:comm", "Nat.add_comm")] == ("faithful", "ok", True)

    ledger = json.loads(paper.with_name("paper.audit.json").read_text())
    assert validate(ledger, "audit") == []
    assert ledger["sourceHashes"] == {
        "tex": file_sha256_hex(paper),
        "lean": file_sha256_hex(paper.with_suffix(".lean")),
    }
    main = next(p for p in ledger["pairs"] if p["label"] == "thm:main")
    assert main["judged_by"] == {"kind": "reader", "name": reader.command}
    assert main["reason"] == "same inequality"
    stray = next(p for p in ledger["pairs"] if p["decl"] == "Paper.stray")
    assert (stray["verdict"], stray["judged_by"]["kind"]) == ("unstated", "jig")


def test_the_reader_gets_one_request_per_pair_with_both_texts(
    paper: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    reader = Reader(tmp_path, ANSWERS)
    _json(capsys, paper, reader=reader.command)
    requests = reader.requests()
    assert len(requests) == 6
    main = requests[0]
    assert main["protocol"] == "jig.audit.reader.v1"
    assert (main["label"], main["kind"], main["number"], main["title"]) == (
        "thm:main",
        "theorem",
        "1",
        "Main",
    )
    assert main["statement"] == "Every square of a natural number is at least the number."
    assert "theorem main_theorem (n : ℕ) : n ≤ n ^ 2" in main["declaration"]
    assert (main["tex_line"], main["lean_line"]) == (6, 7)


def test_current_judgements_are_not_asked_again(
    paper: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    reader = Reader(tmp_path, ANSWERS)
    _json(capsys, paper, reader=reader.command)
    reader.answer({**ANSWERS, "thm:square": "faithful: now sure"})
    _, document = _json(capsys, paper, reader=reader.command)
    assert [r["label"] for r in reader.requests()[6:]] == ["thm:square"]
    assert _by_pair(document)[("thm:square", "Paper.square")] == ("faithful", "ok", True)


def test_an_edited_statement_is_pending_until_judged_again(
    paper: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    reader = Reader(tmp_path, ANSWERS)
    _json(capsys, paper, reader=reader.command)
    paper.write_text(paper.read_text().replace("at least the number", "at most the number"))
    code, document = _json(capsys, paper)
    main = next(p for p in document["pairs"] if p["label"] == "thm:main")
    assert (main["verdict"], main["current"], main["reason"]) == (
        "pending",
        False,
        "changed since it was judged",
    )
    assert code == 1


def test_a_new_proof_keeps_a_theorem_s_judgement_and_a_new_signature_does_not(
    paper: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    reader = Reader(tmp_path, ANSWERS)
    _json(capsys, paper, reader=reader.command)
    lean = paper.with_suffix(".lean")
    lean.write_text(lean.read_text().replace("  sorry\n", "  nlinarith [sq_nonneg n]\n", 1))
    _, document = _json(capsys, paper)
    assert _by_pair(document)[("thm:main", "Paper.main_theorem")] == ("faithful", "ok", True)
    lean.write_text(lean.read_text().replace("n ≤ n ^ 2", "n ≤ n ^ 3"))
    _, document = _json(capsys, paper)
    assert _by_pair(document)[("thm:main", "Paper.main_theorem")] == ("pending", "pending", False)


def test_a_failing_reader_leaves_the_pair_pending(
    paper: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    reader = Reader(tmp_path, {"thm:main": "EXIT"})
    audit.run(paper, review=False, reader=reader.command, as_json=True)
    captured = capsys.readouterr()
    pairs = _by_pair(json.loads(captured.out))
    assert pairs[("thm:main", "Paper.main_theorem")] == ("pending", "pending", False)
    assert "reader: exited 3 on thm:main; left pending." in captured.err


def test_a_label_that_reads_as_markup_is_shown_as_written_while_judging(
    paper: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The label is the paper's: rich markup in it must not style (or link) the terminal.
    label = "thm:[bold]main[/bold]"
    paper.write_text(paper.read_text().replace("\\label{thm:main}", f"\\label{{{label}}}"))
    reader = Reader(tmp_path, {})
    audit.run(paper, review=False, reader=reader.command, as_json=True)
    assert f"Judging 1 of 6: {label}" in capsys.readouterr().err


def test_review_records_a_person_s_verdicts_through_the_prompts(
    paper: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("getpass.getuser", lambda: "ada")
    monkeypatch.setattr(
        sys,
        "stdin",
        io.StringIO("faithful\nsame inequality\nwrong\nskip\nrefuted\nfalse for n = 2\n"),
    )
    code = audit.run(paper, review=True, reader=None, as_json=False)
    shown = capsys.readouterr().out
    assert code == 1
    assert "Every square of a natural" in shown and "theorem main_theorem" in shown
    ledger = json.loads(paper.with_name("paper.audit.json").read_text())
    judged = {
        p["label"]: (p["verdict"], p["reason"], p["judged_by"]["name"])
        for p in ledger["pairs"]
        if p["label"]
    }
    assert judged == {
        "thm:main": ("faithful", "same inequality", "ada"),
        "lem:doc": ("refuted", "false for n = 2", "ada"),
    }


def test_review_takes_a_verdict_by_its_first_letter_and_asks_again_on_an_ambiguous_one(
    paper: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("getpass.getuser", lambda: "ada")
    # "x" names nothing and is asked again; "f" is faithful, "p" partial, "s" skip
    monkeypatch.setattr(sys, "stdin", io.StringIO("x\nf\nsame\np\none way\ns\n"))
    audit.run(paper, review=True, reader=None, as_json=False)
    assert "Answer one of faithful, partial, mismatch, refuted, skip" in capsys.readouterr().out
    ledger = json.loads(paper.with_name("paper.audit.json").read_text())
    verdicts = [p["verdict"] for p in ledger["pairs"] if p["label"]]
    assert verdicts == ["faithful", "partial"]


def test_a_title_that_reads_as_markup_is_shown_as_written_to_the_person_judging(
    paper: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    paper.write_text(paper.read_text().replace("[Main]", "[{[bold]Main[/bold]}]"))
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))  # look, then close the prompts
    audit.run(paper, review=True, reader=None, as_json=False)
    assert "[bold]Main[/bold]" in capsys.readouterr().out


def test_all_faithful_and_nothing_unstated_passes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tex = tmp_path / "small.tex"
    tex.write_text(
        "\\documentclass{article}\\newtheorem{theorem}{Theorem}\n"
        "\\begin{theorem}\\label{thm:one}$1 = 1$.\\end{theorem}\n"
    )
    tex.with_suffix(".lean").write_text("theorem one : 1 = 1 := rfl\n")
    reader = Reader(tmp_path, {})
    code, document = _json(capsys, tex, reader=reader.command)
    assert code == 0
    assert document["summary"] == "1 checked · Matches the paper"


def test_a_posed_statement_pairs_its_docstring_with_its_type(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    statements = tmp_path / "Statements"
    statements.mkdir()
    shutil.copy(ROOT / "Statements" / "S001.lean", statements / "S001.lean")
    reader = Reader(tmp_path, {"S001": "faithful: the prose and the type agree"})
    code, document = _json(capsys, statements / "S001.lean", reader=reader.command)
    assert code == 0
    assert [(p["label"], p["decl"], p["verdict"]) for p in document["pairs"]] == [
        ("S001", "Statements.S001.statement", "faithful")
    ]
    request = reader.requests()[0]
    assert request["statement"] and "abbrev statement" in request["declaration"]
    # Statements/ is write-once and holds only <label>.lean: the ledger lives in Audits/
    assert sorted(p.name for p in statements.iterdir()) == ["S001.lean"]
    ledger = json.loads((tmp_path / "Audits" / "S001.audit.json").read_text())
    assert ledger["sourceHashes"]["tex"] is None


def test_a_statement_ledger_kept_beside_the_statement_is_moved_with_its_judgements(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    statements = tmp_path / "Statements"
    statements.mkdir()
    shutil.copy(ROOT / "Statements" / "S001.lean", statements / "S001.lean")
    reader = Reader(tmp_path, {"S001": "faithful: the prose and the type agree"})
    _json(capsys, statements / "S001.lean", reader=reader.command)
    judged = (tmp_path / "Audits" / "S001.audit.json").read_bytes()
    (tmp_path / "Audits" / "S001.audit.json").rename(statements / "S001.audit.json")
    code, document = _json(capsys, statements / "S001.lean")
    assert code == 0 and document["pairs"][0]["verdict"] == "faithful"
    assert (tmp_path / "Audits" / "S001.audit.json").read_bytes() == judged
    assert not (statements / "S001.audit.json").exists()


def test_pose_check_accepts_a_commit_holding_an_audited_statement(tmp_path: Path) -> None:
    import subprocess

    repo = seeded_git_repo(tmp_path, ("lakefile.toml", "lake-manifest.json", "lean-toolchain"))
    (tmp_path / "Statements").mkdir()
    shutil.copy(ROOT / "Statements" / "S001.lean", tmp_path / "Statements" / "S001.lean")
    reader = Reader(tmp_path, {"S001": "faithful: the prose and the type agree"})
    audit.run(
        tmp_path / "Statements" / "S001.lean", review=False, reader=reader.command, as_json=True
    )
    repo.git.add("Statements", "Audits")
    repo.git.commit("-m", "Pose and audit S001")
    done = subprocess.run(
        [sys.executable, "-m", "jigcli", "pose", "check"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_review_says_when_its_input_ends_and_keeps_what_was_judged(
    paper: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("getpass.getuser", lambda: "ada")
    monkeypatch.setattr(sys, "stdin", io.StringIO("faithful\nsame inequality\n"))
    audit.run(paper, review=True, reader=None, as_json=False)
    captured = capsys.readouterr()
    assert "input ended" in captured.err and "left pending" in captured.err
    ledger = json.loads(paper.with_name("paper.audit.json").read_text())
    assert [p["verdict"] for p in ledger["pairs"] if p["label"] == "thm:main"] == ["faithful"]


def test_review_and_reader_together_are_refused(paper: Path) -> None:
    with pytest.raises(UsageError):
        audit.run(paper, review=True, reader="x", as_json=False)


def test_the_cli_prints_one_json_document_and_exits_one_on_pending(paper: Path) -> None:
    import os
    import subprocess

    done = subprocess.run(
        [sys.executable, "-m", "jigcli", "audit", "--json", paper.name],
        cwd=paper.parent,
        env={**os.environ, "NO_COLOR": "1"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1
    document = json.loads(done.stdout)
    assert document["ledger"] == "paper.audit.json"
    assert document["summary"] == "10 pairs: 4 unstated, 6 not compared yet"


# -- audit at size -----------------------------------------------------------------------------


def test_ctrl_c_during_a_review_keeps_every_answer_already_given(paper: Path) -> None:
    import os
    import signal
    import subprocess
    import time

    review = subprocess.Popen(
        [sys.executable, "-m", "jigcli", "audit", "--review", paper.name],
        cwd=paper.parent,
        env={**os.environ, "NO_COLOR": "1"},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert review.stdin is not None
    review.stdin.write("faithful\nsame inequality\nmismatch\nonly one direction\n")
    review.stdin.flush()  # two answers, and the review waits at the third question
    ledger = paper.with_name("paper.audit.json")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        judged = json.loads(ledger.read_text())["pairs"] if ledger.is_file() else []
        if len(judged) == 2:
            break
        time.sleep(0.05)
    review.send_signal(signal.SIGINT)  # what Ctrl-C sends
    _, err = review.communicate(timeout=60)
    assert review.returncode == 130
    assert "interrupted; the answers given so far are kept in paper.audit.json" in err
    kept = json.loads(ledger.read_text())
    assert validate(kept, "audit") == []
    assert {(p["label"], p["verdict"], p["reason"]) for p in kept["pairs"]} == {
        ("thm:main", "faithful", "same inequality"),
        ("lem:key", "mismatch", "only one direction"),
    }


def test_label_and_file_filters_choose_the_pairs_judged_and_shown(
    paper: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    reader = Reader(paper.parent, ANSWERS)
    code = audit.run(paper, review=False, reader=reader.command, as_json=True, labels=["lem:*"])
    document = json.loads(capsys.readouterr().out)
    assert code == 1
    assert [r["label"] for r in reader.requests()] == ["lem:key", "lem:doc"]
    assert [(p["label"], p["verdict"]) for p in document["pairs"]] == [
        ("lem:key", "partial"),
        ("lem:doc", "mismatch"),
    ]
    assert (
        document["summary"]
        == "2 of 10 pairs match --label 'lem:*' · 2 pairs: 1 mismatch, 1 partial"
    )
    audit.run(paper, review=False, reader=None, as_json=True, files=[paper.with_suffix(".lean")])
    shown = json.loads(capsys.readouterr().out)["pairs"]
    assert {p["decl"] for p in shown} >= {"Paper.main_theorem", "Paper.stray"}
    assert "Nat.add_comm" not in {p["decl"] for p in shown}  # declared in no file of the paper
    with pytest.raises(UsageError, match="--file"):
        audit.run(paper, review=False, reader=None, as_json=True, files=[paper.parent / "no"])


def test_the_summary_counts_every_verdict(paper: Path, capsys: pytest.CaptureFixture[str]) -> None:
    reader = Reader(paper.parent, ANSWERS)
    _, document = _json(capsys, paper, reader=reader.command)
    assert document["summary"] == (
        "10 pairs: 1 mismatch, 4 unstated, 1 partial, 1 not compared yet, 3 faithful"
    )


@pytest.fixture
def blueprint(tmp_path: Path) -> Path:
    shutil.copytree(DATA / "blueprints" / "two-libs", tmp_path / "two-libs")
    return tmp_path / "two-libs" / "blueprint" / "src" / "print.tex"


def test_a_declaration_elsewhere_in_the_project_is_judged_and_hashed_where_it_lives(
    blueprint: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from jigcli.paper.ledger import judged_hash

    reader = Reader(blueprint.parent, {})
    code, document = _json(capsys, blueprint, reader=reader.command)
    assert code == 0 and not [p for p in document["pairs"] if p["verdict"] == "unstated"]
    request = next(r for r in reader.requests() if r["decl"] == "Beta.main")
    assert request["declaration"].startswith("theorem main (n : Nat)")
    assert request["lean_file"].endswith("beta/Beta/Main.lean") and request["lean_line"] == 8
    ledger = json.loads(blueprint.with_name("print.audit.json").read_text())
    hashes = {(p["label"], p["decl"]): p["hashes"]["decl"] for p in ledger["pairs"]}
    assert hashes[("thm:main", "Beta.main")] == judged_hash(
        "theorem main (n : Nat) : (n + n) % 2 = 0"
    )
    assert None not in hashes.values()  # Mathlib's lemma too: its name and the pins

    main = blueprint.parents[2] / "beta" / "Beta" / "Main.lean"
    main.write_text(main.read_text().replace("have := open_step", "have _ := open_step"))
    code, document = _json(capsys, blueprint)
    assert code == 0 and all(p["current"] for p in document["pairs"])  # a new proof: still
    main.write_text(main.read_text().replace("(n + n) % 2 = 0", "(n + n) % 2 = 1"))
    manifest = blueprint.parents[2] / "lake-manifest.json"
    manifest.write_text(manifest.read_text().replace("3ac5d2d3", "4bd6e3e4"))
    _, document = _json(capsys, blueprint)
    stale = {(p["label"], p["decl"]) for p in document["pairs"] if not p["current"]}
    assert stale == {("thm:main", "Beta.main"), ("lem:add-comm", "Nat.add_comm")}


def test_a_missing_input_fails_the_audit_and_says_where(
    paper: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paper.write_text(
        paper.read_text().replace("\\end{document}", "\\input{gen/more}\n\\end{document}")
    )
    reader = Reader(paper.parent, {"thm:square": "faithful: fine"})
    code, document = _json(capsys, paper, reader=reader.command)
    assert code == 1
    assert [(p["line"], p["names"]) for p in document["missing_inputs"]] == [(27, ["gen/more"])]


def test_a_filter_that_matches_nothing_says_so_and_still_fails_on_recorded_mismatches(
    paper: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    reader = Reader(paper.parent, ANSWERS)
    _json(capsys, paper, reader=reader.command)  # every pair judged: lem:doc is a mismatch
    code = audit.run(paper, review=False, reader=None, as_json=True, labels=["nomatch*"])
    document = json.loads(capsys.readouterr().out)
    assert document["summary"] == "No pair matches --label 'nomatch*' (of 10 pairs in the paper)"
    assert code == 1  # the paper still holds a recorded mismatch
    outside = {(row["label"], row["verdict"]) for row in document["failures_outside_filter"]}
    assert ("lem:doc", "mismatch") in outside


def test_a_filter_showing_only_faithful_pairs_still_exits_one_for_a_mismatch_elsewhere(
    paper: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    reader = Reader(paper.parent, ANSWERS)
    _json(capsys, paper, reader=reader.command)
    code = audit.run(paper, review=False, reader=None, as_json=False, labels=["thm:main"])
    out = capsys.readouterr().out
    assert code == 1
    assert "1 of 10 pairs match --label 'thm:main' · 1 checked · Matches the paper" in out
    assert "recorded failures outside --label 'thm:main'" in out and "lem:doc" in out


def test_web_tex_and_print_tex_of_one_blueprint_share_one_ledger(
    blueprint: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    reader = Reader(blueprint.parent, {})
    code, _ = _json(capsys, blueprint, reader=reader.command)  # judged through print.tex
    assert code == 0
    code, document = _json(capsys, blueprint.with_name("web.tex"))
    assert code == 0 and all(p["current"] for p in document["pairs"])
    assert document["ledger"].endswith("print.audit.json")
    assert not blueprint.with_name("web.audit.json").exists()


def test_an_earlier_web_ledger_is_read_then_merged_and_renamed_migrated(
    blueprint: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    reader = Reader(blueprint.parent, {})
    _json(capsys, blueprint, reader=reader.command)
    shared, old = blueprint.with_name("print.audit.json"), blueprint.with_name("web.audit.json")
    shared.replace(old)  # as an earlier jig left it: one ledger per root
    code, document = _json(capsys, blueprint)  # reading: the answers given through web.tex
    assert code == 0 and all(p["current"] for p in document["pairs"])
    assert old.exists() and not shared.exists()  # reading changes nothing on disk
    asked = len(reader.requests())
    _json(capsys, blueprint.with_name("web.tex"), reader=reader.command)
    assert len(reader.requests()) == asked  # nothing asked again
    assert shared.exists() and not old.exists()
    assert blueprint.with_name("web.audit.json.migrated").exists()


def test_the_summary_points_at_the_ledger_only_once_it_exists(
    paper: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    audit.run(paper, review=False, reader=None, as_json=False)
    first = capsys.readouterr().out
    assert "no judgements kept yet: jig audit --review writes " in " ".join(first.split())
    assert "(see" not in first and not paper.with_name("paper.audit.json").exists()
    _json(capsys, paper, reader=Reader(tmp_path, ANSWERS).command)
    audit.run(paper, review=False, reader=None, as_json=False)
    assert "paper.audit.json)" in (then := capsys.readouterr().out) and "(see " in then
