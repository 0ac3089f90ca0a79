"""Beyond one machine, for notebook 12: torchrun started from a notebook, a toy model and its data, FSDP2's shards.

``torchrun`` starts ``python -m torch.distributed.run`` with this project importable and every launcher bounded
in time (``start`` and ``finish``); ``rank_lines`` keeps the lines the workers print about themselves
(``RANK=...``), sorted. ``local_device`` picks a worker's device and backend.
``block_model`` and ``batch`` are what the lesson's training script trains on; ``latest_step`` finds the last
complete checkpoint that ``torch.distributed.checkpoint`` wrote. ``fsdp_worker`` shards the toy model with
``fully_shard`` in each process that ``torch.multiprocessing.spawn`` starts, and ``local_bytes`` counts what one
rank holds. ``draw_fsdp_step`` draws what a sharded layer gathers and scatters in one step.

Lesson module (see ``lessons/__init__.py`` for where code lives): it imports ``utils``; ``utils`` never imports it.
Its unit tests are in ``tests/test_multinode.py``.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch
import torch.distributed as dist

# Imported before any process group exists (lessons/ddp.py says why).
import torch.distributed.nn  # noqa: F401
from torch import nn

import utils
from lessons import ddp

TORCHRUN = (sys.executable, "-m", "torch.distributed.run")
"""torchrun, as this kernel's Python runs it: a kernel's PATH may lack the environment's ``bin`` folder."""


def block_model() -> nn.Sequential:
    """Return the model of notebook 12: two blocks (a linear layer and a ReLU each), then a linear head."""
    return nn.Sequential(nn.Sequential(nn.Linear(16, 64), nn.ReLU()),
                         nn.Sequential(nn.Linear(64, 64), nn.ReLU()),
                         nn.Linear(64, 1))


def batch(step: int, rank: int, size: int = 16) -> tuple[torch.Tensor, torch.Tensor]:
    """Return rank `rank`'s batch at `step`: `size` random inputs and a fixed function of them as targets; the
    same on every run."""
    generator = torch.Generator().manual_seed(1000 * step + rank)
    inputs = torch.randn(size, 16, generator=generator)
    return inputs, inputs[:, :8].sum(dim=1, keepdim=True).sin()


def local_device() -> tuple[torch.device, str]:
    """Return this torchrun worker's device and backend: GPU ``LOCAL_RANK`` with ``nccl`` where NCCL is there
    and the machine has a GPU for each of its ``LOCAL_WORLD_SIZE`` workers (that GPU then becomes this process's
    plain ``cuda``), else the CPU with ``gloo``."""
    local_rank, local_workers = int(os.environ["LOCAL_RANK"]), int(os.environ["LOCAL_WORLD_SIZE"])
    if dist.is_nccl_available() and torch.cuda.device_count() >= local_workers:
        device = torch.device("cuda", local_rank)
        torch.cuda.set_device(device)
        return device, "nccl"
    torch.set_num_threads(1)  # the workers share the CPU's cores
    return torch.device("cpu"), "gloo"


def latest_step(folder: str | os.PathLike[str]) -> int:
    """Return the largest N of the complete checkpoints ``folder/N`` (those with DCP's ``.metadata`` file,
    which it writes last), or 0 where there is none."""
    steps = [int(p.name) for p in Path(folder).glob("*")
             if p.name.isdigit() and (p / ".metadata").is_file()]
    return max(steps, default=0)


def machine_env(machine: int, machines: int) -> dict[str, str]:
    """Return what simulated machine `machine` of `machines` on this one sees of the GPUs: its own share of them
    (``CUDA_VISIBLE_DEVICES``), or none where there are fewer GPUs than machines. Launchers on separate machines
    never share a GPU; two on one machine would, since each numbers its workers' GPUs from 0."""
    per_machine = torch.cuda.device_count() // machines
    gpus = range(machine * per_machine, (machine + 1) * per_machine)
    return {"CUDA_VISIBLE_DEVICES": ",".join(str(gpu) for gpu in gpus)}


