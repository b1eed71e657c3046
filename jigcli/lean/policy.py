"""The static policy: which Lean a submission may contain, decided without running Lean.

A submission states and proves mathematics. The policy keeps out everything that reaches
outside the fragment the kernel protects: unfinished proofs, assumptions, trust in compiled
code, and metaprogramming (code that runs while the file elaborates, which could add
declarations the kernel never checks, or do whatever the user running the build can). It is
defence in depth, not the soundness argument: the judge decides from the compiled constants,
replayed through the kernel, whatever the policy missed. The scan exists so that a source it
rejects is never built at all: building it would run the very code kept out here.

    scan(text, home=None) -> list[Violation]  # by line; empty means admissible
    scan_file(path) -> list[Violation]        # not UTF-8: a violation; unreadable: raises
    Violation(line, construct, message)
    RULES                                     # the policy itself, one Rule per construct
    ALLOWED_ATTRIBUTES, ALLOWED_COMMANDS, ALLOWED_OPTIONS, FORBIDDEN_ROOTS

It fails closed. Where Lean can be extended or read two ways, the scan allows what it knows and
refuses the rest: attributes, `#` commands and `set_option` names come from allowlists; the
lexer gives every character of code a kind or calls it an error, and an error is a violation;
a string whose `{…}` the scan cannot delimit the way an interpolated string would is refused.
Words Lean reads as keywords (`macro`, `apply?`, `register_hint`) cannot be allowlisted the same
way, since imports add keywords and a keyword looks like any identifier; they stay a denylist,
which is the one part of this scan a new Mathlib command can get past, and what the judge and
the sandboxed build are for.

What is scanned is the token stream of `jigcli.lean.lexer`, so a forbidden word inside a
comment, a string, a raw string, a char literal or a longer identifier (`partial_sum`,
`Foo.sorry`) is not a violation. Decisions worth knowing, with the Lean sources they were read
in (leanprover/lean4 unless said otherwise):

* Attributes: only `ALLOWED_ATTRIBUTES`, each one that tags a proved lemma for a tactic or sets
  how elaboration treats a definition, none that registers the tagged definition as code Lean
  runs. Lean reads an entry as `-`? (`scoped`|`local`)? name arguments (`Term.attrInstance`,
  `Command.eraseAttr` in src/Lean/Parser/Command.lean; `Attr.simple`, `macro`, `export`,
  `extern` in src/Lean/Parser/Attr.lean), resolving the name after undoing `«»`, so
  `@[«macro» m]` registers a macro: an escaped name is refused, and the name is compared once
  unescaped. Mathlib's `to_additive (attr := …)` carries a list of its own, judged the same
  way. Refused among others: the compiler's `implemented_by`, `extern`, `export`, `csimp`,
  `init`, `never_extract`, `macro_inline` (src/Lean/Compiler/ImplementedByAttr.lean,
  ExternAttr.lean, ExportAttr.lean, CSimpAttr.lean, InitAttr.lean, InlineAttrs.lean),
  `aesop` (a rule may be a tactic), `positivity`/`norm_num` extensions, and `deprecated`,
  whose text lands in messages.
* Escaped identifiers: `«x»` whose content is a plain identifier (`«sorry»`, `«macro»`,
  `«Lean»`) only serves to hide a word from a reader that compares text, so it is refused;
  escapes that a name needs (`«term_+_»`, `«my lemma»`) are fine.
* `Lean`, `Lake`, `Verify`, `Statements`, `Jig` (and `Qq`): nothing may be declared in them or
  reach them. `namespace`, `with_weak_namespace`, a declaration name whose first component
  (after `_root_.`, and whatever namespace is open) is one of them (`def Lean.Grind.x`,
  `theorem _root_.Statements.S001.statement`; Lean opens the prefix as a namespace for the
  body, `expandDeclNamespace?` in src/Lean/Elab/Declaration.lean), `open`, `export` and any
  reference, `_root_.` or not.
  References into `Lean` are allowed only under `Lean.Grind`, `Lean.Omega` and `Lean.Order`,
  which hold lemmas a proof may cite; the rest of `Lean` is its metaprogramming API. A canonical
  statement's own file may use its namespace (`scan(text, home="Statements.S001")`).
* Name literals (`` `Lean.Elab.Command.elabCommand ``, ``` ``x ```) are scanned: one naming a
  forbidden root, a meta monad or a refused constant is refused. Syntax quotations
  (`` `(…) ``, `` `(tactic| …) ``; `Term.quot`, `Command.quot` in src/Lean/Parser/Command.lean)
  build syntax for meta code and are refused outright.
* `#` commands: only `#check`, `#print`, `#reduce`, `#synth`. That refuses `#eval`, `#exit`,
  `#guard_msgs` (which swallows the errors it expects), `#guard`, the network searches
  (`#loogle`, `#leansearch`) and whatever an import adds.
* Tactics that admit the goal or search: `apply?` (`admitGoal` when no suggestion closes it,
  src/Lean/Elab/Tactic/LibrarySearch.lean), `exact?` and `rw?` (src/Lean/Elab/Tactic/
  Rewrites.lean; search left in a proof), `hint` (admits when no hint closes the goal,
  Mathlib/Tactic/Hint.lean), `plausible` / `slim_check` (admits when no counterexample is
  found, leanprover-community/plausible Plausible/Tactic.lean), `polyrith` (asks a web
  service), `observe`, `library_search`. A word glued to `%` is a term elaborator (`eval%`,
  Mathlib's compile-time evaluation; `exact?%`, which elaborates to a sorry when it fails) and
  is refused: write `a % b` with spaces for the modulo operator.
* `set_option`: only `ALLOWED_OPTIONS` (budgets, output, implicit binders, elaborator
  compatibility switches). `debug.*` (`debug.skipKernelTC` turns kernel checking off),
  `allowUnsafeReducibility`, `compiler.*`, `interpreter.*`, `bootstrap.*`, `hygiene` are not
  on it, and no option may take a string (`trace.profiler.output "…"` makes Lean write a
  file). `maxHeartbeats 0` is allowed: it can only make elaboration slower, and the wall
  budget ends that in a `timeout` verdict; refusing it would refuse honest heavy proofs.
  `trace.*` and `pp.*` only change messages, which no verdict reads.
* Strings: Lean's interpolated strings (`s!"…{e}…"`, src/Lean/Parser/StrInterpolation.lean)
  hold code in their braces, and any syntax may interpolate; so the code between the braces
  of every string is scanned, and a string whose braces hold a `"` or `\\`, or never close, is
  refused, since there the two readings part.
* `opaque` is allowed: the kernel checks its value (from `Inhabited`) and only hides it;
  `opaque … implemented_by` is caught by `implemented_by`.
* `export` is refused: as a command its aliases travel with the module into every importer.
* `decide +native` and `native :=` anything but `false` are refused.
* Tactic configurations: every tactic taking `optConfig` evaluates its items with the
  interpreter while the file elaborates (`declare_config_elab`, src/Lean/Elab/Tactic/
  Config.lean, `Meta.evalExpr'` with `safety := .unsafe`), so a `(name := value)` group that
  follows a tactic-shaped word where a tactic starts must hold a literal: a number, `true`,
  `false`, one of Lean's enum constructors (`.reducible`), `by tactic` (kept as syntax), or for
  `config` a `{ field := literal, … }`. Elsewhere the same shape is a named argument, which
  only elaborates.
* Families of names, under every namespace (they are matched per name component): `unsafe…`
  and `…Unsafe…` (`unsafeBaseIO`, `unsafeCast`, `ptrAddrUnsafe`), the `IO` family (`IO`, `EIO`,
  `BaseIO`, `toIO`), `FS`, `Process`, `System`, `FilePath`, `Internal` (`Std.Internal`), `dbg…`;
  and `include_str` (reads a file and evaluates its path argument, src/Lean/Elab/
  BuiltinTerm.lean), grind's `on_failure`, Aesop's `tactic` rule builder and the `Aesop`
  namespace (rule tactics are programs). Aesop's `unsafe` phase (`add unsafe 50% apply h`) is
  not the modifier and is allowed.
* Imports extend Lean's token table, so the lexer cannot know every multi-character symbol.
  A comment, char literal or string glued to a preceding operator character (`x <|-- …`) is
  where that could change what is code, and is refused with "put a space before it".
* A literal Lean itself rejects (unterminated string, bad escape, malformed char literal, …)
  is refused: Lean's error recovery goes on reading what follows it as code. So is a character
  that is not Lean text (`NOT_TEXT` in the lexer), and anywhere in the file, comments
  included, a direction-changing or zero-width character, which can make a reviewer read
  something else than Lean does.
* `prelude` and the `module` header are refused; imports come first (Lean agrees).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from jigcli.errors import UsageError
from jigcli.lean.lexer import (
    HASH_COMMANDS,
    ID_FIRST,
    ID_REST,
    MULTI_SYMBOLS,
    NOT_TEXT,
    NOT_TEXT_ASTRAL,
    NOT_TEXT_BMP,
    SKIP_PARTS,
    TOKENS,
    Lexer,
)


@dataclass(frozen=True)
class Violation:
    line: int
    construct: str
    message: str


class SourceUnreadable(UsageError):
    """A Lean source that cannot be read at all (missing, a directory, no permission)."""


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
    Rule("exact?", "word", _SEARCH),
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
        "a tactic's configuration is evaluated by Lean's interpreter while the file "
        "elaborates, so its values must be literals (a number, `true`, `false`, `.constructor`, "
        "`by tactic`, or `{ field := literal, … }` for `config`); write the value out",
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
        for name in ("FS", "Process", "System", "FilePath")
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
    Rule("compile_inductive", "word", "swaps in compiled code the kernel never relates to it"),
    Rule("compile_def", "word", "swaps in compiled code the kernel never relates to it"),
    Rule(
        "export",
        "word",
        "makes aliases that travel into every module importing this one (as an attribute, "
        "renames compiled code); a submission needs neither",
    ),
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
            *("csimp", "never_extract", "macro_inline", "aesop"),
        )
    ),
    Rule(
        "deprecated",
        "attribute",
        "puts the submission's text into Lean's messages; a submission deprecates nothing",
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
    Rule("#…", "form", "not on the command allowlist (#check, #print, #reduce, #synth)"),
    Rule(
        "notation token",
        "form",
        "a notation token holding a comment marker, a quote, `«`, `»`, `#`, `%` or a backslash "
        "changes how Lean reads the rest of the file in a way this scan cannot follow; choose "
        "another symbol",
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
        "#check, #print, #reduce and #synth are allowed (for `#s` notation, do not start the "
        "line with it)",
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

ALLOWED_IMPORT_ROOTS = ("Mathlib", "Batteries", "Std", "Init", "Aesop", "Plausible", "Commons")
_KERNEL_BYPASS = "which can add declarations the kernel never checks"
REJECTED_IMPORT_ROOTS = {
    "Statements": "its `target` is closed with `sorry`, which an importer could inherit; state "
    "your own theorem and let the verifier bridge it to the canonical statement",
    "Verify": "the verifier's own trusted metaprograms are not for submissions",
    "Submissions": "another submission is not reviewed code; prove what you need here",
    "Lean": f"Lean's own modules are for metaprogramming, {_KERNEL_BYPASS}",
    "Qq": f"typed quotations are for metaprogramming, {_KERNEL_BYPASS}",
}

# The attributes a submission may use, and why each is harmless: none registers the tagged
# declaration as code that Lean runs; each tags a proved lemma for a tactic (the lemma is
# kernel-checked like any other) or sets how elaboration treats a definition (the kernel
# checks the result either way).
ALLOWED_ATTRIBUTES: dict[str, str] = {
    "simp": "adds a proved lemma to `simp`'s rewrite set",
    "norm_cast": "adds a proved cast lemma to `norm_cast`/`push_cast`",
    "push_cast": "adds a proved cast lemma to `push_cast`",
    "ext": "registers (or generates) a proved extensionality lemma",
    "congr": "registers a proved congruence lemma",
    "gcongr": "registers a proved monotonicity lemma for `gcongr`",
    "mono": "registers a proved monotonicity lemma for `mono`",
    "bound": "registers a proved inequality lemma for `bound`",
    "fun_prop": "registers a proved lemma for `fun_prop`",
    "continuity": "registers a proved lemma for `continuity` (a fixed `apply` rule)",
    "measurability": "registers a proved lemma for `measurability` (a fixed `apply` rule)",
    "field_simps": "adds a proved lemma to the `field_simp` set",
    "parity_simps": "adds a proved lemma to the `parity_simps` set",
    "grind": "registers a proved lemma for `grind`",
    "grind!": "registers a proved lemma for `grind` with its minimal patterns",
    "mk_iff": "generates a proved `iff` lemma for an inductive predicate",
    "inherit_doc": "copies a docstring",
    "pp_nodot": "changes how the pretty printer shows the name",
    "reassoc": "generates a proved reassociated lemma (Mathlib's category theory)",
    "zify_simps": "adds a proved lemma to `zify`'s simp set",
    "qify_simps": "adds a proved lemma to `qify`'s simp set",
    "rify_simps": "adds a proved lemma to `rify`'s simp set",
    "mfld_simps": "adds a proved lemma to the manifold simp set",
    "nontriviality": "registers a proved lemma for `nontriviality`",
    "refl": "registers a proved reflexivity lemma for `rfl`",
    "symm": "registers a proved symmetry lemma for `symm`",
    "trans": "registers a proved transitivity lemma for `trans`",
    "reducible": "lets elaboration unfold the definition; the kernel checks the result",
    "irreducible": "keeps elaboration from unfolding the definition",
    "semireducible": "restores the default transparency",
    "instance": "registers a typeclass instance (a definition the kernel checks)",
    "default_instance": "makes an instance the default when inference is stuck",
    "class": "makes a structure a typeclass",
    "match_pattern": "lets a definition appear in patterns",
    "elab_as_elim": "elaborates uses of an eliminator by its motive",
    "induction_eliminator": "makes a proved eliminator the default for `induction`",
    "cases_eliminator": "makes a proved eliminator the default for `cases`",
    "coe": "marks a function as a coercion for `norm_cast` and printing",
    "simps": "generates simp lemmas for a definition's projections (proved by Mathlib)",
    "simps!": "as `simps`, unfolding the definition further",
    "to_additive": "generates the additive version (its `(attr := …)` list is judged here too)",
    "nolint": "silences a Mathlib linter, which no verdict reads",
    "inline": "a compiler hint; a submission's compiled code never runs",
}
_ATTRIBUTE_KINDS = frozenset({"-", "scoped", "local"})

# The module system (`module`, `public`/`private` imports and sections, `@[expose]`) only
# decides what importers of the module see; it runs nothing. It is accepted because the judge
# sees every part of a submitted module: `Verify/Export.lean` imports it as Lean's importer
# does, at `OLeanLevel.private` (the `.olean`, `.olean.server` and `.olean.private` parts), and
# exports its constants with their proofs. Were that to change, switching this off refuses the
# module system again, with the way to write the file without it. `meta` (compile-time code)
# is refused either way.
MODULE_SYSTEM_ACCEPTED = True
MODULE_ATTRIBUTES = frozenset({"expose", "no_expose"})

ALLOWED_COMMANDS = frozenset(
    command for command, entry in TOKENS["hash_commands"].items() if entry.get("allowed")
)
# `name%` tokens: each a term elaborator or command of its own (tokens.yaml).
PERCENT_TOKENS: dict[str, str] = {
    token: entry["why"] for token, entry in TOKENS["percent_tokens"].items()
}

# Options by full name, or by prefix when they end in `.`.
ALLOWED_OPTIONS = (
    *("maxHeartbeats", "maxRecDepth", "synthInstance.maxHeartbeats", "synthInstance.maxSize"),
    *("pp.", "trace.", "linter.", "diagnostics", "diagnostics.threshold", "profiler"),
    *("profiler.threshold", "autoImplicit", "relaxedAutoImplicit", "backward."),
    *("exponentiation.threshold", "push_neg.use_distrib", "simprocs", "warningAsError"),
)

# Namespaces a submission may neither declare in nor reach, with who owns them.
FORBIDDEN_ROOTS = {
    "Lean": "Lean's own",
    "Lake": "the build tool's",
    "Verify": "the verifier's",
    "Statements": "the canonical statements'",
    "Jig": "the verifier's",
    "Qq": "the Qq metaprogramming library's",
    # `Aesop.RuleTac` and its kin are tactic programs Aesop runs; a proof adds rules with
    # `aesop (add …)` clauses and never names Aesop's API.
    "Aesop": "Aesop's metaprogramming API",
}
# Namespaces below an allowed import root that hold tactic implementations and their
# configuration types: declaring there could add a `.constructor` a configuration resolves to.
TACTIC_NAMESPACES = frozenset({"Mathlib.Tactic", "Mathlib.Meta", "Batteries.Tactic"})


def _in_tactic_namespace(parts: list[str]) -> bool:
    return ".".join(parts[:2]) in TACTIC_NAMESPACES


# `Lean.<X>` a proof may cite: lemmas and classes behind `grind`, `omega` and `partial_fixpoint`.
LEAN_MATH_NAMESPACES = frozenset({"Grind", "Omega", "Order"})

# Notation commands, accepted: each only declares term syntax and the term it expands to
# (`notation`, `infix…`, `prefix`, `postfix` in lean4 src/Lean/Parser/Command.lean and
# src/Lean/Elab/Notation.lean; Mathlib's `notation3`). The expansion is a syntax rewrite done by
# Lean's own macro, so no code of the submission runs; the right-hand side is scanned here like
# any other code, and the kernel checks the terms it builds. What a notation can change is how
# the rest of the file tokenizes, so its tokens are judged (`_BAD_NOTATION_TOKEN`).
NOTATION_KEYWORDS = frozenset(
    {"notation", "notation3", "infix", "infixl", "infixr", "prefix", "postfix"}
)
# A token holding these could turn what this scan reads as a comment, string, char literal or
# name into code (`notation "a--" => 0` makes `a-- sorry` code), or clash with `#`/`%` tokens.
_BAD_NOTATION_TOKEN = re.compile(r"--|/-|-/|[\"'`«»#%\\]")
_NOTATION_LOOKAHEAD = 64

# The keywords that declare a name, which the scan checks against FORBIDDEN_ROOTS.
DECLARATION_KEYWORDS = frozenset(
    {
        *("def", "theorem", "lemma", "abbrev", "opaque", "axiom", "instance", "structure"),
        *("class", "inductive", "coinductive", "irreducible_def", "alias", "namespace"),
    }
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

# Words that send the scanner to Python: every word a rule or a form looks at.
_CONTEXT_WORDS = (
    *("import", "native", "set_option", "attribute", "_root_", "Mathlib", "Batteries", "public"),
    *NOTATION_KEYWORDS,
)
_HOT_WORDS = sorted({*WORDS, *CONSTANTS, *_CONTEXT_WORDS, *FORBIDDEN_ROOTS})


def _trie(words: dict[str, str]) -> str:
    """An alternation of `words` factored by shared prefixes, so a miss costs one comparison;
    each word is followed by its own tail pattern (what must come after it)."""
    by_first: dict[str, dict[str, str]] = {}
    tail = None
    for word, after in words.items():
        if word:
            by_first.setdefault(word[0], {})[word[1:]] = after
        else:
            tail = after
    branches = [re.escape(first) + _trie(rest) for first, rest in sorted(by_first.items())]
    if tail is not None:
        branches.append(tail)
    return branches[0] if len(branches) == 1 else f"(?:{'|'.join(branches)})"


# What may come right before a comment opener or a literal without doubt about where Lean's
# previous token ended: blanks, identifier characters, brackets and separators.
_SAFE_BEFORE = rf"\s{ID_REST}()\[\]{{}}⟨⟩,;\"»"
_GUARD = rf"(?<![^{_SAFE_BEFORE}])"
_END = rf"(?![{ID_REST}])"
_ROOT_AHEAD = "|".join(re.escape(root) for root in (*FORBIDDEN_ROOTS, "_root_"))
# A declaration keyword followed by a plain name outside the protected roots (`theorem aux`),
# and `open` followed by a name but `private`, need no look: every other spelling gets one.
_PLAIN_NAME_AHEAD = rf"[ \t\r\n]++(?!(?:{_ROOT_AHEAD}){_END})[{ID_FIRST}]"
# A hot word exactly (a trailing `!`/`?` aside), a word with a hot prefix, or a declaration
# keyword or `open` followed by anything else.
_HOT = _trie(
    {word: rf"{_END}(?!{_PLAIN_NAME_AHEAD})" for word in DECLARATION_KEYWORDS}
    | {"open": rf"{_END}(?![ \t\r\n]++(?!private{_END})[{ID_FIRST}])"}
    | {word: rf"[!?]*+{_END}" for word in _HOT_WORDS}  # `axiom` is hot whatever follows
    | dict.fromkeys(PREFIXES, "")
    | dict.fromkeys(("unsafe", "dbg"), "")  # the `component` rules that match a prefix
)
# ... and the `component` rules that match inside a component.
_COMPONENT_INSIDE = rf"(?![{ID_REST}]*?(?:Unsafe|IO(?![a-z])))"
_BORING_PART = rf"(?!{_HOT}){_COMPONENT_INSIDE}[{ID_FIRST}][{ID_REST}]*+"
_BORING_IDENT = rf"(?!r#*+\"){_BORING_PART}(?>(?:\.{_BORING_PART})*)(?!\.[«{ID_FIRST}]|%)"
# An allowed command is boring unless a longer token continues it (`#check` in `#check_simp`).
_BORING_COMMANDS = "|".join(
    re.escape(command[1:])
    + "(?!{})".format(
        "|".join(
            re.escape(longer[len(command) :])
            for longer in HASH_COMMANDS
            if longer.startswith(command) and longer != command
        )
        or "(?!)"
    )
    for command in sorted(ALLOWED_COMMANDS)
)
_BORING_MULTI = "|".join(
    re.escape(s) for s in sorted(MULTI_SYMBOLS, key=len, reverse=True) if s != "@["
)


# -- `(name := value)`: a named argument, or a tactic's configuration item --------------------
#
# Every tactic (and command) that takes `optConfig` elaborates its items into a configuration
# structure and evaluates it with `Meta.evalExpr'` (safety := .unsafe) while the file
# elaborates (`declare_config_elab`, lean4 src/Lean/Elab/Tactic/Config.lean): a value like
# `f 100` runs the submission's `f`. The same shape in a term is a named argument, which only
# elaborates. The scan tells them apart by position: a group that follows a tactic-shaped word
# (`simp`, `grind`, `norm_num`, `decide`…, and the items before it) standing where a tactic
# starts is a configuration item, and its value must be a literal.

# What may follow `(` when it opens `name :=` (comments may hide in between, so a comment
# there is looked at too); the bulk skip stops at exactly these.
_NAMED_AHEAD = rf"[ \t\r\n]*+(?:/-|--|[{ID_FIRST}«][^\s():]*+[ \t\r\n]*+(?::=|/-|--))"
_NAMED_AHEAD_RE = re.compile(_NAMED_AHEAD)
_PLAIN_NAMED = re.compile(
    rf"[ \t]*+([{ID_FIRST}][{ID_REST}]*+(?:\.[{ID_FIRST}][{ID_REST}]*+)*+)[ \t]*+:="
)
# How far back the scan looks for the tactic a group belongs to and for the start of its line;
# a bound keeps each look constant-time, so a file of many groups scans in linear time.
_WINDOW = 400
_TACTIC_SHAPED = re.compile(r"[a-z][A-Za-z0-9_]*[!?']*")
_OPENER_OF = {")": "(", "]": "["}
# Where a tactic starts: after these tokens on the same line (`by simp`, `<;> simp`,
# `· simp`, `case h => simp`, `first | simp`), after a combinator that takes a tactic, or as
# the first word of a line whose previous line does not leave a term unfinished.
_TACTIC_SEPARATORS = ("by", ";", "<;>", "·", "=>", "|", "<|>", "{")
# ... as whole tokens: `by` not the end of `hby`, `|` not the end of `<|` or `||`.
_SEPARATOR_AT_END = re.compile(rf"(?:(?<![{ID_REST}])by|(?<![<|])\||<\|>|<;>|;|·|=>|\{{)\Z")
_LAMBDA_AT_END = re.compile(rf"(?:(?<![{ID_REST}])fun|λ)[^\n|]*(?:=>|↦)\Z")
_TACTIC_COMBINATORS = frozenset(
    {
        *("try", "repeat", "repeat'", "all_goals", "any_goals", "focus", "first", "iterate"),
        *("classical", "with_reducible", "with_reducible_and_instances", "with_unfolding_all"),
        *("fail_if_success", "show_term", "then", "else", "solve", "next"),
    }
)
# A previous line ending so leaves a term unfinished: the next line continues it.
_CONTINUATIONS = (
    *(":=", "(", ",", "<|", "|>", "$", "[", "⟨", "{", "←", "→", "↔", "=", "+", "*", "∧", "∨"),
    *("exact", "refine", "refine'", "apply", "use", "exists", "exacts", "from", "show", "calc"),
)
# Words that take `(name := …)` arguments evaluated by macros, never by the interpreter:
# `instance (priority := …)` (priorities are `prio` syntax, expanded by macros).
_NOT_TACTICS = frozenset({"instance", *NOTATION_KEYWORDS})
# Options whose value is tactic syntax, not a term: a discharger (`Parser.Tactic.discharger`
# in lean4 src/Init/Tactics.lean), read as a tactic the scan judges like any other.
_TACTIC_VALUED = frozenset({"disch", "discharger"})
# `.constructor` values accepted: the constructors of Lean's own configuration enums
# (`TransparencyMode`, `EtaStructMode` in lean4 src/Init/MetaTypes.lean). A leading-dot name
# resolves in the configuration type's namespace; these names exist there already, so a
# submission cannot declare them.
_ENUM_CONSTRUCTORS = frozenset({"all", "default", "reducible", "instances", "none", "notClasses"})
_GROUP_LOOKAHEAD = 256
# Tactic names refused only in tactic position: as identifiers they are common hypothesis
# names (`hint`), and as tactics they could only stand where a tactic starts.
_TACTIC_ONLY = frozenset({"hint"})
# Aesop's rule builders that take a lemma or a type (Aesop's README, "Rule builders"); the
# `tactic` builder, which runs a program, has its own rule.
_AESOP_BUILDERS = frozenset(
    {"apply", "forward", "destruct", "constructors", "cases", "cases_or", "simp", "unfold"}
)


def _line_before(text: str, pos: int) -> tuple[int, str]:
    """Where the line holding `pos` starts (at most `_WINDOW` back), and its text up to `pos`."""
    line_start = text.rfind("\n", max(0, pos - _WINDOW), pos) + 1
    if line_start == 0:
        line_start = max(0, pos - _WINDOW)
    return line_start, text[line_start:pos]


def _tactic_start(text: str, pos: int) -> bool:
    """Whether a tactic may start at `pos`, judged from the text before it."""
    line_start, before = _line_before(text, pos)
    before = before.rstrip()
    if not before:
        previous = text[max(0, line_start - _WINDOW) : line_start].rstrip()
        if _LAMBDA_AT_END.search(previous):  # `fun x =>` then the body on the next line
            return False
        return not previous.endswith(_CONTINUATIONS) or previous.endswith(("<;>", "=>"))
    if _SEPARATOR_AT_END.search(before) or before == ".":
        return True
    if before.endswith("("):
        return _tactic_start(text, line_start + len(before) - 1)
    words = before.split()
    last = words[-1]
    if last.isdigit() and len(words) > 1:  # `iterate 3 simp`
        last = words[-2]
    return last.lstrip("(") in _TACTIC_COMBINATORS


def _configuration_position(text: str, pos: int) -> bool:
    """Whether the `(` at `pos` opens an item of a tactic's configuration."""
    head = _head_before(text, pos)
    if head is None:
        return False
    start, word = head
    return word not in _NOT_TACTICS and _tactic_start(text, start)


