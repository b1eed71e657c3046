"""The certificate pipeline through `jigcli.verify.submission.verify`: each step's verdict, and
hostile manifests (paths out of their folder, oversized witnesses) refused before anything runs."""

import contextlib
import hashlib
import json
import os
import shutil
import stat
import time
from pathlib import Path

import pytest

from jigcli.certificates import isolation
from jigcli.certificates.spec import LANES
from jigcli.repo import Repo
from jigcli.sandbox import probe as probing
from jigcli.sandbox.routes import route_named
from jigcli.schemas import validate
from jigcli.verify.context import VerifyOptions
from jigcli.verify.submission import verify

from .conftest import HOSTILE

LIMITS = {"wall_sec": 5, "cpu_sec": 2, "address_space_mb": 256, "output_bytes": 4096}


def _problem(root: Path, checker: str = "accept.py", limits: dict | None = None) -> Path:
    folder = root / "Certificates" / "T001"
    (folder / "submissions").mkdir(parents=True)
    shutil.copy(HOSTILE / checker, folder / "checker.py")
    spec = {
        "schema": "conject.certificate.v1",
        "id": "T001",
        "title": "Test problem",
        "statement": "Anything.",
        "witness_format": "text",
        "limits": limits or {**LIMITS, "witness_bytes": 64},
    }
    (folder / "spec.json").write_text(json.dumps(spec))
    return folder


def _submission(folder: Path, witness: str, name: str = "x", statement_id: str = "T001") -> Path:
    manifest = folder / "submissions" / f"{name}.json"
    document = {
        "schema": "conject.submission.v1",
        "kind": "certificate",
        "statement_id": statement_id,
        "witness": witness,
    }
    manifest.write_text(json.dumps(document))
    return manifest


@pytest.fixture
def root(tmp_path):
    (tmp_path / "jig.yaml").write_text("")
    return tmp_path


def _verify(root: Path, manifest: Path, **options) -> dict:
    verdict = verify(manifest, Repo(root), VerifyOptions(timeout=60, **options)).to_json()
    assert validate(verdict, "verdict") == []
    return verdict


def test_an_accepted_witness_is_green_with_every_certificate_field(sandboxed, root):
    folder = _problem(root)
    (folder / "submissions" / "x.witness").write_text("hello\n")
    verdict = _verify(root, _submission(folder, "x.witness"))
    assert (verdict["verdict"], verdict["kind"], verdict["statement_id"]) == (
        "green",
        "certificate",
        "T001",
    )
    assert list(verdict["checks"]) == [
        "manifest",
        "problem",
        "limits",
        "witness",
        "isolation",
        "checker",
        "certificate",
    ]
    assert verdict["elaborated_term_hash"] == "sha256:" + _sha256("hello")
    assert (
        verdict["statement_hash"]
        == verdict["checker_hash"]
        == "sha256:" + _sha256((HOSTILE / "accept.py").read_text())
    )
    assert verdict["witness_hash"] == "sha256:" + _sha256("hello\n")
    assert verdict["lane"] == "default" and verdict["limits"]["cpu_sec"] == 2
    assert verdict["isolation"] == isolation.describe()["chosen"]
    assert "CONJECT_CERT" in verdict["checker_stdout"]
    assert {"probe", "checker", "total"} <= set(verdict["timings_sec"])


def test_a_rejected_witness_is_red_with_the_checkers_reason(sandboxed, root):
    folder = _problem(root, "read_canary.py")
    (folder / "submissions" / "x.witness").write_text(json.dumps({"path": "/nonexistent"}))
    verdict = _verify(root, _submission(folder, "x.witness"))
    assert verdict["reason"] == "invalid_witness"
    assert "cannot read: FileNotFoundError" in verdict["detail"]
    assert verdict["elaborated_term_hash"] is None


def test_a_checker_crash_is_red_and_not_actionable(sandboxed, root):
    folder = _problem(root, "nonzero_exit.py")
    (folder / "submissions" / "x.witness").write_text("w")
    verdict = _verify(root, _submission(folder, "x.witness"))
    assert (verdict["reason"], verdict["agent_actionable"]) == ("checker_error", False)
    assert verdict["checks"]["certificate"]["ok"] is None


