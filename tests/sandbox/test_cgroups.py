"""Finding a pids cgroup hierarchy, and a cgroup made for one run."""

import os
from pathlib import Path

import pytest

from jigcli.sandbox import cgroups as processes

MOUNTINFO = "\n".join(
    [
        "22 1 0:21 / /proc rw,nosuid - proc proc rw",
        "30 25 0:26 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw",
        "31 25 0:27 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu",
        "32 25 0:28 / /sys/fs/cgroup/pids rw - cgroup cgroup rw,pids",
        r"33 25 0:29 / /mnt/with\040space rw - cgroup2 none rw",
        "not a mountinfo line",
    ]
)


def test_v1_pids_mounts_come_before_v2_ones_and_other_controllers_are_ignored():
    assert processes.candidates(MOUNTINFO) == [
        Path("/sys/fs/cgroup/pids"),
        Path("/sys/fs/cgroup/unified"),
        Path("/mnt/with space"),
    ]


def test_no_cgroup_mounts_means_no_candidates():
    assert processes.candidates("22 1 0:21 / /proc rw - proc proc rw") == []


def test_an_unwritable_or_missing_hierarchy_makes_no_cgroups(tmp_path):
    assert not processes._makes_pids_cgroups(tmp_path / "missing")
    # A plain folder accepts the trial folder but gives it no pids.max.
    assert not processes._makes_pids_cgroups(tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_without_a_mechanism_nothing_is_made():
    with processes.enforced(None, 8) as cgroup:
        assert cgroup is None


def test_a_run_cgroup_has_the_cap_and_is_removed_afterwards():
    hierarchy = processes.pids_hierarchy()
    if hierarchy is None:
        pytest.skip("no writable pids cgroup hierarchy here")
    with processes.enforced(processes.CGROUP, 12) as cgroup:
        assert cgroup is not None and cgroup.folder.parent == hierarchy
        assert (cgroup.folder / "pids.max").read_text().strip() == "12"
        assert cgroup.refused() == 0
    assert not cgroup.folder.exists()


def test_the_stale_cgroups_of_dead_jig_processes_are_removed(tmp_path):
    dead = 2**22 + 1  # above any pid_max
    (tmp_path / f"jig-sandbox-{dead}-0").mkdir()
    (tmp_path / f"jig-sandbox-{os.getpid()}-0").mkdir()
    processes._remove_stale(tmp_path)
    assert [path.name for path in tmp_path.iterdir()] == [f"jig-sandbox-{os.getpid()}-0"]