def _head_before(text: str, pos: int) -> tuple[int, str] | None:
    """The tactic-shaped word whose clauses run up to `pos`, read backwards over blanks,
    bracket groups (some tactics take clauses in any order: `aesop (add safe h) (config :=
    …)`), `+flag`/`-flag`, `only` and comments; None when there is none within `_WINDOW`."""
    limit = max(0, pos - _WINDOW)
    i = pos
    while True:
        while i > limit and text[i - 1] in " \t\r\n":
            i -= 1
        if i <= limit:
            return None
        last = text[i - 1]
        if last in _OPENER_OF:
            opener = _opener_before(text, i - 1, limit)
            if opener is None:
                return None
            i = opener
            continue
        if text.startswith("-/", i - 2):
            opener = text.rfind("/-", limit, i - 2)
            if opener < 0:
                return None
            i = opener
            continue
        j = i
        while j > limit and (_REST_CHAR.match(text, j - 1) or text[j - 1] == "."):
            j -= 1
        word = text[j:i]
        if j > limit and text[j - 1] in "+-" and word[:1].isalpha():
            i = j - 1  # `+arith`, `-zeta`
        elif word == "only":
            i = j
        elif (j > limit or limit == 0) and _TACTIC_SHAPED.fullmatch(word):
            return j, word
        else:
            return None