@pytest.mark.parametrize(
    ("witness", "reason", "said"),
    [
        ("../../spec.json", "bad_manifest", "leaves its folder (..)"),
        ("/etc/hostname", "bad_manifest", "must be relative to the manifest"),
        ("x.witness\u0000.txt", "bad_manifest", "holds a control character"),
        ("x.witness\n", "bad_manifest", "holds a control character"),
        ("./x.witness", "bad_manifest", "has an empty or '.' part"),
        ("missing.witness", "missing_witness", "does not exist"),
        ("sub", "missing_witness", "is a folder, not a regular file"),
    ],
)
def test_a_witness_path_that_leaves_its_folder_or_is_no_file_is_refused(
    root, witness, reason, said
):
    folder = _problem(root)
    (folder / "submissions" / "sub").mkdir()
    verdict = _verify(root, _submission(folder, witness))
    assert verdict["reason"] == reason and said in verdict["detail"]
    assert verdict["checks"].get("checker", {"ok": None})["ok"] is None


def test_a_witness_symlink_out_of_the_folder_is_refused(root, tmp_path_factory):
    outside = tmp_path_factory.mktemp("elsewhere") / "secret.txt"
    outside.write_text("secret")
    folder = _problem(root)
    (folder / "submissions" / "link.witness").symlink_to(outside)
    verdict = _verify(root, _submission(folder, "link.witness"))
    assert verdict["reason"] == "bad_manifest"
    assert "secret" not in json.dumps(verdict["checks"])


def test_a_witness_symlink_even_inside_the_folder_is_refused(root):
    folder = _problem(root)
    (folder / "submissions" / "real.witness").write_text("inside")
    (folder / "submissions" / "link.witness").symlink_to("real.witness")
    verdict = _verify(root, _submission(folder, "link.witness"))
    assert verdict["reason"] == "bad_manifest" and "symbolic link" in verdict["detail"]


def test_a_witness_behind_a_linked_folder_is_refused(root, tmp_path_factory):
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    (elsewhere / "x.witness").write_text("secret")
    folder = _problem(root)
    (folder / "submissions" / "in").symlink_to(elsewhere)
    verdict = _verify(root, _submission(folder, "in/x.witness"))
    assert verdict["reason"] == "bad_manifest" and "secret" not in json.dumps(verdict)


@pytest.mark.parametrize("kind", ["fifo", "device", "sparse"])
def test_a_witness_that_is_a_fifo_a_device_or_huge_is_refused_at_once(root, kind):
    folder = _problem(root)
    witness = folder / "submissions" / "x.witness"
    if kind == "fifo":
        os.mkfifo(witness)
    elif kind == "device":
        os.mknod(witness, 0o600 | stat.S_IFCHR, os.makedev(1, 5))  # /dev/zero
    else:
        with witness.open("wb") as handle:
            handle.truncate(8 * 1024**3)  # 8 GB, none of it on disk
    started = time.monotonic()
    verdict = _verify(root, _submission(folder, "x.witness"))
    assert verdict["reason"] == "missing_witness", verdict["detail"]
    assert time.monotonic() - started < 10


def test_a_witness_larger_than_the_spec_allows_is_refused_before_the_run(root):
    folder = _problem(root)
    (folder / "submissions" / "big.witness").write_bytes(b"x" * 65)
    verdict = _verify(root, _submission(folder, "big.witness"))
    assert verdict["reason"] == "missing_witness"
    assert "65 bytes; this problem accepts at most 64" in verdict["detail"]
    assert verdict["checks"]["checker"]["detail"].startswith("not run")


def test_an_unknown_problem_is_unknown_statement(root):
    folder = _problem(root)
    (folder / "submissions" / "x.witness").write_text("w")
    verdict = _verify(root, _submission(folder, "x.witness", statement_id="T999"))
    assert verdict["reason"] == "unknown_statement"
    assert "Certificates/T999" in verdict["detail"]


def test_a_problem_folder_linked_from_outside_certificates_is_refused(root, tmp_path_factory):
    elsewhere = _problem(tmp_path_factory.mktemp("other"))
    (root / "Certificates").mkdir()
    (root / "Certificates" / "T001").symlink_to(elsewhere)
    (root / "Submissions" / "submissions").mkdir(parents=True)
    (root / "Submissions" / "submissions" / "x.witness").write_text("w")
    manifest = _submission(root / "Submissions", "x.witness")
    verdict = _verify(root, manifest)
    assert verdict["reason"] == "unknown_statement" and "symbolic link" in verdict["detail"]
    assert verdict["checks"]["problem"]["ok"] is False


