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

Where things are: `rules.py` is the table of rules and their messages; `allowed.yaml` (read by
`tables.py`) the allowlists, each entry with why it is safe; `jigcli/lean/tokens.yaml` the
pinned token table (`#` commands, `name%` elaborators, symbols that change reading) and
`jigcli/lean/tactics.yaml` the pinned tactic names; `positions.py` where a token stands (a
tactic, a configuration item or a named argument), read from the tokens before it; `skip.py`
the bulk skip; `scan.py` the walk and the readers of each rule.

It fails closed. Where Lean can be extended or read two ways, the scan allows what it knows and
refuses the rest: attributes, `#` commands and `set_option` names come from allowlists; the
lexer gives every character of code a kind or calls it an error, and an error is a violation;
a string whose `{…}` the scan cannot delimit the way an interpolated string would is refused.
Words Lean reads as keywords (`macro`, `apply?`, `register_hint`) cannot be allowlisted the same
way, since imports add keywords and a keyword looks like any identifier; they stay a denylist,
which is the one part of this scan a new Mathlib command can get past, and what the judge and
the sandboxed build are for.

What is scanned is the token stream of `jigcli.lean.lexer`, which reads as Lean's tokenizer
does with the pinned table plus the tokens the file's notation declares (from where it
declares them), so a forbidden word inside a comment, a string, a raw string, a char literal or
a longer identifier (`partial_sum`, `Foo.sorry`) is not a violation, and `→osorry` is `→o`
then `sorry` as Lean reads it. Decisions worth knowing, with the Lean sources they were read
in (leanprover/lean4 unless said otherwise):

* Attributes: only `ALLOWED_ATTRIBUTES`, each one that tags a proved lemma for a tactic or sets
  how elaboration treats a definition, none that registers the tagged definition as code Lean
  runs. Lean reads an entry as `-`? (`scoped`|`local`)? name arguments (`Term.attrInstance`,
  `Command.eraseAttr` in src/Lean/Parser/Command.lean; `Attr.simple`, `macro`, `export`,
  `extern` in src/Lean/Parser/Attr.lean), resolving the name after undoing `«»`, so
  `@[«macro» m]` registers a macro: an escaped name is refused, and the name is compared once
  unescaped. Mathlib's `to_additive (attr := …)` carries a list of its own, judged the same
  way. Refused among others: the compiler's `implemented_by`, `extern`, `export`, `init`,
  `never_extract`, `macro_inline` (src/Lean/Compiler/ImplementedByAttr.lean, ExternAttr.lean,
  ExportAttr.lean, InitAttr.lean, InlineAttrs.lean) and `positivity`/`norm_num` extensions.
  `csimp` is allowed (src/Lean/Compiler/CSimpAttr.lean: it swaps compiled code for a proved-
  equal definition's, and compiled code never decides a verdict), so is `deprecated` (its text
  reaches only messages, which no verdict reads); `aesop` only on a `theorem` or `lemma`,
  since on a definition Aesop picks the builder from the type, `tactic` for a tactic.
* Escaped identifiers: `«x»` whose content is a plain identifier (`«macro»`, `«Lean»`) only
  serves to hide a word from a reader that compares text, so it is refused; escapes that a
  name needs (`«term_+_»`, `«my lemma»`, a keyword such as `«end»` or `«exists»`) are fine.
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
* `#` commands: only `#check`, `#print`, `#reduce`, `#synth`, `#adaptation_note`. That refuses
  `#eval`, `#exit`, `#guard_msgs` (which swallows the errors it expects), `#guard`, the network
  searches (`#loogle`, `#leansearch`). A command is the longest token of the pinned table the
  text starts with, as Lean's tokenizer reads it; any other `#` is the `#` token (Mathlib's
  `#s`), except that a `#word` in a line's first column is refused as a command an import may
  have added.
