"""One submission through its verifier.

- `context`: `VerifyOptions` (what the caller asks for) and `VerifyContext` (what every
  pipeline step shares); the pipelines import this module and nothing else of the package.
- `submission`: `verify(manifest_path, repo, options)` → a finished `Verdict`; it reads the
  manifest and dispatches to `jigcli.lean.pipeline` or `jigcli.certificates.pipeline`.
"""
