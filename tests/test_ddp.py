"""Unit tests for the DistributedDataParallel helpers in lessons/ddp.py (notebook 08)."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.nn.parallel import DistributedDataParallel

from lessons import ddp


def test_toy_data_is_fixed_and_labelled_by_its_rule() -> None:
    first, second = ddp.toy_data(64, seed=3), ddp.toy_data(64, seed=3)
    features, labels = first.tensors
    assert features.shape == (64, 20) and labels.dtype == torch.long
    assert torch.equal(features, second.tensors[0]) and torch.equal(labels, second.tensors[1])
    assert torch.equal(labels, (features[:, :10].sum(dim=1) > 0).long())
    assert not torch.equal(features, ddp.toy_data(64, seed=4).tensors[0])


def test_toy_model_gives_two_logits() -> None:
    assert ddp.toy_model()(torch.zeros(5, 20)).shape == (5, 2)


def test_the_meeting_point_listens_from_the_start_and_closes_after_the_block() -> None:
    with ddp.meeting_point() as port:
        assert 0 < port < 65536 and not store_port_is_free(port)  # bound and listening before any worker starts
        client = dist.TCPStore("127.0.0.1", port, is_master=False)  # as join_group connects
        client.set("rank0", "here")
        assert client.get("rank0") == b"here"
        del client
    assert store_port_is_free(port)


def test_the_meeting_point_closes_after_an_error() -> None:
    with pytest.raises(mp.ProcessExitedException), ddp.meeting_point() as port:  # as a worker dying stops spawn
        raise mp.ProcessExitedException("process 0 terminated with exit code 1", 0, 1, 1)
    assert store_port_is_free(port)


def test_without_nccl_the_processes_use_gloo_on_the_cpu_even_beside_a_gpu(monkeypatch: pytest.MonkeyPatch) -> None:
    """PyTorch's Windows builds have no NCCL: ``join_group`` then takes gloo and the CPU, though GPUs are there
    (one GPU faked at torch's C layer, NCCL's availability answered False)."""
    from tests.fake_cuda import FakeGpu

    FakeGpu(monkeypatch)
    monkeypatch.setattr(dist, "is_nccl_available", lambda: False)
    threads = torch.get_num_threads()
    try:
        with ddp.meeting_point() as port:
            device = ddp.join_group(0, 1, port)
            try:
                assert device == torch.device("cpu") and dist.get_backend() == "gloo"
            finally:
                dist.destroy_process_group()
    finally:
        torch.set_num_threads(threads)


def test_ddp_worker_copies_agree_and_equal_one_process(tmp_path: Path) -> None:
    world_size, batch = 2, 16
    with ddp.meeting_point() as port:
        mp.spawn(ddp.worker, args=(world_size, port, str(tmp_path), 1, batch), nprocs=world_size)
    results = [torch.load(tmp_path / f"rank{rank}.pt", weights_only=True) for rank in range(world_size)]
    assert all(r["backend"] == "gloo" and r["device"] == "cpu" for r in results) or torch.cuda.device_count() >= 2
    state = results[0]["model"]
    assert all(torch.equal(r["model"][k], state[k]) for r in results for k in state)  # identical copies
    checkpoint = torch.load(tmp_path / "checkpoint.pt", weights_only=True)  # written by rank 0 only
    assert list(checkpoint) == list(state) and all(torch.equal(checkpoint[k], state[k]) for k in state)
    assert all(r["read back"] for r in results)  # every rank read the complete file after the barrier
    shards = [r["indices"][0] for r in results]
    assert sorted(i for shard in shards for i in shard) == list(range(512))  # disjoint, covering
    torch.manual_seed(0)  # one process on the combined batches ends with the same weights
    single = ddp.toy_model()
    optimizer = torch.optim.SGD(single.parameters(), lr=0.1)
    features, labels = ddp.toy_data().tensors
    for start in range(0, len(shards[0]), batch):
        index = torch.tensor([i for shard in shards for i in shard[start : start + batch]])
        loss = torch.nn.functional.cross_entropy(single(features[index]), labels[index])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    assert all(torch.allclose(single.state_dict()[k], state[k], atol=1e-5) for k in state)


def store_port_is_free(port: int) -> bool:
    """Whether nothing listens on `port` (SO_REUSEADDR: closed connections waiting out TIME_WAIT do not count)."""
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


@pytest.mark.parametrize("hold_the_group", [False, True])
def test_destroy_process_group_frees_a_group_that_ddp_used(hold_the_group: bool) -> None:
    # Importing lessons.ddp (done above, before any group exists) keeps torch.distributed.nn's default
    # arguments from holding the group, so destroy_process_group() really closes it, here seen as its TCPStore no
    # longer listening on the port. Holding the group ourselves shows that the check sees a group that stays.
    dist.init_process_group("gloo", init_method="tcp://127.0.0.1:0", rank=0, world_size=1)  # the store picks a port
    store = dist.distributed_c10d._get_default_store()
    while hasattr(store, "underlying_store"):  # the group's PrefixStores around the TCPStore it made
        store = store.underlying_store
    port = store.port
    del store
    held = dist.group.WORLD if hold_the_group else None
    try:
        DistributedDataParallel(ddp.toy_model())(torch.zeros(2, 20)).sum().backward()
    finally:
        dist.destroy_process_group()
    assert store_port_is_free(port) is not hold_the_group
    del held
    assert store_port_is_free(port)


def test_child_stderr_to_catches_a_child_process_and_restores_stderr(tmp_path: Path) -> None:
    log = tmp_path / "stderr.txt"
    before = os.fstat(2)
    with ddp.child_stderr_to(log):
        subprocess.run([sys.executable, "-c", "import sys; sys.stderr.write('from the child')"], check=True)
    assert log.read_text() == "from the child"
    after = os.fstat(2)
    assert (before.st_dev, before.st_ino) == (after.st_dev, after.st_ino)  # fd 2 is what it was


def test_child_stderr_to_writes_plain_text_where_colours_are_forced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FORCE_COLOR", "1")  # as ipykernel 7.4 sets it; Python 3.13 then colours tracebacks
    monkeypatch.delenv("PYTHON_COLORS", raising=False)
    log = tmp_path / "stderr.txt"
    with ddp.child_stderr_to(log):
        subprocess.run([sys.executable, "-c", "import os; print(os.environ['PYTHON_COLORS']); 1 / 0"], check=False)
    assert "\x1b[" not in log.read_text() and log.read_text().strip().endswith("ZeroDivisionError: division by zero")
    assert "PYTHON_COLORS" not in os.environ  # as it was before the block


@contextlib.contextmanager
def python_stdout_on_fd_1() -> Iterator[None]:
    """Inside the block, Python's sys.stdout writes to file descriptor 1 through a buffer, as in a spawned process.

    (pytest's capfd points sys.stdout at its own file while a test runs, past file descriptor 1.)
    """
    captured, sys.stdout = sys.stdout, open(1, "w", closefd=False)  # closed below; fd 1 itself stays open
    try:
        yield
    finally:
        sys.stdout.close()
        sys.stdout = captured


def test_stdout_to_devnull_discards_file_descriptor_1_and_restores_it(capfd: pytest.CaptureFixture[str]) -> None:
    before = os.fstat(1)
    with python_stdout_on_fd_1():
        print("before")  # still in Python's buffer: it comes out before the block
        with ddp.stdout_to_devnull():  # C-level writes to fd 1, as gloo's std::cout, from this process and a child
            os.write(1, b"written inside\n")
            subprocess.run([sys.executable, "-c", "import os; os.write(1, b'child inside')"], check=True)
            print("printed inside")
        print("after")
    after = os.fstat(1)
    assert capfd.readouterr().out == "before\nafter\n"
    assert (before.st_dev, before.st_ino) == (after.st_dev, after.st_ino)  # fd 1 is what it was


def test_stdout_to_devnull_restores_file_descriptor_1_after_an_error(capfd: pytest.CaptureFixture[str]) -> None:
    before = os.fstat(1)
    with python_stdout_on_fd_1():
        with pytest.raises(ValueError, match="inside the block"), ddp.stdout_to_devnull():
            os.write(1, b"written inside\n")
            print("printed inside")  # still in Python's buffer when the error comes
            raise ValueError("inside the block")
        print("after")
    after = os.fstat(1)
    assert capfd.readouterr().out == "after\n"
    assert (before.st_dev, before.st_ino) == (after.st_dev, after.st_ino)
