"""`jig verifiers`: the registry, every verifier with its verdict words and their statuses,
and which of them the repo's `jig.yaml` turns on.

`--json` prints `{"status": "ok", "verifiers": [...]}`, each verifier `{"id", "label",
"subject", "trigger", "verdicts": {word: status}, "module", "documents", "enabled",
"command"}`, in registration order; `module` names the
bundle that switches it on (the key predates the word), null for a built-in; `enabled` is
true or false for the repo (`--root`, else found by walking up: a built-in is always on,
another verifier when a bundle its `jig.yaml` lists switches it on) and null outside any
repo; `command` is the jig command that runs it on request, which it does whether or not the
repo switches it on.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from jigcli.console import emit_json, out
from jigcli.errors import RepoNotFound
from jigcli.render.lines import mark
from jigcli.repo import Repo
from jigcli.verifiers.bundles import CONFIG_FILE, CONFIG_KEY, catalog, enabled_verifiers
from jigcli.verifiers.contract import VerifierSpec
from jigcli.verifiers.registry import all_verifiers

# The command that runs each built-in verifier when asked, switched on or not.
COMMANDS = {
    "compile": "jig compile",
    "lean": "jig lean-check",
    "audit": "jig audit",
    "submission": "jig verify",
}


def describe(spec: VerifierSpec, enabled: bool | None = None) -> dict[str, Any]:
    return {
        "id": spec.id,
        "label": spec.label,
        "subject": spec.subject,
        "trigger": spec.trigger,
        "verdicts": dict(spec.verdicts),
        "module": spec.bundle,  # the key predates the word bundle
        "documents": list(spec.documents),
        "enabled": enabled,
        "command": COMMANDS.get(spec.id),
    }


def run(*, as_json: bool, root: Path | None) -> int:
    specs = all_verifiers()
    repo = _repo(root)
    on = None if repo is None else enabled_verifiers(repo)
    enabled = {spec.id: _is_on(spec, on) for spec in specs}
    if as_json:
        emit_json(
            {"status": "ok", "verifiers": [describe(spec, enabled[spec.id]) for spec in specs]}
        )
        return 0
    from rich.markup import escape

    console = out()
    width = max(len(spec.id) for spec in specs)
    switches = _switched_on_by(repo)
    for spec in specs:
        facts = [
            spec.subject,
            spec.trigger,
            spec.bundle or "built in",
            " ".join(spec.documents) or "any",
        ]
        if enabled[spec.id] is not None:
            facts.append(_on_words(spec, enabled[spec.id], switches.get(spec.id, [])))
        name = escape(spec.id.ljust(width))
        facts_said = escape(" · ".join(facts))
        console.print(f"[bold]{name}[/]  {escape(spec.label)} [dim]· {facts_said}[/]")
        verdicts = "   ".join(
            f"{mark(status)} {escape(word)} [dim]{status}[/]"
            for word, status in spec.verdicts.items()
        )
        console.print(" " * (width + 2) + verdicts)
    return 0


def _repo(root: Path | None) -> Path | None:
    """The repo's root: `--root` (which must be a folder), else found above; None outside one."""
    try:
        return Repo.locate(root).root
    except RepoNotFound:
        return None


def _is_on(spec: VerifierSpec, on: set[str] | None) -> bool | None:
    if on is None:
        return None
    return spec.bundle is None or spec.id in on


def _switched_on_by(repo: Path | None) -> dict[str, list[str]]:
    """For each verifier id, the bundles (jig's catalog and the repo's) that switch it on."""
    by_id: dict[str, list[str]] = {}
    for bundle in catalog(repo).values():
        for verifier_id in bundle.verifies:
            by_id.setdefault(verifier_id, []).append(bundle.name)
    return by_id


def _on_words(spec: VerifierSpec, enabled: bool | None, bundles: list[str]) -> str:
    if enabled:
        return "on"
    names = " or ".join(sorted(bundles)) or str(spec.bundle)
    command = COMMANDS.get(spec.id)
    asked = f"runs on request ({command}); " if command else ""
    return f"{asked}not switched on for this repo: list {names} in {CONFIG_FILE}'s {CONFIG_KEY}"