def _opener_before(text: str, close: int, limit: int) -> int | None:
    """Where the bracket that the `)` or `]` at `close` closes opens, if after `limit`."""
    depth = 0
    for i in range(close, limit - 1, -1):
        c = text[i]
        if c in ")]":
            depth += 1
        elif c in "([":
            depth -= 1
            if depth == 0:
                return i
    return None


def _skip(not_text: str) -> re.Pattern[str]:
    """A pattern that consumes in one C-level match every token the policy has no interest in,
    with exactly the lexer's boundaries, and stops at the start of the next token worth a look
    (or at the end). Name literals, escaped names, strings with braces and raw strings are left
    to the lexer, and so is every character in `not_text`."""
    symbol = (
        rf"{_BORING_MULTI}|[^\s{ID_FIRST}0-9\"'«`#@/\-({not_text}]|/(?!-)|-(?!-)"
        rf"|`(?![«{ID_FIRST}(`])|#(?![A-Za-z_])|@(?!\[)|\((?!{_NAMED_AHEAD})"
    )
    parts = (
        r"[ \t\r\n]++",
        _BORING_IDENT,
        symbol,
        SKIP_PARTS["number"],
        _GUARD + r"--[^\n]*+",
        _GUARD + SKIP_PARTS["comment"],
        _GUARD + SKIP_PARTS["string_without_braces"],
        _GUARD + SKIP_PARTS["char"],
        rf"#(?:{_BORING_COMMANDS})",
    )
    return re.compile("(?>(?:" + "|".join(parts) + ")*)")


