"""Hostile checkers against the kernel's shared state and the host's memory, through every
route that runs here, as root and as nobody: nothing they do outlives the run or reaches
the host (sysctls, keyrings, System V IPC, cgroups, /dev/shm, free memory)."""

import json
import os
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from jigcli.sandbox import cgroups, seccomp

from .conftest import HOSTILE, REPO, SMALL, available_mb, memory_back_to

# Refused by the seccomp filter: each must fail inside bubblewrap.
FILTERED = (
    "keyctl_session_id",
    "add_key_session",
    "add_key_user",
    "io_uring_setup",
    "bpf",
    "perf_event_open",
    "ptrace_traceme",
    "unshare_user",
    "userfaultfd",
    "fsopen",
    "chroot",
)


def _token() -> str:
    return f"jig-hostile-{secrets.token_hex(6)}"


def _attempts(through, host_unchanged, **extra) -> dict:
    token = _token()
    planted = f"|/tmp/{token} %p"  # what the host's root would run on the next core dump
    witness = json.dumps({"token": token, "core_pattern": planted, **extra}).encode()
    outcome = through("kernel_state.py", witness, SMALL.replace(scratch_mb=8))
    assert outcome["reason"] == "ok", outcome["detail"]
    host_unchanged()
    return json.loads(outcome["canonical"])


def test_a_checker_cannot_write_the_hosts_kernel_settings(through, host_unchanged):
    said = _attempts(through, host_unchanged)
    for setting in ("sysctl_core_pattern", "sysctl_hostname", "sys_write", "umount_proc_sys"):
        assert said[setting] != "done", setting
    assert said["CapEff"] == "0000000000000000"  # no capability, as root or not
    assert said["NoNewPrivs"] == "1"


def test_a_checker_reaches_no_keyring_ipc_object_or_shared_memory_of_the_host(
    through, host_unchanged
):
    # host_unchanged compares /proc/key-users, /proc/sysvipc/* and /dev/shm before and after:
    # whatever the checker made there lived in its own namespaces and died with them.
    said = _attempts(through, host_unchanged)
    assert said["dev_file"] != "done"  # /dev itself is not a place to leave files


def test_every_route_refuses_the_calls_a_checker_never_needs(through, host_unchanged):
    if seccomp.unavailable():
        pytest.skip(f"no seccomp filter here: {seccomp.unavailable()}")
    said = _attempts(through, host_unchanged)
    assert said["Seccomp"] == "2"  # a filter is loaded
    refused = {name: said[name] for name in FILTERED}
    assert all(result in ("EPERM", "ENOSYS") for result in refused.values()), refused


def _memory_capped(through):
    if through("accept.py", b"probe")["limits"]["memory_mb"] is None:
        pytest.skip(f"{through.route}: this runner's memory is not capped (cgroups need root)")
    return through


def test_several_processes_share_one_memory_budget(through, host_unchanged):
    runner = _memory_capped(through)
    free = available_mb()
    # Four processes of 150 MB, each well inside its 512 MB address space: 600 MB in all.
    witness = json.dumps({"processes": 4, "mb": 150, "hold_sec": 3}).encode()
    outcome = runner("memory_hog.py", witness, SMALL.replace(memory_mb=256))
    assert outcome["reason"] == "checker_error", outcome["detail"]
    assert "memory limit of 256 MB" in outcome["detail"]
    host_unchanged()  # the run's cgroup is gone too
    assert memory_back_to(free - 200)  # nothing of it is still held


def test_every_tmpfs_is_sized_and_dev_shm_is_private(through, host_unchanged):
    token = _token()
    witness = json.dumps({"token": token, "mb": 64}).encode()
    outcome = through("tmpfs_fill.py", witness, SMALL.replace(scratch_mb=4))
    assert outcome["reason"] == "ok", outcome["detail"]
    took = json.loads(outcome["canonical"])
    for folder, said in took.items():
        written = int(said.split(" MB")[0])
        assert written <= 4, f"{folder}: {said}"
    host_unchanged()
    assert not (Path("/dev/shm") / token).exists() and not (Path("/tmp") / token).exists()


def test_an_inode_flood_is_held_by_the_memory_budget(through, host_unchanged):
    runner = _memory_capped(through)
    witness = json.dumps({"seconds": 20, "count": 10**8}).encode()
    limits = SMALL.replace(wall_sec=30, cpu_sec=25, memory_mb=64)
    outcome = runner("inode_flood.py", witness, limits)
    # The kernel objects of empty files count: the flood ends at the limit, not the clock.
    assert outcome["reason"] == "checker_error", outcome["detail"]
    assert "memory limit of 64 MB" in outcome["detail"]
    host_unchanged()


def test_a_timed_out_run_leaves_no_cgroup_behind(through, host_unchanged):
    outcome = through("sleep_past_wall.py", limits=SMALL.replace(wall_sec=1))
    assert outcome["reason"] == "timeout"
    host_unchanged()