def test_a_manifest_behind_a_link_is_a_bad_manifest_that_quotes_nothing_behind_it(
    root, tmp_path_factory
):
    outside = tmp_path_factory.mktemp("outside")
    secret = outside / "secret.json"
    secret.write_text(json.dumps({"expect": "SECRET-TOKEN-1234"}))
    secret.chmod(0o600)
    folder = _problem(root)
    for name, target in (("direct", secret), ("folder", outside)):
        (folder / "submissions" / name).symlink_to(target)
    for manifest in (
        folder / "submissions" / "direct",
        folder / "submissions" / "folder" / "secret.json",
    ):
        verdict = _verify(root, manifest)
        assert (verdict["verdict"], verdict["reason"]) == ("red", "bad_manifest")
        assert "symbolic link" in verdict["detail"]
        assert "SECRET" not in json.dumps(verdict)
        assert verdict["submission"].startswith("Certificates/T001/submissions/")


def test_a_manifest_and_witness_outside_the_repo_never_verify_green_through_a_link(
    root, tmp_path_factory
):
    folder = _problem(root)
    outside = tmp_path_factory.mktemp("outside")
    (outside / "submissions").mkdir()
    _submission(outside, "x.witness")  # outside/submissions/x.json
    (outside / "submissions" / "x.witness").write_text("hello\n")
    (folder / "submissions" / "linked").symlink_to(outside / "submissions")
    verdict = _verify(root, folder / "submissions" / "linked" / "x.json")
    assert (verdict["verdict"], verdict["reason"]) == ("red", "bad_manifest")
    # A witness name through a link inside the submission folder is refused the same way.
    (folder / "submissions" / "w").symlink_to(outside)
    verdict = _verify(root, _submission(folder, "w/x.witness"))
    assert (verdict["verdict"], verdict["reason"]) == ("red", "bad_manifest")


@pytest.mark.parametrize(
    "text, said",
    [
        ('"statement_id": "T001", "witness": "x.witness", "n": ' + "9" * 5000, "digits"),
        ('"statement_id": "T001", "witness": "\\ud800"', "lone surrogate"),
        ('"statement_id": "T001", "witness": "x", "expect_reason": "\\udfff"', "lone surrogate"),
    ],
)
def test_hostile_values_in_a_manifest_are_a_bad_manifest_not_a_crash(root, text, said):
    folder = _problem(root)
    manifest = folder / "submissions" / "x.json"
    manifest.write_text('{"schema": "conject.submission.v1", "kind": "certificate", ' + text + "}")
    verdict = _verify(root, manifest)
    assert (verdict["verdict"], verdict["reason"]) == ("red", "bad_manifest")
    assert said in verdict["detail"]


def test_a_spec_wall_clock_below_one_second_is_the_posers_error(root):
    folder = _problem(root, limits={**LIMITS, "wall_sec": 1e-300})
    (folder / "submissions" / "x.witness").write_text("w")
    verdict = _verify(root, _submission(folder, "x.witness"))
    assert verdict["reason"] == "verifier_error" and "wall_sec" in verdict["detail"]


def test_swapping_the_problem_folder_for_a_link_never_loads_a_foreign_checker(
    root, tmp_path_factory
):
    """A concurrent swapper renames a link to a foreign problem over Certificates/T001 and
    back, as fast as it can, while the problem is loaded thousands of times: every load is
    the real checker or a refusal, never the foreign one."""
    import threading

    from jigcli.certificates.pipeline import _Refusal, load_problem

    real = _problem(root)
    foreign = _problem(tmp_path_factory.mktemp("foreign"), checker="no_output.py")
    parked = root / "Certificates" / "parked"
    staged_link = root / "Certificates" / "link"
    stop = threading.Event()

    def swap() -> None:
        while not stop.is_set():
            with contextlib.suppress(OSError):
                real.rename(parked)
                staged_link.symlink_to(foreign)
                staged_link.rename(real)
                real.unlink()
                parked.rename(real)

    swapper = threading.Thread(target=swap)
    swapper.start()
    loaded = {"real": 0, "refused": 0}
    try:
        for _ in range(3000):
            try:
                problem = load_problem(root, "T001", "Certificates/T001")
            except _Refusal:
                loaded["refused"] += 1
                continue
            assert problem.checker_source == (HOSTILE / "accept.py").read_bytes()
            loaded["real"] += 1
    finally:
        stop.set()
        swapper.join()
    assert loaded["real"] > 0 and loaded["refused"] > 0, loaded


