"""The verifier repo: where its root is, what it pins, and where things live in it."""

from __future__ import annotations

import contextlib
import json
import os
from functools import cached_property
from pathlib import Path
from typing import Any

from jigcli.errors import RepoNotFound, UsageError
from jigcli.hashing import file_sha256_tagged
from jigcli.safewrite import check_folders

ROOT_MARKERS = ("lakefile.toml", "lakefile.lean", "jig.yaml")


def find_root(start: Path | None = None) -> Path:
    """Walk up from `start` (default: the working directory) to the first folder with a marker."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if any((folder / marker).is_file() for marker in ROOT_MARKERS):
            return folder
    raise RepoNotFound(
        f"No verifier repo found at or above {here} (looked for {', '.join(ROOT_MARKERS)}); "
        "run jig inside one or pass --root DIR."
    )


class Repo:
    """A verifier repo, by its root folder. (A plain class: `jig verify` imports it on every
    run, and generating a dataclass's methods is a large share of its start-up.)"""

    def __init__(self, root: Path) -> None:
        self.root = root

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Repo) and other.root == self.root

    def __hash__(self) -> int:
        return hash(self.root)

    def __repr__(self) -> str:
        return f"Repo({str(self.root)!r})"

    @classmethod
    def locate(cls, override: Path | None = None, start: Path | None = None) -> Repo:
        """The repo for this invocation: `--root DIR` when given, else found by walking up."""
        if override is not None:
            if not override.is_dir():
                raise UsageError(
                    f"--root {override} is not a folder; pass the verifier repo's root."
                )
            if not any((override / marker).is_file() for marker in ROOT_MARKERS):
                raise UsageError(
                    f"--root {override} is not a verifier repo (it holds none of "
                    f"{', '.join(ROOT_MARKERS)}); pass the folder that does."
                )
            return cls(override.resolve())
        return cls(find_root(start))

    # -- places ---------------------------------------------------------------------------
    @property
    def statements_dir(self) -> Path:
        return self.root / "Statements"

    @property
    def submissions_dir(self) -> Path:
        return self.root / "Submissions"

    @property
    def certificates_dir(self) -> Path:
        return self.root / "Certificates"

    @property
    def commons_dir(self) -> Path:
        return self.root / "Commons"

    @property
    def verify_dir(self) -> Path:
        return self.root / "Verify"

    @property
    def work_dir(self) -> Path:
        """Scratch space jig owns inside the repo (verdicts, judge reports, lean-check files)."""
        return self.root / ".jig"

    def check_work_folders(self, *names: str) -> None:
        """Refuse (`jigcli.safewrite.UnsafeTarget`) when `.jig` or `.jig/<name>` is a link or
        not a folder: a committed link would send what jig writes there outside the repo."""
        for name in names:
            check_folders(self.root, (self.work_dir / name).relative_to(self.root).as_posix())

    def module_path(self, module: str) -> Path:
        """`Submissions.S001.Alice` → `<root>/Submissions/S001/Alice.lean`."""
        return self.root.joinpath(*module.split(".")).with_suffix(".lean")

    def inside(self, path: Path) -> Path | None:
        """`path` as `root/…` when it lies in the repo, its parts below the root as written,
        not resolved (a link among them is for the reader to refuse, never to follow);
        None when it lies outside. Only the root may be reached through a link."""
        absolute = Path(os.path.abspath(path))
        if absolute.is_relative_to(self.root):
            return absolute
        for ancestor in absolute.parents:
            with contextlib.suppress(OSError):
                if os.path.samefile(ancestor, self.root):
                    return self.root / absolute.relative_to(ancestor)
        return None

    def rel(self, path: Path | str) -> str:
        """A repo-relative POSIX path when `path` is inside the repo, else the path as given."""
        p = Path(path)
        try:
            return p.resolve().relative_to(self.root).as_posix()
        except ValueError:
            return os.fspath(path)

    # -- pins ----------------------------------------------------------------------------
    @cached_property
    def lean_toolchain(self) -> str | None:
        """The pinned toolchain, e.g. `leanprover/lean4:v4.33.0`."""
        path = self.root / "lean-toolchain"
        return path.read_text(encoding="utf-8").strip() if path.is_file() else None

    @property
    def lean_version(self) -> str | None:
        """The pinned Lean version without the `v`, e.g. `4.33.0`."""
        pin = self.lean_toolchain
        if not pin:
            return None
        return pin.rsplit(":", 1)[-1].removeprefix("v")

    @cached_property
    def lake_manifest(self) -> dict[str, Any] | None:
        path = self.root / "lake-manifest.json"
        if not path.is_file():
            return None
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) else None

    @property
    def mathlib_rev(self) -> str | None:
        for package in (self.lake_manifest or {}).get("packages", []):
            if isinstance(package, dict) and package.get("name") == "mathlib":
                rev = package.get("rev")
                return rev if isinstance(rev, str) else None
        return None

    def toolchain_pins(self) -> dict[str, str | None]:
        """What every verdict records so it can be re-derived later."""
        manifest = self.root / "lake-manifest.json"
        return {
            "lean_toolchain": self.lean_toolchain,
            "mathlib_rev": self.mathlib_rev,
            "manifest_hash": file_sha256_tagged(manifest) if manifest.is_file() else None,
        }
