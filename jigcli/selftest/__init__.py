"""`jig selftest`: every example manifest verified and compared with what it expects.

The parts, in the order a run uses them:

1. `discover` — the manifests with an `expect` (under `Submissions/**` and
   `Certificates/*/submissions/`, or the PATHs given);
2. `shard` — the deterministic `--shard I/N` partition for a CI matrix;
3. `cache` — verdicts keyed by everything that can change them;
4. `runner` — the verifications not in the cache, in parallel, each in its own work dir;
5. `judge` — each verdict against its `expect`/`expect_reason`, then the duplicate check;
6. `report` — the JSON document, verdict files and the GitHub step summary (the table a
   person sees, and the progress, are `jigcli.render.selftest`'s).
"""
