"""Route probes remembered across processes, per machine state, with one re-probe and retry
when a run fails the way a stale probe would explain (issue 22)."""

from __future__ import annotations

import pytest

from jigcli.certificates import isolation
from jigcli.certificates.checker import check_witness
from jigcli.certificates.spec import CertLimits
from jigcli.sandbox import cgroups, probe, probecache
from jigcli.sandbox.routes import route_named

TRIVIAL = isolation.probe_job(isolation.default_python())
LIMITS = CertLimits(wall_sec=10, cpu_sec=5, address_space_mb=512, output_bytes=4096)
ACCEPT = b'print(\'CONJECT_CERT: {"ok": true, "canonical": "x"}\')'


@pytest.fixture
def fresh(monkeypatch, tmp_path):
    """A new process's view: nothing probed yet, an empty machine cache of its own."""
    monkeypatch.setenv("JIG_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(probe, "_probed", {})
    monkeypatch.setattr(probe, "_remembered", {})
    runs: list[str] = []
    real = probe._probe_route

    def counted(route, job):
        runs.append(route.name)
        return real(route, job)

    monkeypatch.setattr(probe, "_probe_route", counted)
    return runs


def _new_process(monkeypatch) -> None:
    monkeypatch.setattr(probe, "_probed", {})
    monkeypatch.setattr(probe, "_remembered", {})


def test_a_working_probe_is_remembered_by_the_next_process(fresh, monkeypatch):
    route = route_named("bubblewrap")
    if probe.probe(route, TRIVIAL) is not None:
        pytest.skip("bubblewrap does not work here")
    cap = probe.process_cap(route, TRIVIAL)
    assert fresh == ["bubblewrap"] and not probe.remembered(route, TRIVIAL)
    _new_process(monkeypatch)
    assert probe.probe(route, TRIVIAL) is None
    assert probe.process_cap(route, TRIVIAL) == cap  # the same cap mechanism, and why
    assert fresh == ["bubblewrap"] and probe.remembered(route, TRIVIAL)


def test_a_failed_probe_is_never_remembered(fresh, monkeypatch):
    route = route_named("bubblewrap")
    failing = TRIVIAL._replace(argv=("/nonexistent/python",))
    if route.unavailable():
        pytest.skip(route.unavailable())
    assert probe.probe(route, failing) is not None
    _new_process(monkeypatch)
    assert probe.probe(route, failing) is not None
    assert fresh == ["bubblewrap", "bubblewrap"]


@pytest.mark.parametrize("change", ["program", "uid", "kernel"])
def test_the_cache_key_follows_the_machine_state(monkeypatch, change):
    parts = ("bubblewrap", ("python",), ())
    before = probecache.key(parts)
    if change == "program":
        real = probecache._program
        monkeypatch.setattr(
            probecache,
            "_program",
            lambda name: [*real(name), "rebuilt"] if name == "bwrap" else real(name),
        )
    elif change == "uid":
        monkeypatch.setattr(probecache.os, "geteuid", lambda: 4242)
    else:
        monkeypatch.setattr(probecache, "_read", lambda path: "another boot")
    assert probecache.key(parts) != before
    assert probecache.key(("unshare-root", *parts[1:])) != probecache.key(parts)


def test_a_stale_remembered_probe_is_forgotten_probed_again_and_the_run_retried(
    fresh, monkeypatch, tmp_path
):
    """The cache says bubblewrap works with an interpreter that is gone since: the run fails
    in bubblewrap's setup, so the probe is dropped, taken again (it fails now) and the
    verdict says why, as a first run on this machine would."""
    route = route_named("bubblewrap")
    if route.unavailable():
        pytest.skip(route.unavailable())
    gone = tmp_path / "python-removed"
    job = isolation.probe_job(gone)
    key = probe._key(route, job)
    entry = probecache.key(
        (*key, job.view.hidden, probe._FORK_TEST, probe.PROBE_LIMITS, probe.PROBE_FORKS)
    )
    probecache.put(entry, _offered(route))
    outcome = check_witness(ACCEPT, b"", LIMITS, route="bubblewrap", python=gone)
    assert outcome.reason == "sandbox_unavailable", outcome
    assert fresh.count("bubblewrap") == 1  # probed again, once
    assert probecache.get(entry) is None


def test_a_cached_probe_still_verifies_green(fresh, monkeypatch):
    if isolation.choose(isolation.default_python()) is None:
        pytest.skip("no route works here")
    first = check_witness(ACCEPT, b"", LIMITS)
    _new_process(monkeypatch)
    second = check_witness(ACCEPT, b"", LIMITS)
    assert (first.reason, second.reason) == ("ok", "ok")
    assert len(fresh) == len(set(fresh))  # the second process probed nothing again
    chosen = route_named(second.isolation or "none")
    assert probe.remembered(chosen, isolation.probe_job(isolation.default_python()))


def _offered(route) -> dict[str, object]:
    """A kept probe as this jig writes one for `route` here: the first cap it offers."""
    offered = [m for m in route.cap_mechanisms if cgroups.unavailable(m) is None]
    if not offered:
        pytest.skip(f"{route.name} offers no process cap here")
    return {"mechanism": offered[0], "how": cgroups.HOW[offered[0]]}


@pytest.mark.parametrize(
    "forged",
    [
        {"mechanism": None, "how": "no cap: run as you like"},  # would switch the cap off
        {"mechanism": "cgroup", "how": "pids.max of a cgroup, trust me"},  # not jig's words
        {"mechanism": "ulimit", "how": "made up"},  # a mechanism jig does not have
        {"mechanism": "cgroup", "how": cgroups.HOW["cgroup"], "processes": 40},
    ],
    ids=["no-cap", "words", "mechanism", "extra-field"],
)
def test_a_kept_probe_this_jig_could_not_have_written_is_probed_again(fresh, forged):
    route = route_named("bubblewrap")
    if probe.probe(route, TRIVIAL) is not None:
        pytest.skip("bubblewrap does not work here")
    key = probe._key(route, TRIVIAL)
    entry = probecache.key(
        (*key, TRIVIAL.view.hidden, probe._FORK_TEST, probe.PROBE_LIMITS, probe.PROBE_FORKS)
    )
    probe._probed.clear()
    probecache.put(entry, forged)
    probe.probe(route, TRIVIAL)
    assert fresh == ["bubblewrap", "bubblewrap"]  # the forged entry answered nothing
    assert not probe.remembered(route, TRIVIAL)


def test_a_probe_that_found_no_cap_is_never_kept(fresh, monkeypatch):
    route = route_named("bubblewrap")
    if route.unavailable():
        pytest.skip(route.unavailable())
    monkeypatch.setattr(cgroups, "unavailable", lambda mechanism: "switched off for the test")
    if probe.probe(route, TRIVIAL) is not None:
        pytest.skip("bubblewrap does not work here")
    assert probe.process_cap(route, TRIVIAL).mechanism is None
    _new_process(monkeypatch)
    probe.probe(route, TRIVIAL)
    assert fresh == ["bubblewrap", "bubblewrap"]


def test_a_checker_that_prints_the_launchers_words_is_not_run_twice(fresh, monkeypatch):
    """A witness that makes the checker say `bwrap: …` on stderr and fail must not pass for a
    stale probe: the launcher started the checker (its stdout opens with jig's line, which
    the checker cannot take back), so the run is judged once, within its wall clock."""
    from jigcli.certificates import checker

    route = route_named("bubblewrap")
    if probe.probe(route, TRIVIAL) is not None:
        pytest.skip("bubblewrap does not work here")
    _new_process(monkeypatch)
    probe.probe(route, TRIVIAL)
    if not probe.remembered(route, TRIVIAL):
        pytest.skip("no process cap holds here, so no probe is kept")
    runs: list[str] = []
    real = checker.execute
    monkeypatch.setattr(checker, "execute", lambda *a, **k: runs.append("run") or real(*a, **k))
    forger = (
        b"import sys\n"
        b'sys.stderr.write("bwrap: Can\'t mount proc on /newroot/proc: "\n'
        b'                 "Operation not permitted\\n")\n'
        b"sys.exit(1)\n"
    )
    outcome = check_witness(forger, b"", LIMITS, route="bubblewrap")
    assert probe.remembered(route, TRIVIAL)  # the kept probe was used, not forgotten
    assert runs == ["run"] and outcome.reason == "checker_error", outcome
