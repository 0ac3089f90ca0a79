"""How far apart the float comparisons of notebooks 09 and 10 land in float32, in emulated TF32, and with TF32 on one
sideonly (benchmarks/RESULTS.md, "Emulated TF32").

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/tf32_gaps.py

Notebook 10's network and batch (its setup cells, run here as the notebook runs them), then: whole against
accumulated gradients, whole against checkpointed gradients, autocast against a float32 reference, and how many
windows of the first max-pool change their maximum; notebook 09's float32 rung against float64. TF32 is emulated
by ``tests/tf32_emulation.py`` (10 mantissa bits, ties to even); a GPU also picks its algorithms by shape, which
this does not imitate.
"""

from __future__ import annotations

import contextlib
import io
import sys
from collections.abc import Callable
from pathlib import Path

import nbformat
import torch
from torch import nn
from torch.utils.checkpoint import checkpoint

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
from tf32_emulation import EmulatedTF32  # noqa: E402

import utils  # noqa: E402
from lessons import cifar10  # noqa: E402


def gap(a: list[torch.Tensor], b: list[torch.Tensor]) -> float:
    """The notebooks' measure: the largest difference in a tensor, relative to that tensor's largest value."""
    return max(((x - y).abs().max() / x.abs().max()).item() for x, y in zip(a, b, strict=True))


def emulated(fn: Callable[[], object]) -> object:
    with EmulatedTF32():
        return fn()


def main() -> None:
    nb = nbformat.read(ROOT / "notebooks" / "10_gpu_memory.ipynb", as_version=4)
    cells = {cell.id: cell.source for cell in nb.cells}
    ns: dict = {"utils": utils}
    with contextlib.redirect_stdout(io.StringIO()):
        for cell_id in ("64c84b01", "116883cd", "a7bb56d1", "bd825241"):  # setup, model, count, accumulation
            exec(cells[cell_id], ns)
    model, loss_fn, inputs, targets = ns["model"], ns["loss_fn"], ns["inputs"], ns["targets"]
    blocks = [model[0:2], model[2:4], model[4:6], model[6:]]

    def whole() -> list[torch.Tensor]:
        return ns["accumulated_gradients"](model, loss_fn, inputs, targets, 1)

    def accumulated() -> list[torch.Tensor]:
        return ns["accumulated_gradients"](model, loss_fn, inputs, targets, 4)

    def checkpointed() -> list[torch.Tensor]:
        model.zero_grad(set_to_none=True)
        x = inputs
        for block in blocks:
            x = checkpoint(block, x, use_reentrant=False)
        loss_fn(x, targets).backward()
        return [p.grad.detach().clone() for p in model.parameters()]

    def autocast() -> list[torch.Tensor]:
        model.zero_grad(set_to_none=True)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            loss_fn(model(inputs), targets).backward()
        return [p.grad.detach().clone() for p in model.parameters()]

    print(f"torch {torch.__version__}, {torch.get_num_threads()} thread(s); gaps relative to a tensor's largest")
    f_whole, t_whole = whole(), emulated(whole)
    for name, fn in (("accumulated (4 pieces)", accumulated), ("checkpointed", checkpointed)):
        f, t = fn(), emulated(fn)
        print(f"10, whole against {name}: float32 {gap(f_whole, f):.2e}, TF32 both {gap(t_whole, t):.2e}, "
              f"TF32 against float32 {gap(f_whole, t):.2e}")
    amp = autocast()
    print(f"10, bfloat16 autocast against float32: {gap(f_whole, amp):.2%} (reference in float32), "
          f"{gap(t_whole, amp):.2%} (reference in TF32)")
    with torch.no_grad():
        conv = {"float32": model[0](inputs), "TF32": emulated(lambda: model[0](inputs))}
        with torch.autocast("cpu", dtype=torch.bfloat16):
            conv["autocast"] = model[0](inputs)
    where = {k: nn.functional.max_pool2d(v.float(), 2, return_indices=True)[1] for k, v in conv.items()}
    moved = {(a, b): (where[a] != where[b]).sum().item() for a, b in
             (("float32", "autocast"), ("TF32", "autocast"), ("float32", "TF32"))}
    print("10, first max-pool windows with another maximum: "
          + ", ".join(f"{a} against {b} {n}" for (a, b), n in moved.items()))

    torch.manual_seed(0)
    cnn = cifar10.cnn()
    reference = cifar10.cnn()
    reference.load_state_dict(cnn.state_dict())
    reference.double()
    images = torch.randn(64, 3, 32, 32)
    with torch.no_grad():
        ref = reference(images.double())
        for name, out in (("float32", cnn(images)), ("TF32", emulated(lambda: cnn(images)))):
            error = ((out.double() - ref).norm() / ref.norm()).item()
            print(f"09, float32 rung against float64 in {name}: {error:.2e}")


if __name__ == "__main__":
    main()
