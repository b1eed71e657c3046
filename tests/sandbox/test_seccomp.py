"""The seccomp filter: built by libseccomp, once, and what it refuses."""

import sys

import pyseccomp  # type: ignore[import-untyped]
import pytest

from jigcli.sandbox import seccomp


def test_the_filter_is_built_once_by_libseccomp():
    program = seccomp.program()
    assert seccomp.unavailable() is None, seccomp.unavailable()
    assert program and len(program) % 8 == 0  # struct sock_filter instructions
    assert seccomp.program() is program


def test_every_refused_call_is_one_the_kernel_knows_here():
    known = [name for name in (*seccomp.REFUSED, *seccomp.UNKNOWN) if _number(name) >= 0]
    for name in ("keyctl", "add_key", "ptrace", "bpf", "mount", "unshare", "io_uring_setup"):
        assert name in known


def _number(name: str) -> int:
    return int(pyseccomp.resolve_syscall(pyseccomp.system_arch(), name))


def test_without_libseccomp_the_reason_says_what_to_install(monkeypatch, tmp_path):
    monkeypatch.setenv("JIG_CACHE_DIR", str(tmp_path))  # nothing built here before either
    monkeypatch.setattr(seccomp, "_built", {})
    monkeypatch.setitem(sys.modules, "pyseccomp", None)
    assert "apt-get install libseccomp2" in (seccomp.unavailable() or "")
    assert seccomp.program() is None


@pytest.fixture(autouse=True)
def _fresh_filter(monkeypatch):
    monkeypatch.setattr(seccomp, "_built", {})


def test_the_filter_is_built_by_each_process_and_never_read_from_the_cache(monkeypatch, tmp_path):
    from jigcli.sandbox import seccomp as filters

    monkeypatch.setenv("JIG_CACHE_DIR", str(tmp_path))
    built = filters.program()
    if built is None:
        pytest.skip(f"no filter here: {filters.unavailable()}")
    # An allow-all program planted where an earlier jig kept its filter changes nothing.
    planted = tmp_path / "seccomp"
    planted.mkdir(mode=0o700)
    (planted / "filter.bpf").write_bytes(b"\x06\x00\x00\x00\x00\x00\xff\x7f")
    monkeypatch.setattr(filters, "_built", {})  # a new process
    assert filters.program() == built
    assert list(planted.iterdir()) == [planted / "filter.bpf"]  # nothing kept beside it


def test_a_job_that_needs_no_ip_gets_a_filter_that_refuses_it(monkeypatch, tmp_path):
    from jigcli.sandbox import seccomp as filters

    monkeypatch.setenv("JIG_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(filters, "_built", {})
    with_ip, local = filters.program(), filters.program(ip=False)
    if with_ip is None:
        pytest.skip(f"no filter here: {filters.unavailable()}")
    assert local is not None and local != with_ip  # two programs, one per family set
    assert not (tmp_path / "seccomp").exists()  # neither kept


def test_pyseccomp_loads_its_libraries_by_soname_without_running_ldconfig():
    """In a fresh process: the filter built with the soname shortcut is the one built with
    ctypes' own lookup, and the shortcut started no `ldconfig -p`."""
    import subprocess

    script = (
        "import subprocess, sys\n"
        "started = []\n"
        "real = subprocess.Popen.__init__\n"
        "def record(self, args, *rest, **options):\n"
        "    started.append(args)\n"
        "    real(self, args, *rest, **options)\n"
        "subprocess.Popen.__init__ = record\n"
        "from jigcli.sandbox import seccomp\n"
        "program = seccomp.program()\n"
        "import pyseccomp\n"
        "print(pyseccomp._libseccomp_path, started, program.hex())\n"
    )
    shortcut = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    path, started, program = shortcut.stdout.rsplit(" ", 2)
    assert (path, started) == ("libseccomp.so.2", "[]"), shortcut.stderr
    # pyseccomp imported first: it looks its libraries up as ctypes does, then jig builds.
    plain = script.replace("from jigcli", "import pyseccomp\nfrom jigcli", 1)
    looked_up = subprocess.run([sys.executable, "-c", plain], capture_output=True, text=True)
    assert "ldconfig" in looked_up.stdout, looked_up.stderr  # what the shortcut saves
    assert looked_up.stdout.rsplit(" ", 1)[1] == program


def test_a_library_the_loader_cannot_open_by_its_soname_is_looked_up_as_ever(monkeypatch):
    import ctypes.util

    asked: list[str] = []
    monkeypatch.setattr(ctypes.util, "find_library", lambda name: asked.append(name) or None)
    monkeypatch.setattr(seccomp, "_SONAMES", {"seccomp": "libjig-no-such.so.9"})
    with seccomp._sonames_first():
        assert ctypes.util.find_library("seccomp") is None
        assert ctypes.util.find_library("m") is None
    assert asked == ["seccomp", "m"]
    assert ctypes.util.find_library("x") is None and asked[-1] == "x"  # put back after
