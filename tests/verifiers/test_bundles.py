from __future__ import annotations

from pathlib import Path

import pytest

from jigcli.verifiers.bundles import (
    BundleError,
    catalog,
    enabled_bundles,
    enabled_verifiers,
    load_manifest,
)


def test_the_catalog_ships_the_lean_bundles_switching_on_lean_and_audit() -> None:
    bundles = catalog()
    for name in ("lean-blueprint", "lean4"):
        assert bundles[name].verifies == ("lean", "audit")


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_jig_yaml_enables_bundles_and_their_verifiers(tmp_path: Path) -> None:
    write(tmp_path / "jig.yaml", "modules: [lean-blueprint]\n")
    assert enabled_bundles(tmp_path) == ["lean-blueprint"]
    assert enabled_verifiers(tmp_path) == {"lean", "audit"}


def test_no_jig_yaml_enables_nothing(tmp_path: Path) -> None:
    assert enabled_verifiers(tmp_path) == set()


def test_a_repos_own_bundle_is_found_and_replaces_a_catalog_bundle(tmp_path: Path) -> None:
    write(tmp_path / "modules" / "lean4.yaml", "name: lean4\nverifies: [lean]\n")
    write(tmp_path / "modules" / "papers.yaml", "verifies: [compile]\n")
    write(tmp_path / "jig.yaml", "modules: [lean4, papers]\n")
    assert catalog(tmp_path)["lean4"].verifies == ("lean",)
    assert enabled_verifiers(tmp_path) == {"lean", "compile"}


def test_an_unknown_bundle_in_jig_yaml_is_refused_in_one_sentence(tmp_path: Path) -> None:
    write(tmp_path / "jig.yaml", "modules: [lean5]\n")
    with pytest.raises(BundleError, match="'lean5'"):
        enabled_verifiers(tmp_path)


@pytest.mark.parametrize(
    ("text", "complaint"),
    [
        ("verifies: lean\n", "list of verifier ids"),
        ("- lean\n", "YAML mapping"),
        ("verifies: [lean, claim]\n", "claim"),
        ("verifies: [lean\n", "not readable YAML"),
    ],
)
def test_a_malformed_manifest_is_refused(tmp_path: Path, text: str, complaint: str) -> None:
    with pytest.raises(BundleError, match=complaint):
        load_manifest(write(tmp_path / "bad.yaml", text))
