"""The paper verifiers' core: a LaTeX paper's statements paired with Lean declarations
(`pairing`), checked by Lean (`lean_check`, asking through `lean_answers`), and read back against
the paper (`audit`, its `reader` protocol and its `ledger`). It returns data; `jig lean-check`
and `jig audit` are options, this core, and `jigcli.render`."""
