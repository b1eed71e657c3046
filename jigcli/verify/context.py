"""What a verification is asked to do and what its pipeline steps share.

The pipelines (`jigcli.lean.pipeline`, `jigcli.certificates.pipeline`) import this module and
nothing else of `jigcli.verify`; `jigcli.verify.submission` imports them, so the dependency
runs one way.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

from jigcli.certificates.spec import DEFAULT_LANE
from jigcli.process import Deadline
from jigcli.repo import Repo

DEFAULT_TIMEOUT_SEC = 1200.0
T = TypeVar("T")


class Shared:
    """What the verifications of one run (`jig verify M1 M2 …`, `jig selftest`) share: values
    computed from trusted inputs only, once, such as the toolchain probe and the trusted build
    of the repo's own targets. Never anything a submission's code could have written: each
    submission still builds in a run folder of its own. Only a value is kept; a computation
    that raised is tried again by the next verification that needs it (it may have failed on
    that verification's own deadline). Verifications that need the same key wait for the one
    computing it, so two trusted builds never run in the same `.lake` at once."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._keys: dict[Hashable, threading.Lock] = {}
        self._values: dict[Hashable, Any] = {}

    def once(self, key: Hashable, compute: Callable[[], T]) -> tuple[T, bool]:
        """`compute()`'s value for `key`, and whether it was already there."""
        with self._lock:
            lock = self._keys.setdefault(key, threading.Lock())
        with lock:
            if key in self._values:
                return self._values[key], True
            value = compute()
            if value is not None:
                self._values[key] = value
            return value, False


class VerifyOptions(NamedTuple):
    statement_id: str | None = None
    timeout: float = DEFAULT_TIMEOUT_SEC
    lane: str = DEFAULT_LANE
    allow_no_netns: bool = False
    # A private scratch folder for this verification (generated files); selftest gives each
    # parallel job its own. Default: <repo>/.jig/work/<submission>.
    work_dir: Path | None = None
    # What this verification may take from others of the same run (None: nothing).
    shared: Shared | None = None


class VerifyContext:
    """What every pipeline step may use besides the manifest and the verdict. (Neither this
    nor `VerifyOptions` is a dataclass: see `jigcli.verdict.Verdict`.)"""

    def __init__(self, repo: Repo, options: VerifyOptions, deadline: Deadline, work_dir: Path):
        self.repo = repo
        self.options = options
        self.deadline = deadline
        self.work_dir = work_dir
        self.step = ["start"]

    def once(self, key: Hashable, compute: Callable[[], T]) -> tuple[T, bool]:
        """`compute()`, or the value another verification of this run computed for `key`."""
        if self.options.shared is None:
            return compute(), False
        return self.options.shared.once(key, compute)

    def enter(self, step: str) -> None:
        """Name the step now running, so a timeout verdict can say where time ran out."""
        self.step[0] = step