def start(args: Sequence[str], log: str | os.PathLike[str],
          env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    """Start ``torchrun *args`` in a new session: stdout piped, stderr appended to the file `log`; the
    project importable (``PYTHONPATH``), one thread per worker, and, where ``args`` allow restarts, a store of
    its own for each round of workers; `env` adds to the environment (``machine_env``).

    ``TORCH_DISABLE_SHARE_RDZV_TCP_STORE=1`` only with ``--max-restarts``: by default the workers of every round
    (a restart is a new round) share the launcher's store, where the round before left its keys. Gloo's workers
    of a restarted group then read the dead group's addresses and fail to connect ("Gloo connectFullMesh
    failed"); with the variable each round's rank 0 opens a new store. Without restarts the shared store is
    kept: a store in rank 0 dies with it, and a worker of another launcher still closing its group then waits
    for it."""
    restarts = any(arg.startswith("--max-restarts") for arg in map(str, args))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(utils.ROOT), os.environ.get("PYTHONPATH", "")]),
           "OMP_NUM_THREADS": "1", "PYTHON_COLORS": "0",
           "TORCH_DISABLE_SHARE_RDZV_TCP_STORE": "1" if restarts else "0", **(env or {})}
    with open(log, "a", encoding="utf-8") as stderr:  # the child keeps its own copy of the file
        return subprocess.Popen([*TORCHRUN, *args], stdout=subprocess.PIPE, stderr=stderr, text=True,
                                env=env, start_new_session=True)


def finish(launchers: Sequence[subprocess.Popen[str]], log: str | os.PathLike[str],
           timeout: float = 180) -> list[str]:
    """Wait for every launcher, at most `timeout` seconds in all; return what each printed.

    Once a launcher fails, or the time is up, the others still running get SIGTERM, on which torchrun ends its
    workers, and SIGKILL for their whole session 30 s later: none is left behind, and none waits for a peer that
    is gone. Raises TimeoutError, or RuntimeError with the end of `log` if a launcher failed."""
    deadline = time.monotonic() + timeout
    while True:
        codes = [launcher.poll() for launcher in launchers]  # every one, each time
        failed = any(code not in (None, 0) for code in codes)
        late = None in codes
        if not late or failed or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    for launcher in launchers:
        _end(launcher)
    outputs = [launcher.communicate()[0] for launcher in launchers]
    if late and not failed:
        raise TimeoutError(f"torchrun ran past {timeout:g} s and was stopped")
    if failed or any(launcher.returncode != 0 for launcher in launchers):
        tail = Path(log).read_text(encoding="utf-8", errors="replace")[-3000:]
        codes = [launcher.returncode for launcher in launchers]
        raise RuntimeError(f"torchrun exited with {codes}; the end of its log:\n{tail}")
    return outputs


def _end(launcher: subprocess.Popen[str]) -> None:
    """End a launcher and its session: SIGTERM, then SIGKILL after 30 s."""
    if launcher.poll() is None:
        launcher.send_signal(signal.SIGTERM)  # torchrun forwards it to its workers and waits for them
        try:
            launcher.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(launcher.pid, signal.SIGKILL)
            launcher.wait()


def torchrun(args: Sequence[str], log: str | os.PathLike[str], timeout: float = 180) -> str:
    """Run ``torchrun *args`` to its end (bounded by `timeout`, see ``finish``); return what it printed."""
    return finish([start(args, log)], log, timeout)[0]


def rank_lines(*outputs: str) -> list[str]:
    """Return the workers' reports in `outputs`, each from a ``RANK=`` (not ``LOCAL_RANK=``) to the end of its
    line or the next report, sorted: an order that does not depend on which process printed first.

    Where ``PYTHONUNBUFFERED`` is set, ``print`` writes a line and its newline in two calls,
    so two workers' lines can arrive as ``A`` ``B`` ``\\n`` ``\\n``; each call's text arrives whole."""
    text = re.sub(r"(?<![A-Z_])RANK=", "\nRANK=", "\n".join(outputs))
    return sorted(line.strip() for line in text.splitlines() if line.startswith("RANK="))


