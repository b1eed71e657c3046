"""`jig doctor`: what this machine has for each verifier, and what to do about what is missing.

Four sections, each reported by the part that owns it: Lean (`jigcli.lean.backend`), the
sandbox of a submission's build (`jigcli.lean.build`), the certificate sandbox
(`jigcli.certificates.isolation`), TeX (`jigcli.latex.compile`). Exit 0 only when all are
ready; the report says, per section, what is missing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from jigcli.console import emit_json, out
from jigcli.errors import RepoNotFound
from jigcli.repo import Repo
from jigcli.verdict import REASONS

GET_LEAN = REASONS["toolchain_missing"].next

NO_REPO = "no verifier repo here (no lakefile.toml above the working directory); pass --root DIR"
NO_SANDBOX = "no isolation route works: install bubblewrap (apt-get install bubblewrap)"
NO_BUILD_SANDBOX = (
    "no sandbox here confines a build's files, so no submission can be built "
    "(sandbox_unavailable): install bubblewrap (apt-get install bubblewrap) and allow "
    "unprivileged user namespaces"
)
NO_TEX = "no pdflatex: install texlive-latex-base, texlive-latex-recommended and latexmk"


def run(*, as_json: bool, root: Path | None) -> int:
    report = gather(root)
    if as_json:
        emit_json(report)
    else:
        _show(report)
    return 0 if report["ready"] else 1


def gather(root: Path | None) -> dict[str, Any]:
    """The whole report: one section per verifier family, and the problems to fix."""
    from jigcli.certificates.isolation import describe as describe_sandbox
    from jigcli.latex.compile import describe as describe_tex
    from jigcli.lean.build import describe_for as describe_build

    repo = _repo(root)
    lean = _lean_section(repo)
    build = describe_build(repo)
    sandbox = describe_sandbox()
    tex = describe_tex()
    problems = [
        f"Lean: {lean['problem']}. {GET_LEAN}" if not lean["ready"] else None,
        f"Lean builds: {NO_BUILD_SANDBOX} ({build['why']})" if build["route"] is None else None,
        f"sandbox: {NO_SANDBOX}" if sandbox["chosen"] is None else None,
        f"TeX: {NO_TEX}" if not tex["ready"] else None,
    ]
    found = [problem for problem in problems if problem]
    return {
        "lean": lean,
        "lean_build": build,
        "sandbox": sandbox,
        "tex": tex,
        "ready": not found,
        "problems": found,
    }


def _repo(root: Path | None) -> Repo | None:
    try:
        return Repo.locate(root)
    except RepoNotFound:
        return None


def _lean_section(repo: Repo | None) -> dict[str, Any]:
    from jigcli.lean.backend import describe as describe_lean

    if repo is None:
        return {"repo": None, "ready": False, "problem": NO_REPO}
    return {"repo": str(repo.root), **describe_lean(repo)}


def _guards(route: dict[str, Any]) -> list[tuple[str, bool, str]]:
    """(what, held, how or why not) for each guard of a working sandbox route."""
    processes, memory = route["processes"], route["memory"]
    filtered, root = route["seccomp"], route["as_root"]
    return [
        ("processes", processes["capped"], f"capped: {processes['why']}"),
        ("memory   ", memory["capped"], f"capped: {memory['why']}"),
        ("seccomp  ", filtered["applied"], f"applied: {filtered['why']}"),
        ("as root  ", root["holds"], f"held: {root['why']}"),
    ]


def _build_limits(build: dict[str, Any]) -> list[str]:
    """What bounds a sandboxed build here, beyond its files."""
    memory = build["memory"]
    capped = f"capped at {memory['mb']} MB" if memory["capped"] else "NOT capped"
    return [f"memory    {capped}: {memory['why']}", f"up to {build['processes']} processes"]


def _show(report: dict[str, Any]) -> None:
    from rich.markup import escape

    from jigcli.render.lines import mark

    console = out()

    def row(ok: bool, name: str, words: str) -> None:
        console.print(
            f"  {mark('ok' if ok else 'pending')} {escape(name.ljust(16))} {escape(words)}"
        )

    lean = report["lean"]
    console.print("[bold]Lean[/]" + (f"  [dim]{escape(lean['repo'])}[/]" if lean["repo"] else ""))
    if lean["repo"] is None:  # no pins to read: say why the section is empty
        row(False, "repo", NO_REPO)
    for name, path in lean.get("programs", {}).items():
        version = lean.get("versions", {}).get(name)
        row(path is not None, name, f"{path}  {version or ''}".strip() if path else "not found")
    pins = lean.get("pins")
    if pins:
        pinned = f"{pins['lean_toolchain']} · Mathlib {pins['mathlib_rev']}"
        console.print(f"  pins: {escape(pinned)}")
    cache = lean.get("mathlib_cache")
    if cache:
        row(cache["present"], "Mathlib cache", cache["path"] if cache["present"] else "missing")
    build = report["lean_build"]
    console.print("[bold]Sandbox[/] (Lean builds: the submission's code)")
    if build["route"] is None:
        row(False, "none", build["why"] or "")
    else:
        row(True, build["route"], f"confines a build's files (probed with {build['probed_with']})")
        for said in _build_limits(build):
            console.print(f"  {' ' * 19}{escape(said)}")
    console.print("[bold]Sandbox[/] (certificate checkers)")
    for route in report["sandbox"]["routes"]:
        chosen = " (used)" if route["name"] == report["sandbox"]["chosen"] else ""
        row(route["ok"], route["name"], f"works{chosen}" if route["ok"] else route["why"] or "")
        if route["ok"]:  # what holds a checker here, and what does not
            for label, held, why in _guards(route):
                said = f"{label} {'' if held else 'NOT '}{why}"
                console.print(f"  {' ' * 19}{escape(said)}")
    console.print(f"[bold]TeX[/] (builder: {escape(report['tex']['builder'])})")
    for name, program in report["tex"]["programs"].items():
        row(program["path"] is not None, name, program["version"] or "not found")
    if report["ready"]:
        console.print("[green]Ready.[/]")
    for problem in report["problems"]:
        console.print(f"[bold]Missing:[/] {escape(problem)}")
