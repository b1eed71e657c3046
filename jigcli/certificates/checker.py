"""The checker protocol, and one checker run judged by it.

A checker is `python checker.py WITNESS`. It must exit 0 having printed, at the start of a
line of stdout, exactly one `CONJECT_CERT: {json}` where the JSON is an object with a boolean
`ok`, an optional string `reason` and, when `ok` is true, a string `canonical`: the witness
reduced to normal form by the checker, whose SHA-256 is the submission's fingerprint.

How a run is judged, first match wins:

- out of wall clock, or killed at the CPU limit (a SIGKILL, with no SIGXCPU before it that a
  checker could catch and print a verdict after) → `timeout` (a fork bomb held at its
  process cap ends here: it never finishes);
- more output than the limit on stdout or stderr (the run is stopped) → `checker_protocol`;
- killed at the run's memory limit, by a signal, or a non-zero exit → `checker_error` (a
  checker that dies of a refused fork, as a naive fork bomb does, ends here, the detail
  naming its process limit);
- not exactly one well-formed marker line → `checker_protocol`;
- `ok: false` → `invalid_witness`, with the checker's reason;
- `ok: true` → `ok`, with `canonical`.

`check_witness` is the whole of it for a caller without a manifest (posing a problem).
"""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path
from typing import Any, NamedTuple

from jigcli.certificates import isolation
from jigcli.certificates.spec import CertLimits
from jigcli.hashing import sha256_tagged
from jigcli.jsondoc import is_unicode_text
from jigcli.process import Deadline
from jigcli.sandbox import probe as probing
from jigcli.sandbox.cgroups import memory_cap
from jigcli.sandbox.execute import execute
from jigcli.sandbox.job import Execution, SetupFailed

MARKER = "CONJECT_CERT:"
TAIL_CHARS = 4000
# A run killed by a signal with at least this much of its CPU limit used was the limit's doing.
_CPU_SLACK_SEC = 0.25


class Outcome(NamedTuple):
    """What running a checker on a witness decided, and the evidence for it."""

    reason: str  # "ok", or the verdict reason of the failure
    detail: str  # one sentence
    isolation: str | None  # the route used; None when none could run
    limits: CertLimits
    canonical: str | None = None
    checker_reason: str | None = None  # what the checker itself said
    exit_status: int | None = None
    signal: str | None = None
    stdout_tail: str = ""
    stderr_tail: str = ""
    duration_sec: float = 0.0
    cpu_sec: float | None = None
    probe_sec: float = 0.0
    processes_cap: str | None = None  # what capped its processes; None: nothing did
    processes_note: str = ""  # how, or why nothing did
    memory_capped: bool = False  # whether a memory cgroup held the whole run
    memory_note: str = ""  # how, or why nothing did
    seccomp: bool = False  # whether a seccomp filter held its system calls

    @property
    def ok(self) -> bool:
        return self.reason == "ok"

    @property
    def canonical_hash(self) -> str | None:
        """`sha256:` of `canonical`: the `elaborated_term_hash` of a certificate."""
        return None if self.canonical is None else sha256_tagged(self.canonical)

    def applied_limits(self) -> dict[str, Any]:
        """The limits as applied: `processes` and `memory_mb` are null when nothing here
        could enforce them, and the notes say how or why not."""
        applied = self.limits.to_json()
        if self.processes_cap is None:
            applied["processes"] = None
        if not self.memory_capped:
            applied["memory_mb"] = None
        applied["processes_mechanism"] = self.processes_cap
        applied["processes_note"] = self.processes_note
        applied["memory_note"] = self.memory_note
        applied["seccomp"] = self.seccomp
        return applied


def check_witness(
    checker_source: bytes,
    witness: bytes,
    limits: CertLimits,
    *,
    allow_unsandboxed: bool = False,
    python: Path | None = None,
    route: str | None = None,
    deadline: Deadline | None = None,
) -> Outcome:
    """Run a checker (its source) on a witness (its bytes) in the best sandbox here.

    `route` forces one route by name (tests, doctor); `allow_unsandboxed` lets the run go
    ahead with no isolation when no route works (local development only); `deadline`, when
    shorter than `limits.wall_sec`, is the wall clock instead. Never raises for anything the
    checker or witness does: every end is an `Outcome`.
    """
    interpreter = python or isolation.default_python()
    trial = isolation.probe_job(interpreter)
    started = time.monotonic()
    chosen = probing.choose(trial, allow_none=allow_unsandboxed, only=route)
    probe_sec = time.monotonic() - started
    if chosen is None:
        return Outcome(
            "sandbox_unavailable",
            "no isolation route works here (" + probing.refusal(trial) + ")",
            None,
            limits,
            probe_sec=probe_sec,
        )
    cap = probing.process_cap(chosen, trial)
    wall = limits.wall_sec if deadline is None else min(limits.wall_sec, deadline.remaining())
    job = isolation.checker_job(interpreter, checker_source, witness, limits, wall, chosen.armed)
    try:
        started, done = _started(execute(chosen, job, cap.mechanism))
        stale = not started and chosen.setup_failed(done.exit_status, done.result.stderr)
    except SetupFailed as failed:
        if not probing.remembered(chosen, trial):
            detail = f"the {chosen.name} sandbox could not run the checker: {failed}"
            return Outcome("sandbox_unavailable", detail, None, limits, probe_sec=probe_sec)
        stale = True
    if stale and probing.remembered(chosen, trial):
        # The machine changed since the probe this process took from the cache: probe
        # again and run once more, as a first verification on this machine would.
        probing.forget(chosen, trial)
        return check_witness(
            checker_source,
            witness,
            limits,
            allow_unsandboxed=allow_unsandboxed,
            python=interpreter,
            route=route,
            deadline=deadline,
        )
    if not started:  # nothing of the checker ran: the sandbox failed, not the checker
        detail = f"the {chosen.name} sandbox did not start the checker ({_launcher_said(done)})"
        return Outcome("sandbox_unavailable", detail, None, limits, probe_sec=probe_sec)
    return judge(done, limits, wall)._replace(
        probe_sec=probe_sec,
        processes_cap=cap.mechanism,
        processes_note=cap.why,
        memory_capped=done.memory_mb is not None,
        memory_note=memory_cap().why,
        seccomp=done.seccomp,
    )


