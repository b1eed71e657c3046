"""Confining a TeX build: what comes back from the build folder, which links lead out."""

from __future__ import annotations

import os
from pathlib import Path

from jigcli.latex import confine
from jigcli.sandbox.environment import environment
from jigcli.sandbox.routes import route_named


def test_only_regular_files_come_back_and_a_link_beside_the_paper_is_replaced(
    tmp_path: Path,
) -> None:
    out, paper = tmp_path / "out", tmp_path / "paper"
    out.mkdir()
    paper.mkdir()
    victim = tmp_path / "victim.txt"
    victim.write_text("untouched\n")
    (out / "p.pdf").write_bytes(b"%PDF-1.5 made in the sandbox")
    (out / "p.log").symlink_to(victim)  # the build planted a link: never followed
    os.mkfifo(out / "p.aux")  # nor a FIFO, which would block an open for ever
    (paper / "p.pdf").symlink_to(victim)  # the paper planted one where the PDF goes
    confine.copy_back(out, paper / "p.tex")
    assert (paper / "p.pdf").read_bytes() == b"%PDF-1.5 made in the sandbox"
    assert not (paper / "p.pdf").is_symlink()
    assert not (paper / "p.log").exists() and not (paper / "p.aux").exists()
    assert victim.read_text() == "untouched\n"


def test_links_out_of_the_folder_are_found_and_links_inside_or_in_dot_folders_are_not(
    tmp_path: Path,
) -> None:
    paper = tmp_path / "paper"
    (paper / "chapters").mkdir(parents=True)
    (paper / ".git").mkdir()
    (paper / "chapters" / "one.tex").write_text("x")
    (paper / "same.tex").symlink_to("chapters/one.tex")
    (paper / "chapters" / "etc").symlink_to("/etc")
    (paper / "leak.tex").symlink_to(tmp_path / "secret.tex")
    (paper / ".git" / "elsewhere").symlink_to("/etc")
    found = {(p.relative_to(paper).as_posix(), target) for p, target in confine.links_out(paper)}
    assert found == {("chapters/etc", "/etc"), ("leak.tex", str(tmp_path / "secret.tex"))}


def test_the_sandbox_sees_the_paper_read_only_and_writes_only_its_build_folder(
    tmp_path: Path,
) -> None:
    paper, out = tmp_path / "paper", tmp_path / "out"
    job = confine.tex_job(
        ["lualatex", "p.tex"], source=paper, out=out, env={"A": "1"}, wall_sec=300
    )
    assert paper in job.view.read_only and job.view.writable == (out,)
    assert job.view.workdir == paper and job.env == {"A": "1"}
    argv = route_named(confine.ROUTE).command(list(job.argv), job, tmp_path / "stage")
    pairs = list(zip(argv, argv[1:], argv[2:], strict=False))
    assert ("--ro-bind", str(paper), str(paper)) in pairs
    assert ("--bind", str(out), str(out)) in pairs
    assert [a for a in argv if a == "--bind"] == ["--bind"]  # nothing else writable
    assert {"--unshare-all", "--die-with-parent", "--new-session"} <= set(argv)
    assert argv[-3:] == ["--", "lualatex", "p.tex"]
    home = str(Path.home())
    assert not any(a == home or a.startswith(home + "/") for a in argv[: argv.index("--")])
    # The environment is made from scratch: nothing of the caller's (no $HOME, no tokens).
    assert set(environment(Path("/scratch"), job.env)) == {"PATH", "LANG", "LC_ALL", "TMPDIR", "A"}
