"""A certificate problem's `spec.json` (`conject.certificate.v1`) and the lanes its limits obey.

A spec names the resources its checker may use. Each verification runs in a lane (`default`,
or `heavy` with `--lane heavy`) whose ceiling no spec can pass. A spec asking for more than
the lane allows is **clamped** to the ceiling, never refused: the checker still runs, the
verdict records the limits actually applied and says which ones were lowered, so a problem
that truly needs more ends red `timeout` with a detail that names the lane to use. Refusing
instead would make a lane mismatch look like a broken problem.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

from jigcli.hashing import sha256_tagged
from jigcli.jsondoc import JsonProblem, parse_json
from jigcli.safefiles import Folder, Unreadable, read_file
from jigcli.schemas import validate

SCHEMA = "conject.certificate.v1"
SPEC_FILE = "spec.json"
CHECKER_FILE = "checker.py"
MAX_SPEC_BYTES = 256 * 1024
MAX_CHECKER_BYTES = 4 * 1024 * 1024


class CertLimits:
    """What one checker run may use. `output_bytes` caps stdout and stderr each.

    - `witness_bytes`: the largest witness accepted (refused before the run);
    - `scratch_mb`: the checker's scratch space (the size of its private tmpfs under
      bubblewrap, and RLIMIT_FSIZE everywhere);
    - `processes`: the most processes and threads the run may hold at once, the sandbox's own
      one or two included, where a mechanism enforces it (`jigcli.sandbox.cgroups`);
    - `memory_mb`: the memory the whole run may hold at once (every process, the scratch and
      /dev/shm tmpfs, the kernel objects they make), where a memory cgroup enforces it.
      Default (0): one process's address space and both tmpfs full.

    A plain class, not a dataclass: `jig verify` imports this module on every certificate,
    and generating a dataclass's methods is a large share of a verification's start-up.
    """

    __slots__ = FIELDS = (
        "wall_sec",
        "cpu_sec",
        "address_space_mb",
        "output_bytes",
        "witness_bytes",
        "scratch_mb",
        "processes",
        "memory_mb",
    )

    def __init__(
        self,
        wall_sec: float,
        cpu_sec: int,
        address_space_mb: int,
        output_bytes: int,
        witness_bytes: int = 1024 * 1024,
        scratch_mb: int = 16,
        processes: int = 32,
        memory_mb: int = 0,
    ) -> None:
        self.wall_sec = wall_sec
        self.cpu_sec = cpu_sec
        self.address_space_mb = address_space_mb
        self.output_bytes = output_bytes
        self.witness_bytes = witness_bytes
        self.scratch_mb = scratch_mb
        self.processes = processes
        self.memory_mb = memory_mb or address_space_mb + 2 * scratch_mb

    def to_json(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.FIELDS}

    def replace(self, **changes: Any) -> CertLimits:
        """These limits with `changes` (field names and values); every other field kept."""
        return CertLimits(**{**self.to_json(), **changes})

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CertLimits:
        """From a spec's `limits` object (already schema-valid); absent optional fields default.
        An integer limit written as a float (`512.0`, which the schema's "integer" admits)
        becomes an int: the kernel's limits take no float."""
        return cls(
            **{
                key: value if key == "wall_sec" else int(value)
                for key, value in data.items()
                if key in cls.FIELDS
            }
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CertLimits) and self.to_json() == other.to_json()

    def __hash__(self) -> int:
        return hash(tuple(self.to_json().values()))

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={value!r}" for name, value in self.to_json().items())
        return f"CertLimits({fields})"


class Lane(NamedTuple):
    name: str
    ceiling: CertLimits


LANES: dict[str, Lane] = {
    "default": Lane(
        "default",
        CertLimits(
            wall_sec=60,
            cpu_sec=30,
            address_space_mb=4096,
            output_bytes=1024 * 1024,
            witness_bytes=16 * 1024 * 1024,
            scratch_mb=256,
            processes=64,
            memory_mb=4096 + 2 * 256,
        ),
    ),
    "heavy": Lane(
        "heavy",
        CertLimits(
            wall_sec=1800,
            cpu_sec=1200,
            address_space_mb=16384,
            output_bytes=16 * 1024 * 1024,
            witness_bytes=256 * 1024 * 1024,
            scratch_mb=4096,
            processes=512,
            memory_mb=16384 + 2 * 4096,
        ),
    ),
}


# The lane a verification runs in unless asked otherwise, and the one with the highest ceiling
# (what "--lane heavy allows more" points to, and the largest witness any lane reads).
DEFAULT_LANE = "default"
HEAVY_LANE = "heavy"


def lane(name: str) -> Lane:
    """The lane called `name`; `ValueError` names the lanes there are."""
    try:
        return LANES[name]
    except KeyError:
        raise ValueError(f"no lane {name!r}; the lanes are {', '.join(LANES)}") from None


def clamp(asked: CertLimits, within: Lane) -> tuple[CertLimits, list[str]]:
    """The limits applied in `within`: each asked value, lowered to the lane's ceiling.

    Returns the effective limits and one note per lowered field ("cpu_sec 99999 → 30").
    """
    lowered: dict[str, Any] = {}
    notes: list[str] = []
    for name in CertLimits.FIELDS:
        value, ceiling = getattr(asked, name), getattr(within.ceiling, name)
        if value > ceiling:
            lowered[name] = ceiling
            notes.append(f"{name} {value:g} → {ceiling:g}")
    return asked.replace(**lowered), notes


class SpecError(Exception):
    """The problem's spec cannot be used; `str()` is a sentence naming the file and field."""


class Spec(NamedTuple):
    id: str
    title: str
    statement: str
    witness_format: str
    limits: CertLimits  # as the spec asks, before any lane clamps them
    path: Path
    sha256: str  # tagged hash of the spec file's bytes

    @property
    def folder(self) -> Path:
        return self.path.parent

    @property
    def checker(self) -> Path:
        return self.folder / CHECKER_FILE


def read_spec(folder: Path, where: str | None = None, opened: Folder | None = None) -> Spec:
    """Read and validate `<folder>/spec.json`; `where` is how errors name the file; `opened`,
    when given, is `folder` held open, and the file is read through it."""
    path = folder / SPEC_FILE
    name = where or str(path)
    try:  # not a link, a FIFO, a device or a huge file
        raw = opened.read(SPEC_FILE, MAX_SPEC_BYTES) if opened else read_file(path, MAX_SPEC_BYTES)
    except Unreadable as why:
        raise SpecError(f"{name} {why}") from None
    data = _parse(raw, name)
    problems = validate(data, "certificate")
    if problems:
        raise SpecError(f"{name}: " + "; ".join(problems))
    if data["id"] != folder.name:
        raise SpecError(f"{name}: id {data['id']!r} must be the folder's name {folder.name!r}")
    return Spec(
        id=data["id"],
        title=data["title"],
        statement=data["statement"],
        witness_format=data["witness_format"],
        limits=CertLimits.from_json(data["limits"]),
        path=path,
        sha256=sha256_tagged(raw),
    )


def _parse(raw: bytes, name: str) -> Any:
    try:
        return parse_json(raw, name)
    except JsonProblem as problem:
        raise SpecError(str(problem)) from problem
