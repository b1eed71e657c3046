"""Masking a LaTeX source: what TeX never typesets blanked out, offsets and lines unchanged.

`%` comments, `\\iffalse…\\fi` (and the false branch of `\\iftrue`), `verbatim` /
`lstlisting` / `minted` / `comment` blocks (and environments named by `\\excludecomment`)
become blanks of the same length. A `%` inside `\\verb|…|`, `\\url{…}` or `\\href{…}` is
text, and `\\%` is text. A second, structural mask also blanks what `\\verb`, `\\url` and
`\\href` quote, so a `\\begin{theorem}` written inside `\\verb` starts nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from jigcli.latex.statements.groups import matching_brace, read_group, skip_spaces

VERBATIM_ENVS = frozenset(
    {"verbatim", "verbatim*", "Verbatim", "lstlisting", "minted", "comment", "alltt*"}
)
# TeX's conditionals: in skipped text only these (and `\newif` ones) nest, never `\iff`.
PRIMITIVE_IFS = frozenset(
    {
        "if", "ifcat", "ifnum", "ifdim", "ifodd", "ifvmode", "ifhmode", "ifmmode", "ifinner",
        "ifvoid", "ifhbox", "ifvbox", "ifx", "ifeof", "iftrue", "iffalse", "ifcase",
        "ifdefined", "ifcsname", "iffontchar", "ifincsname", "ifpdfprimitive",
    }
)  # fmt: skip


@dataclass(frozen=True)
class Masked:
    """A source with what LaTeX never typesets blanked out, offsets unchanged."""

    visible: str  # comments and skipped blocks blanked: the text a reader sees
    structural: str  # also blanks what `\verb`, `\url`, `\href` quote: where commands count


_CONTROL = re.compile(r"\\([A-Za-z@]+|.)", re.DOTALL)


def mask(source: str, conditionals: frozenset[str] = frozenset()) -> Masked:
    """Blank comments and skipped blocks; `conditionals` adds `\\newif` names (without `\\`)."""
    masker = _Masker(source, conditionals)
    masker.blank_skipped()
    return Masked("".join(masker.visible), "".join(masker.structural))


class _Masker:
    def __init__(self, source: str, conditionals: frozenset[str]) -> None:
        self.src = source
        self.visible = list(source)
        self.structural = list(source)
        self.ifs = PRIMITIVE_IFS | conditionals
        self.skipped_envs = set(VERBATIM_ENVS)
        self.live_ifs: list[bool] = []  # per open live conditional: True for `\iftrue`

    def blank(self, start: int, end: int, *, visible: bool = True) -> None:
        for i in range(start, min(end, len(self.src))):
            if self.src[i] != "\n":
                self.structural[i] = " "
                if visible:
                    self.visible[i] = " "

    def blank_skipped(self) -> None:
        i, n = 0, len(self.src)
        while i < n:
            c = self.src[i]
            if c == "%":
                i = self.comment(i)
            elif c == "\\":
                i = self.control(i)
            else:
                i += 1

    def comment(self, i: int) -> int:
        end = self.src.find("\n", i)
        end = len(self.src) if end < 0 else end
        self.blank(i, end)
        return end

    def control(self, i: int) -> int:
        m = _CONTROL.match(self.src, i)
        if m is None:  # a lone backslash at the very end
            return i + 1
        name, end = m.group(1), m.end()
        if name == "verb":
            return self.verb(end)
        if name in ("url", "href"):
            return self.quoted_group(end)
        if name == "begin":
            return self.begin(i, end)
        if name in ("excludecomment", "newif"):
            return self.declaration(name, end)
        if name == "iffalse":
            return self.skip_conditional(i, end, keep_else=True)
        if name in self.ifs:
            self.live_ifs.append(name == "iftrue")
        elif name == "else" and self.live_ifs and self.live_ifs[-1]:
            self.live_ifs.pop()  # the rest up to the matching `\fi` is the dead branch
            return self.skip_conditional(i, end, keep_else=False)
        elif name == "fi" and self.live_ifs:
            self.live_ifs.pop()
        return end

    def verb(self, i: int) -> int:
        if i < len(self.src) and self.src[i] == "*":
            i += 1
        if i >= len(self.src) or self.src[i] in " \n":
            return i
        delimiter = self.src[i]
        close = self.src.find(delimiter, i + 1)
        newline = self.src.find("\n", i + 1)
        if close < 0 or (0 <= newline < close):
            return i + 1  # not a well-formed \verb: LaTeX would stop with an error
        self.blank(i + 1, close, visible=False)
        return close + 1

    def quoted_group(self, i: int) -> int:
        j = skip_spaces(self.src, i)
        if j >= len(self.src) or self.src[j] != "{":
            return i
        close = matching_brace(self.src, j)
        if close is None:
            return i
        self.blank(j + 1, close, visible=False)
        return close + 1

    def begin(self, start: int, i: int) -> int:
        group = read_group(self.src, i)
        if group is None or group[0] not in self.skipped_envs:
            return i
        name, after = group
        closing = f"\\end{{{name}}}"
        end = self.src.find(closing, after)
        end = len(self.src) if end < 0 else end + len(closing)
        self.blank(start, end)
        return end

    def declaration(self, name: str, i: int) -> int:
        if name == "excludecomment":
            group = read_group(self.src, i)
            if group is not None:
                self.skipped_envs.add(group[0].strip())
                return group[1]
            return i
        m = _CONTROL.match(self.src, skip_spaces(self.src, i))
        if m is not None and m.group(1).startswith("if"):
            self.ifs = self.ifs | {m.group(1)}
            return m.end()  # `\newif\ifdraft` declares: it opens no conditional
        return i

    def skip_conditional(self, start: int, i: int, *, keep_else: bool) -> int:
        """Blank from `start` to the matching `\\fi` (or `\\else`, when `keep_else`)."""
        depth, n = 0, len(self.src)
        while i < n:
            c = self.src[i]
            if c == "%":
                end = self.src.find("\n", i)
                i = n if end < 0 else end
                continue
            if c != "\\":
                i += 1
                continue
            m = _CONTROL.match(self.src, i)
            if m is None:
                break
            name, i = m.group(1), m.end()
            if name in self.ifs:
                depth += 1
            elif name == "fi":
                if depth == 0:
                    self.blank(start, i)
                    return i
                depth -= 1
            elif name == "else" and depth == 0 and keep_else:
                self.blank(start, i)
                self.live_ifs.append(False)  # the live `\else` branch still ends at `\fi`
                return i
        self.blank(start, n)
        return n
