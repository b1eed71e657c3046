"""Certificate problems: a trusted checker run on an untrusted witness inside a sandbox.

- `spec`: `read_spec(folder)` → `Spec` (or `SpecError`); `CertLimits`; `LANES` and
  `clamp(limits, lane)` (a spec's limits lowered to a lane's ceiling, with notes);
- `isolation`: a checker as a sandbox job (`jigcli.sandbox`): the interpreter's view, the
  staged checker and witness, the limits; `choose` and `describe()` for `jig doctor`;
- `checker`: `check_witness(checker_source, witness, limits, ...)` → `Outcome`, the whole run
  for a caller without a manifest (posing), and `parse_marker` for the protocol line;
- `pipeline`: `verify_certificate(manifest, verdict, context)`, called by
  `jigcli.verify.submission`.
"""
