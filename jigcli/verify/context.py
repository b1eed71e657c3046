"""What a verification is asked to do and what its pipeline steps share.

The pipelines (`jigcli.lean.pipeline`, `jigcli.certificates.pipeline`) import this module and
nothing else of `jigcli.verify`; `jigcli.verify.submission` imports them, so the dependency
runs one way.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from jigcli.certificates.spec import DEFAULT_LANE
from jigcli.process import Deadline
from jigcli.repo import Repo

DEFAULT_TIMEOUT_SEC = 1200.0


class VerifyOptions(NamedTuple):
    statement_id: str | None = None
    timeout: float = DEFAULT_TIMEOUT_SEC
    lane: str = DEFAULT_LANE
    allow_no_netns: bool = False
    # A private scratch folder for this verification (generated files); selftest gives each
    # parallel job its own. Default: <repo>/.jig/work/<submission>.
    work_dir: Path | None = None


class VerifyContext:
    """What every pipeline step may use besides the manifest and the verdict. (Neither this
    nor `VerifyOptions` is a dataclass: see `jigcli.verdict.Verdict`.)"""

    def __init__(self, repo: Repo, options: VerifyOptions, deadline: Deadline, work_dir: Path):
        self.repo = repo
        self.options = options
        self.deadline = deadline
        self.work_dir = work_dir
        self.step = ["start"]

    def enter(self, step: str) -> None:
        """Name the step now running, so a timeout verdict can say where time ran out."""
        self.step[0] = step
