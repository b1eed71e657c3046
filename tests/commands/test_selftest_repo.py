"""The README's main set-up command, `jig selftest`, on a copy of this repo's own examples:
with no Lean toolchain here it must pass — certificates checked in the sandbox, the Lean
examples the static policy decides matched, the rest skipped with `toolchain_missing`."""

import json
from pathlib import Path

import pytest

from jigcli.certificates import isolation
from jigcli.commands.selftest import run

REPO = Path(__file__).resolve().parents[2]
CONTENT = ("Certificates", "Commons", "Statements", "Submissions")


@pytest.fixture
def copy(tmp_path, monkeypatch, copy_repo) -> Path:
    monkeypatch.setenv("JIG_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    return copy_repo(*CONTENT)


def test_the_repos_own_selftest_passes_here(copy, capsys):
    allow_no_netns = isolation.choose(isolation.default_python()) is None
    code = run(
        [],
        jobs=None,
        shard=None,
        use_cache=True,
        require_lean=False,
        as_json=True,
        timeout=300.0,
        budget=None,
        allow_no_netns=allow_no_netns,
        root=copy,
    )
    document = json.loads(capsys.readouterr().out)
    failures = [e for e in document["results"] if not (e["matched"] or e["skipped"])]
    assert code == 0 and not failures, failures
    certificates = [e for e in document["results"] if e["kind"] == "certificate"]
    assert certificates and all(e["matched"] for e in certificates)
    for entry in document["results"]:
        if entry["skipped"]:
            assert entry["kind"] == "lean" and entry["reason"] == "toolchain_missing"
    assert any(e["kind"] == "lean" and e["matched"] for e in document["results"])
