"""The Lean side: the lexer and static policy (pure Python), the one narrow backend that runs
`lake`, `lean` and the trusted judge, and the judge's report."""
