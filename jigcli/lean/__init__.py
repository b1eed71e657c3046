"""The Lean side: the lexer and static policy (pure Python), and the one narrow backend that
runs `lake`, `lean` and `leanchecker`."""