def test_ctrl_c_during_jig_verify_leaves_no_cgroup_or_process_behind(tmp_path, host_unchanged):
    if cgroups.memory_cap().capped is False and cgroups.unavailable(cgroups.CGROUP):
        pytest.skip("no cgroup hierarchy is writable here")
    problem = tmp_path / "Certificates" / "C900"
    (problem / "submissions").mkdir(parents=True)
    (tmp_path / "jig.yaml").write_text("")
    (problem / "checker.py").write_bytes((HOSTILE / "sleep_past_wall.py").read_bytes())
    limits = {"wall_sec": 60, "cpu_sec": 30, "address_space_mb": 512, "output_bytes": 4096}
    spec = {"schema": "conject.certificate.v1", "id": "C900", "title": "t", "statement": "s"}
    spec |= {"witness_format": "w", "limits": limits}
    (problem / "spec.json").write_text(json.dumps(spec))
    (problem / "submissions" / "x.witness").write_text("w")
    manifest = problem / "submissions" / "x.json"
    fields = {"schema": "conject.submission.v1", "kind": "certificate"}
    manifest.write_text(json.dumps({**fields, "statement_id": "C900", "witness": "x.witness"}))
    jig = subprocess.Popen(
        [sys.executable, "-m", "jigcli", "verify", str(manifest)],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    time.sleep(3)  # probed and running the checker
    jig.send_signal(signal.SIGINT)
    assert jig.wait(timeout=30) == 130
    host_unchanged()
    ours = f"jig-sandbox-{jig.pid}-*"
    points = {cgroups.hierarchy(c) for c in (cgroups.PIDS, cgroups.MEMORY)} - {None}
    assert [path for point in points for path in point.glob(ours)] == []


REFUSED_FAMILIES = {
    "AF_VSOCK": 40,  # not namespaced: the host's vsock port space
    "AF_NETLINK": 16,
    "AF_PACKET": 17,
    "AF_KEY": 15,
    "AF_ALG": 38,
    "AF_BLUETOOTH": 31,
    "AF_XDP": 44,
    "past AF_MAX": 200,
    # IP too: a checker needs no network, and IP sockets' buffers come from the host's TCP
    # memory, which cgroup v1's memory limit does not count
    "AF_INET": 2,
    "AF_INET6": 10,
}
ALLOWED_FAMILIES = {"AF_UNIX": 1}


def test_every_route_refuses_every_socket_family_but_local(through):
    """bubblewrap loads the filter; unshare-root's launcher cannot, so the checker's own
    interpreter loads it before the checker runs (`isolation.checker_job`)."""
    if seccomp.unavailable():
        pytest.skip(f"no seccomp filter here: {seccomp.unavailable()}")
    families = {**REFUSED_FAMILIES, **ALLOWED_FAMILIES}
    witness = json.dumps({"families": families}).encode()
    outcome = through("socket_families.py", witness)
    assert outcome["seccomp"] is True
    assert outcome["reason"] == "ok", outcome["detail"]
    said = json.loads(outcome["canonical"])
    assert {name: said[name] for name in REFUSED_FAMILIES} == dict.fromkeys(
        REFUSED_FAMILIES, "EAFNOSUPPORT"
    )
    assert all(said[name] == "done" for name in ALLOWED_FAMILIES), said


def _sysctl(name: str) -> int:
    return int(Path("/proc/sys/net/core", name).read_text())


def test_a_checker_cannot_grow_its_socket_buffers_past_the_hosts_default(through):
    """Socket buffers sit outside a cgroup v1 memory limit: a checker asking for the host's
    largest (net.core.wmem_max, 4 MiB on some hosts) on every descriptor would hold some
    240 MiB per process. The request succeeds and changes nothing (`seccomp.BUFFER_SIZES`),
    so each pair holds at most what the default send buffer allows."""
    if seccomp.unavailable():
        pytest.skip(f"no seccomp filter here: {seccomp.unavailable()}")
    outcome = through("socket_buffers.py")
    assert outcome["reason"] == "ok", outcome["detail"]
    said = json.loads(outcome["canonical"])
    assert said["answers"] == ["done"]  # a program tuning its buffers runs on
    assert said["sndbuf"] == _sysctl("wmem_default")
    # What is queued counts each packet's overhead too; at most the default buffer's worth.
    assert said["per_pair"] <= _sysctl("wmem_default") * 1.25, said
    assert said["pairs"] >= 16  # the descriptors ran out, not the memory


def test_a_checker_cannot_grow_its_pipes(through):
    """A pipe grown to fs.pipe-max-size holds 1 MiB of pages; the kernel's own per-user
    bound on them may be off (fs.pipe-user-pages-soft 0). Refused with the EPERM the kernel
    gives a user at that bound, every pipe stays at its default 16 pages."""
    if seccomp.unavailable():
        pytest.skip(f"no seccomp filter here: {seccomp.unavailable()}")
    outcome = through("pipe_buffers.py")
    assert outcome["reason"] == "ok", outcome["detail"]
    said = json.loads(outcome["canonical"])
    assert said["answers"] == ["EPERM"]
    default = 16 * os.sysconf("SC_PAGE_SIZE")
    assert said["capacity"] == default and said["per_pipe"] <= default, said
    assert said["pipes"] >= 16  # the descriptors ran out, not the memory