def _started(done: Execution) -> tuple[bool, Execution]:
    """Whether the launcher got as far as starting the checker (`isolation.STARTED` opens its
    stdout), and the run with that line taken off what the checker printed."""
    result = done.result
    if not result.stdout_data.startswith(isolation.STARTED):
        return False, done
    cut = len(isolation.STARTED)
    stripped = result._replace(stdout=result.stdout[cut:], stdout_data=result.stdout_data[cut:])
    return True, done._replace(result=stripped)


def _launcher_said(done: Execution) -> str:
    """How a launcher that never started the checker ended, in a few words."""
    if done.result.timed_out:
        return "its wall clock ran out during the set-up"
    ended = f"killed by {done.signal_name}" if done.signal else f"exit status {done.exit_status}"
    first = next((line.strip() for line in done.result.stderr.splitlines() if line.strip()), "")
    return f"{ended}: {first[:200]}" if first else ended


def judge(done: Execution, limits: CertLimits, wall_sec: float) -> Outcome:
    """The outcome of one execution, by the rules in the module docstring."""
    result = done.result
    reason, detail, canonical, said = _decided(done, limits, wall_sec)
    return Outcome(
        reason,
        detail,
        done.route,
        limits,
        canonical=canonical,
        checker_reason=said,
        exit_status=done.exit_status,
        signal=done.signal_name or None,
        stdout_tail=_tail(result.stdout),
        stderr_tail=_tail(result.stderr),
        duration_sec=result.duration_sec,
        cpu_sec=done.cpu_sec,
    )


def _decided(
    done: Execution, limits: CertLimits, wall_sec: float
) -> tuple[str, str, str | None, str | None]:
    """(reason, detail, canonical, what the checker said as its reason) of one execution."""
    failure = _ended_badly(done, limits, wall_sec)
    if failure is not None:
        return (*failure, None, None)
    undecodable = _undecodable_marker(done.result.stdout_data)
    if undecodable is not None:
        return "checker_protocol", undecodable, None, None
    payload, problem = parse_marker(done.result.stdout)
    if payload is None:
        return "checker_protocol", problem, None, None
    said = payload.get("reason")
    if payload["ok"] is not True:
        return "invalid_witness", f"the checker says: {said or '(no reason given)'}", None, said
    accepted = f"accepted; the checker says: {said or '(no reason given)'}"
    return "ok", accepted, payload["canonical"], said


def _ended_badly(done: Execution, limits: CertLimits, wall_sec: float) -> tuple[str, str] | None:
    result = done.result
    held = _held_at_cap(done, limits)
    if result.timed_out:
        if wall_sec < limits.wall_sec:
            return "timeout", f"the verification's budget ran out after {wall_sec:g} s{held}"
        return "timeout", f"the checker ran past its wall limit of {limits.wall_sec:g} s{held}"
    if _cpu_exhausted(done, limits):
        return "timeout", f"the checker used up its CPU limit of {limits.cpu_sec} s{held}"
    for stream, flooded, seen in (
        ("stdout", result.stdout_truncated, result.stdout_bytes),
        ("stderr", result.stderr_truncated, result.stderr_bytes),
    ):
        if flooded:
            return "checker_protocol", (
                f"the checker wrote more than {limits.output_bytes} bytes on {stream} "
                f"({seen} read) and was stopped"
            )
    if done.out_of_memory:
        return "checker_error", (
            f"the checker was killed at its memory limit of {limits.memory_mb} MB "
            "(its processes, scratch and /dev/shm together)"
        )
    if done.signal is not None:
        return "checker_error", f"the checker was killed by {done.signal_name}"
    if done.exit_status != 0:
        said = _last_words(result.stderr, limits, capped=done.processes_cap is not None)
        return "checker_error", f"the checker exited with status {done.exit_status}{said}"
    return None