* Tactics that admit the goal or search: `apply?` (`admitGoal` when no suggestion closes it,
  src/Lean/Elab/Tactic/LibrarySearch.lean, where `exact?` instead throws "could not close the
  goal", so `exact?` is allowed), `rw?` (src/Lean/Elab/Tactic/Rewrites.lean; search left in a
  proof), `hint` (admits when no hint closes the goal,
  Mathlib/Tactic/Hint.lean), `plausible` / `slim_check` (admits when no counterexample is
  found, leanprover-community/plausible Plausible/Tactic.lean), `polyrith` (asks a web
  service), `observe`, `library_search`; `hint` only in tactic position (after `by`, `;`,
  `<;>`, `<|>`, at a line's start, or as a discharger) with nothing but a separator after it,
  since as a name (`(hint : Integrable f μ)`) it is common. A `name%` token of the table
  (`eval%`, Mathlib's compile-time evaluation; `exact?%`, which elaborates to a sorry when it
  fails) is refused unless marked allowed (`fast_instance%`, `reassoc_of%`, `dsimp%`,
  `compile_inductive%`); another word glued to `%` is `word % …` as Lean reads it (`k%3`),
  unless a space follows the `%`, as an elaborator is written and the file declares no `%`
  notation token of its own.
* Notation commands (`notation`, `infix…`, `prefix`, `postfix`, `notation3`) are accepted:
  they declare term syntax that Lean's own macro expands, and the right-hand side is scanned.
  The tokens they declare join the table the file is read with from there on; one that could
  make Lean split the text otherwise than the scan when Lean no longer has it (scoped, local)
  is refused with the token named (`tables.misleading_token`: a comment marker, a quote, `«»`
  or a backslash inside, `'` first, `-` or `/` last, a letter right after a symbol). A name
  glued to a symbol and ending in a keyword (`∯xsorry`) is refused: a token of an import
  ending in letters would split it there. `macro`, `syntax`, `elab` stay refused.
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
* `export` is allowed: its aliases only name declarations the file can already reach, and
  `export Lean (…)` reaches a protected namespace, which is refused.
* `decide +native` and `native :=` anything but `false` are refused.
* Tactic configurations: every tactic taking `optConfig` evaluates its items with the
  interpreter while the file elaborates (`declare_config_elab`, src/Lean/Elab/Tactic/
  Config.lean, `Meta.evalExpr'` with `safety := .unsafe`), so a `(name := value)` group holds
  a literal unless the tokens before it prove it a named argument (`positions.configuration`),
  in attributes and after elaborators too: a number, `true`, `false`, `Bool.true`, one of
  Lean's enum constructors (`.reducible`), a string, or for `config` a `{ field := literal, … }`,
  each only where the file declares nothing that changes its meaning (`positions.Meanings`:
  an `OfNat` instance, a name `true` or `reducible` of its own). `by tactic` is a value only
  of a discharger.
* Families of names, under every namespace (they are matched per name component): `unsafe…`
  and `…Unsafe…` (`unsafeBaseIO`, `unsafeCast`, `ptrAddrUnsafe`), the `IO` family (`IO`, `EIO`,
  `BaseIO`, `toIO`, through which `IO.FS` and `IO.Process` are reached), `System`, `Internal`
  (`Std.Internal`), `dbg…`;
  and `include_str` (reads a file and evaluates its path argument, src/Lean/Elab/
  BuiltinTerm.lean), grind's `on_failure`, Aesop's `tactic` rule builder and the `Aesop`
  namespace (rule tactics are programs). Aesop's `unsafe` phase (`add unsafe h`, `@[aesop
  unsafe 50% apply]`) is not the modifier and is allowed.
* The pinned table is read from the sources (each token's source in tokens.yaml) and checked
  against the one Lean prints where Mathlib is built (scripts/token_table.lean); should an
  import still hold a symbol the lexer lacks, a comment, char literal or string glued to a
  preceding operator character (`x <|-- …`) is where that could change what is code, and is
  refused with "put a space before it".
* A literal Lean itself rejects (unterminated string, bad escape, malformed char literal, …)
  is refused: Lean's error recovery goes on reading what follows it as code. So is a character
  that is not Lean text (`NOT_TEXT` in the lexer), and anywhere in the file, comments
  included, a direction-changing or zero-width character, which can make a reviewer read
  something else than Lean does.
* `prelude` is refused; imports come first (Lean agrees). The module system (`module`,
  `public import`, `@[expose] public section`) is accepted while `MODULE_SYSTEM_ACCEPTED`
  (allowed.yaml) says so, since the exporter reads every part of a module; `meta` is refused.
"""

from jigcli.lean.policy.rules import FORMS, RULES, Rule, Violation
from jigcli.lean.policy.scan import SourceUnreadable, _Scan, scan, scan_file
from jigcli.lean.policy.tables import (
    ALLOWED_ATTRIBUTES,
    ALLOWED_COMMANDS,
    ALLOWED_IMPORT_ROOTS,
    ALLOWED_OPTIONS,
    FORBIDDEN_ROOTS,
    LEAN_MATH_NAMESPACES,
    REJECTED_IMPORT_ROOTS,
)

__all__ = [
    "ALLOWED_ATTRIBUTES",
    "ALLOWED_COMMANDS",
    "ALLOWED_IMPORT_ROOTS",
    "ALLOWED_OPTIONS",
    "FORBIDDEN_ROOTS",
    "FORMS",
    "LEAN_MATH_NAMESPACES",
    "REJECTED_IMPORT_ROOTS",
    "RULES",
    "Rule",
    "SourceUnreadable",
    "Violation",
    "_Scan",
    "scan",
    "scan_file",
]
