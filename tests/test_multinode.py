"""Unit tests for lessons/multinode.py (notebook 12): torchrun from a notebook, bounded; the toy model and its
batches; the checkpoint finder; the worker's device; FSDP2's shards and their checkpoint; the figure of a step."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import warnings
from pathlib import Path

import matplotlib
import pytest
import torch
import torch.distributed as dist
import torch.distributed.checkpoint as dcp
import torch.multiprocessing as mp

from lessons import ddp, multinode

matplotlib.use("Agg")


def test_toy_model_maps_16_features_to_one_output_through_two_blocks() -> None:
    model = multinode.block_model()
    assert model(torch.zeros(3, 16)).shape == (3, 1)
    assert len(model) == 3 and all(isinstance(block, torch.nn.Sequential) for block in model[:2])


def test_batches_are_fixed_per_step_and_rank() -> None:
    inputs, targets = multinode.batch(2, 1)
    again = multinode.batch(2, 1)
    assert inputs.shape == (16, 16) and targets.shape == (16, 1)
    assert torch.equal(inputs, again[0]) and torch.equal(targets, again[1])
    assert not torch.equal(inputs, multinode.batch(2, 0)[0]) and not torch.equal(inputs, multinode.batch(3, 1)[0])
    assert torch.equal(targets, inputs[:, :8].sum(dim=1, keepdim=True).sin())


def test_latest_step_takes_only_complete_checkpoints(tmp_path: Path) -> None:
    assert multinode.latest_step(tmp_path / "none yet") == 0
    for step, complete in ((1, True), (2, True), (3, False)):  # 3: a save cut short, no .metadata
        (tmp_path / str(step)).mkdir()
        if complete:
            (tmp_path / str(step) / ".metadata").write_bytes(b"")
    (tmp_path / "notes").mkdir()
    assert multinode.latest_step(tmp_path) == 2


def test_rank_lines_keeps_the_workers_lines_sorted() -> None:
    printed = ["RANK=1 b\nsomething else\n", "[Gloo] Rank 0 is connected\nRANK=0 a\n"]
    assert multinode.rank_lines(*printed) == ["RANK=0 a", "RANK=1 b"]
    interleaved = "RANK=1 LOCAL_RANK=1 start=0RANK=0 LOCAL_RANK=0 start=0\n\n"  # two unbuffered prints
    assert multinode.rank_lines(interleaved) == ["RANK=0 LOCAL_RANK=0 start=0", "RANK=1 LOCAL_RANK=1 start=0"]


@pytest.fixture
def worker_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """The environment torchrun gives worker 0 of one on this machine; the thread count restored after."""
    monkeypatch.setenv("LOCAL_RANK", "0")
    monkeypatch.setenv("LOCAL_WORLD_SIZE", "1")
    threads = torch.get_num_threads()
    yield monkeypatch
    torch.set_num_threads(threads)


def test_local_device_is_the_cpu_with_gloo_without_a_gpu(worker_env: pytest.MonkeyPatch) -> None:
    worker_env.setattr(torch._C, "_cuda_getDeviceCount", lambda: 0, raising=False)
    worker_env.setattr(torch.cuda, "_cached_device_count", None)
    assert multinode.local_device() == (torch.device("cpu"), "gloo")
    assert torch.get_num_threads() == 1


def test_local_device_is_gpu_local_rank_with_nccl_where_each_worker_has_one(worker_env: pytest.MonkeyPatch) -> None:
    from tests.fake_cuda import FakeGpu

    FakeGpu(worker_env)
    chosen: list[int] = []
    worker_env.setattr(torch._C, "_cuda_setDevice", chosen.append, raising=False)
    worker_env.setattr(dist, "is_nccl_available", lambda: True)
    assert multinode.local_device() == (torch.device("cuda", 0), "nccl")
    assert chosen == [0]  # the worker's plain "cuda" is now its GPU


@pytest.mark.parametrize("why", ["too few GPUs", "no NCCL"])
def test_local_device_falls_back_to_the_cpu(worker_env: pytest.MonkeyPatch, why: str) -> None:
    from tests.fake_cuda import FakeGpu

    FakeGpu(worker_env)  # one GPU
    if why == "too few GPUs":
        worker_env.setenv("LOCAL_WORLD_SIZE", "2")
        worker_env.setattr(dist, "is_nccl_available", lambda: True)
    else:
        worker_env.setattr(dist, "is_nccl_available", lambda: False)
    assert multinode.local_device() == (torch.device("cpu"), "gloo")


@pytest.mark.parametrize(("gpus", "shares"), [(0, ["", ""]), (1, ["", ""]), (2, ["0", "1"]),
                                               (5, ["0,1", "2,3"])])
def test_simulated_machines_never_share_a_gpu(monkeypatch: pytest.MonkeyPatch, gpus: int, shares: list[str]) -> None:
    """Two launchers on one machine each number their GPUs from 0: with one GPU, NCCL would put both workers on
    it. Each simulated machine gets its own GPUs, or none."""
    monkeypatch.setattr(torch._C, "_cuda_getDeviceCount", lambda: gpus, raising=False)
    monkeypatch.setattr(torch.cuda, "_cached_device_count", None)
    assert [multinode.machine_env(machine, 2)["CUDA_VISIBLE_DEVICES"] for machine in range(2)] == shares


ENV_SCRIPT = """
import os
import subprocess
import sys
import torch.distributed as dist
dist.init_process_group("gloo")
print(f"RANK={dist.get_rank()} WORLD_SIZE={os.environ['WORLD_SIZE']}", flush=True)
dist.destroy_process_group()
"""


def test_torchrun_starts_the_workers_and_returns_what_they_print(tmp_path: Path) -> None:
    script = tmp_path / "env.py"
    script.write_text(ENV_SCRIPT)
    printed = multinode.torchrun(["--standalone", "--nproc-per-node=2", str(script)], tmp_path / "log")
    assert multinode.rank_lines(printed) == ["RANK=0 WORLD_SIZE=2", "RANK=1 WORLD_SIZE=2"]


def test_a_failed_launch_raises_with_the_end_of_its_log(tmp_path: Path) -> None:
    script = tmp_path / "fail.py"
    script.write_text("raise SystemExit('this worker gives up')\n")
    with pytest.raises(RuntimeError, match="this worker gives up"):
        multinode.torchrun(["--standalone", "--nproc-per-node=1", str(script)], tmp_path / "log")


def test_a_launch_past_its_timeout_is_ended_with_its_workers(tmp_path: Path) -> None:
    script = tmp_path / "hang.py"
    script.write_text(f"import os, time\nopen({str(tmp_path / 'pid')!r}, 'w').write(str(os.getpid()))\n"
                      "time.sleep(300)\n")
    started = time.monotonic()
    with pytest.raises(TimeoutError, match="stopped"):
        multinode.finish([multinode.start(["--standalone", "--nproc-per-node=1", str(script)], tmp_path / "log")],
                         tmp_path / "log", timeout=20)
    assert time.monotonic() - started < 20 + 35
    worker = int((tmp_path / "pid").read_text())
    time.sleep(0.5)
    with pytest.raises(ProcessLookupError):  # none left behind
        os.kill(worker, 0)


def test_local_bytes_counts_every_parameter_of_a_plain_model() -> None:
    model = multinode.block_model()
    assert multinode.local_bytes(model) == 4 * sum(p.numel() for p in model.parameters())


def test_fsdp_shards_add_up_and_their_checkpoint_loads_in_one_process(tmp_path: Path) -> None:
    with ddp.meeting_point() as port, ddp.child_stderr_to(tmp_path / "stderr.log"):
        mp.spawn(multinode.fsdp_worker, args=(2, port, str(tmp_path)), nprocs=2, join=True)
    reports = [torch.load(tmp_path / f"rank{rank}.pt", weights_only=True) for rank in range(2)]
    full = reports[0]["full bytes"]
    assert full == multinode.local_bytes(multinode.block_model())
    assert sum(r["local bytes"] for r in reports) == full and all(r["local bytes"] < full for r in reports)
    assert reports[0]["type"] == "DTensor" and reports[0]["local shape"] == (32, 16)
    model = multinode.block_model()
    state = {"model": model.state_dict()}
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="torch.distributed is disabled")
        dcp.load(state, checkpoint_id=tmp_path / "sharded", no_dist=True)
    gathered = torch.load(tmp_path / "full.pt", weights_only=True)
    assert all(torch.equal(gathered[name], tensor) for name, tensor in state["model"].items())
    torch.manual_seed(0)
    start = multinode.block_model().state_dict()
    assert not all(torch.equal(start[name], gathered[name]) for name in start)  # trained


def test_the_figure_draws_each_ranks_shard_gathered_and_scattered() -> None:
    figure = multinode.draw_fsdp_step(2, [32, 32])
    axis = figure.axes[0]
    bars = axis.patches
    assert len(bars) == 2 * 3 * 2  # ranks x phases x shards
    held = [bar for bar in bars if bar.get_alpha() == 1.0]
    assert len(held) == 2 + 4 + 2  # a shard each; all of them after the all-gather; a shard each
    assert all(bar.get_hatch() for bar in held)  # told apart by hatches, not by colour alone
    texts = [text.get_text() for text in axis.texts]
    assert texts == ["shard held", "all-gather: full weights", "reduce-scatter: gradient shard"]
    assert [label.get_text() for label in axis.get_yticklabels()] == ["rank 0", "rank 1"]
    assert [text.get_text() for text in axis.get_legend().get_texts()] == ["part of rank 0", "part of rank 1"]
    assert axis.get_title() == "One FSDP step for one layer"
    matplotlib.pyplot.close(figure)


def test_finish_ends_the_other_launchers_as_soon_as_one_fails(tmp_path: Path) -> None:
    """A launcher that fails does not leave the others waiting for a peer that is gone until the time is up."""
    def launcher(code: str) -> subprocess.Popen[str]:
        return subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True,
                                start_new_session=True)

    log = tmp_path / "torchrun.log"
    log.write_text("the failed worker's message\n", encoding="utf-8")
    waiting, failing = launcher("import time; time.sleep(120)"), launcher("print('x'); raise SystemExit(3)")
    started = time.monotonic()
    with pytest.raises(RuntimeError, match="the failed worker's message"):
        multinode.finish([waiting, failing], log, timeout=100)
    assert time.monotonic() - started < 40  # not the 100 s timeout: SIGTERM at once, SIGKILL after 30 s at most
    assert waiting.poll() is not None and failing.returncode == 3