def _held_at_cap(done: Execution, limits: CertLimits) -> str:
    """A clause saying the process cap refused new processes, where the kernel counted them."""
    if not done.refused_forks:
        return ""
    return (
        f" ({done.refused_forks} new processes were refused at its process limit of "
        f"{limits.processes})"
    )


def _cpu_exhausted(done: Execution, limits: CertLimits) -> bool:
    """Whether the run ended at its CPU limit. The limit is a SIGKILL (no SIGXCPU first, so
    no checker can catch it and print a verdict in a last second: `Limits.cpu_kill`): a
    SIGKILL that the memory limit did not send is the CPU limit's, unless the route knows
    the CPU time and it was short of the limit (nor jig stopped it for flooding its output)."""
    if done.signal == signal.SIGXCPU:
        return True
    # jig's own SIGKILLs (an output flood stopped, the memory limit) are not the CPU limit.
    if done.signal != signal.SIGKILL or done.out_of_memory or done.result.truncated:
        return False
    cpu = done.cpu_sec
    return cpu is None or cpu >= limits.cpu_sec - _CPU_SLACK_SEC


_FORK_REFUSED = ("BlockingIOError", "RuntimeError: can't start new thread")


def _last_words(stderr: str, limits: CertLimits, *, capped: bool) -> str:
    lines = [line for line in stderr.strip().splitlines() if line.strip()]
    if not lines:
        return ""
    last = lines[-1].strip()[:300]
    if last.startswith("MemoryError"):
        return f": {last} (its address-space limit is {limits.address_space_mb} MB)"
    if capped and last.startswith(_FORK_REFUSED):
        return f": {last} (its process limit is {limits.processes})"
    return f": {last}"


def _undecodable_marker(stdout: bytes) -> str | None:
    """Why a `CONJECT_CERT:` line the checker printed is not UTF-8, or None. The marker is
    read from the bytes the checker wrote: decoded for a person, `token\\xff`, `token\\xfe`
    and `token` + U+FFFD would be one canonical form, one fingerprint."""
    for line in stdout.split(b"\n"):
        if line.startswith(MARKER.encode()):
            try:
                line.decode("utf-8")
            except UnicodeDecodeError as bad:
                return f"the {MARKER} line is not UTF-8 (byte {bad.start + 1} of the line)"
    return None


def parse_marker(stdout: str) -> tuple[dict[str, Any] | None, str]:
    """The checker's one `CONJECT_CERT:` object, or None and why the protocol is broken.

    Read strictly, since the checker's words decide a verdict: a key given twice, a number
    of any kind (no field is one; an oversized integer would pass Python's int-string limit,
    a non-finite one is not JSON), a field not documented or of the wrong type, a string
    that is not valid Unicode: each breaks the protocol, none is guessed at.
    """
    # Lines end at "\n" only: a canonical form printed with ensure_ascii=False may hold
    # U+2028 and friends, which str.splitlines would break the line at.
    lines = [line for line in stdout.split("\n") if line.startswith(MARKER)]
    if not lines:
        return None, f"the checker printed no {MARKER} line"
    if len(lines) > 1:
        return None, f"the checker printed {len(lines)} {MARKER} lines; exactly one is allowed"
    text = lines[0][len(MARKER) :].strip()
    try:
        payload = json.loads(
            text,
            object_pairs_hook=_unique_keys,
            parse_int=_no_number,
            parse_float=_no_number,
            parse_constant=_no_number,
        )
    except json.JSONDecodeError as exc:
        return None, f"the {MARKER} line is not valid JSON ({exc.msg} at column {exc.colno})"
    except _Refused as refused:
        return None, f"the {MARKER} object is malformed: {refused}"
    except RecursionError:
        return None, f"the {MARKER} line nests too deeply to be read"
    problem = _payload_problem(payload)
    if problem is not None:
        return None, f"the {MARKER} object is malformed: {problem}"
    return payload, ""


FIELDS = {"ok": bool, "reason": str, "canonical": str}


class _Refused(ValueError):
    """A part of the marker's JSON that the protocol does not allow."""


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            raise _Refused(f"the key {key!r} is given twice")
        seen[key] = value
    return seen


def _no_number(token: str) -> Any:
    shown = token if len(token) <= 20 else token[:20] + "…"
    raise _Refused(f"{shown} is a number; no field of the protocol is one")


def _payload_problem(payload: Any) -> str | None:
    if not isinstance(payload, dict):
        return "it must be a JSON object"
    unknown = sorted(set(payload) - set(FIELDS))
    if unknown:
        return f"{', '.join(map(repr, unknown))} is not a field (ok, reason, canonical)"
    if not isinstance(payload.get("ok"), bool):
        return "ok must be true or false"
    for name in ("reason", "canonical"):
        if name in payload and not isinstance(payload[name], str):
            return f"{name} must be a string"
        if name in payload and not is_unicode_text(payload[name]):
            return f"{name} holds a lone surrogate, which is not Unicode text"
    if payload["ok"] and "canonical" not in payload:
        return "an accepted witness needs canonical, a string"
    return None


def _tail(text: str) -> str:
    return text if len(text) <= TAIL_CHARS else "…" + text[-TAIL_CHARS:]
