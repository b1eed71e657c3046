"""Copy what a CI job uploads into one folder: every verdict and the judge's reports, hidden
folders included, and no link ever followed out of them.

    python scripts/stage_artifacts.py --into=artifacts -- verdicts .jig/verdicts .jig/work

`actions/upload-artifact` skips hidden files unless told otherwise (`.jig/` is hidden) and
follows symbolic links, so a link that a submission's build left in `.jig/work/` could
otherwise upload any file of the runner it points at. This copies each SOURCE (repo-relative)
to `INTO/SOURCE`: regular files only, read without following a link (`O_NOFOLLOW`, and every
folder on the way checked), each at most 64 MiB and 1 GiB in all; a link, a FIFO, a device or
a file over the caps is left out and named in `INTO/LEFT_OUT.txt`. A SOURCE that does not
exist is skipped. Exit 0 (an upload of what there is beats none), 2 for a malformed call.

Standard library only: it runs in `if: always()` steps, even when jig was never installed.
"""

from __future__ import annotations

import os
import shutil
import stat
import sys
from dataclasses import dataclass, field
from pathlib import Path

FILE_CAP = 64 * 1024 * 1024
TOTAL_CAP = 1024 * 1024 * 1024
LEFT_OUT = "LEFT_OUT.txt"
USAGE = "usage: stage_artifacts.py --into=FOLDER -- SOURCE..."


@dataclass
class Staging:
    into: Path
    copied: int = 0
    left_out: list[str] = field(default_factory=list)

    def leave(self, path: str, why: str) -> None:
        self.left_out.append(f"{path}: {why}")


def stage(into: Path, sources: list[str]) -> Staging:
    """Copy `sources` into a fresh `into`; return what was copied and what was left out."""
    _remove(into)
    into.mkdir(parents=True)
    staging = Staging(into)
    for source in sources:
        if _through_a_link(Path(source)):
            staging.leave(source, "a link on its way; never followed")
            continue
        _walk(staging, Path(source))
    if staging.left_out:
        text = "".join(f"{line}\n" for line in staging.left_out)
        (into / LEFT_OUT).write_text(text, encoding="utf-8")
    return staging


def _walk(staging: Staging, path: Path) -> None:
    try:
        info = path.lstat()
    except FileNotFoundError:
        return
    if stat.S_ISDIR(info.st_mode):
        for child in sorted(os.listdir(path)):
            _walk(staging, path / child)
    elif stat.S_ISREG(info.st_mode):
        _copy(staging, path, info.st_size)
    else:
        kind = "a link" if stat.S_ISLNK(info.st_mode) else "not a regular file"
        staging.leave(path.as_posix(), f"{kind}; never followed or read")


def _copy(staging: Staging, path: Path, size: int) -> None:
    if size > FILE_CAP:
        staging.leave(path.as_posix(), f"{size} bytes, over the {FILE_CAP}-byte cap per file")
        return
    if staging.copied + size > TOTAL_CAP:
        staging.leave(path.as_posix(), f"over the {TOTAL_CAP}-byte cap of the whole upload")
        return
    try:
        handle = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as error:
        staging.leave(path.as_posix(), f"unreadable ({error.strerror})")
        return
    with os.fdopen(handle, "rb") as source:
        if not stat.S_ISREG(os.fstat(source.fileno()).st_mode):
            staging.leave(path.as_posix(), "not a regular file when opened")
            return
        data = source.read(FILE_CAP + 1)
    if len(data) > FILE_CAP:
        staging.leave(path.as_posix(), f"grew over the {FILE_CAP}-byte cap per file")
        return
    target = staging.into / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)
    staging.copied += len(data)


def _through_a_link(source: Path) -> bool:
    """Whether `source` leaves the working folder or any folder on its way is a link."""
    if source.is_absolute() or ".." in source.parts:
        return True
    here = Path()
    for part in source.parts[:-1]:
        here = here / part
        if here.is_symlink():
            return True
    return False


def _remove(path: Path) -> None:
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path)


def main(argv: list[str]) -> int:
    if len(argv) < 2 or not argv[0].startswith("--into=") or argv[1] != "--":
        print(USAGE, file=sys.stderr)
        return 2
    into = Path(argv[0].removeprefix("--into="))
    staging = stage(into, argv[2:])
    print(f"staged {staging.copied} bytes in {into}; left out {len(staging.left_out)} item(s)")
    for line in staging.left_out:
        print(f"  left out {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
