"""One module per subcommand; each `run(...)` takes parsed inputs and returns an exit code."""
