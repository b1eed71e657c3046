"""`jig doctor`: what this machine has for each verifier, and what to do about what is missing.

Four sections, each reported by the part that owns it: Lean (`jigcli.lean.backend`), the
sandbox of a submission's build (`jigcli.lean.comparator.sandbox`), the certificate sandbox
(`jigcli.certificates.isolation`), TeX (`jigcli.latex.compile`). Then, per verifier, whether
this machine can run it and whether the repo switches it on. Exit 0 when every verifier asked
about can run here with every kind it has: those named on the command line, else those the
repo switches on (the built-in `compile` and `submission`, and what `jig.yaml`'s bundles add).
`submission` has two kinds (certificates need a sandbox, Lean proofs need Lean and a build
sandbox); a kind that cannot run is "not checked here", which `jig verify` says too: exit 4,
as verify's. Exit 1 when a verifier asked about cannot run at all.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from jigcli.console import emit_json, hanging, out
from jigcli.errors import RepoNotFound, UsageError
from jigcli.repo import Repo
from jigcli.verdict import EXIT_NOT_CHECKED, REASONS, status_for_exit

GET_LEAN = REASONS["toolchain_missing"].next

NO_REPO = "no verifier repo here (no lakefile.toml above the working directory); pass --root DIR"
NO_SANDBOX = "no isolation route works: install bubblewrap (apt-get install bubblewrap)"
NO_BUILD_SANDBOX = (
    "no sandbox here confines a build's files, so no submission can be built "
    "(sandbox_unavailable): install bubblewrap (apt-get install bubblewrap) and allow "
    "unprivileged user namespaces"
)
NO_TEX = "no pdflatex: install texlive-latex-base, texlive-latex-recommended and latexmk"


def run(*, as_json: bool, root: Path | None, verifiers: list[str] | None = None) -> int:
    report = gather(root, verifiers)
    if as_json:
        emit_json(report)
    else:
        _show(report)
    return int(report["exit_code"])


def gather(root: Path | None, asked: list[str] | None = None) -> dict[str, Any]:
    """The whole report: one section per verifier family, each verifier's readiness, and the
    problems to fix. `ready` covers the verifiers `asked` about (default: those switched on)."""
    from jigcli.certificates.isolation import describe as describe_sandbox
    from jigcli.latex.compile import describe as describe_tex
    from jigcli.lean.comparator.sandbox import describe_for as describe_build

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
    verifiers = _verifiers(repo, lean, build, sandbox, tex)
    _check_asked(asked, verifiers)
    considered = [v for v in verifiers if (v["id"] in asked if asked else v["on"])]
    return {
        "lean": lean,
        "lean_build": build,
        "sandbox": sandbox,
        "tex": tex,
        "verifiers": verifiers,
        "asked": [v["id"] for v in considered],
        **_readiness(considered),
        "problems": found,
    }


def _readiness(considered: list[dict[str, Any]]) -> dict[str, Any]:
    """`ready` only when every kind of every verifier asked about runs here; what does not, per
    kind (`submission (lean)`); and the exit: 0 ready, 4 when each runs but some kind is "not
    checked here" (as `jig verify` exits for it), 1 when one cannot run at all."""
    unchecked = [
        f"{v['id']} ({kind})" if v["runs"] else v["id"]
        for v in considered
        for kind in ([k for k, runs in v["kinds"].items() if not runs] if v["runs"] else [""])
    ]
    ready = not unchecked
    every_one_runs = all(v["runs"] for v in considered)
    code = 0 if ready else EXIT_NOT_CHECKED if every_one_runs else 1
    return {
        "status": status_for_exit(code),
        "ready": ready,
        "not_checked_here": unchecked,
        "exit_code": code,
    }


def _verifiers(
    repo: Repo | None,
    lean: dict[str, Any],
    build: dict[str, Any],
    sandbox: dict[str, Any],
    tex: dict[str, Any],
) -> list[dict[str, Any]]:
    """Per registered verifier: switched on for this repo, can it run here, and what it lacks."""
    on = _switched_on(repo)
    lean_proofs = bool(lean["ready"]) and build["route"] is not None
    certificates = sandbox["chosen"] is not None
    lean_needs = f"{lean.get('problem') or NO_BUILD_SANDBOX}. {GET_LEAN}"
    rows = [
        ("compile", bool(tex["ready"]), {}, NO_TEX),
        ("lean", bool(lean["ready"]), {}, lean_needs),
        ("audit", True, {}, None),
        (
            "submission",
            lean_proofs or certificates,
            {"certificate": certificates, "lean": lean_proofs},
            "; ".join(
                need
                for need, missing in (
                    (f"certificates: {NO_SANDBOX}", not certificates),
                    (f"Lean proofs: {lean_needs}", not lean_proofs),
                )
                if missing
            )
            or None,
        ),
    ]
    return [
        {
            "id": name,
            "on": name in on,
            "runs": runs,
            "kinds": kinds,
            "needs": None if runs and all(kinds.values()) else needs,
        }
        for name, runs, kinds, needs in rows
    ]


def _switched_on(repo: Repo | None) -> set[str]:
    """The built-in verifiers, and those the repo's `jig.yaml` bundles switch on."""
    from jigcli.verifiers.bundles import BundleError, enabled_verifiers
    from jigcli.verifiers.registry import all_verifiers

    built_in = {spec.id for spec in all_verifiers() if spec.bundle is None}
    if repo is None:
        return built_in
    try:
        return built_in | enabled_verifiers(repo.root)
    except BundleError:  # `jig verifiers` says what is wrong with jig.yaml; doctor goes on
        return built_in


