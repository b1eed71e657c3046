"""The checker protocol: exactly one well-formed marker line, judged into a verdict reason."""

import json
from typing import TYPE_CHECKING

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jigcli.certificates.checker import MARKER, parse_marker

if TYPE_CHECKING:
    from jigcli.sandbox.job import Job

# -- real runs that break the protocol --------------------------------------------------------


def test_two_marker_lines_break_the_protocol(through_bubblewrap):
    outcome = through_bubblewrap("two_markers.py")
    assert outcome["reason"] == "checker_protocol"
    assert "2 CONJECT_CERT: lines" in outcome["detail"]


def test_malformed_json_breaks_the_protocol(through_bubblewrap):
    outcome = through_bubblewrap("malformed_json.py")
    assert outcome["reason"] == "checker_protocol"
    assert "not valid JSON" in outcome["detail"]


def test_a_non_zero_exit_is_a_checker_error_even_after_an_accepting_line(through_bubblewrap):
    outcome = through_bubblewrap("nonzero_exit.py")
    assert outcome["reason"] == "checker_error"
    assert outcome["exit_status"] == 3 and outcome["canonical"] is None


def test_no_output_breaks_the_protocol(through_bubblewrap):
    outcome = through_bubblewrap("no_output.py")
    assert outcome["reason"] == "checker_protocol"
    assert "no CONJECT_CERT: line" in outcome["detail"]


def test_an_accepted_witness_carries_its_canonical_form_and_its_hash(through_bubblewrap):
    outcome = through_bubblewrap("accept.py", b"  some witness \n")
    assert (outcome["reason"], outcome["canonical"]) == ("ok", "some witness")


def test_no_isolation_route_is_sandbox_unavailable_unless_allowed(monkeypatch, tmp_path):
    from jigcli.certificates.checker import check_witness
    from jigcli.sandbox import probe as probing

    from .conftest import HOSTILE, SMALL

    monkeypatch.setenv("PATH", str(tmp_path))  # no bwrap, unshare or sandbox-exec to be found
    monkeypatch.setattr(probing, "_probed", {})
    source = (HOSTILE / "accept.py").read_bytes()
    refused = check_witness(source, b"w", SMALL)
    assert refused.reason == "sandbox_unavailable" and refused.isolation is None
    assert "bwrap is not installed" in refused.detail
    allowed = check_witness(source, b"w", SMALL, allow_unsandboxed=True)
    assert (allowed.reason, allowed.isolation) == ("ok", "none")


def test_a_launcher_that_never_starts_the_checker_is_the_sandboxs_failure(monkeypatch):
    """bubblewrap refusing its own command line after a good probe: nothing of the checker
    ran (no start line), so the verdict blames the sandbox (exit 4), not the checker."""
    from jigcli.certificates.checker import check_witness
    from jigcli.sandbox import probe as probing
    from jigcli.sandbox.routes import Bubblewrap, route_named

    from .conftest import HOSTILE, SMALL

    if probing.probe(route_named("bubblewrap"), _trivial()) is not None:
        pytest.skip("bubblewrap does not work here")
    command = Bubblewrap.command

    def refused(self, inner, job, stage, seccomp_fd=None):  # type: ignore[no-untyped-def]
        argv = command(self, inner, job, stage, seccomp_fd)
        return argv if "jig-start" not in job.argv else [argv[0], "--no-such-option", *argv[1:]]

    monkeypatch.setattr(Bubblewrap, "command", refused)
    outcome = check_witness((HOSTILE / "accept.py").read_bytes(), b"w", SMALL, route="bubblewrap")
    assert outcome.reason == "sandbox_unavailable", outcome
    assert outcome.detail.startswith("the bubblewrap sandbox did not start the checker (exit")
    assert "--no-such-option" in outcome.detail


def _trivial() -> "Job":
    from jigcli.certificates import isolation

    return isolation.probe_job(isolation.default_python())


def test_applied_limits_say_null_processes_where_nothing_caps_them():
    from jigcli.certificates.checker import Outcome

    from .conftest import SMALL

    uncapped = Outcome("ok", "", "none", SMALL, processes_note="no isolation")
    assert uncapped.applied_limits()["processes"] is None
    assert uncapped.applied_limits()["processes_note"] == "no isolation"
    capped = Outcome("ok", "", "bubblewrap", SMALL, processes_cap="cgroup", processes_note="x")
    assert capped.applied_limits()["processes"] == SMALL.processes
    assert capped.applied_limits()["processes_mechanism"] == "cgroup"