@pytest.mark.parametrize("kind", ["fifo", "device-link", "sparse", "link-inside"])
def test_a_spec_that_is_not_a_small_regular_file_is_the_posers_error_at_once(root, kind):
    folder = _problem(root)
    spec = folder / "spec.json"
    (folder / "spec.real").write_bytes(spec.read_bytes())
    spec.unlink()
    if kind == "fifo":
        os.mkfifo(spec)
    elif kind == "device-link":
        spec.symlink_to("/dev/zero")
    elif kind == "link-inside":
        spec.symlink_to("spec.real")
    else:
        with spec.open("wb") as handle:
            handle.truncate(8 * 1024**3)
    (folder / "submissions" / "x.witness").write_text("w")
    started = time.monotonic()
    verdict = _verify(root, _submission(folder, "x.witness"))
    assert verdict["reason"] == "verifier_error", verdict["detail"]
    assert "Certificates/T001/spec.json" in verdict["detail"]
    assert time.monotonic() - started < 10


def test_a_checker_that_is_a_link_is_the_posers_error(root):
    folder = _problem(root)
    (folder / "checker.py").unlink()
    (folder / "checker.py").symlink_to("/etc/hostname")
    (folder / "submissions" / "x.witness").write_text("w")
    verdict = _verify(root, _submission(folder, "x.witness"))
    assert verdict["reason"] == "verifier_error"
    assert "Certificates/T001/checker.py is, or lies behind, a symbolic link" in verdict["detail"]


def test_float_limits_in_a_spec_are_read_as_the_integers_they_are(sandboxed, root):
    limits = {"wall_sec": 10.0, "cpu_sec": 2.0, "address_space_mb": 512.0, "output_bytes": 4096.0}
    folder = _problem(root, limits=limits)
    (folder / "submissions" / "x.witness").write_text("w")
    verdict = _verify(root, _submission(folder, "x.witness"))
    assert verdict["verdict"] == "green", verdict["detail"]
    assert verdict["limits"]["cpu_sec"] == 2 and isinstance(verdict["limits"]["cpu_sec"], int)


def test_a_broken_spec_is_the_problems_fault_not_the_submitters(root):
    folder = _problem(root)
    (folder / "spec.json").write_text('{"schema": "conject.certificate.v1"}')
    (folder / "submissions" / "x.witness").write_text("w")
    verdict = _verify(root, _submission(folder, "x.witness"))
    assert (verdict["reason"], verdict["agent_actionable"]) == ("verifier_error", False)
    assert "its poser must fix it" in verdict["detail"]


def test_a_spec_asking_for_absurd_limits_runs_clamped_to_the_lane(sandboxed, root):
    absurd = {
        "wall_sec": 10**9,
        "cpu_sec": 10**9,
        "address_space_mb": 10**9,
        "output_bytes": 10**15,
    }
    folder = _problem(root, limits=absurd)
    (folder / "submissions" / "x.witness").write_text("w")
    verdict = _verify(root, _submission(folder, "x.witness"))
    assert verdict["verdict"] == "green"
    ceiling = LANES["default"].ceiling
    assert verdict["limits"]["cpu_sec"] == ceiling.cpu_sec
    assert verdict["limits"]["wall_sec"] == ceiling.wall_sec
    assert "cpu_sec 1e+09 → 30" in verdict["limits_lowered"]
    assert "--lane heavy" in verdict["checks"]["limits"]["detail"]
    heavy = _verify(root, _submission(folder, "x.witness"), lane="heavy")
    assert heavy["limits"]["cpu_sec"] == LANES["heavy"].ceiling.cpu_sec


def test_the_verdict_records_the_process_cap_applied_and_what_enforces_it(sandboxed, root):
    folder = _problem(root, limits={**LIMITS, "processes": 10**6})
    (folder / "submissions" / "x.witness").write_text("w")
    verdict = _verify(root, _submission(folder, "x.witness"))
    assert verdict["verdict"] == "green"
    assert "processes 1e+06 → 64" in verdict["limits_lowered"]
    used = route_named(verdict["isolation"])
    cap = probing.process_cap(used, isolation.probe_job(isolation.default_python()))
    limits = verdict["limits"]
    assert limits["processes_mechanism"] == cap.mechanism
    assert limits["processes_note"] == cap.why
    assert limits["processes"] == (None if cap.mechanism is None else 64)


