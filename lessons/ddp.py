"""DistributedDataParallel for notebook 08: toy data and model, a free port, the worker that mp.spawn starts.

Lesson module (see ``lessons/__init__.py`` for where code lives): it imports ``utils``; ``utils`` never imports it.
Its unit tests are in ``tests/test_ddp.py``.
"""

from __future__ import annotations

import os
from pathlib import Path

import torch
from torch import nn

from utils import atomic_save


def ddp_toy_data(n: int = 512, seed: int = 0) -> torch.utils.data.TensorDataset:
    """Return a fixed classification set: n points in 20 dimensions, the class set by the sum of the first 10."""
    generator = torch.Generator().manual_seed(seed)
    features = torch.randn(n, 20, generator=generator)
    return torch.utils.data.TensorDataset(features, (features[:, :10].sum(dim=1) > 0).long())


def ddp_toy_model() -> nn.Sequential:
    """Return the small classifier that notebook 08 trains in several processes."""
    return nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 2))


def free_port() -> int:
    """Return a TCP port on this machine that nothing listens on right now."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def ddp_worker(rank: int, world_size: int, port: int, out_dir: str, epochs: int = 2, batch_size: int = 16,
               lr: float = 0.1, seed: int = 0) -> None:
    """One DDP process: join the group, train ddp_toy_model on this rank's shard, save what it did to out_dir."""
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel
    from torch.utils.data import DataLoader, DistributedSampler

    os.environ["MASTER_ADDR"], os.environ["MASTER_PORT"] = "127.0.0.1", str(port)
    use_gpus = torch.cuda.device_count() >= world_size  # one GPU per process, or else CPU processes
    device = torch.device("cuda", rank) if use_gpus else torch.device("cpu")
    if use_gpus:
        torch.cuda.set_device(device)
    else:
        torch.set_num_threads(1)  # the processes share the CPU's cores
    dist.init_process_group("nccl" if use_gpus else "gloo", rank=rank, world_size=world_size)
    try:
        torch.manual_seed(seed)  # the same initial weights in every process
        model = ddp_toy_model().to(device)
        ddp_model = DistributedDataParallel(model, device_ids=[rank] if use_gpus else None)
        dataset = ddp_toy_data(seed=seed)
        sampler = DistributedSampler(dataset, num_replicas=world_size, rank=rank, shuffle=True, seed=seed)
        loader = DataLoader(dataset, batch_size=batch_size, sampler=sampler)
        optimizer = torch.optim.SGD(ddp_model.parameters(), lr=lr)
        indices, losses = [], []
        for epoch in range(epochs):
            sampler.set_epoch(epoch)  # a new shuffle each epoch, the same one in every process
            indices.append(list(sampler))
            for inputs, targets in loader:
                loss = nn.functional.cross_entropy(ddp_model(inputs.to(device)), targets.to(device))
                optimizer.zero_grad()
                loss.backward()  # DDP averages the gradients of all processes here
                optimizer.step()
                losses.append(loss.detach())
        result = {"device": str(device), "backend": dist.get_backend(), "indices": indices,
                  "losses": torch.stack(losses).cpu(), "model": {k: v.cpu() for k, v in model.state_dict().items()}}
        atomic_save(result, Path(out_dir) / f"rank{rank}.pt")
    finally:
        dist.destroy_process_group()
