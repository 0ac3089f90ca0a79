"""Training images/s of the source's CIFAR-10 loop and of notebook 06's loops: same model, same data, one run.

    .venv/bin/python benchmarks/cifar_loop.py                        # CPU-sized defaults: 2,000 generated images
    .venv/bin/python benchmarks/cifar_loop.py --train-images 256     # a few seconds (the smoke test uses less)

On a GPU machine, from the repository root (on Colab with a GPU runtime: after any notebook's setup cell has
cloned the project, run `!cd pytorch-gpu-notebooks && python benchmarks/cifar_loop.py ...` in a cell):

    python benchmarks/cifar_loop.py --train-images 50000 --test-images 10000 --workers 4
    python benchmarks/cifar_loop.py --train-images 50000 --test-images 10000 --workers 4 --compare-cpu
    python benchmarks/cifar_loop.py --data cifar10 --workers 4      # real CIFAR-10 from data/

It prints one row per loop and each loop's training images/s relative to the source's. Loops:

- ``source``: the sources' loop. A DataLoader (batch 64, no workers) over a torchvision-style dataset that turns
  each uint8 image into a PIL image and then a tensor (``ToTensor`` alone, as the CSDN loop of source 000; the
  Tudui chapter, source 001, also normalises each image, which this row leaves out); blocking copies to the
  device (``.cuda()`` in the sources); ``loss.item()`` printed and logged to TensorBoard every 100 steps (as
  source 000); plain SGD. Its test loop calls ``loss.item()`` on every batch (as source 001) and sums the
  accuracy as a tensor.
- ``notebook``: notebook 06's loop, ``utils.train_epoch`` / ``utils.evaluate`` (one GPU sync per epoch), a
  DataLoader over ``cifar10.CIFARArrays`` with ``--workers`` worker processes, and on CUDA pinned memory with
  ``non_blocking`` copies; SGD with momentum 0.9 as in the notebook. Batch 64 as in the source.
- ``on-device``: the images are copied to the device once as uint8 and batches are cut there
  (``cifar10.device_batches``). It runs twice: at the source's batch of 64 (only the data loading
  changes) and at ``--big-batch`` images per step, which changes the batch size and so the optimisation.
- ``on-device+item``: the on-device loop at each batch size with one ``loss.item()`` per batch, as loops that
  print or collect every loss do: it shows what waiting for the device on every step costs.

The summary line reports the like-for-like ratios first: the rows at the source's batch of 64 (same model,
same learning rate; the notebook's loops add momentum 0.9, one buffer update per parameter per step). The
``--big-batch`` rows change the batch size, and so the optimisation: their ratio is throughput (images/s), not
time to reach an accuracy.

``--compare-cpu`` also times the notebook loop on the CPU, with ``--cpu-threads`` threads (default: every core
this process may use; the count is printed), over the same images, and prints the device's speed-up over it.

Every timed pass ends with a synchronisation, so the times are what the device really took. On a CPU the loops
differ much less than on a GPU, because the CPU both prepares the data and computes. Data: the quick-mode
generator (``--data quick``, made in memory at any size) or real CIFAR-10 (``--data cifar10``, downloaded into
data/ if it can be).
"""

from __future__ import annotations

import argparse
import io
import itertools
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from pathlib import Path

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import utils  # noqa: E402
from lessons import cifar10  # noqa: E402


class SourceStyleDataset(Dataset):
    """What ``torchvision.datasets.CIFAR10(transform=ToTensor())`` does per item: array -> PIL image -> tensor."""

    def __init__(self, images: np.ndarray, labels: np.ndarray) -> None:
        from torchvision import transforms

        self.images, self.labels = images, labels
        self.transform = transforms.ToTensor()

    def __len__(self) -> int:
        return len(self.labels)

    def __getitem__(self, index: int) -> tuple[torch.Tensor, int]:
        from PIL import Image

        return self.transform(Image.fromarray(self.images[index])), int(self.labels[index])


def source_train_epoch(model, loader, loss_fn, optimizer, device, writer, counter: list[int], log) -> None:
    """The source's training loop (with `.to(device)` standing in for `.cuda()` so every loop uses one device)."""
    model.train()
    for imgs, targets in loader:
        imgs = imgs.to(device)
        targets = targets.to(device)
        outputs = model(imgs)
        loss = loss_fn(outputs, targets)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        counter[0] += 1
        if counter[0] % 100 == 0:
            print(f"step {counter[0]}, loss {loss.item()}", file=log)
            writer.add_scalar("train_loss", loss.item(), counter[0])


