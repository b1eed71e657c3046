"""scripts/take_submission.py: the dispatch takes only the submission's folder from the ref
under test, so a submitter's branch that also rewrites the judge, Commons, a statement or jig
itself verifies against the default branch's, never its own."""

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "take_submission.py"


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=True, timeout=60
    )
    return done.stdout


def write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


@pytest.fixture
def origin(tmp_path: Path) -> Path:
    """A repo whose main is reviewed, and a branch `attack` that submits a proof and also
    rewrites everything the trusted side is made of."""
    root = tmp_path / "origin"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "t@example.com")
    git(root, "config", "user.name", "t")
    trusted = {
        "Verify/Judge.lean": "-- the reviewed judge\n",
        "Commons/Basic.lean": "def double (n : Nat) := 2 * n\n",
        "Statements/S001.lean": "theorem statement : True := trivial\n",
        "jigcli/__init__.py": "# the reviewed jig\n",
        "Submissions/S001/Old.json": "{}\n",
        "Submissions/S002/Other.json": "{}\n",
    }
    for rel, text in trusted.items():
        write(root, rel, text)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "reviewed")
    git(root, "checkout", "-q", "-b", "attack")
    for rel in ("Verify/Judge.lean", "Commons/Basic.lean", "Statements/S001.lean"):
        write(root, rel, "-- says green to everything\n")
    write(root, "jigcli/__init__.py", "# a jig that says green\n")
    write(root, "Submissions/S001/New.json", '{"module": "Submissions.S001.New"}\n')
    write(root, "Submissions/S001/New.lean", "-- the proof\n")
    write(root, "Submissions/S002/Other.json", '{"changed": true}\n')
    (root / "Submissions/S001/Old.json").unlink()
    write(root, "Certificates/C001/submissions/w.json", "{}\n")
    write(root, "Certificates/C001/checker.py", "print('accept')\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "a proof, and a judge of my own")
    git(root, "checkout", "-q", "main")
    return root


@pytest.fixture
def checkout(origin: Path, tmp_path: Path) -> Path:
    """What the dispatch checks out: the default branch."""
    clone = tmp_path / "checkout"
    git(tmp_path, "clone", "-q", "--depth=1", f"file://{origin}", str(clone))
    return clone


def take(checkout: Path, submission: str, ref: str = "attack") -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(SCRIPT), submission, ref],
        cwd=checkout,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_only_the_submissions_folder_comes_from_the_ref(checkout: Path) -> None:
    done = take(checkout, "Submissions/S001/New.json")
    assert done.returncode == 0, done.stderr
    assert (checkout / "Submissions/S001/New.lean").read_text() == "-- the proof\n"
    assert not (checkout / "Submissions/S001/Old.json").exists()  # the folder is the ref's
    assert (checkout / "Verify/Judge.lean").read_text() == "-- the reviewed judge\n"
    assert (checkout / "Commons/Basic.lean").read_text().startswith("def double")
    assert (checkout / "Statements/S001.lean").read_text().startswith("theorem statement")
    assert (checkout / "jigcli/__init__.py").read_text() == "# the reviewed jig\n"
    assert (checkout / "Submissions/S002/Other.json").read_text() == "{}\n"


def test_a_certificate_submission_brings_its_submissions_folder_not_the_checker(
    checkout: Path,
) -> None:
    done = take(checkout, "Certificates/C001/submissions/w.json")
    assert done.returncode == 0, done.stderr
    assert (checkout / "Certificates/C001/submissions/w.json").is_file()
    assert not (checkout / "Certificates/C001/checker.py").exists()


@pytest.mark.parametrize(
    "submission",
    [
        "Verify/Judge.json",
        "Commons/x.json",
        "Statements/S001.json",
        "Submissions/../Verify/x.json",
        "Submissions/S001/../../Verify/x.json",
        "/etc/passwd.json",
        "Submissions/S001/sub/x.json",
        "Submissions/.git/x.json",
        "Submissions/S001/x.lean",
        "Submissions/*/x.json",
        "Submissions/:(glob)S*/x.json",
        "Certificates/C001/checker.json",
        "-Submissions/S001/x.json",
        "Submissions/S001/x.json\n",
    ],
)
def test_anything_but_a_submission_manifest_is_refused_and_nothing_changes(
    checkout: Path, submission: str
) -> None:
    done = take(checkout, submission)
    assert done.returncode == 2
    assert "is not a submission manifest" in done.stderr
    assert git(checkout, "status", "--porcelain") == ""


@pytest.mark.parametrize("ref", ["--upload-pack=touch /tmp/x", "-b", "a..b", "a b", ""])
def test_a_ref_that_is_not_plain_is_refused(checkout: Path, ref: str) -> None:
    done = take(checkout, "Submissions/S001/New.json", ref)
    assert done.returncode == 2 and "not a plain branch" in done.stderr
    assert git(checkout, "status", "--porcelain") == ""


def test_a_ref_without_the_folder_or_no_such_ref_is_a_refusal(checkout: Path) -> None:
    missing = take(checkout, "Submissions/S009/New.json")
    assert missing.returncode == 2 and "holds no folder Submissions/S009" in missing.stderr
    unknown = take(checkout, "Submissions/S001/New.json", "no-such-branch")
    assert unknown.returncode == 2 and "origin has no ref" in unknown.stderr


def test_a_folder_the_ref_made_a_link_is_refused(origin: Path, checkout: Path) -> None:
    git(origin, "checkout", "-q", "-b", "linked", "main")
    git(origin, "rm", "-q", "-r", "Submissions/S002")
    (origin / "Submissions/S002").symlink_to("../Verify")
    git(origin, "add", "-A")
    git(origin, "commit", "-q", "-m", "a folder that is a link")
    done = take(checkout, "Submissions/S002/Other.json", "linked")
    assert done.returncode == 2 and "holds no folder" in done.stderr
    assert (checkout / "Submissions/S002/Other.json").read_text() == "{}\n"
