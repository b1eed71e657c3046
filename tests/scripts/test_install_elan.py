"""scripts/install_elan.py: elan comes from one pinned release, checked by its SHA-256 before
anything in it runs."""

from __future__ import annotations

import hashlib
import importlib.util
import io
import tarfile
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "install_elan.py"
_spec = importlib.util.spec_from_file_location("install_elan", SCRIPT)
assert _spec is not None and _spec.loader is not None
install_elan = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(install_elan)


def archive(tmp_path: Path, *, link: bool = False, name: str = "elan-init") -> bytes:
    """A stand-in release archive whose elan-init leaves a mark where it ran."""
    mark = tmp_path / "elan-init ran"
    script = f"#!/bin/sh\necho \"$@\" > '{mark}'\n".encode()
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        member = tarfile.TarInfo(name)
        if link:
            member.type, member.linkname = tarfile.SYMTYPE, "/bin/sh"
            tar.addfile(member)
        else:
            member.size, member.mode = len(script), 0o755
            tar.addfile(member, io.BytesIO(script))
    return buffer.getvalue()


def test_the_pin_is_one_release_and_a_full_digest():
    assert install_elan.URL == (
        "https://github.com/leanprover/elan/releases/download/v4.2.4/"
        "elan-x86_64-unknown-linux-gnu.tar.gz"
    )
    assert len(install_elan.DIGEST) == 64 and int(install_elan.DIGEST, 16) >= 0


def test_the_pinned_archive_is_unpacked_and_run_without_a_default_toolchain(tmp_path):
    data = archive(tmp_path)
    digest = hashlib.sha256(data).hexdigest()
    asked = []

    def fetcher(url):
        asked.append(url)
        return data

    install_elan.install(fetcher, digest)
    assert asked == [install_elan.URL]
    said = (tmp_path / "elan-init ran").read_text().split()
    assert said == ["-y", "--default-toolchain", "none", "--no-modify-path"]


def test_an_archive_with_another_digest_is_refused_before_anything_runs(tmp_path):
    data = archive(tmp_path)
    with pytest.raises(install_elan.Refused, match="not the pinned"):
        install_elan.install(lambda url: data, "0" * 64)
    assert not (tmp_path / "elan-init ran").exists()


@pytest.mark.parametrize(("link", "name"), [(True, "elan-init"), (False, "bin/other")])
def test_an_archive_without_a_plain_elan_init_is_refused(tmp_path, link, name):
    data = archive(tmp_path, link=link, name=name)
    with pytest.raises(install_elan.Refused, match="no regular file elan-init"):
        install_elan.install(lambda url: data, hashlib.sha256(data).hexdigest())
