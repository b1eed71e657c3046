"""What a canonical statement must be, and the file `jig pose lean` writes.

`Statements/<label>.lean` is, comments aside, exactly:

    import <Module>…                          (allowed roots only, never bare `Mathlib`)
    namespace Statements.<label>
    /-- optional docstring -/
    abbrev statement : Prop := <one proposition>
    /-- optional docstring -/
    theorem target : statement := sorry
    end Statements.<label>

`abbrev`, so the verifier's bridge `example : Statements.<label>.statement := @decl` unfolds
it; the `sorry` of `target` is the one `sorry` the file may hold (the static policy judges
everything else). The proposition may not start another command (`theorem`, `def`, `@[…]`,
`#eval`, …): a statement file declares these two constants and nothing else. A term-level
`open … in` / `set_option … in` is fine. `statement_problems` checks all of it, for a file
`pose lean` generates and for one `pose check` finds new in a pull request alike.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from jigcli.lean.lexer import ID_FIRST, ID_REST, KEYWORDS, Token, tokenize
from jigcli.lean.policy import ALLOWED_IMPORT_ROOTS, REJECTED_IMPORT_ROOTS, scan

# A label is a file name, a Lean namespace component and a manifest `statement_id` at once:
# the intersection of the three is ASCII letters, digits and `_`, starting with a letter.
LABEL = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,127}")
_MODULE = re.compile(rf"[{ID_FIRST}][{ID_REST}]*+(?>(?:\.[{ID_FIRST}][{ID_REST}]*+)*)")
EXAMPLE_IMPORT = "Mathlib.Algebra.Group.Nat.Even"
SHAPE = (
    "a statement file is its imports, `namespace Statements.<label>`, "
    "`abbrev statement : Prop := …`, `theorem target : statement := sorry` and "
    "`end Statements.<label>`"
)
TARGET_DOC = (
    "/-- The open target. A submission does not fill this `sorry`: it proves `statement`\n"
    "in its own module (which may not import this one) and the verifier bridges the two. -/"
)
# Words that start a command: inside the proposition they would end it and declare more.
COMMAND_WORDS = frozenset(
    {
        *("theorem", "lemma", "def", "abbrev", "axiom", "instance", "structure", "class"),
        *("inductive", "opaque", "example", "namespace", "section", "end", "variable"),
        *("universe", "attribute", "import", "mutual", "export", "deriving", "noncomputable"),
        *("private", "protected", "omit", "include", "initialize", "builtin_initialize"),
        *("macro", "macro_rules", "syntax", "elab", "elab_rules", "notation", "infix"),
        *("infixl", "infixr", "prefix", "postfix", "prelude", "module", "public", "meta"),
        # Mathlib's own commands that declare or change declarations
        *("alias", "irreducible_def", "proof_wanted", "add_decl_doc", "suppress_compilation"),
        *("assert_not_exists", "compile_inductive", "initialize_simps_projections"),
        *("library_note", "register_simp_attr"),
    }
)
# Commands with a term-level `… in` form: allowed inside the proposition only with their `in`.
_SCOPED_TERMS = frozenset({"open", "set_option"})
_COMMENTS = frozenset({"line_comment", "block_comment", "module_doc"})


@dataclass(frozen=True)
class Problem:
    line: int | None
    message: str


# -- the pieces a poser passes -------------------------------------------------------------------


def label_problem(label: str) -> str | None:
    if not LABEL.fullmatch(label):
        return (
            f"label {label!r} is not a plain Lean identifier: use ASCII letters, digits and `_`, "
            "starting with a letter (no dots, slashes or `..`), like S002"
        )
    if label in KEYWORDS:
        return f"label {label!r} is a Lean keyword; pick another, like S002"
    return None


def import_problem(module: str) -> str | None:
    """Why a statement may not import `module`, or None when it may."""
    if module == "Mathlib":
        return (
            "bare `import Mathlib` would make every contributor to this write-once statement "
            "download and load all of Mathlib (the ~2 GB olean cache); import just the modules "
            "that declare the names the proposition uses (each declaration's page in Mathlib's "
            f"documentation names its module), e.g. --import {EXAMPLE_IMPORT}"
        )
    if not _MODULE.fullmatch(module):
        return f"{module!r} is not a module name; write dotted Lean names, like {EXAMPLE_IMPORT}"
    root = module.split(".")[0]
    if root in REJECTED_IMPORT_ROOTS:
        return f"a statement may not import {module}: {REJECTED_IMPORT_ROOTS[root]}"
    if root not in ALLOWED_IMPORT_ROOTS:
        allowed = ", ".join(ALLOWED_IMPORT_ROOTS)
        return f"{module} is outside the allowed import roots; import only from {allowed}"
    return None


def doc_problem(doc: str) -> str | None:
    for marker in ("-/", "/-"):
        if marker in doc:
            return (
                f"the --doc text holds `{marker}`, which would end or nest its docstring and "
                "turn the rest into Lean code; rephrase it without `/-` or `-/`"
            )
    return None


# -- the file ----------------------------------------------------------------------------------


def render(label: str, prop: str, imports: list[str], doc: str | None) -> str:
    """The text of `Statements/<label>.lean`: the proposition and the doc text verbatim."""
    lines = [f"import {module}" for module in imports]
    if lines:
        lines.append("")
    lines += [f"namespace Statements.{label}", ""]
    if doc:
        lines.append(f"/-- {doc} -/")
    lines += [f"abbrev statement : Prop := {prop}", "", TARGET_DOC]
    lines += ["theorem target : statement := sorry", "", f"end Statements.{label}", ""]
    return "\n".join(lines)


class _Mismatch(Exception):
    def __init__(self, line: int | None, message: str) -> None:
        super().__init__(message)
        self.problem = Problem(line, message)


class _Shape:
    """Reads a statement file's significant tokens against the one shape it may have."""

    def __init__(self, text: str, label: str) -> None:
        self.tokens = [t for t in tokenize(text) if t.kind not in _COMMENTS]
        self.at = 0
        self.label = label
        self.imports: list[tuple[str, int]] = []
        self.sorry: Token | None = None
        self.problems: list[Problem] = []

    def peek(self) -> Token | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def take(self, *expected: str) -> None:
        for word in expected:
            token = self.peek()
            if token is None or token.text != word:
                found = "the end of the file" if token is None else f"`{token.text}`"
                line = token.line if token else (self.tokens[-1].end_line if self.tokens else 1)
                raise _Mismatch(line, f"expected `{word}` but found {found}; {SHAPE}")
            self.at += 1

    def optional_doc(self) -> None:
        token = self.peek()
        if token is not None and token.kind == "doc_comment":
            self.at += 1

    def read(self) -> None:
        self.header()
        self.take("namespace", f"Statements.{self.label}")
        self.optional_doc()
        self.take("abbrev", "statement", ":", "Prop", ":=")
        self.proposition()
        self.optional_doc()
        self.take("theorem", "target", ":", "statement", ":=", "sorry")
        self.sorry = self.tokens[self.at - 1]
        self.take("end", f"Statements.{self.label}")
        extra = self.peek()
        if extra is not None:
            raise _Mismatch(extra.line, f"`{extra.text}` follows the namespace's end; {SHAPE}")

    def header(self) -> None:
        while (token := self.peek()) is not None and token.text == "import":
            self.at += 1
            module = self.peek()
            if module is None or module.kind != "ident":
                raise _Mismatch(token.line, "an import must name a module")
            self.imports.append((module.text, module.line))
            self.at += 1

    def proposition(self) -> None:
        start = self.at
        while (token := self.peek()) is not None:
            if token.kind == "doc_comment" or token.text == "theorem":
                break
            self.judge_in_proposition(token)
            self.at += 1
        if self.at == start:
            line = self.tokens[start - 1].line
            raise _Mismatch(line, "the proposition is empty; state it after `:=`")

    def judge_in_proposition(self, token: Token) -> None:
        word = token.text
        starts_command = (
            token.kind == "command"
            or word == "@["
            or (token.kind in ("ident", "keyword") and word in COMMAND_WORDS)
        )
        if word in _SCOPED_TERMS and not self.in_ahead():
            starts_command = True
        if starts_command:
            self.problems.append(
                Problem(
                    token.line,
                    f"the proposition holds `{word}`, which starts another Lean command; a "
                    "statement file declares `statement` and `target` and nothing else",
                )
            )

    def in_ahead(self) -> bool:
        """An `in` before the proposition ends, making `open`/`set_option` a term."""
        for token in self.tokens[self.at + 1 :]:
            if token.kind == "doc_comment" or token.text == "theorem":
                return False
            if token.text == "in":
                return True
        return False


