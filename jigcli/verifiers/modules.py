"""Which verifiers are on: declared by modules, never inferred from the files.

A module is a YAML manifest that says which registered verifiers it switches on:

    name: lean-blueprint
    label: Lean blueprint
    description: Checks each statement of a paper with Lean …
    verifies: [lean, audit]

Manifests come from jig's own catalog (`jigcli/verifiers/modules/*.yaml`) and from the
repo's `modules/*.yaml` (a repo's module replaces a catalog module of the same name). The
repo switches modules on in its `jig.yaml`:

    modules: [lean-blueprint]

A built-in verifier (`module` None, like `compile`) is always on; any other is on when an
enabled module switches it on, and absent, not pending, otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jigcli.errors import UsageError
from jigcli.verifiers.registry import get_verifier

CATALOG_DIR = Path(__file__).resolve().parent / "modules"
REPO_MODULES_DIR = "modules"
CONFIG_FILE = "jig.yaml"


class ModuleError(UsageError):
    """A module manifest or `jig.yaml` that jig cannot act on honestly."""


@dataclass(frozen=True)
class Module:
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
        raise ModuleError(f"{path} is not readable YAML ({error}); fix or remove it.") from error


def load_manifest(path: Path) -> Module:
    """One module manifest; refused when it is malformed or names an unregistered verifier."""
    data = _load_yaml(path)
    if not isinstance(data, dict):
        raise ModuleError(f"{path} must be a YAML mapping with a `verifies:` list; fix it.")
    name = data.get("name", path.stem)
    verifies = data.get("verifies")
    if not isinstance(name, str) or not name:
        raise ModuleError(f"{path}: `name` must be a non-empty string; fix it.")
    if not isinstance(verifies, list) or not all(isinstance(v, str) for v in verifies):
        raise ModuleError(f"{path}: `verifies` must be a list of verifier ids; fix it.")
    unknown = [v for v in verifies if get_verifier(v) is None]
    if unknown:
        raise ModuleError(
            f"{path} switches on {', '.join(unknown)}, which no verifier registers; "
            "use ids from `jig verifiers`."
        )
    return Module(
        name=name,
        label=str(data.get("label", name)),
        description=str(data.get("description", "")),
        verifies=tuple(verifies),
        source=path,
    )


def catalog(root: Path | None = None) -> dict[str, Module]:
    """Every module jig knows: its own catalog, then the repo's `modules/` (which wins)."""
    folders = [CATALOG_DIR]
    if root is not None:
        folders.append(root / REPO_MODULES_DIR)
    modules: dict[str, Module] = {}
    for folder in folders:
        for path in sorted(folder.glob("*.yaml")) if folder.is_dir() else []:
            module = load_manifest(path)
            modules[module.name] = module
    return modules


def enabled_modules(root: Path) -> list[str]:
    """The module names the repo's `jig.yaml` switches on (none without a `jig.yaml`)."""
    config = root / CONFIG_FILE
    if not config.is_file():
        return []
    data = _load_yaml(config) or {}
    names = data.get("modules", []) if isinstance(data, dict) else None
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise ModuleError(f"{config}: `modules` must be a list of module names; fix it.")
    return names


def enabled_verifiers(root: Path) -> set[str]:
    """The verifier ids the repo's enabled modules switch on."""
    known = catalog(root)
    enabled: set[str] = set()
    for name in enabled_modules(root):
        module = known.get(name)
        if module is None:
            raise ModuleError(
                f"{root / CONFIG_FILE} enables module {name!r}, which is neither in jig's "
                f"catalog ({', '.join(sorted(known)) or 'empty'}) nor in {REPO_MODULES_DIR}/; "
                "fix the name or add its manifest."
            )
        enabled.update(module.verifies)
    return enabled
