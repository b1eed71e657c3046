"""Reading what Lean prints: `lean --json` messages, `#print axioms` lines (for `jig lean-check`
and `jig pose`; no Lean verdict of `jig verify` reads message text: comparator decides it,
`jigcli/lean/comparator/`),
Lake's build log (shown to the user), and version lines.

Every format here follows a real source, named where it is parsed:

- `lean --json` prints one JSON object per line, a `SerialMessage` (leanprover/lean4,
  `src/Lean/Message.lean`: `structure BaseMessage` with `fileName`, `pos`, `endPos`,
  `keepFullRange`, `severity`, `isSilent`, `caption`, `data`, and `SerialMessage extends
  BaseMessage String` adding `kind`, all `deriving ToJson`). `pos.line` is 1-based and
  `pos.column` 0-based (`Lean.Position`). `severity` is `information`, `warning` or `error`;
  `kind` is `[anonymous]` for an untagged message (older toolchains omit it); `endPos` may
  be absent or `null`. Recorded 4.33 lines look like
  `{"caption":"","data":"declaration uses `sorry`","endPos":{"column":7,"line":1},
  "fileName":"…","isSilent":false,"keepFullRange":false,"kind":"hasSorry",
  "pos":{"column":0,"line":1},"severity":"warning"}`. Lines that are not JSON (a crash's
  "Stack overflow detected. Aborting.", an uncaught exception) are kept, never dropped.
- `#print axioms d` (`src/Lean/Elab/Print.lean`, `printAxiomsOf`): an information message
  `'d' does not depend on any axioms` or `'d' depends on axioms: [a, b]`, the list a
  `MessageData.ofList`, which breaks over lines (`[propext,\n Classical.choice, …]`) when
  long. The order is sorted by `Name.lt` in recent sources but is not a promise, so the
  parser does not rely on it.
- Lean's messages changed case over versions ("type mismatch" became "Type mismatch",
  quotes became backticks), so every text match here is case-insensitive.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

SEVERITIES = ("information", "warning", "error")


@dataclass(frozen=True)
class LeanMessage:
    """One message Lean reported, as `lean --json` serialised it."""

    file_name: str
    line: int  # 1-based
    column: int  # 0-based, as Lean counts
    severity: str
    data: str
    kind: str = "[anonymous]"
    caption: str = ""
    end_line: int | None = None
    end_column: int | None = None

    @property
    def is_error(self) -> bool:
        return self.severity == "error"

    def mentions(self, needle: str) -> bool:
        """Case-insensitive containment: Lean's wording changed case across versions."""
        return needle.casefold() in self.data.casefold()

    def where(self, path: str | None = None) -> str:
        """`path:line:column:` for an editor (column shown 1-based, as editors count)."""
        return f"{path or self.file_name}:{self.line}:{self.column + 1}:"

    def headline(self) -> str:
        """The first line of the message, for one-line details."""
        return self.data.strip().splitlines()[0] if self.data.strip() else ""


@dataclass
class LeanOutput:
    """Everything one `lean --json` run printed, split into messages and other lines."""

    messages: list[LeanMessage] = field(default_factory=list)
    other_lines: list[str] = field(default_factory=list)

    @property
    def errors(self) -> list[LeanMessage]:
        return [m for m in self.messages if m.is_error]

    def text(self) -> str:
        """All message texts and stray lines, for whole-output searches."""
        return "\n".join([m.data for m in self.messages] + self.other_lines)


def parse_json_messages(stdout: str) -> LeanOutput:
    """Split `lean --json` stdout into messages; anything else is kept as a stray line."""
    output = LeanOutput()
    for raw in stdout.splitlines():
        line = raw.strip()
        if not line:
            continue
        message = _message_or_none(line)
        if message is None:
            output.other_lines.append(raw)
        else:
            output.messages.append(message)
    return output