def local_bytes(model: nn.Module) -> int:
    """Return the bytes of the parameters this process holds: its shard of each sharded (DTensor) parameter,
    the whole of every other."""
    local = [p.to_local() if hasattr(p, "to_local") else p for p in model.parameters()]
    return sum(t.numel() * t.element_size() for t in local)


def fsdp_worker(rank: int, world_size: int, port: int, out_dir: str, steps: int = 2) -> None:
    """One FSDP2 process: shard each block and the root with ``fully_shard``, train `steps` Adam steps, save a
    sharded checkpoint to ``out_dir/sharded`` with DCP; write what this rank holds to ``out_dir/rank<r>.pt``."""
    from torch.distributed.checkpoint import save
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.fsdp import fully_shard

    device = ddp.join_group(rank, world_size, port)
    try:
        mesh = init_device_mesh(device.type, (world_size,))
        torch.manual_seed(0)  # the same initial weights in every process
        model = block_model().to(device)
        full_bytes = local_bytes(model)
        for block in model[:2]:
            fully_shard(block, mesh=mesh)  # each block's parameters: one group, gathered together
        fully_shard(model, mesh=mesh)  # the root takes what is left: the head
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
        for step in range(steps):
            inputs, targets = batch(step, rank)
            loss = nn.functional.mse_loss(model(inputs.to(device)), targets.to(device))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        save({"model": model.state_dict()}, checkpoint_id=Path(out_dir) / "sharded")  # each rank its shards
        full = {name: tensor.full_tensor().cpu() for name, tensor in model.state_dict().items()}  # gathered
        if rank == 0:
            utils.atomic_save(full, Path(out_dir) / "full.pt")
        first = next(model.parameters())
        report = {"full bytes": full_bytes, "local bytes": local_bytes(model),
                  "type": type(first).__name__, "shape": tuple(first.shape),
                  "local shape": tuple(first.to_local().shape)}
        utils.atomic_save(report, Path(out_dir) / f"rank{rank}.pt")
        dist.barrier()
    finally:
        dist.destroy_process_group()


def draw_fsdp_step(world_size: int, shard_sizes: Sequence[int]) -> Any:
    """Draw one FSDP step for one layer: each rank's shard, the all-gather to full weights for the forward and
    backward passes, and the reduce-scatter that leaves each rank its shard of the summed gradient. Return the
    figure; its bars carry the ranks' labels and hatches."""
    import matplotlib.pyplot as plt

    figure, axis = plt.subplots(figsize=(8, 2.8))
    phases = [utils.label("shard held", "持有的分片"),
              utils.label("all-gather: full weights", "all-gather：完整权重"),
              utils.label("reduce-scatter: gradient shard", "reduce-scatter：梯度分片")]
    hatches = ["//", "..", "xx", "\\\\"]
    total = sum(shard_sizes)
    for row in range(world_size):
        for column, phase in enumerate(phases):
            left = column * (total + total // 4)
            for rank, size in enumerate(shard_sizes):
                offset = left + sum(shard_sizes[:rank])
                held = column == 1 or rank == row
                axis.barh(row, size, left=offset, color=utils.PALETTE[rank % len(utils.PALETTE)],
                          alpha=1.0 if held else 0.12, hatch=hatches[rank % len(hatches)] if held else None,
                          edgecolor="black", label=utils.label(f"part of rank {rank}", f"第{rank}号进程的部分")
                          if row == 0 and column == 0 else None)
            if row == 0:
                axis.text(left + total / 2, world_size - 0.4, phase, ha="center")
    axis.set_yticks(range(world_size),
                    [utils.label(f"rank {r}", f"{r}号进程") for r in range(world_size)])
    axis.set_ylim(-0.6, world_size)
    axis.set_xticks([])
    axis.set_title(utils.label("One FSDP step for one layer", "FSDP一个训练步骤中的一层"))
    axis.legend(loc="lower right", fontsize="small")
    figure.tight_layout()
    return figure
