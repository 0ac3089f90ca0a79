"""Unit tests for the DistributedDataParallel helpers in lessons/ddp.py (notebook 08)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import torch
import torch.multiprocessing as mp

from lessons import ddp


def test_toy_data_is_fixed_and_labelled_by_its_rule() -> None:
    first, second = ddp.ddp_toy_data(64, seed=3), ddp.ddp_toy_data(64, seed=3)
    features, labels = first.tensors
    assert features.shape == (64, 20) and labels.dtype == torch.long
    assert torch.equal(features, second.tensors[0]) and torch.equal(labels, second.tensors[1])
    assert torch.equal(labels, (features[:, :10].sum(dim=1) > 0).long())
    assert not torch.equal(features, ddp.ddp_toy_data(64, seed=4).tensors[0])


def test_toy_model_gives_two_logits() -> None:
    assert ddp.ddp_toy_model()(torch.zeros(5, 20)).shape == (5, 2)


def test_free_port_can_be_bound() -> None:
    port = ddp.free_port()
    assert 0 < port < 65536
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", port))


def test_ddp_worker_copies_agree_and_equal_one_process(tmp_path: Path) -> None:
    world_size, batch = 2, 16
    mp.spawn(ddp.ddp_worker, args=(world_size, ddp.free_port(), str(tmp_path), 1, batch), nprocs=world_size)
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
    single = ddp.ddp_toy_model()
    optimizer = torch.optim.SGD(single.parameters(), lr=0.1)
    features, labels = ddp.ddp_toy_data().tensors
    for start in range(0, len(shards[0]), batch):
        index = torch.tensor([i for shard in shards for i in shard[start : start + batch]])
        loss = torch.nn.functional.cross_entropy(single(features[index]), labels[index])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    assert all(torch.allclose(single.state_dict()[k], state[k], atol=1e-5) for k in state)


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