def _message_or_none(line: str) -> LeanMessage | None:
    if not line.startswith("{"):
        return None
    try:
        obj = json.loads(line)
    except ValueError:
        return None
    if not isinstance(obj, dict) or "data" not in obj or "severity" not in obj:
        return None
    pos: dict[str, Any] = obj["pos"] if isinstance(obj.get("pos"), dict) else {}
    end: dict[str, Any] | None = obj["endPos"] if isinstance(obj.get("endPos"), dict) else None
    severity = str(obj["severity"])
    return LeanMessage(
        file_name=str(obj.get("fileName", "")),
        line=_int(pos.get("line"), 0),
        column=_int(pos.get("column"), 0),
        severity=severity if severity in SEVERITIES else "error",
        data=str(obj["data"]),
        kind=_kind(obj.get("kind")),
        caption=str(obj.get("caption") or ""),
        end_line=_int(end.get("line"), 0) if end else None,
        end_column=_int(end.get("column"), 0) if end else None,
    )


def _int(value: Any, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _kind(value: Any) -> str:
    # A `Name` serialises as a string; some older serialisations nested it as {"tag": …}.
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and isinstance(value.get("tag"), str):
        return str(value["tag"])
    return "[anonymous]"


# -- #print axioms ----------------------------------------------------------------------------

# The name is printed by `Name.toString`: `«»` only where a part is no identifier (`«a.b»`,
# `«1st»`; a keyword such as `end` is printed bare), and a prime is part of a name (`'foo''`),
# so the name runs to the last `'` before the words, not to the first `'`.
_AXIOMS_RE = re.compile(
    r"^'(?P<decl>[^\n]+?)'\s+(?:(?P<none>does not depend on any axioms)"
    r"|depends on axioms:\s*\[(?P<list>[^\]]*)\])",
    re.IGNORECASE | re.MULTILINE,
)


@dataclass(frozen=True)
class AxiomReport:
    decl: str
    axioms: tuple[str, ...]
    text: str  # the line as Lean printed it, whitespace collapsed


def parse_print_axioms(text: str) -> list[AxiomReport]:
    """Every `#print axioms` answer in `text`, in the order printed."""
    reports = []
    for match in _AXIOMS_RE.finditer(text):
        names: tuple[str, ...] = ()
        if match.group("list") is not None:
            names = tuple(n.strip() for n in match.group("list").split(",") if n.strip())
        reports.append(
            AxiomReport(
                decl=match.group("decl"),
                axioms=names,
                text=" ".join(match.group(0).split()),
            )
        )
    return reports


# -- lake build's log -------------------------------------------------------------------------

# Lake prints Lean's diagnostics as `error: <path>:<line>:<col>: <message>` (continuation
# lines indented or bare), per module `✖ [i/n] Building M`, then `error: Lean exited with
# code 1`, `Some required targets logged failures:` / `- M` and `error: build failed`.
_BUILD_DIAG_RE = re.compile(
    r"^(?P<severity>error|warning): (?P<path>[^\s:][^:]*\.lean):(?P<line>\d+):(?P<col>\d+): "
    r"(?P<message>.*)$",
    re.MULTILINE,
)


@dataclass(frozen=True)
class BuildDiagnostic:
    severity: str
    path: str
    line: int
    column: int
    message: str

    def where(self) -> str:
        return f"{self.path}:{self.line}:{self.column + 1}:"


def build_diagnostics(log: str) -> list[BuildDiagnostic]:
    return [
        BuildDiagnostic(
            m.group("severity"),
            m.group("path").removeprefix("./"),
            int(m.group("line")),
            int(m.group("col")),
            m.group("message").strip(),
        )
        for m in _BUILD_DIAG_RE.finditer(log)
    ]


# -- version lines ----------------------------------------------------------------------------

# `lean --version`: "Lean (version 4.33.0, x86_64-unknown-linux-gnu, commit d8b18978…, Release)";
# `lake --version`: "Lake version 5.0.0-src+d8b1897 (Lean version 4.33.0)".
_LEAN_VERSION_RE = re.compile(r"Lean \(version (?P<version>[0-9][^,\s)]*)", re.IGNORECASE)
_LAKE_VERSION_RE = re.compile(
    r"Lake version (?P<version>\S+)(?: \(Lean version (?P<lean>[^)\s]+)\))?", re.IGNORECASE
)


def lean_version(text: str) -> str | None:
    match = _LEAN_VERSION_RE.search(text)
    return match.group("version") if match else None


def lake_version(text: str) -> tuple[str, str | None] | None:
    match = _LAKE_VERSION_RE.search(text)
    return (match.group("version"), match.group("lean")) if match else None
