from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jigcli.errors import UsageError
from jigcli.selftest.discover import Case
from jigcli.selftest.shard import Shard, parse_shard, partition, select


def case(rel: str, kind: str = "lean", expect: str = "red", statement: str = "S001") -> Case:
    data = {"kind": kind, "expect": expect, "statement_id": statement}
    return Case(Path("/repo") / rel, rel, data, b"")


@pytest.mark.parametrize(
    ("spec", "shard"), [("1/1", Shard(1, 1)), ("2/4", Shard(2, 4)), (" 3 / 3 ", Shard(3, 3))]
)
def test_parses_i_of_n(spec, shard):
    assert parse_shard(spec) == shard


@pytest.mark.parametrize("spec", ["", "2", "2/", "/4", "a/b", "2-4", "1/4/2", "-1/4", "2.0/4"])
def test_a_malformed_spec_says_the_form_in_one_sentence(spec):
    with pytest.raises(UsageError) as raised:
        parse_shard(spec)
    assert "write it like 2/4" in raised.value.message
    assert raised.value.message.count(". ") == 0


@pytest.mark.parametrize("spec", ["0/4", "5/4", "1/0", "0/0"])
def test_an_out_of_range_spec_is_a_usage_error(spec):
    with pytest.raises(UsageError, match="pick I between 1 and N"):
        parse_shard(spec)


rels = st.lists(
    st.from_regex(
        r"(Submissions/S00[1-3]|Certificates/C00[1-2]/submissions)/[a-z]{1,8}\.json", fullmatch=True
    ),
    unique=True,
    max_size=40,
)


def cases_from(paths: list[str]) -> list[Case]:
    return [
        case(
            rel,
            "lean" if rel.startswith("Sub") else "certificate",
            "green" if len(rel) % 3 == 0 else "red",
            rel.split("/")[1],
        )
        for rel in paths
    ]


@given(rels, st.integers(min_value=1, max_value=6))
def test_shards_are_disjoint_and_cover_every_case(paths, count):
    cases = cases_from(paths)
    shards = partition(cases, count)
    seen = [c.rel for shard in shards for c in shard]
    assert sorted(seen) == sorted(paths)
    assert len(seen) == len(set(seen))


@given(rels, st.integers(min_value=1, max_value=6), st.randoms())
def test_the_partition_ignores_listing_order_and_where_the_repo_is(paths, count, rng):
    cases = cases_from(paths)
    shuffled = list(cases)
    rng.shuffle(shuffled)
    moved = [Case(Path("/elsewhere") / c.rel, c.rel, c.data, c.raw) for c in shuffled]
    expected = [sorted(c.rel for c in shard) for shard in partition(cases, count)]
    assert [sorted(c.rel for c in shard) for shard in partition(moved, count)] == expected


def test_the_partition_is_pinned_across_machines_and_python_runs():
    # Dealt in SHA-256 order of the paths (Python's salted hash() would differ per run).
    # A change here reshuffles every CI matrix: make it on purpose, never by accident.
    cases = [case(f"Submissions/S00{i % 3}/N{i}.json") for i in range(6)]
    assert [[c.rel for c in shard] for shard in partition(cases, 2)] == [
        ["Submissions/S001/N1.json", "Submissions/S001/N4.json", "Submissions/S000/N3.json"],
        ["Submissions/S002/N2.json", "Submissions/S002/N5.json", "Submissions/S000/N0.json"],
    ]


def test_lean_cases_spread_evenly_over_the_shards():
    cases = [case(f"Submissions/S{i:03}/A.json") for i in range(9)]
    cases += [case(f"Certificates/C001/submissions/w{i}.json", "certificate") for i in range(5)]
    shards = partition(cases, 4)
    lean = [sum(c.kind == "lean" for c in shard) for shard in shards]
    certificates = [sum(c.kind == "certificate" for c in shard) for shard in shards]
    assert max(lean) - min(lean) <= 1 and max(certificates) - min(certificates) <= 1


def test_greens_of_one_statement_share_a_shard_so_duplicates_are_seen():
    cases = [case(f"Submissions/S001/G{i}.json", expect="green") for i in range(3)]
    cases += [case(f"Submissions/S{i:03}/R.json") for i in range(8)]
    for count in (2, 3, 4):
        holding = [s for s in partition(cases, count) if any(c.rel.endswith("G0.json") for c in s)]
        assert {c.rel for c in holding[0]} >= {c.rel for c in cases[:3]}


def test_select_keeps_the_given_order():
    cases = [case(f"Submissions/S{i:03}/A.json") for i in range(7)]
    chosen = select(cases, Shard(1, 2))
    assert chosen == [c for c in cases if c in chosen] and chosen
