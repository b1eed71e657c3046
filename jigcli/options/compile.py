"""`jig compile`'s options (`jigcli.commands.compile.run`'s keywords)."""

from __future__ import annotations

from jigcli.options import FORMAT, JSON, Command, Option

WATCH = Option("--watch", "watch", False, "Rebuild on every settled edit.")
NO_BUILD = Option("--no-build", "no_build", False, "Only say whether the last build is current.")
ENGINE: Option[str | None] = Option(
    "--engine",
    "engine",
    None,
    "pdflatex, xelatex or lualatex (remembered for the paper); auto forgets it.",
    read=str,
)

COMPILE = Command("compile", "file", (JSON, FORMAT, WATCH, NO_BUILD, ENGINE))