def test_the_environment_of_jig_never_reaches_the_verdict(sandboxed, root, monkeypatch):
    monkeypatch.setenv("JIG_TEST_SECRET", "env-secret-91b0")
    folder = _problem(root, "leak_environment.py")
    (folder / "submissions" / "x.witness").write_text("w")
    verdict = _verify(root, _submission(folder, "x.witness"))
    assert verdict["verdict"] == "green"
    assert "env-secret-91b0" not in json.dumps(verdict)


def test_no_sandbox_is_red_unless_allowed_and_then_records_none(root, monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.setattr(probing, "_probed", {})
    folder = _problem(root)
    (folder / "submissions" / "x.witness").write_text("w")
    refused = _verify(root, _submission(folder, "x.witness"))
    assert (refused["reason"], refused["isolation"]) == ("sandbox_unavailable", None)
    assert refused["checks"]["checker"]["detail"].startswith("not run")
    allowed = _verify(root, _submission(folder, "x.witness"), allow_no_netns=True)
    assert (allowed["verdict"], allowed["isolation"]) == ("green", "none")


def test_the_verification_budget_bounds_the_checkers_wall_clock(sandboxed, root):
    folder = _problem(root, "sleep_past_wall.py", limits={**LIMITS, "wall_sec": 60})
    (folder / "submissions" / "x.witness").write_text("w")
    options = VerifyOptions(timeout=1.5)
    verdict = verify(_submission(folder, "x.witness"), Repo(root), options).to_json()
    assert verdict["reason"] == "timeout"
    assert "budget ran out" in verdict["detail"]


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def test_paths_in_the_verdict_are_repo_relative(sandboxed, root):
    folder = _problem(root)
    (folder / "submissions" / "x.witness").write_text("w")
    verdict = _verify(root, _submission(folder, "x.witness"))
    assert verdict["submission"] == "Certificates/T001/submissions/x.json"
    assert str(root) not in json.dumps(verdict)
    assert os.fspath(root) not in verdict["checks"]["problem"]["detail"]


@pytest.mark.parametrize("name", [b"caf\xe9.json", b"tab\there.json"], ids=["not-utf8", "control"])
def test_jig_verify_on_an_oddly_named_manifest_prints_a_red_bad_manifest_document(
    sandboxed, root, name
):
    import subprocess
    import sys

    folder = _problem(root)
    (folder / "submissions" / "x.witness").write_text("hello\n")
    good = _submission(folder, "x.witness")
    odd = Path(os.fsdecode(bytes(folder / "submissions") + b"/" + name))
    good.rename(odd)
    done = subprocess.run(
        [sys.executable, "-m", "jigcli", "--root", str(root), "verify", "--json", str(odd)],
        capture_output=True,
        timeout=120,
    )
    verdict = json.loads(done.stdout.decode("utf-8"))  # valid UTF-8 JSON, one document
    assert done.returncode == 1, done.stderr
    assert (verdict["verdict"], verdict["reason"]) == ("red", "bad_manifest")
    assert verdict["submission"].startswith("Certificates/T001/submissions/")


def test_a_certificate_verification_loads_nothing_of_the_lean_or_latex_side(sandboxed, root):
    """jig verify on a certificate, as a process: its start-up is most of its cost, so it
    imports neither the other verifiers nor the CLI framework (typer, rich), nor the schema
    compiler (libseccomp's binding it loads: the filter is built by every process, never read
    back from a cache); nor `dataclasses` (with `inspect`
    behind it, and the generated methods of each class, some 60 ms of a 200 ms run) nor
    `secrets` (`os.urandom` is what it reads)."""
    import subprocess
    import sys

    folder = _problem(root)
    (folder / "submissions" / "x.witness").write_text("hello\n")
    manifest = _submission(folder, "x.witness")
    argv = [sys.executable, "-X", "importtime", "-m", "jigcli", "verify", str(manifest), "--json"]
    for _ in range(2):  # the second run finds the probe kept
        done = subprocess.run(argv, capture_output=True, text=True, timeout=120, cwd=root)
    assert json.loads(done.stdout)["verdict"] == "green", done.stderr[-2000:]
    loaded = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()}
    for family in ("jigcli.lean", "jigcli.latex", "jigcli.paper", "jigcli.pose", "typer", "rich"):
        assert not any(name == family or name.startswith(family + ".") for name in loaded), family
    assert "fastjsonschema" not in loaded
    assert not loaded & {"dataclasses", "inspect", "secrets"}
