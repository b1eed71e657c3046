"""Which verifiers are on: declared by bundles, never inferred from the files.

A bundle is a YAML manifest that says which registered verifiers it switches on:

    name: lean-blueprint
    label: Lean blueprint
    description: Checks each statement of a paper with Lean …
    verifies: [lean, audit]

Bundles come from jig's own catalog (`jigcli/verifiers/bundles/*.yaml`) and from the repo's
`modules/*.yaml` (a repo's bundle replaces a catalog bundle of the same name). The repo
switches bundles on in its `jig.yaml`, under the key `modules` (its name since the first
`jig.yaml`; a Lean module is another thing):

    modules: [lean-blueprint]

A built-in verifier (`bundle` None, like `compile`) is always on; any other is on when an
enabled bundle switches it on, and absent, not pending, otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jigcli.errors import UsageError
from jigcli.verifiers.registry import get_verifier

CATALOG_DIR = Path(__file__).resolve().parent / "bundles"
REPO_BUNDLES_DIR = "modules"  # a repo's own bundles, in the folder named like jig.yaml's key
CONFIG_FILE = "jig.yaml"
CONFIG_KEY = "modules"


class BundleError(UsageError):
    """A bundle manifest or `jig.yaml` that jig cannot act on honestly."""


@dataclass(frozen=True)
class Bundle:
    name: str
    label: str
    description: str
    verifies: tuple[str, ...]
    source: Path  # the manifest it was read from


def _load_yaml(path: Path) -> Any:
    import yaml

    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as error:
        raise BundleError(f"{path} is not readable YAML ({error}); fix or remove it.") from error


def load_manifest(path: Path) -> Bundle:
    """One bundle manifest; refused when it is malformed or names an unregistered verifier."""
    data = _load_yaml(path)
    if not isinstance(data, dict):
        raise BundleError(f"{path} must be a YAML mapping with a `verifies:` list; fix it.")
    name = data.get("name", path.stem)
    verifies = data.get("verifies")
    if not isinstance(name, str) or not name:
        raise BundleError(f"{path}: `name` must be a non-empty string; fix it.")
    if not isinstance(verifies, list) or not all(isinstance(v, str) for v in verifies):
        raise BundleError(f"{path}: `verifies` must be a list of verifier ids; fix it.")
    unknown = [v for v in verifies if get_verifier(v) is None]
    if unknown:
        raise BundleError(
            f"{path} switches on {', '.join(unknown)}, which no verifier registers; "
            "use ids from `jig verifiers`."
        )
    return Bundle(
        name=name,
        label=str(data.get("label", name)),
        description=str(data.get("description", "")),
        verifies=tuple(verifies),
        source=path,
    )


def catalog(root: Path | None = None) -> dict[str, Bundle]:
    """Every bundle jig knows: its own catalog, then the repo's `modules/` (which wins)."""
    folders = [CATALOG_DIR]
    if root is not None:
        folders.append(root / REPO_BUNDLES_DIR)
    bundles: dict[str, Bundle] = {}
    for folder in folders:
        for path in sorted(folder.glob("*.yaml")) if folder.is_dir() else []:
            bundle = load_manifest(path)
            bundles[bundle.name] = bundle
    return bundles


def enabled_bundles(root: Path) -> list[str]:
    """The bundle names the repo's `jig.yaml` switches on (none without a `jig.yaml`)."""
    config = root / CONFIG_FILE
    if not config.is_file():
        return []
    data = _load_yaml(config) or {}
    names = data.get(CONFIG_KEY, []) if isinstance(data, dict) else None
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise BundleError(f"{config}: `{CONFIG_KEY}` must be a list of bundle names; fix it.")
    return names


def enabled_verifiers(root: Path) -> set[str]:
    """The verifier ids the repo's enabled bundles switch on."""
    known = catalog(root)
    enabled: set[str] = set()
    for name in enabled_bundles(root):
        bundle = known.get(name)
        if bundle is None:
            raise BundleError(
                f"{root / CONFIG_FILE} enables the bundle {name!r}, which is neither in jig's "
                f"catalog ({', '.join(sorted(known)) or 'empty'}) nor in {REPO_BUNDLES_DIR}/; "
                "fix the name or add its manifest."
            )
        enabled.update(bundle.verifies)
    return enabled
