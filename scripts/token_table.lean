/-
Prints the token table of an environment importing Mathlib (and with it Batteries, Aesop,
Plausible and core), one token per line after `token: `, scoped tokens included. The verify
workflow runs it with `lake env lean scripts/token_table.lean` where Mathlib is built, and
`scripts/check_token_table.py` compares what it prints with the policy's pinned table.

The active table is `Lean.Parser.getTokenTable` (src/Lean/Parser/Extension.lean), a
`Lean.Data.Trie` whose `findPrefix ""` gives every value (src/Lean/Data/Trie.lean). Tokens of
scoped syntax (`open Finset` adds `#`) enter it only when their namespace is open, so the
scoped entries of `parserExtension` are read too (`ScopedEnvExtension.StateStack`,
src/Lean/ScopedEnvExtension.lean; `ParserExtension.Entry.token`).
-/
import Mathlib

open Lean Parser in
#eval show CoreM Unit from do
  let env ← getEnv
  let mut tokens : Array String := (getTokenTable env).findPrefix ""
  for (_, entries) in (parserExtension.ext.getState env).scopedEntries.map.toList do
    for entry in entries.toList do
      if let .token tk := entry then
        tokens := tokens.push tk
  for tk in tokens.qsort (· < ·) do
    IO.println s!"token: {tk}"
