"""The faithfulness ledger `<stem>.audit.json`: who judged which statement ↔ declaration pair,
how, and exactly which texts they read.

```
{"schema": "jig.audit.v1",
 "sourceHashes": {"tex": "<sha256 hex of the .tex>", "lean": "<sha256 hex of the .lean>"},
 "pairs": [{"label": "thm:main", "decl": "Paper.main", "verdict": "faithful",
            "reason": "…", "judged_by": {"kind": "reader", "name": "python judge.py"},
            "when": "2026-11-30T10:00:00Z",
            "hashes": {"statement": "<sha256 hex>", "decl": "<sha256 hex>"}}]}
```

`sourceHashes` are the whole files as they were when the ledger was last written (`tex` is
null for a `Statements/LABEL.lean` audit, where the prose is the declaration's docstring). A
pair's `hashes` are what that judgement read: the statement's text and the declaration's
source. A judgement is *current* only while both still match; otherwise it is shown as
`pending` ("changed since it was judged") and never counts as a pass, and a `refuted` one no
longer takes its statement out of the Lean goal. The file is written atomically (a temporary
file beside it, then a rename), so a crash never leaves half a ledger. A leanblueprint's
`web.tex` and `print.tex` share one ledger, `print.audit.json` (`paper_ledger`); a
`web.audit.json` from before is read into it and, once it is written, renamed
`web.audit.json.migrated`.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from jigcli.errors import UsageError
from jigcli.hashing import sha256_hex

SCHEMA = "jig.audit.v1"
# leanblueprint's two root documents over one content, and the one ledger they share.
_WEB, _PRINT = "web.tex", "print.tex"
_SHARED, _WEB_BEFORE = "print.audit.json", "web.audit.json"
READER_VERDICTS = ("faithful", "partial", "mismatch", "refuted")  # unstated is jig's alone
STALE_WORDS = "changed since it was judged"


class LedgerUnreadable(UsageError):
    """The ledger exists but is not a `jig.audit.v1` document."""


@dataclass(frozen=True)
class Judge:
    kind: str  # person | reader | jig
    name: str  # the person, the reader command, or "jig"

    def words(self) -> str:
        return {"person": "judged by", "reader": "read by", "jig": "decided by"}[
            self.kind
        ] + f" {self.name}"


JIG = Judge("jig", "jig")


@dataclass(frozen=True)
class Judgement:
    """One recorded verdict on one pair."""

    label: str | None
    decl: str | None
    verdict: str
    reason: str
    judged_by: Judge
    when: str
    statement_hash: str | None
    decl_hash: str | None

    @property
    def key(self) -> tuple[str | None, str | None]:
        return (self.label, self.decl)

    def is_current(self, statement_hash: str | None, decl_hash: str | None) -> bool:
        """True while the texts it read are the texts there now."""
        return self.statement_hash == statement_hash and self.decl_hash == decl_hash

    def to_json(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "decl": self.decl,
            "verdict": self.verdict,
            "reason": self.reason,
            "judged_by": {"kind": self.judged_by.kind, "name": self.judged_by.name},
            "when": self.when,
            "hashes": {"statement": self.statement_hash, "decl": self.decl_hash},
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Judgement:
        judge, hashes = data["judged_by"], data["hashes"]
        return cls(
            label=data["label"],
            decl=data["decl"],
            verdict=data["verdict"],
            reason=data["reason"],
            judged_by=Judge(judge["kind"], judge["name"]),
            when=data["when"],
            statement_hash=hashes["statement"],
            decl_hash=hashes["decl"],
        )


@dataclass
class Ledger:
    tex_hash: str | None
    lean_hash: str | None
    pairs: list[Judgement] = field(default_factory=list)

    def find(self, label: str | None, decl: str | None) -> Judgement | None:
        return next((j for j in self.pairs if j.key == (label, decl)), None)

    def record(self, judgement: Judgement) -> None:
        """Keep `judgement`, replacing an earlier one on the same pair."""
        self.pairs = [j for j in self.pairs if j.key != judgement.key] + [judgement]

    def keep_only(self, keys: set[tuple[str | None, str | None]]) -> None:
        """Forget judgements on pairs that no longer exist (renamed labels or declarations)."""
        self.pairs = [j for j in self.pairs if j.key in keys]

    def with_sources(self, tex_hash: str | None, lean_hash: str | None) -> Ledger:
        return replace(self, tex_hash=tex_hash, lean_hash=lean_hash)

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "sourceHashes": {"tex": self.tex_hash, "lean": self.lean_hash},
            "pairs": [j.to_json() for j in self.pairs],
        }


def ledger_path(document: Path) -> Path:
    """`paper.tex` → `paper.audit.json` beside it (`Statements/X.lean` → `X.audit.json`)."""
    return document.with_name(f"{document.stem}.audit.json")


def paper_ledger(root: Path) -> Path:
    """The ledger of the paper whose root document is `root`: `<stem>.audit.json` beside it,
    except that a leanblueprint's two roots over one content, `web.tex` (what plasTeX reads)
    and `print.tex` (what LaTeX reads) side by side, share `print.audit.json`: an answer given
    through one holds through the other."""
    if root.name == _WEB and root.with_name(_PRINT).is_file():
        return root.with_name(_SHARED)
    return ledger_path(root)


def _earlier(path: Path) -> Path | None:
    """A blueprint's `web.audit.json`, written before its two roots shared one ledger."""
    if path.name != _SHARED:
        return None
    old = path.with_name(_WEB_BEFORE)
    return old if old.is_file() and path.with_name(_WEB).is_file() else None


