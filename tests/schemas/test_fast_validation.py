"""The fast validity check (fastjsonschema) agrees with jsonschema on every document."""

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from jigcli.schemas import SCHEMA_NAMES, conforms, load_schema, validate

REPO = Path(__file__).resolve().parents[2]

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**20), 10**20),
    st.floats(allow_nan=False),
    st.sampled_from(["", "C001", "../x", "a\n", "lean", "certificate", "green", "red", "ok"]),
    st.sampled_from(["conject.submission.v1", "conject.certificate.v1", "conject.verdict.v1"]),
    st.sampled_from(["Submissions.S001.A", "Submissions.S001.A.proof", "sha256:" + "0" * 64]),
    st.text(max_size=8),
    # the boundaries jig's schemas draw: lengths, minimums, maximums
    st.sampled_from([0, 1, 15, 16, 255, 256, 10**9, 10**9 + 1, 2**50, 2**50 + 1, -1, 0.5]),
    st.integers(120, 300).map(lambda n: "S" * n),
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)


def _keys(schema: object) -> set[str]:
    """Every property name any (sub)schema mentions, so generated objects hit them."""
    found: set[str] = set()
    if isinstance(schema, dict):
        found |= set(schema.get("properties", {})) | set(schema.get("required", []))
        for value in schema.values():
            found |= _keys(value)
    elif isinstance(schema, list):
        for value in schema:
            found |= _keys(value)
    return found


def _edges(schema: object) -> list[object]:
    """Values at and around every bound, length and constant the schema names."""
    found: list[object] = []
    if isinstance(schema, dict):
        for key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
            if key in schema:
                found += [schema[key] - 1, schema[key], schema[key] + 1, float(schema[key])]
        for key in ("minLength", "maxLength"):
            if key in schema:
                found += ["a" * max(0, schema[key] + step) for step in (-1, 0, 1)]
        found += list(schema.get("enum", [])) + ([schema["const"]] if "const" in schema else [])
        for value in schema.values():
            found += _edges(value)
    elif isinstance(schema, list):
        for value in schema:
            found += _edges(value)
    return found


def _edges_by_key(schema: object, found: dict[str, list[object]] | None = None) -> dict:
    """For each property name, the edge values of every subschema given for it."""
    found = {} if found is None else found
    if isinstance(schema, dict):
        for key, sub in schema.get("properties", {}).items():
            found.setdefault(key, []).extend(_edges(sub))
        for value in schema.values():
            _edges_by_key(value, found)
    elif isinstance(schema, list):
        for value in schema:
            _edges_by_key(value, found)
    return found


def _documents(name: str) -> st.SearchStrategy[object]:
    keys = st.sampled_from(sorted(_keys(load_schema(name))))
    return st.dictionaries(keys, values, max_size=12) | values


@pytest.mark.parametrize("name", SCHEMA_NAMES)
def test_fast_agrees_with_jsonschema_on_arbitrary_documents(name):
    validator = Draft202012Validator(load_schema(name))

    @settings(max_examples=100, deadline=None)
    @given(document=_documents(name))
    def agree(document):
        answer = conforms(document, name)
        assert answer == validator.is_valid(document)

    agree()


def _bases() -> dict[str, list[dict]]:
    """Valid documents of each kind, for mutations that stay near validity."""
    from jigcli.verdict import Verdict

    verdict = Verdict(kind="certificate", submission="Certificates/C001/submissions/x.json")
    verdict.record("witness", True, "fine")
    verdict.extra.update(lane="default", isolation="bubblewrap", limits={"wall_sec": 1})
    lean = {
        "schema": "conject.submission.v1",
        "kind": "lean",
        "statement_id": "S001",
        "module": "Submissions.S001.A",
        "decl": "Submissions.S001.A.proof",
    }
    return {
        "verdict": [verdict.finish().to_json()],
        "submission": [lean]
        + [json.loads(p.read_text()) for p in REPO.glob("Certificates/*/submissions/*.json")],
        "certificate": [json.loads(p.read_text()) for p in REPO.glob("Certificates/*/spec.json")],
    }


BASES = _bases()


@st.composite
def _near(draw, name: str) -> object:
    """A valid document with a few keys set, dropped or replaced, at the top or one below."""
    document = json.loads(json.dumps(draw(st.sampled_from(BASES[name]))))
    keys = sorted(_keys(load_schema(name)))
    edges = _edges_by_key(load_schema(name))
    for _ in range(draw(st.integers(0, 3))):
        nested = [v for v in document.values() if isinstance(v, dict)]
        target = draw(st.sampled_from([document, *nested]))
        key = draw(st.sampled_from(sorted(target) or keys) | st.sampled_from(keys))
        action = draw(st.sampled_from(["drop", "edge", "any"]))
        if action == "drop" and key in target:
            del target[key]
        elif action == "edge" and edges.get(key):
            target[key] = draw(st.sampled_from(edges[key]))
        else:
            target[key] = draw(values)
    return document


@pytest.mark.parametrize("name", sorted(BASES))
def test_fast_agrees_with_jsonschema_near_valid_documents(name):
    validator = Draft202012Validator(load_schema(name))
    answers = set()

    @settings(max_examples=200, deadline=None)
    @given(document=_near(name))
    def agree(document):
        answer = conforms(document, name)
        answers.add(answer)
        assert answer == validator.is_valid(document)

    agree()
    assert {True, False} <= answers  # both answers were exercised


@pytest.mark.parametrize("name", sorted(BASES))
def test_fast_agrees_with_jsonschema_at_every_edge_and_every_dropped_key(name):
    validator = Draft202012Validator(load_schema(name))
    edges = _edges_by_key(load_schema(name))
    answers = []
    for base in BASES[name]:
        for path in [(), *((key,) for key, value in base.items() if isinstance(value, dict))]:
            target_keys = set(_walk(base, path))
            for key in sorted(set(edges) | target_keys):
                for value in [*edges.get(key, []), "jig-not-listed", None, _DROP]:
                    document = json.loads(json.dumps(base))
                    target = _walk(document, path)
                    if value is _DROP:
                        target.pop(key, None)
                    else:
                        target[key] = value
                    answer = conforms(document, name)
                    answers.append(answer)
                    assert answer == validator.is_valid(document), (path, key, value)
    assert {True, False} <= set(answers)


_DROP = object()


def _walk(document: dict, path: tuple[str, ...]) -> dict:
    for key in path:
        document = document[key]
    return document


@pytest.mark.parametrize(
    "path",
    sorted(REPO.glob("Certificates/*/spec.json"))
    + sorted(REPO.glob("Certificates/*/submissions/*.json")),
)
def test_fast_decides_the_repos_own_documents_without_jsonschema(path):
    name = "certificate" if path.name == "spec.json" else "submission"
    assert conforms(json.loads(path.read_text()), name) is True


def test_an_invalid_document_still_gets_jsonschemas_messages():
    assert validate({"schema": "conject.submission.v1"}, "submission") == [
        "'kind' is required",
        "'statement_id' is required",
    ]
