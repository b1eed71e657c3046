"""The verifier contract: a registry of specs, five shared statuses, the bundles that switch
verifiers on (their marks and lines are drawn by `jigcli.render.lines`)."""
