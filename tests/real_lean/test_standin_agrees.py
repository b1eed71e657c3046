"""The stand-in (`tests/standin/`) and the real Lean 4.35 on the same files: what jig reads
from each must agree, so the stand-in cannot drift from Lean again. Where only the axioms
differ it is by design: the stand-in answers the axioms its scenario names."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from jigcli.lean.declarations import plain_name, unprivate
from jigcli.lean.messages import LeanMessage, LeanOutput, parse_json_messages, parse_print_axioms

from .conftest import RealLean

STANDIN_LEAN = Path(__file__).resolve().parents[1] / "standin" / "bin" / "lean"

SOURCES = {
    "failed declarations": (
        "theorem elab_error : Eq (0 : Nat) 1 := Eq.refl\n"
        "theorem kernel_error : True := True.intro True.intro\n"
        "#print axioms elab_error\n#print axioms kernel_error\n"
    ),
    "private": (
        "namespace Test\nprivate theorem x : True := True.intro\nend Test\n#print axioms Test.x\n"
    ),
    "exit": (
        "theorem before : True := True.intro\n#print axioms before\n#exit\n"
        "theorem after : True := True.intro\n#print axioms after\n"
    ),
    "primes and guillemets": (
        "theorem foo' : True := True.intro\ntheorem «end» : True := True.intro\n"
        "#print axioms foo'\n#print axioms «end»\n"
    ),
}


def _standin(file: Path, tmp_path: Path, errors: list[LeanMessage]) -> str:
    """The stand-in on `file`, told the errors real Lean reported (it replays messages; what
    it answers to `#print axioms` after them is its own)."""
    scenario = tmp_path / "scenario.json"
    replayed = [{"line": m.line, "data": m.data, "severity": "error"} for m in errors]
    scenario.write_text(json.dumps({"axioms": [], "private": ["Test.x"], "messages": replayed}))
    env = {**os.environ, "JIG_STANDIN_SCENARIO": str(scenario)}
    argv = [sys.executable, str(STANDIN_LEAN), "--json", str(file)]
    done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=60, cwd=tmp_path)
    return done.stdout


def _read(output: LeanOutput) -> tuple[dict[str, tuple[str, tuple[str, ...]]], list[int]]:
    """The answers by name (the name as printed, private module and all, and the axioms), and
    the lines of the warnings: what jig's readers take."""
    answers = {
        plain_name(unprivate(r.decl)): (r.decl, r.axioms)
        for m in output.messages
        for r in parse_print_axioms(m.data)
    }
    return answers, [m.line for m in output.messages if m.severity == "warning"]


@pytest.mark.parametrize("case", sorted(SOURCES))
def test_the_standin_reads_as_real_lean_does(real_lean: RealLean, tmp_path: Path, case: str):
    # Where jig puts its check files, run from the project root as `lake env lean` is: the
    # module a private name carries comes from this path.
    file = tmp_path / ".jig" / "lean-check" / "x.0.check.lean"
    file.parent.mkdir(parents=True)
    file.write_text("prelude\nimport JigBase\n" + SOURCES[case])
    real = parse_json_messages(real_lean.run(file, "--json", cwd=tmp_path).stdout)
    stand_in = parse_json_messages(_standin(file, tmp_path, real.errors))
    assert real.messages and _read(stand_in) == _read(real)
