"""What a submission may use and reach: import roots, attributes, options, commands, protected
namespaces, the module-system switch. The data, each entry with why it is safe, is
`allowed.yaml` beside this file (and `jigcli/lean/tokens.yaml` for `#` commands)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from jigcli.lean.lexer import _IDENT_SHAPED, ID_FIRST, ID_REST, TOKENS

ALLOWED: dict[str, Any] = yaml.safe_load(
    (Path(__file__).resolve().parent / "allowed.yaml").read_text(encoding="utf-8")
)

ALLOWED_IMPORT_ROOTS = tuple(ALLOWED["import_roots"])
REJECTED_IMPORT_ROOTS: dict[str, str] = ALLOWED["rejected_import_roots"]
ALLOWED_ATTRIBUTES: dict[str, str] = ALLOWED["attributes"]
_ATTRIBUTE_KINDS = frozenset({"-", "scoped", "local"})
# Read by the scan at each use, so a test can switch it.
MODULE_SYSTEM_ACCEPTED: bool = ALLOWED["module_system"]["accepted"]
MODULE_ATTRIBUTES = frozenset(ALLOWED["module_system"]["attributes"])

ALLOWED_COMMANDS = frozenset(
    command for command, entry in TOKENS["hash_commands"].items() if entry.get("allowed")
)
# `name%` tokens: each a term elaborator or command of its own (tokens.yaml).
PERCENT_TOKENS: dict[str, str] = {
    token: entry["why"] for token, entry in TOKENS["percent_tokens"].items()
}
ALLOWED_PERCENT_TOKENS = frozenset(
    token for token, entry in TOKENS["percent_tokens"].items() if entry.get("allowed")
)

# Options by full name, or by prefix when they end in `.`.
ALLOWED_OPTIONS = tuple(ALLOWED["options"])
FORBIDDEN_ROOTS: dict[str, str] = ALLOWED["forbidden_roots"]
TACTIC_NAMESPACES = frozenset(ALLOWED["tactic_namespaces"])
LEAN_MATH_NAMESPACES = frozenset(ALLOWED["lean_math_namespaces"])


def _in_tactic_namespace(parts: list[str]) -> bool:
    return ".".join(parts[:2]) in TACTIC_NAMESPACES


# Notation commands, accepted: each only declares term syntax and the term it expands to
# (`notation`, `infix…`, `prefix`, `postfix` in lean4 src/Lean/Parser/Command.lean and
# src/Lean/Elab/Notation.lean; Mathlib's `notation3`). The expansion is a syntax rewrite done by
# Lean's own macro, so no code of the submission runs; the right-hand side is scanned here like
# any other code, and the kernel checks the terms it builds. What a notation can change is how
# the rest of the file tokenizes, so its tokens are judged (`_BAD_NOTATION_TOKEN`).
NOTATION_KEYWORDS = frozenset(
    {"notation", "notation3", "infix", "infixl", "infixr", "prefix", "postfix"}
)
# A declared token that could make Lean split the text otherwise than the scan: one holding a
# comment marker, a quote, `«»` or a backslash, starting with `'` (where Lean starts a char
# literal), ending in `-` or `/` (which could open a comment), or with a letter right after a
# symbol (`⊕q` reads `⊕qsorry` as `⊕q` `sorry`). The scan reads a file's other tokens as Lean
# does, from where they are declared; a scoped or local token Lean no longer has can then only
# make the scan see more code than Lean, never less.
_MISLEADING_TOKEN = re.compile(
    rf"--|/-|-/|[\"`«»\\]|\A'|[-/]\Z|[^{ID_REST}][{ID_REST}]*[{ID_FIRST}]|\A[^{ID_FIRST}«][{ID_REST}]*[{ID_FIRST}]|(?<![{ID_REST}])[{ID_FIRST}][{ID_REST}]*\Z"
)
_NOTATION_LOOKAHEAD = 64


def misleading_token(token: str) -> bool:
    """Whether a token a file declares could make Lean read the text around it otherwise than
    the scan does (see `_MISLEADING_TOKEN`); an identifier-shaped one (a keyword) cannot."""
    return not _IDENT_SHAPED.fullmatch(token) and _MISLEADING_TOKEN.search(token) is not None


# The keywords that declare a name, which the scan checks against FORBIDDEN_ROOTS.
DECLARATION_KEYWORDS = frozenset(
    {
        *("def", "theorem", "lemma", "abbrev", "opaque", "axiom", "instance", "structure"),
        *("class", "inductive", "coinductive", "irreducible_def", "alias", "namespace"),
    }
)


# Keywords that, split off the end of a name by a token an import adds (`∯x` in `∯xsorry`),
# would be read by Lean as themselves: what admits a goal, starts a command or declares.
GLUE_KEYWORDS = frozenset(
    {
        *("sorry", "admit", "axiom", "macro", "macro_rules", "syntax", "elab", "elab_rules"),
        *("run_cmd", "run_tac", "run_elab", "run_meta", "initialize", "unsafe", "opaque"),
        *("native_decide", "set_option", "attribute", "open", "export", "import", "notation"),
        *DECLARATION_KEYWORDS,
    }
)
# What may stand right before a name without a token of an import possibly ending there:
# blanks, brackets, separators and the signs of `-attr` and `+flag` (no Lean or Mathlib token
# is one of them then a letter).
_GLUE_SAFE = rf"\s{ID_REST}()\[\]{{}}⟨⟩,;.@«»`\"'+\-"
# A name glued to a symbol whose end is one of those keywords, as the bulk skip sees it.
GLUED_KEYWORD_AHEAD = (
    rf"(?<![{_GLUE_SAFE}])[{ID_REST}]+?(?:{'|'.join(sorted(GLUE_KEYWORDS, key=len, reverse=True))})"
    rf"(?![{ID_REST}]|\.[{ID_FIRST}«])"
)
GLUED_KEYWORD = re.compile(GLUED_KEYWORD_AHEAD)