# Most sources hold no character that is not Lean text outside the astral planes, which one
# quick look at the whole text (`_NOT_TEXT_BMP`) tells; they skip symbols with a class that
# leaves only the astral ones to the lexer. Any other source is scanned with `_SKIP_STRICT`.
_SKIP = _skip(NOT_TEXT_ASTRAL)
_SKIP_STRICT = _skip(NOT_TEXT)
# Direction-changing and zero-width characters, refused anywhere, comments and strings included.
_UNSEEN = re.compile("[\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]")
_NOT_TEXT = re.compile(f"[{NOT_TEXT}]")
_NOT_TEXT_BMP = re.compile(f"[{NOT_TEXT_BMP}]")
_SAFE_CHAR = re.compile(f"[{_SAFE_BEFORE}]")
_COMMENTS = frozenset({"line_comment", "block_comment", "doc_comment", "module_doc"})
_TRIVIA = _COMMENTS | {"ws"}
_GLUABLE = _COMMENTS | {"char", "string"}
_WORDLIKE = frozenset({"ident", "keyword"})
_PART = re.compile(r"«([^»]*)»|([^.«]+)")
_PLAIN_WORD = re.compile(rf"[{ID_FIRST}][{ID_REST}]*")
_CLOSERS = {"(": ")", "[": "]", "{": "}", "⟨": "⟩"}
_OPENERS = frozenset({*_CLOSERS, "@["})
_LOOKAHEAD = 16
_REST_CHAR = re.compile(f"[{ID_REST}]")