# -- parsing the marker --------------------------------------------------------------------


def _line(payload: object) -> str:
    return f"{MARKER} {json.dumps(payload)}"


@pytest.mark.parametrize(
    ("stdout", "problem"),
    [
        ("", "no CONJECT_CERT: line"),
        ("  " + _line({"ok": True, "canonical": "x"}), "no CONJECT_CERT: line"),
        (_line(["a", "b"]), "must be a JSON object"),
        (_line({"ok": "yes"}), "ok must be true or false"),
        (_line({"ok": "true", "canonical": "x"}), "ok must be true or false"),
        (_line({"ok": 1, "canonical": "x"}), "1 is a number"),
        (_line({"ok": False, "reason": None}), "reason must be a string"),
        (_line({"ok": True}), "needs canonical"),
        (_line({"ok": True, "canonical": ["x"]}), "canonical must be a string"),
        (_line({"ok": False, "canonical": 7}), "is a number"),
        (f'{MARKER} {{"ok": false, "ok": true, "canonical": "x"}}', "'ok' is given twice"),
        (f'{MARKER} {{"ok": true, "canonical": "x", "canonical": "y"}}', "given twice"),
        (f'{MARKER} {{"ok": true, "canonical": "x", "n": {"9" * 5000}}}', "is a number"),
        (f'{MARKER} {{"ok": true, "canonical": "x", "n": 1e999}}', "is a number"),
        (f'{MARKER} {{"ok": true, "canonical": "x", "n": NaN}}', "NaN is a number"),
        (f'{MARKER} {{"ok": true, "canonical": "x", "n": -Infinity}}', "is a number"),
        (_line({"ok": True, "canonical": "x", "extra": "y"}), "'extra' is not a field"),
        (f'{MARKER} {{"ok": true, "canonical": "\\ud800"}}', "lone surrogate"),
        (f"{MARKER} " + "[" * 100000, "nests too deeply"),
    ],
)
def test_a_malformed_marker_says_what_is_wrong(stdout, problem):
    payload, said = parse_marker(stdout)
    assert payload is None and problem in said


def test_a_line_ends_only_at_a_newline():
    payload, _ = parse_marker(f'{MARKER} {{"ok": true, "canonical": "a\u2028b"}}\r\n')
    assert payload == {"ok": True, "canonical": "a\u2028b"}


def test_a_rejection_needs_no_canonical_form():
    payload, _ = parse_marker("noise\n" + _line({"ok": False, "reason": "no"}) + "\nmore\n")
    assert payload == {"ok": False, "reason": "no"}


@given(
    before=st.lists(st.text().filter(lambda s: "\n" not in s)),
    canonical=st.text(),
)
def test_one_well_formed_line_among_any_other_output_is_read_back(before, canonical):
    noise = [line for line in before if not line.startswith(MARKER)]
    stdout = "\n".join([*noise, _line({"ok": True, "canonical": canonical})])
    payload, _ = parse_marker(stdout)
    assert payload == {"ok": True, "canonical": canonical}


@pytest.mark.parametrize(
    ("checker", "said"),
    [
        ("duplicate_ok.py", "'ok' is given twice"),
        ("huge_integer.py", "is a number"),
    ],
)
def test_a_marker_read_strictly_is_a_protocol_error_never_a_crash(
    through_bubblewrap, checker, said
):
    outcome = through_bubblewrap(checker)
    assert outcome["reason"] == "checker_protocol", outcome["detail"]
    assert said in outcome["detail"] and outcome["canonical"] is None


@pytest.mark.parametrize("witness", [b"token\xff", b"token\xfe", b"tok\xc3"])
def test_a_marker_that_is_not_utf8_breaks_the_protocol(through_bubblewrap, witness):
    """Read as text with replacement these would all be `token` + U+FFFD: one canonical form
    and one fingerprint for different witnesses."""
    outcome = through_bubblewrap("echo_bytes.py", witness)
    assert outcome["reason"] == "checker_protocol", outcome
    assert "line is not UTF-8" in outcome["detail"]


def test_a_real_replacement_character_is_a_canonical_form_of_its_own(through_bubblewrap):
    replaced = through_bubblewrap("echo_bytes.py", "token\ufffd".encode())
    plain = through_bubblewrap("echo_bytes.py", b"token")
    assert (replaced["reason"], replaced["canonical"]) == ("ok", "token\ufffd")
    assert plain["canonical"] == "token"  # two witnesses, two canonical forms, two hashes
