"""The stage a checker's inputs are copied to: made where no other user can swap it, filled
through the folder jig made, and out of every other run's reach."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest

from jigcli.sandbox import execute, seccomp
from jigcli.sandbox.job import SetupFailed

NOBODY = 65534


def test_a_tmpdir_others_may_write_without_the_sticky_bit_is_passed_over(tmp_path, monkeypatch):
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)  # another user could rename jig's stage and put theirs in its place
    monkeypatch.setenv("TMPDIR", str(shared))
    assert execute.temporary_root() != shared
    shared.chmod(0o1777)  # sticky, as /tmp is: only the stage's owner may rename it
    assert execute.temporary_root() == shared


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root, to make another user's folder")
def test_a_tmpdir_of_another_user_is_passed_over(tmp_path, monkeypatch):
    theirs = tmp_path / "theirs"
    theirs.mkdir(mode=0o755)
    os.chown(theirs, NOBODY, NOBODY)
    monkeypatch.setenv("TMPDIR", str(theirs))
    assert execute.temporary_root() != theirs


def test_with_no_safe_temporary_folder_the_stage_goes_to_the_private_cache(tmp_path, monkeypatch):
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    monkeypatch.setenv("TMPDIR", str(shared))
    monkeypatch.setattr(execute, "_safe_parent", lambda folder: folder == shared and False)
    cache = tmp_path / "cache"
    monkeypatch.setenv("JIG_CACHE_DIR", str(cache))
    assert execute.temporary_root() == cache / "stages"
    assert (cache / "stages").stat().st_mode & 0o777 == 0o700


@pytest.mark.parametrize("planted", ["open-folder", "link"])
def test_a_stage_that_is_not_the_folder_jig_made_is_never_filled(tmp_path, planted):
    stage = tmp_path / "jig-sandbox-1-x"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    if planted == "link":  # swapped for a link to a folder of the attacker's choosing
        stage.symlink_to(elsewhere)
    else:  # replaced by a folder others can write in
        stage.mkdir()
        stage.chmod(0o777)
    with pytest.raises(SetupFailed):
        execute._fill(stage, {"checker.py": b"print('mine')"})
    assert list(elsewhere.iterdir()) == []


def test_the_stage_is_filled_through_the_folder_and_closed_to_others(tmp_path):
    stage = tmp_path / "jig-sandbox-1-y"
    stage.mkdir(mode=0o700)
    old = os.umask(0)
    try:
        execute._fill(stage, {"checker.py": b"x", "witness": b"w"})
    finally:
        os.umask(old)
    assert sorted(p.name for p in stage.iterdir()) == ["checker.py", "witness"]
    assert all(p.stat().st_mode & 0o022 == 0 for p in stage.iterdir())


def test_one_runs_checker_cannot_see_or_change_another_runs_stage(through, monkeypatch):
    """With TMPDIR under /var (visible in the unshare route's view), a stage that an earlier
    jig left there owned by nobody, as every unshare run is: a checker must neither list the
    folder nor rewrite the other run's checker."""
    folder = Path(tempfile.mkdtemp(prefix="jig-tmpdir-", dir="/var"))
    try:
        folder.chmod(0o755)
        monkeypatch.setenv("TMPDIR", str(folder))
        other = folder / "jig-sandbox-1-other"
        other.mkdir(mode=0o755)
        (other / "checker.py").write_text("print('the other run')\n")
        if os.geteuid() == 0:
            os.chown(other, NOBODY, NOBODY)
            os.chown(other / "checker.py", NOBODY, NOBODY)
        (other / "checker.py").chmod(0o666)
        target = other / "checker.py"
        outcome = through("write_outside.py", json.dumps({"paths": [str(target)]}).encode())
        assert outcome["reason"] == "invalid_witness", outcome
        assert target.read_text() == "print('the other run')\n"
        seen = through("list_folders.py", json.dumps({"paths": [str(folder)]}).encode())
        assert seen["reason"] == "ok", seen
        assert "jig-sandbox-1-other" not in seen["canonical"]
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_no_route_shows_a_checker_the_hosts_run_or_var(through):
    """Services' sockets under /run, their world-readable homes under /var/lib, folders anyone
    may write in: bubblewrap's view leaves them out, and unshare-root covers them alike."""
    home = Path(tempfile.mkdtemp(prefix="jig-service-", dir="/var/lib"))
    try:
        home.chmod(0o755)
        (home / "token").write_text("a service's world-readable secret\n")
        (home / "token").chmod(0o644)
        seen = through(
            "list_folders.py", json.dumps({"paths": ["/run", "/var", "/var/lib"]}).encode()
        )
        assert seen["reason"] == "ok", seen
        listed = json.loads(seen["canonical"])
        for path in ("/run", "/var", "/var/lib"):
            assert listed[path] in ([], "FileNotFoundError"), (path, listed[path])
        secret = through("read_canary.py", json.dumps({"path": str(home / "token")}).encode())
        assert "secret" not in json.dumps(secret)
    finally:
        shutil.rmtree(home, ignore_errors=True)


def test_every_process_of_a_run_is_under_the_filter_its_init_included(through):
    """unshare-root's init loads the filter (its launcher, setpriv before 2.40, cannot) before
    anything of the run starts; bubblewrap loads it before its init execs: no process of the
    run, PID 1 included, is one a checker could act through unfiltered."""
    if seccomp.unavailable():
        pytest.skip(f"no seccomp filter here: {seccomp.unavailable()}")
    outcome = through("init_filtered.py")
    assert outcome["reason"] == "ok", outcome
    assert outcome["seccomp"] is True
    modes = json.loads(outcome["canonical"])
    assert modes == {"init": "2", "parent": "2", "self": "2"}, modes


def test_no_checker_can_write_the_memory_of_its_sandboxs_init(through):
    """With /proc writable, a checker could write an execve into /proc/1/mem (a shell's,
    were the init not filtered) and run unfiltered."""
    outcome = through("proc_mem.py")
    assert outcome["reason"] == "ok", outcome
    seen = json.loads(outcome["canonical"])
    assert seen["opened"] == []
    if outcome["isolation"] == "unshare-root":  # the /proc it sees, the last mounted, is ro
        assert seen["proc"][-1].split(",")[0] == "ro", seen