def _ends_with(text: str, pos: int, suffix: str) -> bool:
    """Whether `text[:pos]` ends with `suffix` (without copying `text[:pos]`)."""
    return pos >= len(suffix) and text.startswith(suffix, pos - len(suffix))


def _blank_before(text: str, pos: int) -> int:
    """Where the blanks that end right before `pos` begin."""
    while pos > 0 and text[pos - 1] in " \t\r\n":
        pos -= 1
    return pos


def name_parts(ident: str) -> list[str]:
    """An identifier's components with `«»` escapes undone: `Lean.«ofReduceBool»` gives
    `["Lean", "ofReduceBool"]`."""
    return [m.group(1) if m.group(1) is not None else m.group(2) for m in _PART.finditer(ident)]


def _unrooted(parts: list[str]) -> list[str]:
    """The name `_root_.X` stands for: `X`."""
    return parts[1:] if parts[:1] == ["_root_"] else parts


def option_allowed(name: str) -> bool:
    return any(
        name.startswith(option) if option.endswith(".") else name == option
        for option in ALLOWED_OPTIONS
    )


class _Scan:
    """One scan of one text: the findings, and the small readers the rules share. Every
    reader moves forward through the text, and none recurses, so a scan takes linear time."""

    def __init__(self, text: str, home: str | None = None) -> None:
        self.text = text
        self.home = home
        self.lexer = Lexer(text)
        self.plain = _NOT_TEXT_BMP.search(text) is None
        self.found: dict[tuple[int, str], Violation] = {}
        self._counted = (0, 1)  # (offset, line there): findings come mostly in order

    def add(self, pos: int, construct: str, message: str) -> None:
        offset, line = self._counted if pos >= self._counted[0] else (0, 1)
        line += self.text.count("\n", offset, pos)
        self._counted = (pos, line)
        self.found.setdefault((line, construct), Violation(line, construct, message))

    def form(self, pos: int, form: str, construct: str | None = None) -> None:
        self.add(pos, construct or form, FORMS[form].message)

    def next_token(self, pos: int) -> tuple[str, int, int]:
        """The next token that is not whitespace or a comment: (kind, start, end)."""
        n = len(self.text)
        while pos < n:
            kind, end = self.lexer.at(pos)
            if kind not in _TRIVIA:
                return kind, pos, end
            pos = end
        return "eof", n, n

    def next_text(self, pos: int) -> tuple[str, int, int]:
        _, start, end = self.next_token(pos)
        return self.text[start:end], start, end

    # -- the whole text ----------------------------------------------------------------------

    def unseen(self) -> None:
        """Direction-changing and zero-width characters, wherever they are."""
        if self.plain:  # they are all in `NOT_TEXT_BMP`
            return
        for m in _UNSEEN.finditer(self.text):
            self.form(m.start(), "not Lean text", f"U+{ord(m.group()):04X}")

    # -- the header: `module`? `prelude`? (`public`? `meta`? `import` `all`? Name)* ------------

    def header(self) -> int:
        """Judge the header; return where the first command starts."""
        pos = 0
        first = True
        while True:
            _, start, end = self.next_token(pos)
            word = self.text[start:end]
            if first and word == "module":
                if not MODULE_SYSTEM_ACCEPTED:
                    self.form(start, "module")
            elif word == "prelude":
                self.form(start, "prelude")
            elif word in ("public", "meta", "import") and self.import_ahead(start):
                end = self.import_(start)
            else:
                return start
            first = False
            pos = end

    def import_ahead(self, pos: int) -> bool:
        word, _, end = self.next_text(pos)
        while word in ("public", "meta"):
            word, _, end = self.next_text(end)
        return word == "import"

    def import_(self, pos: int) -> int:
        word, start, end = self.next_text(pos)
        while word != "import":
            if word == "public" and not MODULE_SYSTEM_ACCEPTED:
                self.form(start, "module", "public import")
            elif word == "meta":
                self.add(start, "meta", WORDS["meta"].message)
            word, start, end = self.next_text(end)
        kind, name_start, name_end = self.next_token(end)
        if self.text[name_start:name_end] == "all":
            kind, name_start, name_end = self.next_token(name_end)
        if kind not in _WORDLIKE:
            self.add(start, "import", "an import names a module, like `import Mathlib.Tactic`")
            return end
        module = self.text[name_start:name_end]
        root = name_parts(module)[0]
        if root in REJECTED_IMPORT_ROOTS:
            self.add(start, f"import {module}", REJECTED_IMPORT_ROOTS[root])
        elif root not in ALLOWED_IMPORT_ROOTS:
            allowed = ", ".join(ALLOWED_IMPORT_ROOTS)
            self.add(start, f"import {module}", f"imports come only from {allowed}")
        return name_end

    # -- the body ----------------------------------------------------------------------------

    def body(self, pos: int, stop: int | None = None) -> None:
        """Judge the code from `pos` to `stop` (the end of the text by default)."""
        text = self.text
        stop = len(text) if stop is None else stop
        skip = (_SKIP if self.plain else _SKIP_STRICT).match
        while True:
            boring = skip(text, pos, stop)
            assert boring is not None  # a `*+` pattern always matches
            pos = boring.end()
            if pos >= stop:
                return
            kind, end = self.lexer.at(pos)
            pos = self.token(kind, pos, end)

    def token(self, kind: str, start: int, end: int, *, in_attributes: bool = False) -> int:
        """Judge one token; return where scanning goes on."""
        text = self.text
        if kind in _WORDLIKE:
            return self.word(start, end, in_attributes=in_attributes)
        if kind == "command":
            self.command(start, end)
        elif kind == "name":
            self.name_literal(start, end)
        elif kind == "symbol" and text.startswith("@[", start) and not in_attributes:
            return self.attributes(end)
        elif kind == "symbol" and text.startswith("`(", start):
            self.form(start, "`(…)")
        elif kind == "symbol" and text[start] == "#":
            self.hash_symbol(start)
        elif (
            kind == "symbol"
            and text[start] == "("
            and not in_attributes
            and _NAMED_AHEAD_RE.match(text, end)
        ):
            self.named_group(start, end)
        elif kind == "error":
            return self.error(start, end)
        elif kind in _GLUABLE and start > 0 and not _SAFE_CHAR.match(text, start - 1):
            self.form(start, "glued comment" if kind in _COMMENTS else "glued literal")
        if kind == "string" and text[start] == '"' and "{" in text[start:end]:
            self.braces(start, end)
        return end

    def error(self, start: int, end: int) -> int:
        text = self.text
        if _NOT_TEXT.match(text, start):
            self.form(start, "not Lean text", f"U+{ord(text[start]):04X}")
        else:
            self.form(start, "malformed literal")
        if text.startswith("/-", start):
            return end  # Lean, too, reads an unterminated comment to the end
        return start + 1  # what the broken literal would have hidden is code

    def command(self, start: int, end: int) -> None:
        command = self.text[start:end]
        if command in ALLOWED_COMMANDS:
            return
        rule = COMMANDS.get(command)
        why = TOKENS["hash_commands"][command]["why"]
        self.add(start, command, rule.message if rule else f"{why}: {FORMS['#…'].message}")

    def hash_symbol(self, start: int) -> None:
        """`#` then a name, which is no command token: Lean reads `#` and the name (Mathlib's
        `#s` for `Finset.card s`), unless an import added the command; at the start of a line
        only a command stands, so there it is refused as an unknown command."""
        if _line_before(self.text, start)[1].strip():
            return
        m = _PLAIN_WORD.match(self.text, start + 1)
        if m is not None:
            self.form(start, "unknown #command", f"#{m.group()}")

    def word(self, start: int, end: int, *, in_attributes: bool = False) -> int:
        text = self.text
        word = text[start:end]
        rule = WORDS.get(word) or WORDS.get(word.rstrip("!?"))
        if rule is not None and not self.harmless_here(word, start, end):
            self.add(start, rule.construct, rule.message)
        for prefix, rule in PREFIXES.items():
            if word.startswith(prefix):
                self.add(start, rule.construct, rule.message)
        parts = name_parts(word)
        self.constants(start, parts)
        if "«" in word:
            self.escapes(start, word)
        self.reference(start, parts)
        if text.startswith("%", end):
            self.percent(word, start, end)
        if word in DECLARATION_KEYWORDS:
            if not in_attributes:  # `@[instance]`, `@[class]` name attributes
                self.declaration(word, start, end)
        elif word == "import":
            self.form(start, "import")
        elif word == "native":
            self.native(start, end)
        elif word == "set_option":
            self.set_option(start, end)
        elif word in NOTATION_KEYWORDS:
            self.notation(start, end)
        elif word == "public" and not MODULE_SYSTEM_ACCEPTED:
            self.form(start, "module", "public")
        elif word == "open":
            if self.next_text(end)[0] == "private":
                self.form(start, "open private")
        elif word == "attribute" and not in_attributes:
            bracket, _, bracket_end = self.next_text(end)
            if bracket == "[":
                return self.attributes(bracket_end)
        return end

    def notation(self, start: int, end: int) -> None:
        """The tokens a notation command declares: its string atoms up to `=>`."""
        pos = end
        for _ in range(_NOTATION_LOOKAHEAD):
            kind, token_start, pos = self.next_token(pos)
            token = self.text[token_start:pos]
            if self.text.startswith("=>", token_start) or kind == "eof":
                return
            if kind == "string" and _BAD_NOTATION_TOKEN.search(self.text, token_start + 1, pos - 1):
                self.form(token_start, "notation token", token)
        if _line_before(self.text, start)[1].strip() in ("", "local", "scoped"):
            self.form(start, "unreadable notation")

    def harmless_here(self, word: str, start: int, end: int) -> bool:
        """Words a rule names that are something else where they stand: `unsafe` as an Aesop
        phase, and tactic names outside tactic position (`(hint : Integrable f)`,
        `rw [integral_integral hint]`): a tactic runs only where a tactic starts."""
        if word == "unsafe":
            return self.aesop_phase(start, end)
        if word in _TACTIC_ONLY:
            return not _tactic_start(self.text, start)
        return False

    def aesop_phase(self, start: int, end: int) -> bool:
        """Whether `unsafe` at `start` is the phase of an Aesop rule (`aesop (add unsafe 50%
        apply h)`, `(add safe h, unsafe apply g)`), which only orders the search: it follows
        `add` or `,` (where the modifier `unsafe` cannot stand) and comes before a success
        probability or a rule builder (where no declaration keyword stands)."""
        before = self.text[max(0, start - 8) : start].rstrip()
        after_add = before.endswith(",") or (
            before.endswith("add") and not _REST_CHAR.match(before, len(before) - 4)
        )
        kind, next_start, next_end = self.next_token(end)
        ahead = kind == "number" or self.text[next_start:next_end] in _AESOP_BUILDERS
        return after_add and ahead

    def percent(self, word: str, start: int, end: int) -> None:
        """`word%`: a token of its own where the table has it (`eval% e`), else `word % …`
        as Lean reads it (`k%3`, `C.card%3`). A `word%` the table lacks followed by a space
        is refused, since it is written as an elaborator is (fail closed)."""
        token = f"{word}%"
        if token in PERCENT_TOKENS or not _GLUED_OPERAND.match(self.text, end + 1):
            self.form(start, "word%", token)

    def constants(self, start: int, parts: list[str]) -> None:
        for part in parts:
            rule = CONSTANTS.get(part)
            if rule is not None:
                self.add(start, rule.construct, rule.message)
            for pattern, rule in COMPONENTS:
                if pattern.fullmatch(part):
                    self.add(start, part, rule.message)

    def escapes(self, start: int, word: str) -> None:
        for m in _PART.finditer(word):
            escaped = m.group(1)
            if escaped is not None and _PLAIN_WORD.fullmatch(escaped):
                self.form(start, "escaped identifier", f"«{escaped}»")

    def _at_home(self, parts: list[str]) -> bool:
        return self.home is not None and ".".join([*parts, ""]).startswith(self.home + ".")

    def reference(self, start: int, parts: list[str]) -> None:
        """A name used anywhere: none may reach a forbidden root but `Lean`'s math corners,
        and those not through `_root_.` (which only a declaration needs: `where _root_.…`)."""
        rooted = parts[:1] == ["_root_"]
        parts = _unrooted(parts)
        root = parts[0] if parts else ""
        if _in_tactic_namespace(parts):
            self.form(start, "reaches a protected namespace", ".".join(parts[:2]))
        if root not in FORBIDDEN_ROOTS or self._at_home(parts):
            return
        if root == "Lean":
            if rooted or len(parts) == 1 or parts[1] not in LEAN_MATH_NAMESPACES:
                self.form(start, "Lean.…", "_root_." * rooted + ".".join(parts[:2]))
        elif root == "Qq":
            self.form(start, "Qq")
        else:
            self.form(start, "reaches a protected namespace", root)

    def declaration(self, keyword: str, at: int, end: int) -> None:
        """The name a declaration keyword at `at` declares (or a `namespace` opens)."""
        word, _, end = self.next_text(end)
        if keyword == "class" and word in ("inductive", "abbrev"):
            word, _, end = self.next_text(end)
        names = [word]
        # `instance (priority := …) name`, `alias ⟨mp, mpr⟩ := iff`
        if (keyword, word) in (("instance", "("), ("alias", "⟨")):
            group = self.group(end, _CLOSERS[word])
            if group is None:
                self.form(at, "unreadable declaration", keyword)
                return
            names, end = group
            if keyword == "instance":
                names = [self.next_text(end)[0]]
        for name in names:
            parts = _unrooted(name_parts(name))
            protected = parts[:1] and parts[0] in FORBIDDEN_ROOTS and not self._at_home(parts)
            if protected or _in_tactic_namespace(parts):
                self.form(at, "reaches a protected namespace", f"{keyword} {name}")

    def group(
        self, pos: int, closer: str, *, limit: int = 0, nested: bool = False
    ) -> tuple[list[str], int] | None:
        """The tokens of a short bracket group whose opener ends right before `pos`, and its
        end; None when it does not close within `limit` (`_LOOKAHEAD` by default) tokens (a
        bound that keeps the lookahead, which the body scan repeats over the same tokens,
        linear). `nested`: brackets inside the group are counted, so an inner `closer` does
        not end it."""
        tokens: list[str] = []
        depth = 0
        for _ in range(limit or _LOOKAHEAD):
            kind, start, end = self.next_token(pos)
            word = self.text[start:end]
            if kind == "eof":
                return None
            if word == closer and depth == 0:
                return tokens, end
            if nested:
                depth += (word in _OPENERS) - (word in _CLOSERS.values())
            tokens.append(word)
            pos = end
        return None

    def name_literal(self, start: int, end: int) -> None:
        word = self.text[start:end].lstrip("`")
        parts = _unrooted(name_parts(word))
        self.constants(start, parts)
        if "«" in word:
            self.escapes(start, word)
        if parts and parts[0] in FORBIDDEN_ROOTS and not self._at_home(parts):
            self.form(start, "name literal", f"`{word}")

    def braces(self, start: int, end: int) -> None:
        """The code between the braces of a string, which Lean runs if the string interpolates.
        Both readings agree only when that code holds no `"` or `\\` and its `}` comes before
        the closing quote; then the code is scanned, and otherwise the string is refused."""
        text = self.text
        close = end - 1
        pos = start + 1
        while pos < close:
            c = text[pos]
            if c == "\\":
                pos += 2
                continue
            if c != "{":
                pos += 1
                continue
            rbrace = self.closing_brace(pos + 1, close)
            if rbrace is None or _QUOTE_OR_ESCAPE.search(text, pos + 1, rbrace):
                self.form(start, "string with braces")
                return
            self.body(pos + 1, rbrace)  # no string inside, so this goes no deeper
            pos = rbrace + 1

    def closing_brace(self, pos: int, limit: int) -> int | None:
        """Where the `}` that closes a `{` ending right before `pos` is, if before `limit`."""
        depth = 0
        while pos < limit:
            kind, end = self.lexer.at(pos)
            if end > limit:
                return None
            symbol = self.text[pos] if kind == "symbol" else ""
            if symbol == "}" and depth == 0:
                return pos
            depth += (symbol == "{") - (symbol == "}")
            pos = end
        return None

    def native(self, start: int, end: int) -> None:
        if _ends_with(self.text, _blank_before(self.text, start), "+"):
            self.form(start, "decide +native")
        assign, _, after = self.next_text(end)
        if assign == ":=" and self.next_text(after)[0] != "false":
            self.form(start, "native := …")

    def named_group(self, start: int, end: int) -> None:
        """`(name := value)` at `start`: where it configures a tactic, the value must be a
        literal; where it is a named argument, its value is code like any other."""
        plain = _PLAIN_NAMED.match(self.text, end)  # the common spelling, read at once
        if plain is not None:
            option, value_start = plain.group(1), plain.end()
        else:
            kind, name_start, name_end = self.next_token(end)
            option = self.text[name_start:name_end]
            assign, _, value_start = self.next_text(name_end)
            if kind not in _WORDLIKE or assign != ":=":
                return
        if option in _TACTIC_VALUED or not _configuration_position(self.text, start):
            return
        if _PLAIN_LITERAL.match(self.text, value_start):  # the common spelling, read at once
            return
        value = self.group(value_start, ")", limit=_GROUP_LOOKAHEAD, nested=True)
        if value is None or not _literal_value(option, value[0]):
            self.form(start, "(option := …)", f"({option} := …)")

    def set_option(self, start: int, end: int) -> None:
        kind, name_start, name_end = self.next_token(end)
        option = self.text[name_start:name_end]
        name = ".".join(name_parts(option)) if kind in _WORDLIKE else ""
        # No allowed option takes a string; one that does may name a file Lean writes
        # (`trace.profiler.output`).
        if option_allowed(name) and self.next_token(name_end)[0] != "string":
            return
        if name.split(".")[0] == "debug":
            self.add(start, f"set_option {option}", _DEBUG.message)
        else:
            self.form(start, "set_option …", f"set_option {option}")

    def attributes(self, pos: int) -> int:
        """Judge an attribute list whose `[` is read; return where it ends.

        Each entry is `-`? (`scoped`|`local`)? name arguments…; the name must be allowed, and
        the arguments are judged as code. A `(attr := …)` argument is a list of its own: the
        lists nest without recursion, `closers` holding the bracket that ends each open one
        and `depths` the brackets open in the arguments of its current entry."""
        closers = ["]"]
        depths = [0]
        expecting_name = True
        while closers:
            kind, start, end = self.next_token(pos)
            word = self.text[start:end]
            pos = end
            if kind == "eof":
                return end
            if depths[-1] == 0 and word == closers[-1]:
                closers.pop()
                depths.pop()
                expecting_name = False
            elif depths[-1] == 0 and word == ",":
                expecting_name = True
            elif expecting_name and word in _ATTRIBUTE_KINDS:
                continue
            elif expecting_name:
                self.attribute_name(kind, start, end)
                expecting_name = False
            elif word == "(" and self.nested_list_ahead(end):
                pos = self.next_text(self.next_text(end)[2])[2]  # past `attr :=`
                closers.append(")")
                depths.append(0)
                expecting_name = True
            else:
                depths[-1] = max(0, depths[-1] + (word in _OPENERS) - (word in _CLOSERS.values()))
                pos = max(self.token(kind, start, end, in_attributes=True), end)
        return pos

    def nested_list_ahead(self, pos: int) -> bool:
        word, _, end = self.next_text(pos)
        return word == "attr" and self.next_text(end)[0] == ":="

    def attribute_name(self, kind: str, start: int, end: int) -> None:
        word = self.text[start:end]
        if kind in _WORDLIKE:
            self.word(start, end, in_attributes=True)
        name = ".".join(name_parts(word)) if kind in _WORDLIKE else word
        if kind in _WORDLIKE and name in ALLOWED_ATTRIBUTES:
            return
        if name in MODULE_ATTRIBUTES:
            if not MODULE_SYSTEM_ACCEPTED:
                self.form(start, "module", f"@[{name}]")
            return
        rule = ATTRIBUTES.get(name)
        self.add(start, f"@[{name}]", rule.message if rule else FORMS["@[…]"].message)