def source_evaluate(model, loader, loss_fn, device) -> tuple[float, torch.Tensor]:
    """The source's test loop: one `.item()` per batch; the accuracy stays a tensor."""
    model.eval()
    total_test_loss = 0.0
    total_accuracy = torch.zeros((), device=device, dtype=torch.long)
    with torch.no_grad():
        for imgs, targets in loader:
            imgs = imgs.to(device)
            targets = targets.to(device)
            outputs = model(imgs)
            total_test_loss = total_test_loss + loss_fn(outputs, targets).item()
            total_accuracy = total_accuracy + (outputs.argmax(1) == targets).sum()
    return total_test_loss, total_accuracy / len(loader.dataset)


def item_per_step_epoch(model, batches, loss_fn, optimizer, device) -> float:
    """``utils.train_epoch`` but reading every loss with ``.item()``: one wait for the device per batch."""
    model.train()
    losses = []
    for inputs, targets in batches:
        inputs, targets = inputs.to(device), targets.to(device)
        loss = loss_fn(model(inputs), targets)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return sum(losses) / max(len(losses), 1)


def timed(fn: Callable[[], object], device: torch.device) -> float:
    """Return the seconds ``fn()`` took, ended by a device synchronisation (GPUs run asynchronously)."""
    start = time.perf_counter()
    fn()
    utils.synchronize(device)
    return time.perf_counter() - start


class Loop:
    """One way to train and test: ``train(batches)`` runs one pass, ``batches()`` returns a fresh epoch."""

    def __init__(self, name: str, batch: int, workers: str, train: Callable[[Iterable], object],
                 evaluate: Callable[[], object], batches: Iterable | Callable[[], Iterable],
                 cleanup: Callable[[], object] | None = None, upload_s: float = 0.0) -> None:
        self.name, self.batch, self.workers, self.upload_s = name, batch, workers, upload_s
        self.train, self.evaluate = train, evaluate
        self.batches = batches if callable(batches) else lambda: batches
        self.cleanup = cleanup or (lambda: None)


def load_data(args: argparse.Namespace) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Return train/test uint8 images and labels: the generated sample or real CIFAR-10, cut to the asked sizes."""
    if args.data == "cifar10":
        train_images, train_labels, _ = cifar10.load_real(train=True)
        test_images, test_labels, _ = cifar10.load_real(train=False)
    else:
        train_images, train_labels = cifar10.draw_shapes(args.train_images, seed=(0, 0))
        test_images, test_labels = cifar10.draw_shapes(args.test_images, seed=(0, 1))
    return (train_images[: args.train_images], train_labels[: args.train_images],
            test_images[: args.test_images], test_labels[: args.test_images])


def fresh_model(device: torch.device, momentum: float) -> tuple[nn.Module, torch.optim.Optimizer]:
    """Return the source's CNN on ``device`` (seed 0, so every loop starts alike) and its SGD optimizer (lr 0.01)."""
    torch.manual_seed(0)
    model = cifar10.cnn().to(device)
    return model, torch.optim.SGD(model.parameters(), lr=0.01, momentum=momentum)


def notebook_loop(args: argparse.Namespace, device: torch.device, data: tuple) -> Loop:
    """Return notebook 06's loop on ``device``: its DataLoader settings, ``utils.train_epoch`` / ``utils.evaluate``."""
    train_images, train_labels, test_images, test_labels = data
    loss_fn = nn.CrossEntropyLoss()
    transform = cifar10.preprocess()
    loader_args = {"batch_size": 64, "num_workers": args.workers, "pin_memory": device.type == "cuda",
                   "persistent_workers": args.workers > 0}
    train_nb = DataLoader(cifar10.CIFARArrays(train_images, train_labels, range(10), transform), shuffle=True,
                          **loader_args)
    test_nb = DataLoader(cifar10.CIFARArrays(test_images, test_labels, range(10), transform), **loader_args)
    model_nb, optimizer_nb = fresh_model(device, momentum=0.9)
    return Loop(
        "notebook", 64, str(args.workers),
        lambda batches: utils.train_epoch(model_nb, batches, loss_fn, optimizer_nb, device),
        lambda: utils.evaluate(model_nb, test_nb, loss_fn, device),
        train_nb,
    )


