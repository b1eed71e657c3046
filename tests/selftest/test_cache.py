import os
import shutil
from pathlib import Path

import pytest

from jigcli.cachedir import default_cache_dir
from jigcli.repo import Repo
from jigcli.selftest import cache as cache_module
from jigcli.selftest.cache import CACHE_FORMAT, NEVER_CACHED, Keys, VerdictCache
from jigcli.selftest.discover import discover
from jigcli.verdict import REASONS


def key_of(root: Path, rel: str, allow_no_netns: bool = False) -> str:
    """A fresh key (fresh per-run memo), as a new `jig selftest` would compute it."""
    repo = Repo(root)
    [case] = [c for c in discover(repo) if c.rel == rel]
    return Keys(repo, allow_no_netns=allow_no_netns).key(case)


def append(path: Path, text: str | None = None) -> None:
    """Change the file's bytes (a manifest stays valid JSON: whitespace only)."""
    if text is None:
        text = "\n" if path.suffix == ".json" else "\n-- changed\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as handle:
        handle.write(text)


LEAN = "Submissions/S001/Alice.json"
CERT = "Certificates/C001/submissions/good.json"


@pytest.fixture
def both(repo_root, kit):
    kit.lean_manifest(repo_root, LEAN, refutes="S009")
    kit.lean_manifest(repo_root, "Submissions/S001/Bob.json")
    kit.certificate_manifest(repo_root, "C001", "good")
    for rel in (
        "Statements/S001.lean",
        "Statements/S009.lean",
        "Statements/S002.lean",
        "Commons/Basic.lean",
        "Verify/Judge.lean",
        "lean-toolchain",
        "lake-manifest.json",
        "lakefile.toml",
        "Certificates/C001/checker.py",
        "Certificates/C001/spec.json",
        "Certificates/C001/helper.py",
        "Certificates/C002/checker.py",
    ):
        append(repo_root / rel, f"original {rel}\n")
    return repo_root


@pytest.mark.parametrize(
    "changed",
    [
        LEAN,  # the manifest's bytes
        "Submissions/S001/Alice.lean",  # the submitted source
        "Statements/S001.lean",  # its statement
        "Statements/S009.lean",  # the statement it refutes
        "Commons/Basic.lean",
        "Commons/New.lean",  # a file added to Commons
        "Verify/Judge.lean",
        "lean-toolchain",
        "lake-manifest.json",
        "lakefile.toml",
    ],
)
def test_a_lean_key_changes_with_each_input(both, changed):
    before = key_of(both, LEAN)
    append(both / changed)
    assert key_of(both, LEAN) != before


@pytest.mark.parametrize(
    "changed",
    [
        CERT,  # the manifest's bytes
        "Certificates/C001/submissions/good.witness",
        "Certificates/C001/checker.py",
        "Certificates/C001/spec.json",
        "Certificates/C001/helper.py",
    ],
)
def test_a_certificate_key_changes_with_each_input(both, changed):
    before = key_of(both, CERT)
    append(both / changed)
    assert key_of(both, CERT) != before


@pytest.mark.parametrize(
    ("rel", "changed"),
    [
        (LEAN, "Submissions/S001/Bob.lean"),  # another submission's source
        (LEAN, "Statements/S002.lean"),  # another statement
        (LEAN, "Certificates/C001/checker.py"),
        (CERT, "Commons/Basic.lean"),  # certificates do not read Lean
        (CERT, "lean-toolchain"),
        (CERT, "Certificates/C002/checker.py"),  # another problem
        (CERT, "Certificates/C001/submissions/other.witness"),  # another witness
    ],
)
def test_a_key_ignores_what_its_verdict_does_not_read(both, rel, changed):
    before = key_of(both, rel)
    append(both / changed)
    assert key_of(both, rel) == before


def test_a_moved_manifest_gets_another_key(both):
    before = key_of(both, LEAN)
    shutil.copytree(both, both.parent / "copy")
    assert key_of(both.parent / "copy", LEAN) == before  # same repo elsewhere: same key
    (both / "Submissions/S001/Alice.json").rename(both / "Submissions/S001/Alicia.json")
    (both / "Submissions/S001/Alice.lean").rename(both / "Submissions/S001/Alicia.lean")
    assert key_of(both, "Submissions/S001/Alicia.json") != before


def test_the_key_changes_with_jigs_version(both, monkeypatch):
    before = key_of(both, LEAN), key_of(both, CERT)
    monkeypatch.setattr("jigcli.__version__", "9.9.9")
    assert key_of(both, LEAN) != before[0] and key_of(both, CERT) != before[1]


def test_the_digest_of_jigs_sources_changes_with_an_edit(tmp_path):
    package = tmp_path / "jigcli"
    shutil.copytree(cache_module.PACKAGE, package, ignore=shutil.ignore_patterns("__pycache__"))
    before = cache_module.jig_sources_digest(package)
    append(package / "verify.py", "# edited\n")
    cache_module.jig_sources_digest.cache_clear()
    assert cache_module.jig_sources_digest(package) != before


