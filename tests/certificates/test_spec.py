"""spec.json: validated by the schema, its limits clamped to the lane's ceiling."""

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jigcli.certificates.spec import LANES, CertLimits, SpecError, clamp, lane, read_spec

GOOD: dict[str, Any] = {
    "schema": "conject.certificate.v1",
    "id": "T001",
    "title": "t",
    "statement": "s",
    "witness_format": "w",
    "limits": {"wall_sec": 5, "cpu_sec": 2, "address_space_mb": 256, "output_bytes": 4096},
}


def _write(tmp_path, document, name="T001"):
    folder = tmp_path / name
    folder.mkdir()
    text = document if isinstance(document, str) else json.dumps(document)
    (folder / "spec.json").write_text(text)
    return folder


def test_a_valid_spec_is_read_with_default_optional_limits(tmp_path):
    spec = read_spec(_write(tmp_path, GOOD))
    assert spec.limits == CertLimits(5, 2, 256, 4096)
    assert spec.limits.witness_bytes == 1024 * 1024 and spec.sha256.startswith("sha256:")
    assert spec.checker == tmp_path / "T001" / "checker.py"


def test_a_spec_may_lower_its_process_cap_and_a_lane_caps_it(tmp_path):
    asked = {**GOOD, "limits": {**GOOD["limits"], "processes": 8}}
    spec = read_spec(_write(tmp_path, asked))
    assert spec.limits.processes == 8
    assert clamp(spec.limits, LANES["default"]) == (spec.limits, [])
    assert read_spec(_write(tmp_path, {**GOOD, "id": "T002"}, "T002")).limits.processes == 32


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ({"schema": "conject.certificate.v2"}, "schema"),
        ({"limits": {"wall_sec": 5}}, "'cpu_sec' is required"),
        ({"limits": {**GOOD["limits"], "cpu_sec": 0}}, "limits.cpu_sec"),
        ({"limits": {**GOOD["limits"], "cpu_sec": 10**400}}, "limits.cpu_sec"),
        ({"limits": {**GOOD["limits"], "nproc": 4}}, "nproc"),
        ({"limits": {**GOOD["limits"], "processes": 2}}, "limits.processes"),
        ({"id": "T002"}, "must be the folder's name"),
    ],
)
def test_a_bad_spec_is_refused_with_the_field_named(tmp_path, change, said):
    with pytest.raises(SpecError, match=said):
        read_spec(_write(tmp_path, {**GOOD, **change}), where="Certificates/T001/spec.json")


def test_a_spec_that_is_not_json_is_refused(tmp_path):
    with pytest.raises(SpecError, match="not valid JSON"):
        read_spec(_write(tmp_path, "{"))


def test_a_missing_spec_is_refused(tmp_path):
    (tmp_path / "T001").mkdir()
    with pytest.raises(SpecError, match=r"spec\.json does not exist"):
        read_spec(tmp_path / "T001")


def test_absurd_limits_are_clamped_to_the_lane_ceiling_and_named():
    absurd = CertLimits(10**9, 10**9, 10**9, 10**15, 10**15, 10**9, processes=10**9)
    limits, lowered = clamp(absurd, LANES["default"])
    assert limits == LANES["default"].ceiling
    assert len(lowered) == 8 and lowered[1] == "cpu_sec 1e+09 → 30"
    assert lowered[-2:] == ["processes 1e+09 → 64", "memory_mb 3e+09 → 4608"]


def test_the_heavy_lane_allows_what_the_default_lowers():
    asked = LANES["default"].ceiling.replace(cpu_sec=600)
    assert clamp(asked, LANES["default"])[0].cpu_sec == 30
    assert clamp(asked, LANES["heavy"]) == (asked, [])


def test_an_unknown_lane_is_refused_naming_the_lanes():
    with pytest.raises(ValueError, match="default, heavy"):
        lane("turbo")


limits_values = st.builds(
    CertLimits,
    wall_sec=st.floats(0.1, 1e9),
    cpu_sec=st.integers(1, 10**9),
    address_space_mb=st.integers(16, 10**9),
    output_bytes=st.integers(256, 10**15),
    witness_bytes=st.integers(1, 10**15),
    scratch_mb=st.integers(1, 10**9),
    processes=st.integers(4, 10**9),
)


@given(asked=limits_values, lane_name=st.sampled_from(sorted(LANES)))
def test_clamping_never_raises_a_limit_nor_passes_the_ceiling(asked, lane_name):
    limits, lowered = clamp(asked, LANES[lane_name])
    ceiling = LANES[lane_name].ceiling
    for name, value in limits.to_json().items():
        assert value <= getattr(asked, name) and value <= getattr(ceiling, name)
        assert (value < getattr(asked, name)) == any(note.startswith(name) for note in lowered)