_QUOTE_OR_ESCAPE = re.compile(r'["\\]')
# What `%` glued to a name is followed by when it is the modulo operator: an operand.
_GLUED_OPERAND = re.compile(rf"[0-9({ID_FIRST}]")
_NUMBER = re.compile(r"[0-9][0-9_]*")
# A literal value or `{ field := literal, … }` then `)`, without comments: what `_literal_value`
# accepts, read by one pattern (anything else goes through the token reader).
_ATOM = "(?:true|false|[0-9][0-9_]*+|\\.(?:{}))(?![{}])".format(
    "|".join(sorted(_ENUM_CONSTRUCTORS)), ID_REST
)
_FIELD = rf"[{ID_FIRST}][{ID_REST}]*+\s*+:=\s*+{_ATOM}"
_PLAIN_LITERAL = re.compile(
    rf"\s*+(?:{_ATOM}|\{{\s*+(?:{_FIELD}(?:\s*+,?\s*+{_FIELD})*+)?\s*+\}})\s*+\)"
)


def _literal(tokens: list[str]) -> bool:
    """A value the interpreter evaluates without running anything a submission wrote."""
    if len(tokens) == 1:
        return tokens[0] in ("true", "false") or _NUMBER.fullmatch(tokens[0]) is not None
    return len(tokens) == 2 and tokens[0] == "." and tokens[1] in _ENUM_CONSTRUCTORS


