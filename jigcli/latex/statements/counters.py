"""LaTeX's counters as a document keeps them: values, who resets whom, how each is printed."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

BOOK_CLASSES = frozenset({"book", "report", "memoir", "scrbook", "scrreprt", "amsbook"})


def _alph(value: int, upper: bool) -> str:
    if not 1 <= value <= 26:
        return str(value)
    letter = chr(ord("a") + value - 1)
    return letter.upper() if upper else letter


def _roman(value: int) -> str:
    numerals = (
        (1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"),
        (50, "l"), (40, "xl"), (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i"),
    )  # fmt: skip
    out = ""
    for amount, word in numerals:
        while value >= amount:
            out, value = out + word, value - amount
    return out


_STYLES: dict[str, Callable[[int], str]] = {
    "arabic": str,
    "Alph": lambda v: _alph(v, True),
    "alph": lambda v: _alph(v, False),
    "Roman": lambda v: _roman(v).upper(),
    "roman": _roman,
}


@dataclass
class Counters:
    """LaTeX's counters: values, who resets whom (and prefixes its number), and styles."""

    values: dict[str, int] = field(default_factory=dict)
    within: dict[str, str | None] = field(default_factory=dict)
    style: dict[str, str] = field(default_factory=dict)
    # Reset by their parent but numbered alone: `\newcounter{c}[p]` and `\counterwithin*`
    # leave `\thec` as `\arabic{c}`.
    unprefixed: set[str] = field(default_factory=set)

    @classmethod
    def for_class(cls, document_class: str) -> Counters:
        counters = cls()
        chain = ["section", "subsection", "subsubsection", "paragraph", "subparagraph"]
        if document_class in BOOK_CLASSES:
            chain.insert(0, "chapter")
        counters.new("part")
        counters.new("equation", "chapter" if "chapter" in chain else None)
        parent: str | None = None
        for name in chain:
            counters.new(name, parent)
            parent = name
        return counters

    def new(self, name: str, within: str | None = None, *, prefixed: bool = True) -> None:
        self.values.setdefault(name, 0)
        self.within[name] = within
        if prefixed:
            self.unprefixed.discard(name)
        else:
            self.unprefixed.add(name)

    def step(self, name: str) -> None:
        if name not in self.values:
            return
        self.values[name] += 1
        self.reset_children(name)

    def reset_children(self, name: str) -> None:
        for child, parent in self.within.items():
            if parent == name:
                self.values[child] = 0
                self.reset_children(child)

    def set(self, name: str, value: int) -> None:
        if name in self.values:
            self.values[name] = value

    def the(self, name: str) -> str:
        own = _STYLES[self.style.get(name, "arabic")](self.values.get(name, 0))
        parent = self.within.get(name)
        return f"{self.the(parent)}.{own}" if parent and name not in self.unprefixed else own


@dataclass(frozen=True)
class TheoremKind:
    counter: str | None  # None: unnumbered (starred or `numbered=no`)
