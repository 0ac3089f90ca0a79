"""Unit tests for lessons/memory.py (notebook 10): exact byte counts, saved activations, the leak, the remedies."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import torch
from fake_cuda import FakeGpu
from torch import nn
from torch.utils.checkpoint import checkpoint

import utils
from lessons import cifar10, memory

CNN_BYTES_PER_IMAGE = 315_688
"""Activations notebook 06's CNN saves per image (see notebook 10, exercise 1), plus 4 bytes per batch."""


def cnn_batch(size: int, seed: int = 0) -> tuple[nn.Module, torch.Tensor, torch.Tensor]:
    torch.manual_seed(seed)
    return cifar10.cnn(), torch.randn(size, 3, 32, 32), torch.randint(0, 10, (size,))


# ---- parameters, gradients, optimizer state -----------------------------------------------------------------


def test_tensor_bytes_is_elements_times_element_size() -> None:
    tensors = [torch.zeros(3, 4), torch.zeros(5, dtype=torch.int64), torch.zeros(2, 2, dtype=torch.bfloat16), None]
    assert memory.tensor_bytes(tensors) == 3 * 4 * 4 + 5 * 8 + 4 * 2
    assert memory.tensor_bytes([]) == 0


def test_parameters_and_gradients_of_a_known_model() -> None:
    model = nn.Sequential(nn.Linear(10, 5), nn.Linear(5, 2))  # 55 + 12 parameters
    assert memory.tensor_bytes(model.parameters()) == 67 * 4
    assert memory.tensor_bytes(p.grad for p in model.parameters()) == 0  # no gradients before backward
    model(torch.randn(3, 10)).sum().backward()
    assert memory.tensor_bytes(p.grad for p in model.parameters()) == 67 * 4
    model.zero_grad(set_to_none=False)
    assert memory.tensor_bytes(p.grad for p in model.parameters()) == 67 * 4  # zeros still take memory
    model.zero_grad(set_to_none=True)
    assert memory.tensor_bytes(p.grad for p in model.parameters()) == 0


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (lambda ps: torch.optim.SGD(ps, lr=0.1), lambda n, k: 0),
        (lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9), lambda n, k: n),
        (lambda ps: torch.optim.Adam(ps), lambda n, k: 2 * n + 4 * k),  # two moments, a float32 step per tensor
    ],
    ids=["sgd", "momentum", "adam"],
)
def test_optimizer_state_bytes_exact(
    make: Callable[[list[nn.Parameter]], torch.optim.Optimizer], expected: Callable[[int, int], int]
) -> None:
    model = nn.Sequential(nn.Linear(10, 5), nn.Linear(5, 2))
    params = list(model.parameters())
    optimizer = make(params)
    assert memory.optimizer_state_bytes(optimizer) == 0  # the state appears at the first step
    model(torch.randn(3, 10)).sum().backward()
    optimizer.step()
    assert memory.optimizer_state_bytes(optimizer) == expected(67 * 4, len(params))


# ---- saved activations ----------------------------------------------------------------------------------------


def test_each_storage_is_counted_once_and_skip_leaves_tensors_out() -> None:
    a = torch.randn(5, requires_grad=True)
    with memory.saved_tensors(skip=[a]) as saved:
        b = a.exp()  # saves its result b (20 bytes)
        c = b * b  # saves b twice: the same storage
        d = b.view(5, 1) * a.view(5, 1)  # saves a view of b and a view of a (skipped)
    assert [(e.nbytes, e.dtype, e.shape) for e in saved] == [(20, torch.float32, (5,))]
    assert memory.saved_bytes(saved) == memory.held_bytes(saved) == 20
    assert memory.storage_key(b.view(5, 1)) == memory.storage_key(b) != memory.storage_key(a)
    (c.sum() + d.sum()).backward()
    assert memory.held_bytes(saved) == 0 and memory.saved_bytes(saved) == 20  # backward frees, the record stays


