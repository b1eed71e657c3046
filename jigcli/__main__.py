# A plain `jig verify` skips typer's start-up; everything else reaches jigcli.cli.
from jigcli.fastpath import main

main()
