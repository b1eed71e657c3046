"""The typer app as a user meets it: parse errors in jig's one line, never a traceback."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from jigcli import __version__, cli

REPO = Path(__file__).resolve().parents[1]


def _jig(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str
) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "argv", ["jig", *args])
    with pytest.raises(SystemExit) as done:
        cli.main()
    captured = capsys.readouterr()
    code = done.value.code
    return (code if isinstance(code, int) else 0), captured.out, captured.err


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["verify"], "Missing argument 'MANIFEST...'"),
        (["verify", "m.json", "--bogus"], "No such option: --bogus"),
        (["verify", "m.json", "--timeout", "soon"], "'--timeout'"),
        (["selftest", "--jobs", "0"], "'--jobs'"),
        (["selftest", "--shard"], "'--shard' requires an argument"),
        (["frob"], "No such command 'frob'"),
        (["--root"], "'--root' requires an argument"),
    ],
)
def test_a_parse_error_is_one_jig_line_that_points_at_help(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    says: str,
) -> None:
    code, out, err = _jig(monkeypatch, capsys, *args)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("jig: ")
    assert says in err
    assert "Usage:" not in err and "Traceback" not in err


def test_a_parse_error_names_the_help_of_its_command(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _code, _out, err = _jig(monkeypatch, capsys, "verify", "m.json", "--timeout", "soon")
    assert err.rstrip().endswith("see 'jig verify --help'.")


@pytest.mark.parametrize("value", ["inf", "nan", "1e400"])
@pytest.mark.parametrize("command", [["verify", "m.json"], ["selftest"]])
def test_a_timeout_that_is_not_a_finite_number_is_a_usage_error(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    command: list[str],
    value: str,
) -> None:
    code, out, err = _jig(monkeypatch, capsys, *command, "--timeout", value)
    assert (code, out) == (2, "")
    assert err.startswith("jig: ") and "finite number of seconds" in err
    assert "internal error" not in err


def test_pose_certificate_refuses_a_wall_clock_that_is_not_finite(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    checker = tmp_path / "checker.py"
    checker.write_text("print('CONJECT_CERT: {}')\n")
    (tmp_path / "good.txt").write_text("1\n")
    args = ["pose", "certificate", "C900", "--title", "t", "--statement", "s"]
    args += ["--witness-format", "w", "--checker", str(checker)]
    args += ["--green", str(tmp_path / "good.txt"), "--wall-sec", "nan", "--root", str(tmp_path)]
    code, _out, err = _jig(monkeypatch, capsys, *args)
    assert code == 2 and "finite number of seconds" in err
    assert not (tmp_path / "Certificates").exists()


def test_no_command_prints_the_help(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _out, err = _jig(monkeypatch, capsys)
    assert code == 2
    assert "Usage: jig" in err and "Commands:" in err


def test_help_and_version_exit_zero(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _err = _jig(monkeypatch, capsys, "verify", "--help")
    assert code == 0 and "--statement" in out
    code, out, _err = _jig(monkeypatch, capsys, "--version")
    assert code == 0 and out.startswith("jig ")


@pytest.mark.parametrize("flag", ["-V", "--version"])
def test_the_version_names_the_repos_lean_and_mathlib_pins(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], flag: str
) -> None:
    monkeypatch.chdir(REPO)
    code, out, _err = _jig(monkeypatch, capsys, flag)
    toolchain = (REPO / "lean-toolchain").read_text().strip()
    from jigcli.ownsource import identity

    commit = identity()["commit"]
    jig_said = f"jig {__version__}" + (f" (commit {commit[:12]})" if commit else "")
    assert code == 0
    assert out.startswith(f"{jig_said} · Lean {toolchain.rsplit(':v', 1)[1]} · ")
    assert out.rstrip().split(" · Mathlib ")[1] in (REPO / "lake-manifest.json").read_text()


def test_outside_a_repo_the_version_is_jigs_alone(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    from jigcli.ownsource import identity

    commit = identity()["commit"]
    code, out, _err = _jig(monkeypatch, capsys, "-V")
    said = f"jig {__version__}" + (f" (commit {commit[:12]})" if commit else "")
    assert (code, out) == (0, said + "\n")


def test_shell_completion_installs_and_completes_commands(tmp_path: Path) -> None:
    import os
    import subprocess

    env = {**os.environ, "HOME": str(tmp_path), "SHELL": "/bin/bash"}
    run = [sys.executable, "-m", "jigcli"]
    installed = subprocess.run([*run, "--install-completion", "bash"], env=env, capture_output=True)
    assert installed.returncode == 0, installed.stderr
    assert "jig" in (tmp_path / ".bashrc").read_text()
    asked = {**env, "_JIG_COMPLETE": "complete_bash", "COMP_WORDS": "jig pose ", "COMP_CWORD": "2"}
    done = subprocess.run(run, env=asked, capture_output=True, text=True)
    assert done.stdout.split() == ["lean", "certificate", "check"]


def test_a_command_still_returns_its_exit_code(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    violation = REPO / "Submissions" / "S001" / "MalloryAxiom.lean"
    code, out, _err = _jig(monkeypatch, capsys, "policy", str(violation), "--json")
    assert code == 1
    assert json.loads(out)["files"][0]["ok"] is False


@pytest.mark.parametrize(("value", "meant"), [("1", True), ("0", False), ("yes", True)])
@pytest.mark.parametrize(
    ("args", "command"),
    [
        (["selftest"], "jigcli.commands.selftest.run"),
        (["pose", "certificate", "C9", "--title", "t", "--statement", "s", "--witness-format",
          "w", "--checker", "c.py", "--green", "g"], "jigcli.commands.pose.run_certificate"),
    ],
)  # fmt: skip
def test_jig_allow_no_netns_reaches_selftest_and_pose_certificate(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    command: str,
    value: str,
    meant: bool,
) -> None:
    seen: dict[str, object] = {}

    def capture(*_args: object, **kwargs: object) -> int:
        seen.update(kwargs)
        return 0

    monkeypatch.setattr(command, capture)
    monkeypatch.setenv("JIG_ALLOW_NO_NETNS", value)
    code, _out, err = _jig(monkeypatch, capsys, *args)
    assert (code, err) == (0, "")
    assert seen["allow_no_netns"] is meant


def test_an_unknown_jig_allow_no_netns_is_one_jig_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("JIG_ALLOW_NO_NETNS", "please")
    code, out, err = _jig(monkeypatch, capsys, "verify", "m.json")
    assert (code, out) == (2, "")
    assert err.startswith("jig: ") and err.count("\n") == 1
    assert "--allow-no-netns" in err and "'please'" in err


@pytest.mark.parametrize(
    ("args", "env", "said"),
    [
        (
            ["verfy", "x"],
            {},
            "jig: No such command 'verfy'. Did you mean 'verify'? See 'jig --help'.\n",
        ),
        (
            ["verify", "x.json", "--timeout", "abc"],
            {},
            "jig: Invalid value for '--timeout': 'abc' is not a number; see 'jig verify --help'.\n",
        ),
        (
            ["selftest", "--jobs", "x"],
            {},
            "jig: Invalid value for '--jobs' / '-j': 'x' is not a whole number; "
            "see 'jig selftest --help'.\n",
        ),
        (
            ["selftest"],
            {"JIG_ALLOW_NO_NETNS": "x"},
            "jig: Invalid value for '--allow-no-netns' (env var: 'JIG_ALLOW_NO_NETNS'): 'x' is "
            "not a yes or no: use 1 or 0 (or true, false); see 'jig selftest --help'.\n",
        ),
    ],
)
def test_parse_errors_read_as_one_plain_sentence(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    env: dict[str, str],
    said: str,
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    code, out, err = _jig(monkeypatch, capsys, *args)
    assert (code, out, err) == (2, "", said)


def test_no_help_shows_a_range_type_as_a_metavariable(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for command in (["verify"], ["selftest"], ["pose", "certificate"]):
        code, out, _err = _jig(monkeypatch, capsys, *command, "--help")
        assert code == 0 and "range>" not in out, command


def _command_paths() -> list[list[str]]:
    import typer.main

    def walk(command: object, path: list[str]) -> list[list[str]]:
        found = [path]
        for name, sub in sorted(getattr(command, "commands", {}).items()):
            found += walk(sub, [*path, name])
        return found

    return walk(typer.main.get_command(cli.app), [])


@pytest.mark.parametrize("path", _command_paths(), ids=lambda path: " ".join(path) or "jig")
def test_every_help_fits_an_80_column_terminal(path: list[str]) -> None:
    import os
    import subprocess

    done = subprocess.run(
        [sys.executable, "-m", "jigcli", *path, "--help"],
        env={**os.environ, "COLUMNS": "80", "NO_COLOR": "1"},
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    too_wide = [line for line in done.stdout.splitlines() if len(line) > 80]
    assert too_wide == []


@pytest.mark.parametrize(
    "args",
    [
        ["verify", "a/" * 2100 + "x.json"],  # past PATH_MAX
        ["verify", "a" * 300 + ".json"],  # a name past NAME_MAX
        ["verify", "a" * 300 + ".json", "Certificates/C001/submissions/off-by-one.json"],
        ["policy", "a" * 300 + ".lean"],
        ["compile", "a" * 300 + ".tex"],
        ["lean-check", "a" * 300 + ".tex"],
        ["selftest", "a" * 300],
    ],
    ids=[
        "verify-path",
        "verify-name",
        "verify-batch",
        "policy",
        "compile",
        "lean-check",
        "selftest",
    ],
)
def test_a_path_too_long_for_the_system_is_a_usage_error_in_one_line(args: list[str]) -> None:
    import os
    import subprocess

    done = subprocess.run(
        [sys.executable, "-m", "jigcli", *args],
        cwd=Path(__file__).resolve().parents[1], env={**os.environ, "NO_COLOR": "1"},
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    (said,) = done.stderr.strip().splitlines()
    assert said.startswith("jig: ") and "…" in said and len(said) < 200
    assert "shorter path" in said and done.stdout == ""
