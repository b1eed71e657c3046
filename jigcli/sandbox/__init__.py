"""Running an untrusted program isolated from the host: a certificate's checker, a Lean
submission's build. Nothing here knows which.

- `job`: `Job` (argv, `View`, `Limits`, extra environment) and `Execution`, how it ended;
- `routes`: the isolation routes, best first (`ROUTES`, `NONE`, `route_named`), and which of
  them confine a program's files to its view (`Route.confines_files`);
- `probe`: each route probed once per process and kind of job before use: `choose`,
  `probe`, `process_cap`, `refusal`, and `describe` for `jig doctor`;
- `execute`: `execute(route, job, cap)`, one run (raises `SetupFailed`);
- `cgroups`: the per-run cgroup and RLIMIT_NPROC that cap a run's processes;
- `environment`: the environment a program gets, built from scratch.
"""
