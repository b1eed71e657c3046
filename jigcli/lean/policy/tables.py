"""What a submission may use and reach: import roots, attributes, options, commands, protected
namespaces, the module-system switch (allowed.yaml holds the data, each entry with why)."""

from __future__ import annotations

import re

from jigcli.lean.lexer import TOKENS

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