def build_loops(args: argparse.Namespace, device: torch.device, data: tuple) -> list[Loop]:
    """Return the loops, each with its own fresh model (same seed) over the same images."""
    train_images, train_labels, test_images, test_labels = data
    loss_fn = nn.CrossEntropyLoss()

    # 1. the source's loop: PIL + ToTensor per image, blocking copies, .item() syncs, plain SGD
    train_src = DataLoader(SourceStyleDataset(train_images, train_labels), batch_size=64, shuffle=True)
    test_src = DataLoader(SourceStyleDataset(test_images, test_labels), batch_size=64)
    model_src, optimizer_src = fresh_model(device, momentum=0.0)
    log_dir = tempfile.TemporaryDirectory()
    from torch.utils.tensorboard import SummaryWriter

    writer, counter, log = SummaryWriter(log_dir.name), [0], io.StringIO()
    source = Loop(
        "source", 64, "0",
        lambda batches: source_train_epoch(model_src, batches, loss_fn, optimizer_src, device, writer, counter, log),
        lambda: source_evaluate(model_src, test_src, loss_fn, device),
        train_src, cleanup=lambda: (writer.close(), log_dir.cleanup()),
    )

    # 2. the notebook's loop: utils.train_epoch / utils.evaluate over the notebook's DataLoader
    notebook = notebook_loop(args, device, data)

    # 3. the images kept on the device as uint8, batches cut there, at batch 64 and at --big-batch
    start = time.perf_counter()
    train_x, train_y = torch.from_numpy(train_images).to(device), torch.from_numpy(train_labels).to(device)
    test_x, test_y = torch.from_numpy(test_images).to(device), torch.from_numpy(test_labels).to(device)
    utils.synchronize(device)
    upload_s = time.perf_counter() - start

    def on_device(batch: int, item_per_step: bool = False) -> Loop:
        model_dev, optimizer_dev = fresh_model(device, momentum=0.9)
        train = item_per_step_epoch if item_per_step else utils.train_epoch
        return Loop(
            "on-device+item" if item_per_step else "on-device", batch, "-",
            lambda batches: train(model_dev, batches, loss_fn, optimizer_dev, device),
            lambda: utils.evaluate(model_dev, cifar10.device_batches(test_x, test_y, batch, shuffle=False),
                                   loss_fn, device),
            lambda: cifar10.device_batches(train_x, train_y, batch),
            upload_s=upload_s,
        )

    return [source, notebook, *(on_device(batch, item) for batch in dict.fromkeys([64, args.big_batch])
                                for item in (True, False))]


def time_loops(loops: list[Loop], args: argparse.Namespace, device: torch.device,
               n_train: int, n_test: int) -> list[dict[str, object]]:
    """Time every loop on ``device``, interleaved round by round; return one row per loop (medians)."""
    for loop in loops:  # warm-up: first batches (allocator, kernels, DataLoader workers), one test pass
        loop.train(itertools.islice(loop.batches(), args.warmup))
        loop.evaluate()
    train_s: list[list[float]] = [[] for _ in loops]
    eval_s: list[list[float]] = [[] for _ in loops]
    for _ in range(args.repeat):  # interleaved, so a busy moment on the machine hits every loop alike
        for i, loop in enumerate(loops):
            train_s[i].append(timed(lambda loop=loop: loop.train(loop.batches()), device))
            eval_s[i].append(timed(loop.evaluate, device))
    for loop in loops:
        loop.cleanup()
    return [
        {"loop": loop.name, "batch": loop.batch, "workers": loop.workers, "upload_s": loop.upload_s,
         "device": device.type, "train_ips": n_train / statistics.median(train_s[i]),
         "eval_ips": n_test / statistics.median(eval_s[i])}
        for i, loop in enumerate(loops)
    ]


def run(args: argparse.Namespace, data: tuple | None = None) -> list[dict[str, object]]:
    """Time every loop on the same data and model, interleaved round by round; return one row per loop."""
    device = torch.device(args.device) if args.device else utils.get_device()
    data = load_data(args) if data is None else data
    return time_loops(build_loops(args, device, data), args, device, len(data[1]), len(data[3]))