def _literal_structure(tokens: list[str]) -> bool:
    """`{ field := literal, … }` (fields separated by commas or new lines)."""
    if tokens[:1] != ["{"] or tokens[-1:] != ["}"]:
        return False
    fields: list[list[str]] = [[]]
    for token in tokens[1:-1]:
        if token == ",":
            fields.append([])
        else:
            fields[-1].append(token)
    fields = [field for field in fields if field]
    # Without commas, fields on separate lines run together: split them at each `name :=`.
    flat = [token for field in fields for token in field]
    i = 0
    while i < len(flat):
        if i + 2 >= len(flat) + 0 or flat[i + 1] != ":=" or not _PLAIN_WORD.fullmatch(flat[i]):
            return False
        j = i + 2
        while j < len(flat) and not (j + 1 < len(flat) and flat[j + 1] == ":="):
            j += 1
        if not _literal(flat[i + 2 : j]):
            return False
        i = j
    return True


def _literal_value(option: str, tokens: list[str]) -> bool:
    """Whether `(option := tokens)` configures a tactic with literals only. `by …` is kept as
    syntax, not evaluated (`elabConfig`'s special case); Aesop's `rule_sets` are names."""
    if tokens[:1] == ["by"]:
        return True
    if option == "rule_sets":
        return tokens[:1] == ["["] and all(
            _PLAIN_WORD.fullmatch(t) or t in ",]" for t in tokens[1:]
        )
    if option in ("config", "simp_config"):
        return _literal(tokens) or _literal_structure(tokens)
    return _literal(tokens)


def scan(text: str, home: str | None = None) -> list[Violation]:
    """Every policy violation in a Lean source, by line; empty when the source is admissible.
    `home` is the one protected namespace the file may use: a canonical statement's
    `Statements.<label>`."""
    state = _Scan(text, home)
    state.unseen()
    state.body(state.header())
    return sorted(state.found.values(), key=lambda v: (v.line, v.construct))


def scan_file(path: Path) -> list[Violation]:
    """`scan` of a file. A file that is not UTF-8 is a violation (Lean reads only UTF-8);
    one that cannot be read at all raises `SourceUnreadable`."""
    try:
        data = path.read_bytes()
    except OSError as error:
        reason = error.strerror or type(error).__name__
        raise SourceUnreadable(
            f"cannot read {path} ({reason}); pass a readable .lean file."
        ) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        return [Violation(line, "encoding", "not valid UTF-8, and Lean reads only UTF-8 sources")]
    return scan(text)
