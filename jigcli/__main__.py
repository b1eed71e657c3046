from jigcli.cli import main

main()