def _check_asked(asked: list[str] | None, verifiers: list[dict[str, Any]]) -> None:
    known = [v["id"] for v in verifiers]
    unknown = [name for name in asked or [] if name not in known]
    if unknown:
        raise UsageError(
            f"{unknown[0]!r} is not a verifier; name one of {', '.join(known)} (or none)."
        )


def _repo(root: Path | None) -> Repo | None:
    try:
        return Repo.locate(root)
    except RepoNotFound:
        return None


def _lean_section(repo: Repo | None) -> dict[str, Any]:
    from jigcli.lean.backend import describe as describe_lean

    if repo is None:
        return {"repo": None, "ready": False, "problem": NO_REPO}
    return {"repo": str(repo.root), **describe_lean(repo), "judge": _judge(repo)}


def _judge(repo: Repo) -> dict[str, Any]:
    """comparator and lean4export as this repo pins them (`lake-manifest.json`), and whether
    the trusted build has made them yet (`jig verify` builds them first); nanoda, if any."""
    from jigcli.lean.comparator.run import find_nanoda
    from jigcli.lean.pipeline import COMPARATOR_TARGET, LEAN4EXPORT_TARGET, program_path

    try:
        locked = json.loads((repo.root / "lake-manifest.json").read_text(encoding="utf-8"))
        revs = {p.get("name"): p.get("rev") for p in locked.get("packages", [])}
    except (OSError, ValueError, AttributeError):
        revs = {}
    found: dict[str, Any] = {}
    for target in (COMPARATOR_TARGET, LEAN4EXPORT_TARGET):
        program = program_path(repo.root, target)
        found[target[1]] = {
            "rev": revs.get(target[0]),
            "built": program.is_file(),
            "path": repo.rel(program),
        }
    nanoda = find_nanoda()
    found["nanoda"] = {"path": str(nanoda) if nanoda else None}
    return found


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


_WORDS_AT = 21  # where a row's words start: `  ● ` and a name of 16
_GUARD_WIDTH = 10  # `memory    `: a guard's label and its space


def _show(report: dict[str, Any]) -> None:
    from rich.markup import escape

    from jigcli.render.lines import mark

    console = out()

    def row(ok: bool, name: str, words: str) -> None:
        said = f"  {mark('ok' if ok else 'pending')} {escape(name.ljust(16))} {escape(words)}"
        hanging(console, said, _WORDS_AT)

    def guard(said: str) -> None:  # `memory    capped: …`, its lines under `capped`
        hanging(console, f"{' ' * _WORDS_AT}{escape(said)}", _WORDS_AT + _GUARD_WIDTH)

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
    for name, said in lean.get("judge", {}).items():
        if name == "nanoda":
            where = said["path"] or "not installed (comparator's second kernel, optional)"
            row(said["path"] is not None, name, where)
            continue
        rev = (said["rev"] or "not pinned")[:12]
        state = "built" if said["built"] else "not built yet: `jig verify` builds it first"
        row(said["rev"] is not None, name, f"{rev} · {state}")
    build = report["lean_build"]
    console.print("[bold]Sandbox[/] (Lean builds: the submission's code)")
    if build["route"] is None:
        row(False, "none", build["why"] or "")
    else:
        row(True, build["route"], f"confines a build's files (probed with {build['probed_with']})")
        for said in _build_limits(build):
            guard(said)
    console.print("[bold]Sandbox[/] (certificate checkers)")
    for route in report["sandbox"]["routes"]:
        chosen = " (used)" if route["name"] == report["sandbox"]["chosen"] else ""
        row(route["ok"], route["name"], f"works{chosen}" if route["ok"] else route["why"] or "")
        if route["ok"]:  # what holds a checker here, and what does not
            for label, held, why in _guards(route):
                guard(f"{label} {'' if held else 'NOT '}{why}")
    console.print(f"[bold]TeX[/] (builder: {escape(report['tex']['builder'])})")
    for name, program in report["tex"]["programs"].items():
        row(program["path"] is not None, name, program["version"] or "not found")
    _show_verifiers(report, row)
    if report["ready"]:
        console.print(f"[green]Ready[/] for {escape(', '.join(report['asked']))}.")
    elif report["exit_code"] == EXIT_NOT_CHECKED:
        unchecked = ", ".join(report["not_checked_here"])
        said = (
            f"[yellow]Partly ready[/]: {escape(', '.join(report['asked']))} run here, but not "
            f"checked here: {escape(unchecked)}."
        )
        hanging(console, said, 2)
    else:
        cannot = escape(", ".join(report["not_checked_here"]))
        hanging(console, f"[red]Not ready[/]: cannot run here: {cannot}.", 2)
    for problem in report["problems"]:
        hanging(console, f"[bold]Missing:[/] {escape(problem)}", 9)


def _show_verifiers(report: dict[str, Any], row: Any) -> None:
    console = out()
    console.print("[bold]Verifiers[/] (● runs here, ○ not checked here)")
    for verifier in report["verifiers"]:
        state = "on" if verifier["on"] else "off for this repo"
        kinds = verifier["kinds"]
        if kinds and verifier["runs"] and not all(kinds.values()):
            only = ", ".join(kind for kind, runs in kinds.items() if runs)
            lacking = ", ".join(kind for kind, runs in kinds.items() if not runs)
            state += f"; runs here for {only}; {lacking}: not checked here (see Missing)"
        elif not verifier["runs"]:
            state += "; cannot run here (see Missing)"
        row(verifier["runs"], verifier["id"], state)
