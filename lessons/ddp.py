"""DistributedDataParallel for notebook 08: toy data and model, the meeting point, the worker that mp.spawn starts.

The process that starts the workers opens their meeting point (``meeting_point``); each worker joins the process
group there (``join_group``), trains on its rank's shard (``train_shard``), saves the checkpoint from rank 0 behind
a barrier and reports what it did (``worker``). ``child_stderr_to`` keeps what child processes print to stderr
out of a notebook's outputs; ``stdout_to_devnull`` keeps gloo's connection line (torch 2.8) out of them.

Lesson module (see ``lessons/__init__.py`` for where code lives): it imports ``utils``; ``utils`` never imports it.
Its unit tests are in ``tests/test_ddp.py``.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import torch
import torch.distributed as dist

# Imported before any process group exists: its functions' default `group` argument would otherwise hold the
# group, and destroy_process_group() would free nothing.
import torch.distributed.nn  # noqa: F401
from torch import nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, DistributedSampler

from utils import atomic_save


def toy_data(n: int = 512, seed: int = 0) -> torch.utils.data.TensorDataset:
    """Return a fixed classification set: n points in 20 dimensions, the class set by
    the sum of the first 10."""
    generator = torch.Generator().manual_seed(seed)
    features = torch.randn(n, 20, generator=generator)
    return torch.utils.data.TensorDataset(features,
                                          (features[:, :10].sum(dim=1) > 0).long())


def toy_model() -> nn.Sequential:
    """Return the small classifier that notebook 08 trains in several processes."""
    return nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 2))


@contextlib.contextmanager
def meeting_point() -> Iterator[int]:
    """Open a store where the processes of a group meet, on a port the system picks;
    yield the port; close it."""
    # port 0: bound at once
    store = dist.TCPStore("127.0.0.1", 0, is_master=True, wait_for_workers=False)
    try:
        yield store.port
    finally:
        del store  # the store's server stops with its last reference


def join_group(rank: int, world_size: int, port: int) -> torch.device:
    """Join the process group as `rank`; return this process's device: GPU `rank`,
    or the CPU with too few GPUs or no NCCL (PyTorch's Windows builds have none)."""
    store = dist.TCPStore("127.0.0.1", port, is_master=False)  # the meeting point
    if dist.is_nccl_available() and torch.cuda.device_count() >= world_size:
        device = torch.device("cuda", rank)
        torch.cuda.set_device(device)  # a plain "cuda" is now GPU `rank`
        dist.init_process_group("nccl", store=store, rank=rank,
                                world_size=world_size, device_id=device)
    else:  # CPU processes, talking through gloo
        device = torch.device("cpu")
        torch.set_num_threads(1)  # the processes share the CPU's cores
        with stdout_to_devnull():  # hides gloo's "[Gloo] Rank r is connected" line
            dist.init_process_group("gloo", store=store, rank=rank,
                                    world_size=world_size)
    return device


def train_shard(model: nn.Module, device: torch.device, epochs: int, batch_size: int,
                lr: float, seed: int) -> tuple[list[list[int]], torch.Tensor]:
    """Train `model` under DDP on this rank's shard; return its indices and losses."""
    device_ids = [device.index] if device.type == "cuda" else None
    ddp_model = DistributedDataParallel(model, device_ids=device_ids)
    sampler = DistributedSampler(toy_data(seed=seed), shuffle=True, seed=seed)
    loader = DataLoader(sampler.dataset, batch_size=batch_size, sampler=sampler)
    optimizer = torch.optim.SGD(ddp_model.parameters(), lr=lr)
    indices, losses = [], []
    for epoch in range(epochs):
        sampler.set_epoch(epoch)  # a new shuffle each epoch, the same in every process
        indices.append(list(sampler))
        for inputs, targets in loader:
            outputs = ddp_model(inputs.to(device))
            loss = nn.functional.cross_entropy(outputs, targets.to(device))
            optimizer.zero_grad()
            loss.backward()  # DDP averages the gradients of all processes here
            optimizer.step()
            losses.append(loss.detach())
    return indices, torch.stack(losses).cpu()


def worker(rank: int, world_size: int, port: int, out_dir: str, epochs: int = 2,
           batch_size: int = 16, lr: float = 0.1, seed: int = 0) -> None:
    """One DDP process: rank 0 saves checkpoint.pt, every rank writes rank<r>.pt."""
    device, out = join_group(rank, world_size, port), Path(out_dir)
    try:
        torch.manual_seed(seed)  # the same initial weights in every process
        model = toy_model().to(device)
        indices, losses = train_shard(model, device, epochs, batch_size, lr, seed)
        state = {k: v.cpu() for k, v in model.state_dict().items()}  # no "module."
        if rank == 0:  # one writer
            atomic_save(state, out / "checkpoint.pt")
        dist.barrier()  # every rank waits here until rank 0 has written the file
        saved = torch.load(out / "checkpoint.pt", weights_only=True)  # as to resume
        report = {"device": str(device), "backend": dist.get_backend(), "model": state,
                  "indices": indices, "losses": losses,
                  "read back": all(torch.equal(saved[k], state[k]) for k in state)}
        atomic_save(report, out / f"rank{rank}.pt")
        dist.barrier()  # no rank closes the group while another still writes
    finally:
        dist.destroy_process_group()  # frees the group's resources, even after an error


@contextlib.contextmanager
def stdout_to_devnull() -> Iterator[None]:
    """Inside the block, discard what this process writes to file descriptor 1 (stdout), Python's or C++'s.

    For ``init_process_group("gloo", ...)``: the gloo inside torch 2.8 writes "[Gloo] Rank r is connected to n
    peer ranks. Expected number of connected peer ranks is : n" to C++'s ``std::cout`` in every process that joins
    a group, with no setting to turn it off (``TORCH_CPP_LOG_LEVEL`` does not reach it); in a notebook these lines
    land in the cell's output, mixed with the rest. Torch 2.15 logs the line to stderr at gloo's INFO level
    (``GLOO_LOG_LEVEL``), which is off by default. In a Jupyter kernel, Python's own ``print`` goes through the
    kernel, not file descriptor 1, and still shows.
    """
    sys.stdout.flush()  # what Python printed before the block comes out before it
    saved = os.dup(1)
    try:
        with open(os.devnull, "wb") as devnull:
            os.dup2(devnull.fileno(), 1)  # fd 1 is now /dev/null, and stays so after `devnull` is closed
        try:
            yield
        finally:
            sys.stdout.flush()  # what Python printed inside goes to /dev/null too, even after an error
    finally:
        os.dup2(saved, 1)
        os.close(saved)


@contextlib.contextmanager
def child_stderr_to(path: str | os.PathLike[str]) -> Iterator[None]:
    """Inside the block, send file descriptor 2 (stderr), which child processes inherit, to the file at `path`.

    Spawned processes write their tracebacks there; in a notebook they would otherwise appear as stderr output.
    The file is plain text: children started inside the block get ``PYTHON_COLORS=0``, since Python 3.13 colours
    tracebacks where ``FORCE_COLOR`` is set, as ipykernel 7.4 sets it in every kernel.
    """
    saved, colors = os.dup(2), os.environ.get("PYTHON_COLORS")
    os.environ["PYTHON_COLORS"] = "0"
    try:
        with open(path, "wb") as file:
            os.dup2(file.fileno(), 2)
            yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        if colors is None:
            os.environ.pop("PYTHON_COLORS", None)
        else:
            os.environ["PYTHON_COLORS"] = colors
