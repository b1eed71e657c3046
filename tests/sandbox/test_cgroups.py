"""Finding a pids cgroup hierarchy, and a cgroup made for one run."""

from pathlib import Path

import pytest

from jigcli.sandbox import cgroups, owner

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
    assert cgroups.candidates(MOUNTINFO) == [
        Path("/sys/fs/cgroup/pids"),
        Path("/sys/fs/cgroup/unified"),
        Path("/mnt/with space"),
    ]


def test_no_cgroup_mounts_means_no_candidates():
    assert cgroups.candidates("22 1 0:21 / /proc rw - proc proc rw") == []


def test_an_unwritable_or_missing_hierarchy_makes_no_cgroups(tmp_path):
    assert not cgroups._makes_cgroups_with(tmp_path / "missing", cgroups.PIDS)
    # A plain folder accepts the trial folder but gives it no pids.max.
    assert not cgroups._makes_cgroups_with(tmp_path, cgroups.PIDS)
    assert list(tmp_path.iterdir()) == []


def test_without_a_mechanism_nothing_is_made():
    with cgroups.enforced(None, 8) as cgroup:
        assert cgroup is None


def test_a_run_cgroup_has_the_cap_and_is_removed_afterwards():
    hierarchy = cgroups.hierarchy(cgroups.PIDS)
    if hierarchy is None:
        pytest.skip("no writable pids cgroup hierarchy here")
    with cgroups.enforced(cgroups.CGROUP, 12) as cgroup:
        assert cgroup is not None and cgroup.pids is not None
        assert cgroup.pids.parent == hierarchy and owner.mine(cgroup.pids.name)
        assert (cgroup.pids / "pids.max").read_text().strip() == "12"
        assert cgroup.refused() == 0
    assert not cgroup.pids.exists()


def test_a_run_memory_cgroup_caps_memory_and_swap_and_is_removed_afterwards():
    hierarchy = cgroups.hierarchy(cgroups.MEMORY)
    if hierarchy is None:
        pytest.skip("no writable memory cgroup hierarchy here")
    with cgroups.enforced(None, 12, memory_mb=64) as cgroup:
        assert cgroup is not None and cgroup.pids is None and cgroup.memory is not None
        folder = cgroup.memory
        limits = [
            name for name in ("memory.limit_in_bytes", "memory.max") if (folder / name).exists()
        ]
        assert int((folder / limits[0]).read_text()) == 64 * 1024 * 1024
        for swap in ("memory.memsw.limit_in_bytes", "memory.swap.max"):
            if (folder / swap).exists():
                assert (folder / swap).read_text().strip() in (str(64 * 1024 * 1024), "0")
        assert not cgroup.out_of_memory()
    assert not folder.exists()


def test_a_run_cgroup_is_removed_when_the_run_is_interrupted():
    if cgroups.hierarchy(cgroups.MEMORY) is None:
        pytest.skip("no writable memory cgroup hierarchy here")
    with pytest.raises(KeyboardInterrupt), cgroups.enforced(None, 12, memory_mb=64) as cgroup:
        assert cgroup is not None
        raise KeyboardInterrupt
    assert cgroup.memory is not None and not cgroup.memory.exists()


def test_the_stale_cgroups_of_gone_jig_processes_are_removed_and_no_others(tmp_path):
    me = owner._me()
    dead = 2**22 + 1  # above any pid_max
    names = {
        "dead": f"jig-sandbox-{dead}-{me.start}-{me.pidns}-{me.boot}-00",
        "reused pid": f"jig-sandbox-{me.pid}-{me.start + 1}-{me.pidns}-{me.boot}-01",
        "last boot": f"jig-sandbox-{me.pid}-{me.start}-{me.pidns}-deadbeef-02",
        "mine": owner.run_name(),
        "other pid namespace": f"jig-sandbox-{dead}-{me.start}-{me.pidns + 1}-{me.boot}-03",
        "not jig's": "jig-sandbox-hand-made",
    }
    for name in names.values():
        (tmp_path / name).mkdir()
    cgroups._remove_stale(tmp_path)
    left = sorted(path.name for path in tmp_path.iterdir())
    assert left == sorted([names["mine"], names["other pid namespace"], names["not jig's"]])


def test_two_runs_of_process_one_in_different_containers_never_share_a_name():
    # The old names were pid-serial: every jig that was process 1 picked jig-sandbox-1-0.
    assert len({owner.run_name() for _ in range(1000)}) == 1000


def test_a_run_cgroup_is_made_beneath_jigs_own_cgroup_where_it_can_be():
    point = cgroups.hierarchy(cgroups.MEMORY)
    if point is None:
        pytest.skip("no writable memory cgroup hierarchy here")
    own = Path("/proc/self/cgroup").read_text()
    [mount] = [
        m
        for m in cgroups.mounts(cgroups._mountinfo(), cgroups.MEMORY)
        if point.is_relative_to(m.point)
    ]
    expected = cgroups.own_folder(mount, cgroups.MEMORY, own)
    if point == expected:
        assert "in jig's own cgroup" in cgroups.placement(cgroups.MEMORY)
    else:  # the fallback, and it says so
        assert point == mount.point and "root" in cgroups.placement(cgroups.MEMORY)
    with cgroups.enforced(None, 12, memory_mb=64) as cgroup:
        assert cgroup is not None and cgroup.memory is not None
        assert cgroup.memory.parent == point


def test_own_cgroup_is_read_from_proc_self_cgroup_for_v1_and_v2():
    own = "4:memory:/ci/job-7\n1:pids:/ci\n0::/user.slice/jig.scope\n"
    v1 = cgroups.Mount(Path("/sys/fs/cgroup/memory"), "/", v2=False)
    v2 = cgroups.Mount(Path("/sys/fs/cgroup"), "/", v2=True)
    container = cgroups.Mount(Path("/sys/fs/cgroup/memory"), "/ci", v2=False)
    assert cgroups.own_folder(v1, "memory", own) == Path("/sys/fs/cgroup/memory/ci/job-7")
    assert cgroups.own_folder(v2, "memory", own) == Path("/sys/fs/cgroup/user.slice/jig.scope")
    assert cgroups.own_folder(container, "memory", own) == Path("/sys/fs/cgroup/memory/job-7")
    assert cgroups.own_folder(v1, "cpu", own) is None


def test_the_memory_cap_says_where_runs_go_and_what_it_does_not_charge():
    said = cgroups.memory_cap().why
    point = cgroups.hierarchy(cgroups.MEMORY)
    if point is None:
        assert "socket and pipe buffers" in said and "kernel objects" in said
        return
    assert str(point) in said
    v1 = not (point / "memory.max").exists()
    assert ("cgroup v1: kernel memory" in said) is v1
