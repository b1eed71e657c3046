"""Install elan, Lean's toolchain manager, from one pinned release checked by its SHA-256.

    python scripts/install_elan.py

downloads `elan-x86_64-unknown-linux-gnu.tar.gz` of elan VERSION from its GitHub release,
refuses it unless its SHA-256 is DIGEST (nothing from it is run before that), takes
`elan-init` out of it (a regular file, never a link or a path out of the folder) and runs it
with no default toolchain and no change to shell profiles; the workflow then installs the
toolchain `lean-toolchain` names. This replaces piping an installer script from a branch
into `sh`, which ran whatever that branch said that day.

DIGEST was not computed here (the machines jig is developed on cannot reach GitHub's release
files); it is the value three unrelated public repositories pin for this very asset, each
checking it before use. A release file replaced upstream fails here rather than running.
Exit 0 installed; 1 the download failed or did not match (nothing run); 2 not x86_64 Linux.

Standard library only: it runs before jig is installed.
"""

from __future__ import annotations

import hashlib
import io
import platform
import subprocess
import sys
import tarfile
import tempfile
import urllib.request
from collections.abc import Callable
from pathlib import Path

VERSION = "v4.2.4"
ASSET = "elan-x86_64-unknown-linux-gnu.tar.gz"
DIGEST = "42b94d4244e8353142c456ec0e4ca6528fd898a6c604d4059f494e706e431f63"
URL = f"https://github.com/leanprover/elan/releases/download/{VERSION}/{ASSET}"
ARCHIVE_CAP = 64 * 1024 * 1024
INIT = "elan-init"


class Refused(Exception):
    """The archive is not the pinned one, or holds no plain `elan-init`."""


def fetch(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=120) as response:
        data: bytes = response.read(ARCHIVE_CAP + 1)
    if len(data) > ARCHIVE_CAP:
        raise Refused(f"{url} is over {ARCHIVE_CAP} bytes")
    return data


def checked(data: bytes, digest: str = DIGEST) -> bytes:
    found = hashlib.sha256(data).hexdigest()
    if found != digest:
        raise Refused(f"{ASSET} has SHA-256 {found}, not the pinned {digest}")
    return data


def init_program(archive: bytes, folder: Path) -> Path:
    """Write the archive's `elan-init` (a regular file at its top) into `folder`."""
    with tarfile.open(fileobj=io.BytesIO(archive), mode="r:gz") as tar:
        member = next((m for m in tar.getmembers() if m.name.lstrip("./") == INIT), None)
        if member is None or not member.isfile():
            raise Refused(f"{ASSET} holds no regular file {INIT}")
        source = tar.extractfile(member)
        assert source is not None  # a regular file always has its bytes
        program = folder / INIT
        program.write_bytes(source.read())
    program.chmod(0o755)
    return program


def install(fetcher: Callable[[str], bytes] = fetch, digest: str = DIGEST) -> Path:
    """Download, check, unpack and run elan-init; return the program that was run."""
    archive = checked(fetcher(URL), digest)
    folder = Path(tempfile.mkdtemp(prefix="elan-init-"))
    program = init_program(archive, folder)
    subprocess.run(
        [str(program), "-y", "--default-toolchain", "none", "--no-modify-path"], check=True
    )
    return program


def main() -> int:
    if platform.system() != "Linux" or platform.machine() != "x86_64":
        print(f"install_elan: only {ASSET} is pinned; install elan by hand here", file=sys.stderr)
        return 2
    try:
        install()
    except (Refused, OSError, subprocess.CalledProcessError) as failure:
        print(f"install_elan: {failure}; nothing was installed", file=sys.stderr)
        return 1
    print(f"installed elan {VERSION} ({ASSET}, sha256 {DIGEST})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
