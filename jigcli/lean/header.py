"""The modules a Lean source imports, read from its header as Lean reads it.

The judge imports the submission's own imports into its trusted environment. It takes them
from here, from the source jig read itself, never from anything the build wrote: the build's
`.olean` header and its export are the submission's to forge.

Lean's header (`Lean.Parser.Module.header`, lean4 `src/Lean/Parser/Module.lean` since the
module system): `module`? `prelude`? then imports, each `atomic (public? meta? "import ")
all? identWithPartialTrailingDot`, the modifiers in that order only. Line and block comments
may stand anywhere between them; a doc comment (`/--`, `/-!`) is a token, not whitespace, so
it ends the header, as does any other token. A module name that is not a name token (a
string, a number) ends the header too: Lean refuses such a file, so its build fails before an
import list matters. tests/real_lean/test_header.py holds this reader to `lean --deps-json`.
"""

from __future__ import annotations

from jigcli.lean.lexer import tokenize

_COMMENTS = frozenset(("line_comment", "block_comment"))
_MODIFIERS = ("public", "meta")  # optional each, in this order


def imports(text: str) -> list[str]:
    """The module names `text`'s header imports, in order, each once, as written (`«»` kept:
    the judge reads them with Lean's `String.toName`)."""
    words = [(t.kind, t.text) for t in tokenize(text) if t.kind not in _COMMENTS]
    found: list[str] = []
    index = _skip_preamble(words)
    while index < len(words):
        index = _past_modifiers(words, index)
        if index >= len(words) or words[index][1] != "import":
            break
        index += 1
        if index < len(words) and words[index][1] == "all":
            index += 1
        if index >= len(words) or words[index][0] != "ident":
            break
        if words[index][1] not in found:
            found.append(words[index][1])
        index += 1
    return found


def _skip_preamble(words: list[tuple[str, str]]) -> int:
    index = 0
    for word in ("module", "prelude"):
        if index < len(words) and words[index][1] == word:
            index += 1
    return index


def _past_modifiers(words: list[tuple[str, str]], index: int) -> int:
    for modifier in _MODIFIERS:
        if index < len(words) and words[index][1] == modifier:
            index += 1
    return index