def statement_problems(label: str, text: str) -> list[Problem]:
    """Everything wrong with `text` as `Statements/<label>.lean`, by line; empty when it is a
    well-formed statement (its shape, its imports, and the static policy on all but the
    `sorry` of `target`)."""
    shape = _Shape(text, label)
    try:
        shape.read()
    except _Mismatch as mismatch:
        return [*shape.problems, mismatch.problem]
    problems = list(shape.problems)
    for module, line in shape.imports:
        why = import_problem(module)
        if why is not None:
            problems.append(Problem(line, why))
    problems += _policy_problems(label, text, shape.sorry)
    return sorted(problems, key=lambda p: (p.line or 0, p.message))


def _policy_problems(label: str, text: str, target_sorry: Token | None) -> list[Problem]:
    """The static policy on the file with the target's `sorry` blanked out (every other
    `sorry`, and everything else the policy refuses, still counts), its own namespace
    `Statements.<label>` allowed."""
    if target_sorry is not None:
        blank = " " * (target_sorry.end - target_sorry.start)
        text = text[: target_sorry.start] + blank + text[target_sorry.end :]
    return [
        Problem(v.line, f"`{v.construct}` is refused by the static policy: {v.message}")
        for v in scan(text, home=f"Statements.{label}")
        # Header imports are judged by `import_problem`, which says more (bare Mathlib).
        if not v.construct.startswith("import ")
    ]
