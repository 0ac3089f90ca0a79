"""Where the memory of a training step goes, measured on any device (notebook 10).

Parameters, gradients and optimizer state are counted exactly from their tensors (elements x element size); the
activations autograd saves for backward are recorded with ``torch.autograd.graph.saved_tensors_hooks``, each
storage once. The same recording can play a GPU with a memory budget on a CPU (``limit``), and
``largest_batch`` finds the largest batch that fits, on a real GPU (capped by ``gpu_budget``) or against that
budget.

Lesson module (see ``lessons/__init__.py`` for where code lives): it needs nothing from ``utils``, and ``utils``
never imports it. Its unit tests are in ``tests/test_memory.py``.
"""

from __future__ import annotations

import contextlib
import gc
import weakref
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import nn

MB = 2**20
"""Bytes in a mebibyte (MiB), the unit PyTorch's own messages use."""


def tensor_bytes(tensors: Iterable[torch.Tensor | None]) -> int:
    """Return the bytes the elements of ``tensors`` take (numel x element size); ``None`` entries count 0."""
    return sum(t.numel() * t.element_size() for t in tensors if t is not None)


def optimizer_state_bytes(optimizer: torch.optim.Optimizer) -> int:
    """Return the bytes of every tensor in ``optimizer``'s per-parameter state (momentum buffers, Adam's two
    moments and its step counters); 0 before the first step, which creates the state."""
    return tensor_bytes(v for state in optimizer.state.values() for v in state.values() if isinstance(v, torch.Tensor))


@dataclass
class Saved:
    """One storage that autograd saved for backward: its size, the dtype and shape it was first saved as, and weak
    references to the saved tensors (alive while a graph holds them)."""

    nbytes: int
    dtype: torch.dtype
    shape: tuple[int, ...]
    refs: list[weakref.ref[torch.Tensor]] = field(default_factory=list)

    def held(self) -> bool:
        """True while some graph still holds a tensor of this storage."""
        return any(ref() is not None for ref in self.refs)


def storage_key(tensor: torch.Tensor) -> tuple[str, int]:
    """Return ``(device, address)`` of the memory under ``tensor``: views of one storage share it."""
    return str(tensor.device), tensor.untyped_storage().data_ptr()


SIMULATED_OUT_OF_MEMORY = {
    "en": "Simulated out of memory: saving {more:.2f} MiB more for backward would exceed the budget of {limit:.2f} "
    "MiB.",
    "zh": "模拟的显存不足：再为反向传播保存{more:.2f} MiB，就会超出{limit:.2f} MiB的预算。",
}
"""The message of ``saved_tensors``'s simulated ``torch.OutOfMemoryError``, per edition (``more``, ``limit``: MiB)."""


@contextlib.contextmanager
def saved_tensors(
    skip: Iterable[torch.Tensor] = (), limit: int | None = None, lang: str = "en"
) -> Iterator[list[Saved]]:
    """Record every storage autograd saves for backward inside the block, each once, in the list it yields.

    Storages of ``skip`` (the parameters, the batch: in memory anyway) are left out. With ``limit`` (bytes), it
    raises ``torch.OutOfMemoryError`` as soon as the recorded bytes exceed it: a GPU with that much memory for
    activations, played on any device. Its message is in ``lang`` (``SIMULATED_OUT_OF_MEMORY``).
    """
    skipped = {storage_key(t) for t in skip}
    saved: list[Saved] = []
    index: dict[tuple[str, int], Saved] = {}

    def pack(tensor: torch.Tensor) -> torch.Tensor:
        packed = tensor.detach()  # same storage; returning `tensor` itself could tie it to its graph in a cycle
        key = storage_key(tensor)
        if key not in skipped:
            if key not in index or not index[key].held():  # a new storage (or a freed one's address reused)
                index[key] = Saved(tensor.untyped_storage().nbytes(), tensor.dtype, tuple(tensor.shape))
                saved.append(index[key])
                if limit is not None and saved_bytes(saved) > limit:
                    more = tensor.untyped_storage().nbytes() / MB
                    raise torch.OutOfMemoryError(
                        SIMULATED_OUT_OF_MEMORY[lang].format(more=more, limit=limit / MB))
            index[key].refs.append(weakref.ref(packed))
        return packed

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda packed: packed):
        yield saved


def saved_bytes(saved: Iterable[Saved]) -> int:
    """Return the bytes of every storage recorded by ``saved_tensors`` (each counted once)."""
    return sum(entry.nbytes for entry in saved)


def held_bytes(saved: Iterable[Saved]) -> int:
    """Return the bytes of the recorded storages that some graph still holds (freed by backward or by the graph's
    last reference going away)."""
    return sum(entry.nbytes for entry in saved if entry.held())


