"""What jig reads of real Lean 4.35's messages (`jigcli.lean.messages`, the names of
`jigcli.lean.declarations`), on `prelude` files: every format jig parses, as Lean prints it."""

from __future__ import annotations

import json
import signal
from pathlib import Path

from jigcli.lean.backend import LeanRun
from jigcli.lean.declarations import parse_lean, plain_name, unprivate
from jigcli.lean.messages import parse_json_messages, parse_print_axioms
from jigcli.process import run_bounded

from .conftest import RealLean


def _axioms(real_lean: RealLean, source: str, tmp_path: Path) -> dict[str, tuple[str, ...]]:
    """Each `#print axioms` answer, by the name as the file spells it."""
    output = parse_json_messages(real_lean.json(source, tmp_path))
    reports = [r for m in output.messages for r in parse_print_axioms(m.data)]
    return {plain_name(unprivate(r.decl)): r.axioms for r in reports}


def test_every_json_line_is_one_message_with_its_place(real_lean: RealLean, tmp_path: Path):
    said = real_lean.json("theorem hole : Eq (0 : Nat) 0 := sorry\n", tmp_path)
    output = parse_json_messages(said)
    assert output.other_lines == []
    (warning,) = output.messages
    assert json.loads(said.splitlines()[0])["kind"] == "hasSorry"
    assert (warning.severity, warning.kind) == ("warning", "hasSorry")
    assert warning.mentions("declaration uses") and warning.mentions("sorry")
    # The warning sits on the declaration's name (line 3, columns 8–12), not its keyword.
    assert (warning.line, warning.column, warning.end_line, warning.end_column) == (3, 8, 3, 12)
    assert warning.where("Paper.lean") == "Paper.lean:3:9:"


def test_axioms_of_names_with_primes_and_guillemets(real_lean: RealLean, tmp_path: Path):
    source = (
        "axiom myAx : True\n"
        "theorem foo' : True := myAx\n"
        "theorem foo'' : True := True.intro\n"
        "theorem «a.b» : True := myAx\n"
        "theorem «end».x : True := True.intro\n"
        "theorem «1st» : True := True.intro\n"
        "#print axioms foo'\n#print axioms foo''\n#print axioms «a.b»\n"
        "#print axioms «end».x\n#print axioms «1st»\n"
    )
    assert _axioms(real_lean, source, tmp_path) == {
        "foo'": ("myAx",),
        "foo''": (),
        "«a.b»": ("myAx",),  # a dotted part stays quoted, as the file's parser keeps it
        "end.x": (),  # a keyword part is printed bare
        "1st": (),
    }


def test_a_private_name_carries_its_module_and_loses_it_when_read(
    real_lean: RealLean, tmp_path: Path
):
    folder = tmp_path / ".jig" / "lean-check"
    folder.mkdir(parents=True)
    file = folder / "x.0.check.lean"
    file.write_text(
        "prelude\nimport JigBase\nprivate theorem p' : True := True.intro\n#print axioms p'\n"
    )
    said = real_lean.run(file, "--json", cwd=tmp_path).stdout
    (report,) = parse_print_axioms(parse_json_messages(said).messages[0].data)
    assert report.decl == "_private.«.jig».«lean-check».«x.0.check».0.p'"
    assert unprivate(report.decl) == "p'"


def test_a_long_axiom_list_wraps_and_is_read_whole(real_lean: RealLean, tmp_path: Path):
    names = [f"anAxiomWithALongNameNumber{n}" for n in range(8)]
    source = "".join(f"axiom {n} : True\n" for n in names)
    source += "theorem k (_ _ _ _ _ _ _ _ : True) : True := True.intro\n"
    source += f"theorem many : True := k {' '.join(names)}\n#print axioms many\n"
    output = parse_json_messages(real_lean.json(source, tmp_path))
    (printed,) = [m for m in output.messages if "depends on" in m.data]
    assert "\n" in printed.data  # Lean broke the list over lines (width 120)
    assert set(_axioms(real_lean, source, tmp_path)["many"]) == set(names)


def test_failed_declarations_still_answer_print_axioms(real_lean: RealLean, tmp_path: Path):
    source = (
        "theorem elab_error : Eq (0 : Nat) 1 := Eq.refl\n"
        "set_option maxHeartbeats 1 in\n"
        "theorem out_of_time : Eq (Nat.succ Nat.zero) (Nat.succ Nat.zero) := Eq.refl\n"
        "#print axioms elab_error\n#print axioms out_of_time\n"
    )
    output = parse_json_messages(real_lean.json(source, tmp_path))
    kinds = {m.kind for m in output.errors}
    assert "runtime.maxHeartbeats" in kinds
    # After an elaboration error the declaration is added with `sorryAx` in the hole, or (when
    # the kernel then refuses it) as an axiom of its own: either way an answer, never "proved"
    # on its own, so jig reads the error in its lines first.
    answered = _axioms(real_lean, source, tmp_path)
    assert answered["elab_error"] in (("sorryAx",), ("elab_error",))
    assert "out_of_time" not in answered
    assert any(m.mentions("unknown constant") and m.line == 7 for m in output.errors)


def test_recursion_depth_is_an_error_with_its_kind(real_lean: RealLean, tmp_path: Path):
    term = "(" * 50 + "True.intro" + ")" * 50
    source = f"set_option maxRecDepth 20 in\ntheorem deep : True := {term}\n"
    output = parse_json_messages(real_lean.json(source, tmp_path))
    (error,) = output.errors
    assert error.kind == "runtime.maxRecDepth" and error.mentions("maximum recursion depth")


def test_exit_ends_what_lean_reads_and_what_jig_reads(real_lean: RealLean, tmp_path: Path):
    source = (
        "theorem before : True := True.intro\n#print axioms before\n#exit\n"
        "theorem after : True := True.intro\n#print axioms after\n"
    )
    output = parse_json_messages(real_lean.json(source, tmp_path))
    assert _axioms(real_lean, source, tmp_path) == {"before": ()}
    assert any(m.mentions("using 'exit' to interrupt Lean") for m in output.messages)
    read = parse_lean(tmp_path / "Check.lean", "prelude\nimport JigBase\n" + source)
    assert [d.name for d in read.decls] == ["before"]
    assert read.exit_line == 5 and read.read_text.endswith("#print axioms before\n")


def test_a_stack_overflow_is_a_crash_with_nothing_on_stdout(real_lean: RealLean, tmp_path: Path):
    depth = 2_000_000
    file = tmp_path / "Deep.lean"
    term = "(" * depth + "True.intro" + ")" * depth
    body = f"set_option maxRecDepth 100000000\ntheorem t : True := {term}\n#print axioms t\n"
    file.write_text("prelude\nimport JigBase\n" + body)
    env = {"LEAN_PATH": str(real_lean.base)}
    result = run_bounded([real_lean.lean, "--json", file], cwd=tmp_path, env=env, timeout=120)
    run = LeanRun(result, parse_json_messages(result.stdout))
    assert result.signal == signal.SIGABRT
    assert "Stack overflow detected. Aborting." in result.stderr
    assert run.output.messages == [] and run.crashed


def test_a_missing_file_is_not_json_and_is_a_crash(real_lean: RealLean, tmp_path: Path):
    result = run_bounded([real_lean.lean, "--json", tmp_path / "Nope.lean"], cwd=tmp_path)
    run = LeanRun(result, parse_json_messages(result.stdout))
    assert result.returncode == 1 and run.output.messages == []
    assert "no such file or directory" in result.output
    assert run.crashed