def load_paper(path: Path) -> Ledger | None:
    """The ledger at `path` (`paper_ledger`), with the judgements of an earlier
    `web.audit.json` on pairs it does not judge itself."""
    ledger = load(path)
    old = _earlier(path)
    earlier = load(old) if old is not None else None
    if earlier is None:
        return ledger
    if ledger is None:
        return earlier
    ledger.pairs += [j for j in earlier.pairs if ledger.find(*j.key) is None]
    return ledger


def save_paper(ledger: Ledger, path: Path) -> None:
    """`save`, then an earlier `web.audit.json`, now merged into `path`, renamed
    `web.audit.json.migrated` (kept, never read again)."""
    save(ledger, path)
    old = _earlier(path)
    if old is not None:
        old.replace(old.with_name(old.name + ".migrated"))


def now() -> str:
    return _dt.datetime.now(_dt.UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def load(path: Path) -> Ledger | None:
    """The ledger at `path`, None when there is none; `LedgerUnreadable` when it is broken."""
    if not path.is_file():
        return None
    from jigcli.schemas import validate

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise LedgerUnreadable(
            f"{path} is not valid JSON ({error}); fix it or delete it to start a new audit."
        ) from error
    problems = validate(data, "audit")
    if problems:
        raise LedgerUnreadable(
            f"{path} is not a {SCHEMA} ledger ({problems[0]}); fix it or delete it to start "
            "a new audit."
        )
    hashes = data["sourceHashes"]
    return Ledger(
        hashes["tex"], hashes["lean"], [Judgement.from_json(pair) for pair in data["pairs"]]
    )


def save(ledger: Ledger, path: Path) -> None:
    """Write `ledger` to `path` atomically."""
    text = json.dumps(ledger.to_json(), indent=2, ensure_ascii=False) + "\n"
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def judged_hash(text: str | None) -> str | None:
    """The SHA-256 (hex) of a text as judged: runs of whitespace count as one space."""
    return None if text is None else sha256_hex(" ".join(text.split()))


def pair_hashes(statement_text: str | None, judged: str | None) -> tuple[str | None, str | None]:
    """The hashes a judgement of this pair records: the statement's text and what stands for
    the declaration (`jigcli.paper.pairing.Pair.judged`: its judged source wherever it lives,
    or its name and the pins of a package that holds it)."""
    return judged_hash(statement_text), judged_hash(judged)


@dataclass(frozen=True)
class Item:
    """One statement ↔ declaration pair, with the two texts a reader compares."""

    label: str | None
    decl: str | None
    kind: str
    number: str | None
    title: str | None
    statement: str | None  # the prose: LaTeX, or a docstring
    declaration: str | None  # the declaration's source as shown to the reader
    judged: str | None  # what the declaration's hash covers (`Pair.judged`)
    tex_file: Path | None
    tex_line: int | None
    lean_file: Path | None
    lean_line: int | None

    @property
    def key(self) -> tuple[str | None, str | None]:
        return (self.label, self.decl)

    @property
    def hashes(self) -> tuple[str | None, str | None]:
        return judged_hash(self.statement), judged_hash(self.judged)