def test_the_certificate_key_changes_with_the_isolation_opt_out(both):
    assert key_of(both, CERT, allow_no_netns=True) != key_of(both, CERT)


def test_the_certificate_key_changes_with_the_python_that_runs_the_checker(both, monkeypatch):
    before = key_of(both, CERT)
    monkeypatch.setattr(cache_module.sys, "version", "3.99.0 (another build)")
    assert key_of(both, CERT) != before


def test_a_witness_naming_a_device_is_hashed_as_missing_without_reading_it(repo_root, kit):
    kit.certificate_manifest(repo_root, "C001", "zero", witness="/dev/zero")
    assert key_of(repo_root, "Certificates/C001/submissions/zero.json")  # returns at once


def document(verdict: str = "red", reason: str = "invalid_witness") -> dict[str, object]:
    return {"verdict": verdict, "reason": reason, "submission": CERT}


def test_a_stored_verdict_comes_back(tmp_path):
    cache = VerdictCache(tmp_path)
    assert cache.get("ab" * 32) is None
    assert cache.put("ab" * 32, document("green", "ok"))
    assert cache.get("ab" * 32) == document("green", "ok")


@pytest.mark.parametrize("reason", sorted(NEVER_CACHED))
def test_infrastructure_verdicts_are_never_stored(tmp_path, reason):
    cache = VerdictCache(tmp_path)
    assert not cache.put("cd" * 32, document("red", reason))
    assert cache.get("cd" * 32) is None


def test_never_cached_names_only_real_reasons():
    assert set(NEVER_CACHED) <= set(REASONS)
    assert {"timeout", "verifier_error", "toolchain_missing", "sandbox_unavailable"} <= NEVER_CACHED


def test_a_corrupt_entry_is_a_miss(tmp_path):
    cache = VerdictCache(tmp_path)
    cache.put("ef" * 32, document())
    next((tmp_path / "verdicts").rglob("*.json")).write_text("{not json")
    assert cache.get("ef" * 32) is None


@pytest.mark.skipif(os.geteuid() == 0, reason="root can write anywhere")
def test_an_unwritable_cache_is_a_miss_not_an_error(tmp_path):
    tmp_path.chmod(0o500)
    try:
        assert not VerdictCache(tmp_path).put("ab" * 32, document())
    finally:
        tmp_path.chmod(0o700)


def test_an_unusable_cache_dir_is_a_miss_not_an_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("a file where the cache folder should be")
    cache = VerdictCache(blocker)
    assert not cache.put("ab" * 32, document())
    assert cache.get("ab" * 32) is None


def test_jig_cache_dir_overrides_the_platform_cache(monkeypatch, tmp_path):
    monkeypatch.setenv("JIG_CACHE_DIR", str(tmp_path / "mine"))
    assert default_cache_dir() == tmp_path / "mine"
    monkeypatch.delenv("JIG_CACHE_DIR")
    assert default_cache_dir().name == "jig"


def test_the_cache_reads_and_writes_through_no_link(tmp_path):
    store = VerdictCache(tmp_path)
    document = {"verdict": "red", "reason": "sorry"}
    key = "ab" + "0" * 62
    outside = tmp_path / "outside.json"
    outside.write_text('{"verdict": "green", "reason": "ok"}')
    entry = tmp_path / "verdicts" / CACHE_FORMAT / key[:2] / f"{key}.json"
    entry.parent.mkdir(parents=True)
    entry.symlink_to(outside)
    assert store.get(key) is None  # a planted green is not served
    assert not store.put(key, document)  # nor written through
    assert outside.read_text() == '{"verdict": "green", "reason": "ok"}'


def test_an_entry_moved_to_another_cases_name_is_a_miss(tmp_path):
    """A red kept for one case, renamed to the name of another case's key, does not answer
    for it: each entry names the key it was stored under."""
    cache = VerdictCache(tmp_path)
    green, red = "a1" * 32, "b2" * 32
    assert cache.put(green, document("green", "ok"))
    kept = tmp_path / "verdicts" / CACHE_FORMAT / green[:2] / f"{green}.json"
    target = tmp_path / "verdicts" / CACHE_FORMAT / red[:2] / f"{red}.json"
    target.parent.mkdir(parents=True)
    kept.rename(target)
    assert cache.get(red) is None


def test_a_forged_entry_without_its_key_is_a_miss(tmp_path):
    cache = VerdictCache(tmp_path)
    key = "c3" * 32
    entry = tmp_path / "verdicts" / CACHE_FORMAT / key[:2] / f"{key}.json"
    entry.parent.mkdir(parents=True)
    entry.write_text('{"verdict": "green", "reason": "ok"}')  # the old format's shape
    assert cache.get(key) is None


def test_selftest_does_not_use_a_cache_others_can_write(tmp_path, monkeypatch, capsys):
    from jigcli import cachedir

    shared = tmp_path / "shared-cache"
    shared.mkdir()
    shared.chmod(0o777)
    monkeypatch.setenv("JIG_CACHE_DIR", str(shared))
    monkeypatch.setattr(cachedir, "_warned", set())
    assert cachedir.usable_root() is None
    assert "can be written by others" in capsys.readouterr().err
