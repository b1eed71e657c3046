import contextlib
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jigcli.manifest import ManifestError, check_module_location, read_manifest

GOOD = {
    "schema": "conject.submission.v1",
    "kind": "lean",
    "statement_id": "S001",
    "module": "Submissions.S001.Alice",
    "decl": "Submissions.S001.Alice.proof",
}


def write(tmp_path, data, name="Alice.json"):
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def test_a_good_manifest_reads(tmp_path):
    manifest = read_manifest(write(tmp_path, GOOD))
    assert (manifest.kind, manifest.statement_id, manifest.decl) == (
        "lean",
        "S001",
        "Submissions.S001.Alice.proof",
    )


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"schema": "other"}, "schema"),
        ({"kind": "python"}, "kind"),
        ({"statement_id": "../S001"}, "statement_id"),
        ({"statement_id": "S001/../../etc"}, "statement_id"),
        ({"module": None}, "module"),
        ({"decl": "Other.proof"}, "decl"),
        ({"module": "Statements.S001", "decl": "Statements.S001.x"}, "module"),
        ({"expect": "maybe"}, "expect"),
    ],
)
def test_each_malformed_field_is_named(tmp_path, change, field):
    data = {**GOOD, **change}
    with pytest.raises(ManifestError, match=field):
        read_manifest(write(tmp_path, data))


def test_missing_field_is_named(tmp_path):
    data = {k: v for k, v in GOOD.items() if k != "decl"}
    with pytest.raises(ManifestError, match="decl"):
        read_manifest(write(tmp_path, data))


def test_not_json_says_where_as_path_line_col(tmp_path):
    path = write(tmp_path, '{\n  "kind": "lean"\n  "decl": "x"\n}\n')
    with pytest.raises(ManifestError) as raised:
        read_manifest(path, beneath=tmp_path)
    assert str(raised.value) == (
        "Alice.json:3:3: the manifest is not valid JSON: Expecting ',' delimiter"
    )


def test_a_trailing_comma_is_placed_on_its_own_line_not_the_next(tmp_path):
    text = json.dumps(GOOD, indent=2).replace('"\n}', '",\n}')  # a comma after the last field
    comma_line = text.splitlines().index(f'  "decl": "{GOOD["decl"]}",') + 1
    column = len(f'  "decl": "{GOOD["decl"]}",')
    with pytest.raises(ManifestError) as raised:
        read_manifest(write(tmp_path, text), beneath=tmp_path)
    assert str(raised.value).startswith(f"Alice.json:{comma_line}:{column}: ")
    assert "a comma after its last item" in str(raised.value)


def test_a_misspelt_key_is_named_beside_the_missing_one(tmp_path):
    data = {("statment_id" if k == "statement_id" else k): v for k, v in GOOD.items()}
    with pytest.raises(ManifestError) as raised:
        read_manifest(write(tmp_path, data))
    assert "'statement_id' is required; is 'statment_id' a misspelling of it?" in str(raised.value)


def test_a_missing_key_with_nothing_like_it_gets_no_guess(tmp_path):
    data = {k: v for k, v in GOOD.items() if k != "decl"} | {"author2": "x"}
    with pytest.raises(ManifestError) as raised:
        read_manifest(write(tmp_path, data))
    assert "misspelling" not in str(raised.value)


def test_module_outside_the_manifest_folder_is_refused(tmp_path):
    folder = tmp_path / "Submissions" / "S001"
    folder.mkdir(parents=True)
    data = {**GOOD, "module": "Submissions.S002.Alice", "decl": "Submissions.S002.Alice.proof"}
    manifest = read_manifest(write(folder, data))
    with pytest.raises(ManifestError, match="own folder"):
        check_module_location(manifest, tmp_path)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=2000))
def test_random_bytes_never_escape_as_anything_but_manifest_error(tmp_path_factory, blob):
    path = tmp_path_factory.mktemp("m") / "x.json"
    path.write_bytes(blob)
    with contextlib.suppress(ManifestError):
        read_manifest(path)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from([*GOOD, "refutes", "witness", "x"]), json_values))
def test_random_json_never_escapes_as_anything_but_manifest_error(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("m") / "x.json"
    path.write_text(json.dumps({**GOOD, **data}))
    with contextlib.suppress(ManifestError):
        read_manifest(path)


def test_an_oversized_manifest_is_refused_without_reading_it_whole(tmp_path):
    path = tmp_path / "big.json"
    with path.open("wb") as stream:
        stream.truncate(64 * 1024 * 1024)  # sparse: no disk, but 64 MB if read whole
    with pytest.raises(ManifestError, match="larger than"):
        read_manifest(path)


CERTIFICATE = {
    "schema": "conject.submission.v1",
    "kind": "certificate",
    "statement_id": "C001",
    "witness": "x.witness",
}


@pytest.mark.parametrize(
    ("base", "change", "said"),
    [
        (GOOD, {"statement_id": "S001\n"}, "statement_id: 'S001\\n' is not a valid"),
        (GOOD, {"refutes": "S002\n"}, "refutes: 'S002\\n' is not a valid"),
        (GOOD, {"module": "Submissions.S001.Alice\n"}, "module: "),
        (GOOD, {"decl": "Submissions.S001.Alice.proof\n"}, "decl: "),
        (CERTIFICATE, {"witness": "x\u0000.witness"}, "holds a control character"),
        (CERTIFICATE, {"witness": "x.witness\n"}, "holds a control character"),
        (CERTIFICATE, {"witness": "../x.witness"}, "leaves its folder"),
        (CERTIFICATE, {"witness": "/etc/passwd"}, "not an absolute path"),
        (CERTIFICATE, {"witness": "a//x.witness"}, "empty or '.' part"),
        (GOOD, {"duplicate_of": "../../other.json"}, "duplicate_of: "),
        (GOOD, {"duplicate_of": "Submissions/S001/B.json\u0000"}, "control character"),
    ],
)
def test_an_id_or_path_field_is_checked_whole_before_use(tmp_path, base, change, said):
    with pytest.raises(ManifestError) as refused:
        read_manifest(write(tmp_path, {**base, **change}))
    assert said in str(refused.value)