def accumulated_gradients(
    model: nn.Module, loss_fn: nn.Module, inputs: torch.Tensor, targets: torch.Tensor,
    pieces: int
) -> list[torch.Tensor]:
    """Return the gradients of the batch's mean loss, computed ``pieces`` micro-batches
    at a time.

    ``backward`` adds into ``.grad``, and each piece's mean loss is weighted by its
    share of the batch, so the sum is the whole batch's gradient (for a mean loss and a
    model without batch statistics such as BatchNorm).
    """
    model.zero_grad(set_to_none=True)
    for x, y in zip(inputs.tensor_split(pieces), targets.tensor_split(pieces),
                    strict=True):
        (loss_fn(model(x), y) * (len(y) / len(targets))).backward()
    return [p.grad.detach().clone() for p in model.parameters() if p.grad is not None]


CUDNN_NO_ENGINE = "unable to find an engine to execute this computation"
"""The end of the ``RuntimeError`` a cuDNN convolution raises when every engine it tried failed ("GET was unable
to find an engine ..." or "FIND was ..."; torch's ``aten/src/ATen/native/cudnn/Conv_v8.cpp``). Near a memory cap,
each engine fails to allocate its workspace: PyTorch catches that ``torch.OutOfMemoryError`` and tries the next."""


def is_out_of_memory(error: BaseException) -> bool:
    """Return True for ``torch.OutOfMemoryError`` and for cuDNN's ``RuntimeError`` that ends in
    ``CUDNN_NO_ENGINE``, which near a cap is out-of-memory errors that cuDNN caught, one per engine."""
    return isinstance(error, torch.OutOfMemoryError) or (
        isinstance(error, RuntimeError) and CUDNN_NO_ENGINE in str(error)
    )


def largest_batch(run: Callable[[int], object], start: int) -> int:
    """Return the largest batch up to ``start`` for which ``run(batch)`` raises no
    out-of-memory error (0 if none): halve until one fits, then bisect. cuDNN's "no
    engine" counts, but not at batch 1 (the convolution cannot run at all)."""
    fits, fails, batch = 0, start + 1, start
    while fits + 1 < fails:
        try:
            run(batch)
            fits = batch
        except RuntimeError as error:  # torch.OutOfMemoryError is a RuntimeError
            real = isinstance(error, torch.OutOfMemoryError)
            if not is_out_of_memory(error) or (batch == 1 and not real):
                raise
            fails = batch
        if fails == batch:
            gc.collect()  # the failed step's tensors, now unreachable
        batch = (fits + fails) // 2 if fits else batch // 2
    return fits


@contextlib.contextmanager
def gpu_budget(device: torch.device, budget: int) -> Iterator[None]:
    """On a CUDA ``device``, cap what the caching allocator may reserve at what live tensors take on entry plus
    ``budget`` bytes (at most the cap already set, which is the whole GPU unless something set one), so that new
    tensors get about ``budget`` bytes before ``torch.OutOfMemoryError``; put the cap back as it was on exit, also
    after an error. On any other device, do nothing.

    The cap bounds the bytes the allocator *reserves* (``set_per_process_memory_fraction``), not those of live
    tensors: cached free space counts against it, and the allocator rounds blocks up, so new tensors get a little less
    than ``budget``.

    ``device`` may have no index, as ``torch.device("cuda")`` from ``utils.get_device()``: that means the current GPU.
    """
    if device.type != "cuda":
        yield
        return
    index = torch.cuda.current_device() if device.index is None else device.index  # the cap needs an index
    torch.cuda.empty_cache()  # segments that hold no tensor go back to the driver
    allowed = torch.cuda.memory_allocated(index) + budget
    before = torch.cuda.get_per_process_memory_fraction(index)  # 1.0 unless a cap is set
    total = torch.cuda.get_device_properties(index).total_memory
    torch.cuda.set_per_process_memory_fraction(min(before, allowed / total), index)
    try:
        yield
    finally:
        torch.cuda.set_per_process_memory_fraction(before, index)


def graph_nodes(tensor: torch.Tensor) -> int:
    """Return how many autograd nodes ``tensor``'s graph holds (its ``grad_fn`` and everything it leads to)."""
    seen: dict[int, object] = {}  # keeps each node's Python object alive, so that ids stay unique
    stack = [tensor.grad_fn]
    while stack:
        node = stack.pop()
        if node is not None and id(node) not in seen:
            seen[id(node)] = node
            stack.extend(next_node for next_node, _ in node.next_functions)
    return len(seen)


def draw_growth(ax: Any, batch_sizes: list[int], saved: list[int], param_bytes: int,
                colors: tuple[str, str], labels: tuple[str, str]) -> None:
    """Draw on matplotlib ``ax`` the bytes ``saved`` for backward at each batch size (circles, a solid line) and the
    parameters' ``param_bytes`` at every size (squares, a dashed line), in MiB, with ``labels`` for the legend."""
    ax.plot(batch_sizes, [s / MB for s in saved], "o-", color=colors[0], label=labels[0])
    ax.plot(batch_sizes, [param_bytes / MB] * len(batch_sizes), "s--", color=colors[1], label=labels[1])
    ax.legend()
