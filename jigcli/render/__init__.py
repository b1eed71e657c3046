"""Output, for people and for programs, made from what the domain packages return: the words
come from the verifier registry, paths are shown as typed (`jigcli.console.shown_path`), marks
and place lines from the rendering kit (`lines`). One module per command whose output is more
than a few lines: `compile`, `lean_check`, `audit`, `selftest`."""
