"""Probing the routes: each once per process and kind of job, with a reason when it cannot run."""

import pytest

from jigcli.certificates import isolation
from jigcli.sandbox import cgroups, probe
from jigcli.sandbox.cgroups import ProcessCap
from jigcli.sandbox.routes import NONE, Bubblewrap, route_named

TRIVIAL = isolation.probe_job(isolation.default_python())


def test_describe_reports_every_route_with_a_reason_when_it_cannot_run():
    report = probe.describe(TRIVIAL)
    names = [row["name"] for row in report["routes"]]
    assert names == ["bubblewrap", "unshare-root", "sandbox-exec"]
    for row in report["routes"]:
        assert row["ok"] is (row["why"] is None)
        assert row["probed"] is row["available"]
        cap = row["processes"]
        assert cap["capped"] is (cap["mechanism"] is not None) and cap["why"]
        assert cap["mechanism"] in (None, *cgroups.HOW)
        if not row["ok"]:
            assert not cap["capped"]
    chosen = [row["name"] for row in report["routes"] if row["ok"]]
    assert report["chosen"] == (chosen[0] if chosen else None)


def test_a_route_whose_program_is_missing_is_unavailable(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(probe, "_probed", {})
    assert "bwrap is not installed" in (Bubblewrap().unavailable() or "")
    assert probe.choose(TRIVIAL) is None
    assert probe.choose(TRIVIAL, allow_none=True) is NONE


def test_a_probe_runs_once_per_process(monkeypatch):
    calls = []
    monkeypatch.setattr(probe, "_probed", {})
    probed = probe.Probe(None, ProcessCap(None, "not asked"))
    monkeypatch.setattr(probe, "_probe_route", lambda route, job: calls.append(route) or probed)
    for _ in range(3):
        probe.probe(NONE, TRIVIAL)
    assert len(calls) == 1


def test_a_route_without_cap_mechanisms_says_why_without_a_probe(monkeypatch):
    monkeypatch.setattr(probe, "_probe_route", lambda route, job: pytest.fail("probed"))
    cap = probe.process_cap(NONE, TRIVIAL)
    assert cap == ProcessCap(None, NONE.uncapped)


def test_a_job_that_needs_its_files_confined_gets_only_a_route_that_confines_them(monkeypatch):
    monkeypatch.setattr(probe, "_probed", {})
    # Every route "works" here; only bubblewrap shows nothing of the host but the job's view.
    monkeypatch.setattr(probe, "probe", lambda route, job: None)
    assert probe.choose(TRIVIAL, confining=True) is route_named("bubblewrap")
    assert probe.choose(TRIVIAL, only="unshare-root", confining=True) is None
    assert probe.choose(TRIVIAL, only="unshare-root") is route_named("unshare-root")
    assert probe.choose(TRIVIAL, only="unshare-root", confining=True, allow_none=True) is NONE


def test_the_refusal_of_a_confined_job_says_which_routes_do_not_confine_files(monkeypatch):
    monkeypatch.setattr(probe, "probe", lambda route, job: "bwrap is not installed")
    said = probe.refusal(TRIVIAL, confining=True)
    assert "bubblewrap: bwrap is not installed" in said
    assert "unshare-root: does not confine a program's files" in said


def test_describe_says_for_each_route_whether_it_confines_files():
    rows = {row["name"]: row["files"] for row in probe.describe(TRIVIAL)["routes"]}
    assert [name for name, files in rows.items() if files["confined"]] == ["bubblewrap"]
    assert all(files["why"] for files in rows.values())


def test_without_root_no_route_leaves_the_checker_the_users_own_files(monkeypatch):
    """The decision of issue 22: unshare without root would run the checker with the
    invoking user's SSH keys, tokens and ~/.bashrc, so there is no such route; the refusal
    names what to install instead."""
    monkeypatch.setattr(probe.os, "geteuid", lambda: 1000)
    monkeypatch.setattr(probe, "probe", lambda route, job: "bwrap is not installed")
    with pytest.raises(ValueError):
        route_named("unshare-userns")
    said = probe.refusal(TRIVIAL)
    assert "apt-get install bubblewrap" in said and "invoking user" in said