def test_the_cnn_saves_its_known_bytes_per_image() -> None:
    for size in (1, 3, 8):
        model, x, y = cnn_batch(size)
        with memory.saved_tensors(skip=[*model.parameters(), x, y]) as saved:
            loss = nn.functional.cross_entropy(model(x), y)
        assert memory.saved_bytes(saved) == CNN_BYTES_PER_IMAGE * size + 4  # + nll_loss's 4-byte total weight
        assert sum(e.dtype == torch.int64 for e in saved) == 3  # one index tensor per max-pool
        del loss


def test_a_graph_that_saves_its_own_outputs_is_freed() -> None:
    # exp and log_softmax save their result: returning that tensor itself from the pack hook would form a cycle
    # (tensor -> grad_fn -> saved tensor) that keeps the graph alive after its last reference is gone
    model, x, y = cnn_batch(2)
    with memory.saved_tensors(skip=[*model.parameters(), x, y]) as saved:
        loss = nn.functional.cross_entropy(model(x), y).exp()
    assert memory.held_bytes(saved) == memory.saved_bytes(saved) > 0
    del loss
    assert memory.held_bytes(saved) == 0


def test_nothing_is_saved_without_a_graph() -> None:
    model, x, y = cnn_batch(2)
    for context in (torch.no_grad, torch.inference_mode):
        with memory.saved_tensors() as saved, context():
            nn.functional.cross_entropy(model(x), y)
        assert saved == []


