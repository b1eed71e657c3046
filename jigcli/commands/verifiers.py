"""`jig verifiers`: the registry, every verifier with its verdict words and their statuses.

`--json` prints a list of `{"id", "label", "subject", "trigger", "verdicts": {word: status},
"module", "documents"}`, in registration order; `module` is null for a built-in.
"""

from __future__ import annotations

from typing import Any

from jigcli.console import emit_json, out
from jigcli.verifiers.registry import VerifierSpec, all_verifiers
from jigcli.verifiers.render import mark


def describe(spec: VerifierSpec) -> dict[str, Any]:
    return {
        "id": spec.id,
        "label": spec.label,
        "subject": spec.subject,
        "trigger": spec.trigger,
        "verdicts": dict(spec.verdicts),
        "module": spec.module,
        "documents": list(spec.documents),
    }


def run(*, as_json: bool) -> int:
    specs = all_verifiers()
    if as_json:
        emit_json([describe(spec) for spec in specs])
        return 0
    from rich.markup import escape

    console = out()
    width = max(len(spec.id) for spec in specs)
    for spec in specs:
        facts = " · ".join(
            (
                spec.subject,
                spec.trigger,
                spec.module or "built in",
                " ".join(spec.documents) or "any",
            )
        )
        name = escape(spec.id.ljust(width))
        console.print(f"[bold]{name}[/]  {escape(spec.label)}  [dim]{escape(facts)}[/]")
        verdicts = "   ".join(
            f"{mark(status)} {escape(word)} [dim]{status}[/]"
            for word, status in spec.verdicts.items()
        )
        console.print(" " * (width + 2) + verdicts)
    return 0