def run_on_cpu(args: argparse.Namespace, data: tuple) -> dict[str, object]:
    """Time the notebook's loop on the CPU with ``args.cpu_threads`` threads over ``data``; return its row."""
    threads_before = torch.get_num_threads()
    torch.set_num_threads(args.cpu_threads)
    try:
        cpu = torch.device("cpu")
        return time_loops([notebook_loop(args, cpu, data)], args, cpu, len(data[1]), len(data[3]))[0]
    finally:
        torch.set_num_threads(threads_before)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Return the command-line options."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", choices=["quick", "cifar10"], default="quick",
                        help="generated sample made in memory at any size (default) or real CIFAR-10 from data/")
    parser.add_argument("--train-images", type=int, default=2000, help="training images per epoch (default 2000)")
    parser.add_argument("--test-images", type=int, default=500, help="test images (default 500)")
    parser.add_argument("--workers", type=int, default=0, help="DataLoader workers of the notebook loop (default 0)")
    parser.add_argument("--big-batch", type=int, default=512,
                        help="batch size of the second on-device pair of rows (default 512); changes the optimisation")
    parser.add_argument("--repeat", type=int, default=3, help="timed epochs per loop, interleaved; medians shown")
    parser.add_argument("--warmup", type=int, default=3, help="untimed batches per loop first (default 3)")
    parser.add_argument("--device", default=None, help="force a device, e.g. cpu (default: utils.get_device())")
    parser.add_argument("--compare-cpu", action="store_true",
                        help="also time the notebook loop on the CPU and print the device's speed-up over it")
    parser.add_argument("--cpu-threads", type=int, default=utils.cpu_cores(),
                        help="torch threads for every CPU timing (default: all cores this process may use)")
    return parser.parse_args(argv)


BIG_BATCH_NOTE = "changes batch size (and so the optimisation)"


def print_table(rows: list[dict[str, object]]) -> None:
    """Print one row per loop with its ratio to the source; label the rows whose batch differs from 64."""
    source = rows[0]["train_ips"]
    print(f"{'loop':<14} {'batch':>5} {'workers':>7} {'train img/s':>12} {'eval img/s':>11} {'train x source':>15}")
    for r in rows:
        r["ratio"] = r["train_ips"] / source
        note = f"  <- {BIG_BATCH_NOTE}" if r["batch"] != 64 else ""
        print(f"{r['loop']:<14} {r['batch']:>5} {r['workers']:>7} {r['train_ips']:>12,.0f} {r['eval_ips']:>11,.0f} "
              f"{r['ratio']:>14.2f}x{note}")


def print_summary(rows: list[dict[str, object]], device: torch.device) -> None:
    """Print the like-for-like ratios first (batch 64), then the big-batch rows for what they are."""
    print(f"(on-device: copying the images to the {device.type} once took {rows[-1]['upload_s']:.3f} s)")
    by_name = {(r["loop"], r["batch"]): r for r in rows}
    print(f"like for like (batch 64, as the source): notebook loop {by_name['notebook', 64]['ratio']:.2f}x, "
          f"on-device {by_name['on-device', 64]['ratio']:.2f}x the source's training images/s")
    for r in rows:
        if r["loop"] == "on-device" and r["batch"] != 64:
            print(f"{BIG_BATCH_NOTE}: on-device at batch {r['batch']} {r['ratio']:.2f}x "
                  "(throughput, not time to reach an accuracy)")


def print_cpu_comparison(rows: list[dict[str, object]], cpu_row: dict[str, object], device: torch.device,
                         threads: int) -> None:
    """Print the notebook loop's training and test images/s on the CPU and on ``device``, and the ratio."""
    ours = next(r for r in rows if r["loop"] == "notebook")
    print(f"notebook loop (batch 64, {ours['workers']} workers), CPU with {threads} threads against {device.type}:")
    for name, r in [(f"cpu ({threads} threads)", cpu_row), (device.type, ours)]:
        print(f"  {name:<18} {r['train_ips']:>12,.0f} train img/s {r['eval_ips']:>11,.0f} eval img/s")
    print(f"  {device.type} / cpu: {ours['train_ips'] / cpu_row['train_ips']:.2f}x training images/s, "
          f"{ours['eval_ips'] / cpu_row['eval_ips']:.2f}x test images/s")


def main(argv: list[str] | None = None) -> list[dict[str, object]]:
    """Run the benchmark, print the table and the summary, and return its rows (plus the CPU row if asked)."""
    args = parse_args(argv)
    device = torch.device(args.device) if args.device else utils.get_device()
    if device.type == "cpu":
        torch.set_num_threads(args.cpu_threads)
    name = torch.cuda.get_device_name(device) if device.type == "cuda" else device.type
    print(f"device: {device.type} ({name}) | torch {torch.__version__} | {torch.get_num_threads()} CPU threads of "
          f"{utils.cpu_cores()} cores | data: {args.data}, {args.train_images} train / {args.test_images} test "
          f"images | model: cifar10.cnn()")
    data = load_data(args)
    rows = run(args, data)
    print_table(rows)
    print_summary(rows, device)
    if args.compare_cpu:
        cpu_row = run_on_cpu(args, data)
        print_cpu_comparison(rows, cpu_row, device, args.cpu_threads)
        rows.append({**cpu_row, "loop": "notebook (cpu)"})
    return rows


if __name__ == "__main__":
    main()
