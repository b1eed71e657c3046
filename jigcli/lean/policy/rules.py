"""The policy itself: one `Rule` per construct, with the message a submitter reads, and the
tables the scan looks words up in (`WORDS`, `CONSTANTS`, `COMPONENTS`, `FORMS`, …)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NamedTuple


@dataclass(frozen=True)
class Violation:
    line: int
    construct: str
    message: str


class Rule(NamedTuple):
    construct: str
    where: str  # word | prefix | constant | component | command | attribute | option | form
    message: str


_META = "metaprogramming, code that runs while the file elaborates"
_NATIVE = "trusts compiled code instead of the kernel (a native axiom in Lean 4.33); use `decide`"
_NOTATION = "defines notation, which is a macro; write the term out or use Mathlib's notation"
_REGISTERS = f"registers the tagged definition as code Lean runs while elaborating ({_META})"
_META_TYPE = "a metaprogramming or IO type; a submission proves mathematics and runs no programs"
_SIMPROC = "defines a simproc, meta code that `simp` runs"
_ADMITS = "closes the goal with `sorry` when it finds nothing; write the proof it suggests"
_SEARCH = "a proof search left in the proof; write the proof it suggests"
_SAMPLES = "tests the goal on samples and, finding no counterexample, closes it with `sorry`"

# The policy, one line per construct. `where` says how a construct is found:
#   word       an identifier-shaped word as written (`«sorry»` is an escaped identifier); a
#              trailing `!`/`?` is ignored (`sorry!`) unless the word has its own rule (`apply?`)
#   prefix     any word starting so (`register_hint`, `declare_syntax_cat`)
#   constant   any component of a name once `«»` escapes are undone (`Lean.ofReduceBool`,
#              `ofReduceBool` after `open Lean`, `DecideConfig.mk`), name literals included
#   component  any component of a name matching the rule's entry in COMPONENT_PATTERNS
#              (`unsafeBaseIO`, `IO.FS`, `Foo.toIO`); the component itself is reported
#   command    a `#` command not in ALLOWED_COMMANDS, with its own message
#   attribute  an attribute not in ALLOWED_ATTRIBUTES, with its own message
#   option     a `set_option` name not in ALLOWED_OPTIONS, with its own message
#   form       a shape the scanner reads in code, listed here for its message
RULES: tuple[Rule, ...] = (
    Rule("sorry", "word", "an unfinished proof: `sorry` closes any goal through `sorryAx`"),
    Rule("admit", "word", "the tactic spelling of `sorry`"),
    Rule("stop", "word", "the tactic `stop` is `repeat sorry`"),
    Rule("sorryAx", "constant", "the axiom behind `sorry`"),
    Rule("apply?", "word", _ADMITS),
    Rule("hint", "word", _ADMITS),
    Rule("plausible", "word", _SAMPLES),
    Rule("slim_check", "word", _SAMPLES),
    Rule("rw?", "word", _SEARCH),
    Rule("observe", "word", f"runs `exact?`: {_SEARCH}"),
    Rule("library_search", "word", _SEARCH),
    Rule(
        "polyrith", "word", "asks a web service while the file builds; write `linear_combination …`"
    ),
    Rule("axiom", "word", "declares an assumption the kernel never checks; prove it instead"),
    Rule("native_decide", "word", _NATIVE),
    Rule("bv_decide", "word", f"checks its certificate by compiled code: {_NATIVE}"),
    Rule("bv_check", "word", f"checks its certificate by compiled code: {_NATIVE}"),
    Rule("ofReduceBool", "constant", f"the axiom of native computation: {_NATIVE}"),
    Rule("ofReduceNat", "constant", f"the axiom of native computation: {_NATIVE}"),
    Rule("trustCompiler", "constant", f"the axiom of native computation: {_NATIVE}"),
    Rule("decide +native", "form", f"asks `decide` to evaluate by compiled code: {_NATIVE}"),
    Rule(
        "native := …",
        "form",
        f"anything but `native := false` may switch a decision procedure to compiled code: "
        f"{_NATIVE}",
    ),
    Rule(
        "(option := …)",
        "form",
        "a configuration (of a tactic, an attribute or an elaborator) is evaluated by Lean's "
        "interpreter while the file elaborates, so its values must be literals (a number, "
        "`true`, `false`, `.constructor`, a string, or `{ field := literal, … }` for `config`; "
        "`by tactic` only for a discharger); write the value out",
    ),
    Rule(
        "redefined literal",
        "form",
        "this value is a literal only where nothing the file declares changes what it means, "
        "and this file does: an `OfNat` instance (numerals elaborate through it) or a name "
        "spelled as the value (`true`, `reducible`, which resolve to the file's own first); "
        "rename that declaration, or drop it",
    ),
    Rule(
        "DecideConfig",
        "constant",
        "a `decide` configuration built as a value, which this scan cannot read; write the "
        "options out (`decide +kernel`)",
    ),
    Rule("unsafe", "word", "switches the kernel's checks off for the declaration"),
    Rule(
        "unsafe…",
        "component",
        "an `unsafe…` function (`unsafeCast`, `unsafeBaseIO`, `unsafeIO`, `ptrAddrUnsafe`) "
        "breaks the guarantees of the type system, or runs IO from pure code",
    ),
    Rule(
        "…IO…",
        "component",
        f"names the IO family (`IO`, `EIO`, `BaseIO`, `IORef`, `toIO`): {_META_TYPE}",
    ),
    Rule("dbg…", "component", "a debugging primitive that prints or sleeps from pure code"),
    *(
        Rule(name, "constant", f"part of Lean's file-system and process API: {_META_TYPE}")
        for name in ("System",)
    ),
    Rule(
        "Internal",
        "constant",
        "an internal namespace (`Std.Internal` holds file-system and networking code): "
        "not an API a proof needs",
    ),
    Rule(
        "include_str",
        "word",
        "reads a file while the file elaborates, evaluating its path argument as code "
        "(`elabIncludeStr`, lean4 src/Lean/Elab/BuiltinTerm.lean); put the text in the file",
    ),
    Rule(
        "on_failure",
        "word",
        "grind's `on_failure` clause runs a term as meta code when `grind` fails; drop it",
    ),
    Rule(
        "tactic",
        "word",
        "hands a submission-written tactic program to Aesop (`aesop (add safe tactic r)`), "
        "meta code that runs while the file elaborates; add lemmas with `apply`, `forward`, "
        "`cases`, `simp` or `unfold` instead",
    ),
    Rule(
        "partial",
        "word",
        "defines the function by an opaque constant whose equations the kernel never sees; "
        "use structural or well-founded recursion",
    ),
    Rule("implemented_by", "word", "swaps in compiled code the kernel never relates to it"),
    Rule("extern", "word", "binds the definition to native code the kernel never sees"),
    Rule("compile_def", "word", "swaps in compiled code the kernel never relates to it"),
    Rule("macro", "word", f"defines a macro: {_META}"),
    Rule("macro_rules", "word", f"defines a macro: {_META}"),
    Rule("syntax", "word", "extends Lean's grammar, which changes how the rest of the file reads"),
    Rule("elab", "word", f"defines an elaborator: {_META}"),
    Rule("elab_rules", "word", f"defines an elaborator: {_META}"),
    Rule("binder_predicate", "word", _NOTATION),
    Rule(
        "meta",
        "word",
        f"marks declarations or imports for compile-time evaluation (`meta def`, `meta section`, "
        f"`meta import`): {_META}",
    ),
    *(
        Rule(word, "word", f"runs {_META}")
        for word in ("run_cmd", "run_elab", "run_meta", "run_tac", "by_elab")
    ),
    *(
        Rule(word, "word", _SIMPROC)
        for word in ("simproc", "dsimproc", "simproc_decl", "dsimproc_decl")
    ),
    Rule("add_aesop_rules", "word", "registers Aesop rules, which may be tactics (meta code)"),
    Rule(
        "with_weak_namespace",
        "word",
        "runs a command inside another namespace, which this scan does not follow",
    ),
    Rule("init_quot", "word", "a bootstrapping command of Lean's own prelude"),
    Rule("register_…", "prefix", "registers an attribute, option, hint or extension at load time"),
    Rule("declare_…", "prefix", "declares syntax, an elaborator or an extension (metaprogramming)"),
    Rule("initialize…", "prefix", "runs code whenever the module is loaded"),
    Rule("builtin_…", "prefix", "a builtin registration of Lean's own sources (metaprogramming)"),
    Rule("addDecl", "constant", "adds a declaration from meta code"),
    Rule("addDeclCore", "constant", "adds a declaration from meta code, optionally unchecked"),
    Rule("addDeclWithoutChecking", "constant", "adds a declaration the kernel never checks"),
    Rule("addAndCompile", "constant", "adds a declaration from meta code"),
    *(
        Rule(name, "constant", _META_TYPE)
        for name in (
            *("MetaM", "TacticM", "TermElabM", "CommandElabM", "CoreM", "MacroM", "DelabM"),
        )
    ),
    Rule("#eval", "command", f"runs arbitrary code with the environment in hand: {_META}"),
    Rule("#exit", "command", "stops Lean reading the file, so the rest is never checked"),
    Rule(
        "#guard_msgs",
        "command",
        "swallows the messages it expects, errors included, so a failure can pass unseen",
    ),
    *(
        Rule(name, "attribute", _REGISTERS)
        for name in (
            *("command_elab", "term_elab", "tactic", "delab", "app_unexpander", "init"),
            *("simproc", "sevalproc", "positivity", "norm_num", "env_linter", "widget_module"),
            *("code_action_provider", "command_code_action", "hole_code_action", "incremental"),
            *("combinator_formatter", "combinator_parenthesizer", "run_parser_attribute_hooks"),
            *("never_extract", "macro_inline"),
        )
    ),
    Rule(
        "set_option debug.*",
        "option",
        "`debug.skipKernelTC` and its siblings switch kernel checks off or change what they see",
    ),
    Rule(
        "@[…]",
        "form",
        "not on the attribute allowlist; a submission may use only attributes that tag lemmas "
        "or set how a definition elaborates",
    ),
    Rule(
        "@[aesop] not on a lemma",
        "form",
        "an Aesop rule may tag only a `theorem` or `lemma` of this file: on a definition, "
        "Aesop picks the builder from its type, and for a tactic that is the `tactic` "
        "builder, which runs it while the file elaborates",
    ),
    Rule("#…", "form", "not on the command allowlist (#check, #print, #reduce, #synth)"),
    Rule(
        "notation token",
        "form",
        "a notation token that holds a comment marker, a quote, `«`, `»` or a backslash, starts "
        "with `'`, ends in `-` or `/`, or has a letter right after a symbol can make Lean split "
        "the text around it otherwise than this scan does (a comment or a name where Lean "
        "reads code); choose another symbol",
    ),
    Rule(
        "unreadable notation",
        "form",
        "this scan reads a notation's tokens up to its `=>` within a few dozen tokens, and "
        "this one runs longer; split it",
    ),
    Rule(
        "unknown #command",
        "form",
        "a `#word` starting a line that is no command of the pinned Lean, Batteries, Mathlib, "
        "Aesop or Plausible (jigcli/lean/tokens.yaml), so an import may have added it; only "
        "#check, #print, #reduce and #synth are allowed (for `#s` notation, indent the line)",
    ),
    Rule(
        "set_option …",
        "form",
        "not an option this policy knows to be harmless; budgets, output, implicit binders and "
        "`backward.*` switches are allowed, never with a string value (one names a file Lean "
        "writes)",
    ),
    Rule(
        "escaped identifier",
        "form",
        "`«…»` around a plain word hides a keyword, an attribute or a name from a reader that "
        "compares text; write the name without `«»`, or choose another name",
    ),
    Rule(
        "reaches a protected namespace",
        "form",
        "`Lean`, `Lake`, `Verify`, `Statements`, `Jig`, `Aesop` and the tactic namespaces "
        "(`Mathlib.Tactic`, `Mathlib.Meta`, `Batteries.Tactic`) belong to the toolchain, its "
        "tactics and the verifier; declare your own names in your submission's namespace",
    ),
    Rule(
        "unreadable declaration",
        "form",
        "this scan reads the name a declaration declares within a few tokens of its keyword, "
        "and this `(priority := …)` or `⟨…⟩` runs longer; shorten it",
    ),
    Rule(
        "Lean.…",
        "form",
        f"Lean's namespaces are off limits but for `Lean.Grind`, `Lean.Omega` and "
        f"`Lean.Order`: the rest is {_META}",
    ),
    Rule("Qq", "form", f"typed quotations for {_META}"),
    Rule("`(…)", "form", f"a syntax quotation builds syntax for {_META}"),
    Rule(
        "name literal",
        "form",
        f"names a metaprogramming API or an escape hatch, which only {_META} can use",
    ),
    Rule(
        "word%",
        "form",
        "a `name%` token is a term elaborator of its own (Mathlib's `eval%` runs code while "
        "the file elaborates; `exact?%` elaborates to a sorry when it fails), and a word glued "
        "to `%` then a space is written as one; for the modulo operator write `a % b` or `a%b`",
    ),
    Rule(
        "string with braces",
        "form",
        "an interpolated string runs the code between its braces, and this one's braces hold "
        'a `"` or `\\` or never close, so where its code ends cannot be read; build the string '
        "another way",
    ),
    Rule("open private", "form", "reaches declarations their module kept private"),
    Rule("prelude", "form", "a `prelude` module does without `Init`, as only core itself does"),
    Rule(
        "module",
        "form",
        "the module system (`module`, `public import`, `public section`, `@[expose]`) is not "
        "accepted until the judge reads every part of a module (its private proofs included); "
        "write the file without it: drop the `module` line, `public` and `@[expose]`, and write "
        "`import` for `public import`",
    ),
    Rule("import", "form", "imports must come before everything else in the file"),
    Rule(
        "glued comment",
        "form",
        "a comment opener glued to an operator may be part of a longer symbol in Lean's "
        "token table, and then what follows is code; put a space before it",
    ),
    Rule(
        "glued name",
        "form",
        "a name glued to a symbol and ending in a keyword (`∯xsorry`): where an import's token "
        "ends in letters (`∯x`), Lean reads that token and then the keyword; put a space "
        "between the symbol and the name",
    ),
    Rule(
        "glued literal",
        "form",
        "a char literal or string glued to an operator may belong to a longer symbol (like "
        "`⁻¹'` or `∑'`), and then what follows reads differently; put a space before it",
    ),
    Rule(
        "malformed literal",
        "form",
        "Lean rejects this literal, and its error recovery reads what follows as code; "
        "close or fix it",
    ),
    Rule(
        "not Lean text",
        "form",
        "a control, invisible or direction-changing character, or a space other than ' ': "
        "Lean does not read it as text, and a reviewer may not see it; delete it",
    ),
)


def _table(where: str) -> dict[str, Rule]:
    return {rule.construct: rule for rule in RULES if rule.where == where}


WORDS = _table("word")
PREFIXES = {construct.rstrip("…"): rule for construct, rule in _table("prefix").items()}
# How a `component` rule matches one name component (a full match). A family of names is
# open-ended (`unsafeEIO`, `IO.FS.Handle`, `EIO`, `liftIO`), so it is matched by its shape.
COMPONENT_PATTERNS = {
    "unsafe…": r"unsafe.+|.*Unsafe.*",
    "…IO…": r".*IO(?![a-z]).*",
    "dbg…": r"dbg.*",
}
COMPONENTS = [
    (re.compile(COMPONENT_PATTERNS[construct]), rule)
    for construct, rule in _table("component").items()
]
CONSTANTS = _table("constant")
COMMANDS = _table("command")
ATTRIBUTES = _table("attribute")
FORMS = _table("form")
_DEBUG = _table("option")["set_option debug.*"]
