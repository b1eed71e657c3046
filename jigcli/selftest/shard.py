"""`--shard I/N`: split the cases among the N jobs of a CI matrix, the same way everywhere.

The partition depends only on the cases' repo-relative paths, kinds, statements and
expectations — never on `hash()` (salted per process), the order files were listed in, or
the machine. It is balanced rather than a bare hash modulo N, because one Lean case can take
minutes and a handful of them must not land on the same 20-minute runner:

1. cases are grouped into units: the cases expected green for the same statement form one
   unit (so the duplicate-hash check sees them together in one shard), every other case is
   a unit alone;
2. the units are ordered Lean first, larger first, then by the SHA-256 of their first path;
3. they are dealt to the shards in turn, each to the shard with the fewest cases so far of
   its kind (ties: the lowest shard number), so Lean work and certificate work both spread.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass

from jigcli.errors import UsageError
from jigcli.selftest.discover import Case

_SPEC = re.compile(r"\s*(\d+)\s*/\s*(\d+)\s*")


@dataclass(frozen=True)
class Shard:
    index: int  # 1-based, as written on the command line
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def parse_shard(spec: str) -> Shard:
    """`"2/4"` → Shard(2, 4); anything else is a usage error that says the form."""
    match = _SPEC.fullmatch(spec)
    if match is None:
        raise UsageError(f"--shard {spec!r} is not I/N; write it like 2/4 (shard 2 of 4).")
    index, count = int(match[1]), int(match[2])
    if count < 1 or not 1 <= index <= count:
        raise UsageError(f"--shard {spec!r} is out of range; pick I between 1 and N, like 2/4.")
    return Shard(index, count)


def select(cases: Sequence[Case], shard: Shard) -> list[Case]:
    """The cases that belong to `shard`, in their original order."""
    chosen = {case.rel for case in partition(cases, shard.count)[shard.index - 1]}
    return [case for case in cases if case.rel in chosen]


def partition(cases: Sequence[Case], count: int) -> list[list[Case]]:
    """All `count` shards: disjoint, together every case, each a function of the set alone."""
    shards: list[list[Case]] = [[] for _ in range(count)]
    load: dict[tuple[int, str], int] = {}
    for unit in sorted(_units(cases), key=_unit_order):
        kind = unit[0].kind
        target = min(range(count), key=lambda i: (load.get((i, kind), 0), i))
        shards[target].extend(unit)
        load[target, kind] = load.get((target, kind), 0) + len(unit)
    return shards


def _units(cases: Sequence[Case]) -> list[list[Case]]:
    groups: dict[tuple[str, str], list[Case]] = {}
    units: list[list[Case]] = []
    for case in sorted(cases, key=lambda c: c.rel):
        if case.expect == "green" and case.statement_id is not None:
            groups.setdefault((case.kind, case.statement_id), []).append(case)
        else:
            units.append([case])
    return units + list(groups.values())


def _unit_order(unit: list[Case]) -> tuple[int, int, str]:
    lean_first = 0 if unit[0].kind == "lean" else 1
    return (lean_first, -len(unit), _digest(unit[0].rel))


def _digest(rel: str) -> str:
    return hashlib.sha256(rel.encode("utf-8")).hexdigest()