def test_a_limit_raises_out_of_memory_as_soon_as_it_is_exceeded() -> None:
    model, x, y = cnn_batch(4)
    skip = [*model.parameters(), x, y]
    with memory.saved_tensors(skip, limit=CNN_BYTES_PER_IMAGE * 4 + 4):  # exactly enough
        nn.functional.cross_entropy(model(x), y).backward()
    with pytest.raises(torch.OutOfMemoryError, match=r"Simulated out of memory: saving 0\.50 MiB more .* 0\.25 MiB"):
        with memory.saved_tensors(skip, limit=memory.MB // 4) as saved:
            nn.functional.cross_entropy(model(x), y)
    assert [e.nbytes for e in saved] == [4 * 32 * 32 * 32 * 4]  # stopped at the first convolution's output
    with pytest.raises(torch.OutOfMemoryError, match=r"^模拟的显存不足：再为反向传播保存0\.50 MiB，就会超出0\.25 MiB"):
        with memory.saved_tensors(skip, limit=memory.MB // 4, lang="zh"):  # notebook 10's Chinese edition
            nn.functional.cross_entropy(model(x), y)


def test_autocast_saves_fewer_bytes_than_float32() -> None:
    model, x, y = cnn_batch(4)
    skip = [*model.parameters(), x, y]
    with memory.saved_tensors(skip) as full:
        nn.functional.cross_entropy(model(x), y)
    with memory.saved_tensors(skip) as half, torch.autocast("cpu", dtype=torch.bfloat16):
        nn.functional.cross_entropy(model(x), y)
    assert 0 < memory.saved_bytes(half) < memory.saved_bytes(full)
    assert torch.bfloat16 in {e.dtype for e in half}


# ---- the leak ------------------------------------------------------------------------------------------------------


def test_summing_loss_keeps_every_graph_and_item_does_not() -> None:
    model, x, y = cnn_batch(2)
    held = {True: [], False: []}
    for keep_graph in (True, False):
        with memory.saved_tensors(skip=[*model.parameters(), x, y]) as saved:
            total = 0.0
            for _ in range(3):
                loss = nn.functional.cross_entropy(model(x), y)
                total += loss if keep_graph else loss.item()
                held[keep_graph].append(memory.held_bytes(saved))
        del total, loss
    one_step = CNN_BYTES_PER_IMAGE * 2 + 4
    assert held[True] == [one_step, 2 * one_step, 3 * one_step]
    assert held[False] == [one_step] * 3


def test_graph_nodes_grow_when_a_training_loop_sums_loss() -> None:
    model, x, y = cnn_batch(2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    counts = []
    with memory.saved_tensors(skip=[*model.parameters(), x, y]) as saved:
        total = 0.0
        for _ in range(3):
            loss = nn.functional.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss
            counts.append(memory.graph_nodes(total))
    assert memory.held_bytes(saved) == 0  # backward freed every step's activations...
    assert counts[2] - counts[1] == counts[1] - counts[0] > 0  # ... but not the nodes
    assert memory.graph_nodes(torch.ones(1)) == 0 and memory.graph_nodes(loss.detach()) == 0


# ---- the remedies --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("pieces", [2, 3, 4])
def test_accumulation_gives_the_big_batch_gradients(pieces: int) -> None:
    model, x, y = cnn_batch(10)  # 10 images in 3 pieces: uneven, weighted by their share
    loss_fn = nn.CrossEntropyLoss()
    whole = memory.accumulated_gradients(model, loss_fn, x, y, pieces=1)
    accumulated = memory.accumulated_gradients(model, loss_fn, x, y, pieces=pieces)
    assert len(whole) == len(accumulated) == len(list(model.parameters()))
    reference = torch.autograd.grad(loss_fn(model(x), y), list(model.parameters()))  # the whole batch's mean loss
    for a, b, c in zip(reference, whole, accumulated, strict=True):
        torch.testing.assert_close(b, a)
        torch.testing.assert_close(c, a, rtol=1e-4, atol=1e-6)


def test_checkpointing_saves_fewer_bytes_and_gives_the_same_gradients() -> None:
    model, x, y = cnn_batch(4)
    skip = [*model.parameters(), x, y]
    blocks = [model[0:2], model[2:4], model[4:6], model[6:]]

    def checkpointed(h: torch.Tensor) -> torch.Tensor:
        for block in blocks:
            h = checkpoint(block, h, use_reentrant=False)
        return h

    grads = {}
    for name, forward in (("plain", model), ("checkpointed", checkpointed)):
        model.zero_grad(set_to_none=True)
        with memory.saved_tensors(skip) as saved:
            loss = nn.functional.cross_entropy(forward(x), y)
        grads[name] = (memory.saved_bytes(saved), loss)
        loss.backward()
        grads[name] = (grads[name][0], [p.grad.clone() for p in model.parameters()])
    assert grads["checkpointed"][0] < grads["plain"][0] / 4
    for a, b in zip(grads["plain"][1], grads["checkpointed"][1], strict=True):
        torch.testing.assert_close(b, a)


# ---- recovering ----------------------------------------------------------------------------------------------------


@pytest.fixture
def gc_calls(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count largest_batch's garbage collections instead of running them (each takes a while in a big process)."""
    calls: list[int] = []
    monkeypatch.setattr(memory.gc, "collect", lambda: calls.append(1) or 0)
    return calls


@pytest.mark.parametrize(("limit", "start"), [(37, 256), (256, 256), (300, 256), (1, 64), (0, 64), (5, 5)])
def test_largest_batch_finds_the_limit(limit: int, start: int, gc_calls: list[int]) -> None:
    tried = []

    def run(batch: int) -> None:
        tried.append(batch)
        if batch > limit:
            raise torch.OutOfMemoryError(f"{batch} > {limit}")

    assert memory.largest_batch(run, start) == min(limit, start)
    assert len(tried) <= 2 * start.bit_length() + 1 and len(set(tried)) == len(tried)  # halving, then bisection
    assert len(gc_calls) == sum(batch > limit for batch in tried)  # memory freed after every failure


def test_largest_batch_lets_other_errors_through() -> None:
    def run(batch: int) -> None:
        raise ValueError("not a memory problem")

    with pytest.raises(ValueError, match="not a memory problem"):
        memory.largest_batch(run, 8)


class CappedAllocator:
    """A GPU's caching allocator under a cap of ``room`` bytes: past it, ``allocate`` raises the out-of-memory
    error (the message as PyTorch's allocator starts it)."""

    def __init__(self, room: int) -> None:
        self.room, self.used, self.failures = room, 0, 0

    def allocate(self, nbytes: int) -> None:
        if self.used + nbytes > self.room:
            self.failures += 1
            raise torch.OutOfMemoryError(f"CUDA out of memory. Tried to allocate {nbytes} bytes.")
        self.used += nbytes


def cudnn_convolution(batch: int, allocator: CappedAllocator, engine: str = "GET") -> None:
    """A cuDNN convolution as torch's aten/src/ATen/native/cudnn/Conv_v8.cpp runs it (run_single_conv): the output
    is allocated first, then each engine in turn allocates its workspace (try_configs / try_plans); an engine's
    out-of-memory error is caught and the next engine tried; when every engine failed, a plain RuntimeError."""
    allocator.allocate(10 * batch)  # the output: too big, and the allocator's own error goes up
    for workspace_per_image in (8, 4):  # two engines, each with its own workspace
        try:
            allocator.allocate(workspace_per_image * batch)
            return
        except torch.OutOfMemoryError:
            pass  # what Conv_v8.cpp does: catch it (and clear CUDA's error), try the next engine
    raise RuntimeError(f"{engine} was unable to find an engine to execute this computation")


@pytest.mark.parametrize("engine", ["GET", "FIND"])  # cudnn.benchmark off (the default) or on
def test_largest_batch_counts_cudnns_swallowed_out_of_memory_errors(engine: str, gc_calls: list[int]) -> None:
    errors: list[str] = []

    def run(batch: int) -> None:
        try:
            cudnn_convolution(batch, CappedAllocator(room=1400), engine)
        except RuntimeError as error:
            errors.append(type(error).__name__)
            raise

    # a batch fits when its output and the smaller workspace do: 10 + 4 bytes per image, 1400 bytes of room
    assert memory.largest_batch(run, 256) == 100
    assert {"OutOfMemoryError", "RuntimeError"} <= set(errors)  # both kinds of failure met on the way
    assert memory.is_out_of_memory(RuntimeError(f"{engine} was unable to find an engine to execute this computation"))


def test_largest_batch_raises_cudnns_error_when_not_even_one_image_runs(gc_calls: list[int]) -> None:
    def run(batch: int) -> None:  # a convolution cuDNN cannot run at all (an unsupported GPU, say)
        raise RuntimeError("GET was unable to find an engine to execute this computation")

    with pytest.raises(RuntimeError, match="unable to find an engine"):
        memory.largest_batch(run, 8)
    assert len(gc_calls) == 3  # 8, 4 and 2 counted as too big, then batch 1 raised


def test_largest_batch_lets_other_runtime_errors_through() -> None:
    def run(batch: int) -> None:
        raise RuntimeError("Expected all tensors to be on the same device")

    with pytest.raises(RuntimeError, match="same device"):
        memory.largest_batch(run, 8)
    assert not memory.is_out_of_memory(RuntimeError("CUDA error: an illegal memory access was encountered"))


def test_largest_batch_against_a_simulated_budget(gc_calls: list[int]) -> None:
    model = cifar10.cnn()
    room = 10 * CNN_BYTES_PER_IMAGE + 4  # exactly 10 images' activations

    def run(batch: int) -> None:
        x, y = torch.randn(batch, 3, 32, 32), torch.randint(0, 10, (batch,))
        with memory.saved_tensors([*model.parameters(), x, y], limit=room):
            loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()

    assert memory.largest_batch(run, 64) == 10


def test_gpu_budget_does_nothing_off_cuda(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(torch.cuda, "set_per_process_memory_fraction", lambda *a: pytest.fail("capped a CPU"))
    with memory.gpu_budget(torch.device("cpu"), 8 * memory.MB):
        assert memory.largest_batch(lambda batch: None, 16) == 16


def test_gpu_budget_caps_the_device_the_notebook_passes_and_lifts_the_cap_after_an_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # torch.cuda's own Python runs for real on a GPU faked at its C layer, with the device notebook 10 passes:
    # utils.get_device()'s torch.device("cuda"), which has no index
    gpu = FakeGpu(monkeypatch, total_memory=1000 * memory.MB)
    gpu.allocated, gpu.reserved = 100 * memory.MB, 180 * memory.MB  # 80 MiB free in segments empty_cache keeps
    device = utils.get_device()
    assert device == torch.device("cuda") and device.index is None
    with pytest.raises(torch.OutOfMemoryError), memory.gpu_budget(device, 150 * memory.MB):
        assert gpu.called("emptyCache") == [()]  # the cache emptied first: cached blocks hold nothing
        # (100 MiB of live tensors + 150 MiB budget) / 1000 MiB, on GPU 0: the 80 MiB of free cache count as room
        assert gpu.called("setMemoryFraction") == [(0.25, 0)]
        raise torch.OutOfMemoryError("past the budget")
    assert gpu.called("setMemoryFraction") == [(0.25, 0), (1.0, 0)]  # lifted on the way out


def test_gpu_budget_past_the_whole_gpu_caps_at_all_of_it(monkeypatch: pytest.MonkeyPatch) -> None:
    gpu = FakeGpu(monkeypatch, total_memory=1000 * memory.MB)
    gpu.allocated = gpu.reserved = 900 * memory.MB
    with memory.gpu_budget(utils.get_device(), 500 * memory.MB):  # more than the GPU has left
        assert gpu.fraction == 1.0  # torch refuses a fraction above 1
    assert gpu.called("setMemoryFraction") == [(1.0, 0), (1.0, 0)]


def test_gpu_budget_caps_within_a_cap_already_set_and_puts_it_back(monkeypatch: pytest.MonkeyPatch) -> None:
    # A cap set before (tools/ci/gpu_check.sh's T4-like run sets one for 15 GB of 80) is never lifted or widened
    gpu = FakeGpu(monkeypatch, total_memory=1000 * memory.MB)
    gpu.allocated = gpu.reserved = 100 * memory.MB
    torch.cuda.set_per_process_memory_fraction(0.2, 0)  # 200 MiB
    with memory.gpu_budget(utils.get_device(), 50 * memory.MB):
        assert gpu.fraction == 0.15  # (100 + 50) / 1000: tighter than the cap, so the budget's
    assert gpu.fraction == 0.2
    with pytest.raises(torch.OutOfMemoryError), memory.gpu_budget(utils.get_device(), 500 * memory.MB):
        assert gpu.fraction == 0.2  # 600 MiB would widen it: the cap already set stays
        raise torch.OutOfMemoryError("past the cap")
    assert gpu.called("setMemoryFraction") == [(0.2, 0), (0.15, 0), (0.2, 0), (0.2, 0), (0.2, 0)]


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_gpu_budget_makes_a_real_gpu_run_out() -> None:
    gpu = utils.get_device()  # torch.device("cuda"), as notebook 10 passes it
    with memory.gpu_budget(gpu, 64 * memory.MB), pytest.raises(torch.OutOfMemoryError):
        torch.empty(256 * memory.MB, dtype=torch.uint8, device=gpu)
    after = torch.empty(256 * memory.MB, dtype=torch.uint8, device=gpu)  # the cap is lifted
    assert after.numel() == 256 * memory.MB


def test_draw_growth_draws_the_saved_bytes_and_the_parameters_in_mib() -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    memory.draw_growth(ax, [8, 16], [2 * memory.MB, 4 * memory.MB], memory.MB // 2, ("#0072B2", "#E69F00"),
                       ("activations", "parameters"))
    saved, params = ax.lines
    assert list(saved.get_xdata()) == [8, 16] and list(saved.get_ydata()) == [2.0, 4.0]
    assert list(params.get_ydata()) == [0.5, 0.5]
    assert (saved.get_marker(), saved.get_linestyle()) == ("o", "-")  # markers and line styles, not colour alone
    assert (params.get_marker(), params.get_linestyle()) == ("s", "--")
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["activations", "parameters"]
    plt.close(fig)
