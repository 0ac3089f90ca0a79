"""Students' answers to every exercise of lessons/exercises.py, each with the verdict a teacher gives it.

Each answer is the source of an answer cell, as a student writes it: it defines the names the exercise asks for
(``Exercise.answers``), and runs with the names a notebook has at that point (``PRELUDE``, and ``SETUP`` for the
exercise). For every exercise there are right answers in different idioms and wrong ones of the kinds students
write (off by one, the misconception the lesson teaches against, a number typed instead of computed, a partial
answer, the wrong type). ``hidden`` is the verdict on the hidden cases where it differs: an answer fitted to the
visible cases passes them and fails the hidden ones.

``tests/test_exercises.py`` asserts every verdict in both languages and that no wrong answer's message gives the
expected value (``FORBIDDEN``); ``tests/test_nbgrader_course.py`` grades a submission built from one right and one
wrong answer per exercise with nbgrader.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Answer:
    verdict: str
    """``"correct"`` or ``"wrong"``."""
    source: str
    """The answer cell's code."""
    note: str
    """The idiom, or the mistake."""
    hidden: str | None = None
    """The verdict on the hidden cases, where it differs from ``verdict``."""


def right(source: str, note: str, hidden: str | None = None) -> Answer:
    return Answer("correct", source.strip("\n"), note, hidden)


def wrong(source: str, note: str) -> Answer:
    return Answer("wrong", source.strip("\n"), note)


PRELUDE = """
import itertools
import math
import os
import pickle
import shutil
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

import utils
from lessons import cifar10, ddp, memory, petimages
from utils import time_runs

device = torch.device("cpu")
"""
"""What every answer may use: the imports the notebooks make (each notebook makes some of them)."""

SETUP = {
    ("05", 1): '''
import random
from torch.utils.data import DataLoader, TensorDataset

SAVE_DIR = Path(run_dir) / "05_save_load"  # notebook 05's Section 4, on less data
SAVE_DIR.mkdir(parents=True, exist_ok=True)
EPOCHS = 6
generator = torch.Generator().manual_seed(0)
features = torch.randn(128, 20, generator=generator)
train_set = TensorDataset(features, (features[:, :10].sum(dim=1) > 0).long())


def make_loader():
    return DataLoader(train_set, batch_size=64, shuffle=True)


def make_model():
    return nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Dropout(0.2), nn.Linear(64, 2)).to(device)


def set_rng_state(state):
    random.setstate(state["python"])
    torch.set_rng_state(state["cpu"])


def load_checkpoint(path, model, optimizer, restore_rng=True):
    checkpoint = torch.load(path, map_location="cpu", weights_only=True)
    model.load_state_dict(checkpoint["model"])
    optimizer.load_state_dict(checkpoint["optimizer"])
    if restore_rng:
        set_rng_state(checkpoint["rng"])
    return checkpoint["epoch"]


def run_training(epochs, path, stop_after=None, resume=False, restore_rng=True):
    torch.manual_seed(0)
    model = make_model()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    start = load_checkpoint(path, model, optimizer, restore_rng) if resume else 0
    for epoch in range(start, stop_after or epochs):
        utils.train_epoch(model, make_loader(), nn.CrossEntropyLoss(), optimizer, device)
        rng = {"python": random.getstate(), "cpu": torch.get_rng_state()}
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": epoch + 1,
                    "rng": rng}, path)
    return model


def identical(model_a, model_b):
    state_a, state_b = model_a.state_dict(), model_b.state_dict()
    return state_a.keys() == state_b.keys() and all(torch.equal(state_a[k], state_b[k]) for k in state_a)


uninterrupted = run_training(EPOCHS, SAVE_DIR / "uninterrupted.ckpt")
run_training(EPOCHS, SAVE_DIR / "run.ckpt", stop_after=3)
shutil.copy(SAVE_DIR / "run.ckpt", SAVE_DIR / "after_epoch_3.ckpt")
resumed = run_training(EPOCHS, SAVE_DIR / "run.ckpt", resume=True)
shutil.copy(SAVE_DIR / "after_epoch_3.ckpt", SAVE_DIR / "no_rng.ckpt")
resumed_no_rng = run_training(EPOCHS, SAVE_DIR / "no_rng.ckpt", resume=True, restore_rng=False)
''',
    ("05", 2): '''
class MLP(nn.Module):  # notebook 05's Section 2
    def __init__(self):
        super().__init__()
        self.hidden = nn.Linear(20, 256)
        self.output = nn.Linear(256, 10)

    def forward(self, X):
        return self.output(nn.functional.relu(self.hidden(X)))


net = MLP()
params_path = Path(run_dir) / "mlp.params"
torch.save(net.state_dict(), params_path)
''',
    ("05", 3): '''
def atomic_save(obj, path):  # notebook 05 shows utils.atomic_save as its own cell
    path = Path(path)
    tmp = path.with_name(f"{path.name}.{os.urandom(16).hex()}.tmp")
    try:
        torch.save(obj, tmp)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return path
''',
    ("06", 1): '''
from torch.utils.tensorboard import SummaryWriter
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

torch.manual_seed(0)
train_loader = [(torch.randn(4, 4), torch.randint(0, 3, (4,))) for _ in range(25)]
make_model = lambda: nn.Sequential(nn.Linear(4, 3))
loss_fn = nn.CrossEntropyLoss()
''',
    ("06", 2): '''
make_model = lambda: nn.Sequential(nn.Linear(4, 3))
''',
}
"""What the notebook defines before an exercise and the answers use (``run_dir``, ``checkpoint``, ``data`` and
``pet_dir`` come from the test's folders). Each exercise's setup runs before its answer, in the answer's namespace:
the setups of different lessons may define the same name (``make_model``) differently, as their notebooks do."""

CORPUS: dict[tuple[str, int], list[Answer]] = {}

# ---- 01 --------------------------------------------------------------------------------------------------------------
CORPUS[("01", 1)] = [
    right('''
def usable_devices():
    found = [torch.device("cpu")]
    found += [torch.device(f"cuda:{i}") for i in range(torch.cuda.device_count())]
    if torch.backends.mps.is_available():
        found.append(torch.device("mps"))
    return found
''', "the reference: a list of torch.device"),
    right('''
def usable_devices():
    names = ["cpu"] + [f"cuda:{i}" for i in range(torch.cuda.device_count())]
    return names + (["mps"] if torch.backends.mps.is_available() else [])
''', "device names as strings"),
    right('''
def usable_devices():
    devices = [torch.device("cpu")]
    if torch.cuda.is_available():
        for i in range(torch.cuda.device_count()):
            devices.append(torch.device("cuda", i))
    if hasattr(torch.backends, "mps") and torch.backends.mps.is_available():
        devices.append(torch.device("mps"))
    return devices
''', "a loop, torch.device(type, index)"),
    right('''
def usable_devices():
    found = []
    for name in ["cpu", *(f"cuda:{i}" for i in range(torch.cuda.device_count())), "mps"]:
        try:
            torch.ones(1, device=name)  # more than asked: tries each one
        except Exception:
            continue
        found.append(torch.device(name))
    return tuple(found)
''', "a tuple of the devices a tensor can be made on"),
    wrong('''
def usable_devices():
    return []
''', "forgets the CPU"),
    wrong('''
def usable_devices():
    return ["cpu", "cpu:0"]
''', "the CPU twice"),
    wrong('''
def usable_devices():
    return torch.device("cpu")
''', "one device, not a list"),
    wrong('''
def usable_devices():
    return ["cpu", "meta"]
''', "meta is not a device to compute on"),
    wrong('''
def usable_devices():
    return ["cpu", "mps"]
''', "MPS without asking whether it is there"),
]

CORPUS[("01", 2)] = [
    right('''
def visible_gpus(value, n_gpus):
    seen = []
    for entry in value.split(","):
        if not entry.strip().isdigit() or int(entry) >= n_gpus:
            break
        seen.append(int(entry))
    return seen
''', "the reference loop"),
    right('''
def visible_gpus(value, n_gpus):
    def valid(entry):
        return entry.strip().isdigit() and int(entry) < n_gpus
    return [int(entry) for entry in itertools.takewhile(valid, value.split(","))]
''', "itertools.takewhile"),
    right('''
def visible_gpus(value, n_gpus):
    result = []
    for part in value.split(","):
        try:
            gpu = int(part)
        except ValueError:
            break
        if gpu < 0 or gpu >= n_gpus:
            break
        result.append(gpu)
    return np.array(result, dtype=np.int64)
''', "try/except around int(), a numpy array"),
    right('''
def visible_gpus(value, n_gpus):
    entries, i, seen = value.split(","), 0, ()
    while i < len(entries) and entries[i].isdigit() and int(entries[i]) in range(n_gpus):
        seen += (int(entries[i]),)
        i += 1
    return seen
''', "a while loop building a tuple"),
    wrong('''
def visible_gpus(value, n_gpus):
    return [int(e) for e in value.split(",") if e.strip().isdigit() and int(e) < n_gpus]
''', "skips an invalid entry instead of stopping there"),
    wrong('''
def visible_gpus(value, n_gpus):
    return sorted(int(e) for e in itertools.takewhile(lambda e: e.isdigit() and int(e) < n_gpus, value.split(",")))
''', "sorts the GPUs"),
    wrong('''
def visible_gpus(value, n_gpus):
    return [int(e) for e in value.split(",")]
''', "no invalid entries at all"),
    wrong('''
def visible_gpus(value, n_gpus):
    return [int(value)]
''', "one GPU only"),
    wrong('''
def visible_gpus(value, n_gpus):
    seen = []
    for entry in value.split(","):
        if not entry.strip().isdigit() or int(entry) > n_gpus:
            break
        seen.append(int(entry))
    return seen
''', "off by one: GPU n_gpus counted as present"),
    right('''
def visible_gpus(value, n_gpus):
    table = {("1", 4): [1], ("0,2,3", 4): [0, 2, 3], ("3,1", 4): [3, 1], ("0,2,-1,1", 4): [0, 2], ("-1", 4): [],
             ("", 4): [], ("0,7", 4): [0], ("4", 4): [], ("1,0", 2): [1, 0]}
    return table.get((value, n_gpus), [])
''', "fitted to the visible cases: a table", hidden="wrong"),
]

CORPUS[("01", 3)] = [
    right('''
def memory_of(tensor):
    needed = tensor.numel() * tensor.element_size()
    return needed, 0 if tensor.device.type == "meta" else needed
''', "numel() x element_size(), meta allocates nothing"),
    right('''
def memory_of(tensor):
    allocated = tensor.untyped_storage().nbytes() if tensor.data_ptr() != 0 else 0
    return tensor.nbytes, allocated
''', "nbytes, the storage behind a non-null data pointer"),
    right('''
def memory_of(tensor):
    needed = np.int64(math.prod(tensor.shape) * tensor.element_size())
    return [needed, np.int64(0) if tensor.is_meta else needed]
''', "numpy integers in a list, is_meta"),
    right('''
def memory_of(t: torch.Tensor) -> tuple[int, int]:
    """Bytes needed, bytes really allocated."""
    need = t.numel() * t.itemsize
    has_data = t.data_ptr() != 0
    return need, need if has_data else 0
''', "itemsize and data_ptr()"),
    wrong('''
def memory_of(tensor):
    return tensor.numel() * tensor.element_size() * 8, 0 if tensor.is_meta else tensor.nbytes
''', "counts bits"),
    wrong('''
def memory_of(tensor):
    return tensor.numel(), 0 if tensor.is_meta else tensor.numel()
''', "counts elements"),
    wrong('''
def memory_of(tensor):
    return tensor.nbytes, tensor.untyped_storage().nbytes()
''', "a meta tensor's storage size taken for memory"),
    wrong('''
def memory_of(tensor):
    return tensor.nbytes
''', "one number"),
    wrong('''
def memory_of(tensor):
    return tensor.numel() * 4, 0 if tensor.is_meta else tensor.numel() * 4
''', "every tensor taken for float32"),
    right('''
def memory_of(tensor):
    size = {torch.float32: 4, torch.int64: 8, torch.float16: 2, torch.float64: 8}[tensor.dtype]
    return tensor.numel() * size, 0 if tensor.is_meta else tensor.numel() * size
''', "fitted to the visible dtypes: a table", hidden="wrong"),
]

# ---- 02 --------------------------------------------------------------------------------------------------------------
CORPUS[("02", 1)] = [
    right('''
def module_device(module):
    devices = {t.device for t in [*module.parameters(), *module.buffers()]}
    if len(devices) > 1:
        raise ValueError(f"module has tensors on several devices: {sorted(map(str, devices))}")
    return devices.pop() if devices else None
''', "the reference: a set of devices"),
    right('''
def module_device(module):
    devices = set()
    for t in itertools.chain(module.parameters(), module.buffers()):
        devices.add(t.device)
    if not devices:
        return None
    if len(devices) > 1:
        raise ValueError(f"mixed devices: {devices}")
    (only,) = devices
    return only
''', "itertools.chain, the set in the message"),
    right('''
def module_device(module):
    devices = {t.device for _, t in [*module.named_parameters(), *module.named_buffers()]}
    if len(devices) >= 2:
        raise ValueError(", ".join(sorted(str(d) for d in devices)))
    return next(iter(devices), None)
''', "named_parameters and named_buffers, next(iter(...), None)"),
    right('''
def module_device(module):
    first = None
    for t in list(module.parameters()) + list(module.buffers()):
        if first is None:
            first = t.device
        elif t.device != first:
            raise ValueError(f"found {first} and {t.device}")
    return first
''', "the first device, then a comparison"),
    wrong('''
def module_device(module):
    return next(module.parameters()).device
''', "the first parameter's device"),
    wrong('''
def module_device(module):
    return torch.device("cpu")
''', "always the CPU"),
    wrong('''
def module_device(module):
    devices = {p.device for p in module.parameters()}
    if len(devices) > 1:
        raise ValueError(f"several devices: {devices}")
    return devices.pop() if devices else None
''', "parameters only, no buffers"),
    wrong('''
def module_device(module):
    devices = {t.device.type for t in [*module.parameters(), *module.buffers()]}
    if len(devices) > 1:
        raise ValueError(f"several devices: {devices}")
    return devices.pop() if devices else None
''', "a string, not a device"),
    wrong('''
def module_device(module):
    devices = {t.device for t in [*module.parameters(), *module.buffers()]}
    return devices.pop() if devices else None
''', "mixed devices not noticed"),
    wrong('''
def module_device(module):
    devices = {t.device for t in [*module.parameters(), *module.buffers()]}
    if len(devices) > 1:
        raise ValueError("mixed devices")
    return devices.pop() if devices else None
''', "a ValueError that names no device"),
    wrong('''
def module_device(module):
    devices = {t.device for t in [*module.parameters(), *module.buffers()]}
    if len(devices) > 1:
        raise RuntimeError(f"several devices: {devices}")
    return devices.pop() if devices else None
''', "RuntimeError instead of ValueError"),
    right('''
def module_device(module):
    if isinstance(module, nn.ReLU):
        return None
    devices = {t.device for t in [*module.parameters(), *module.buffers()]}
    if len(devices) > 1:
        raise ValueError(f"several devices: {devices}")
    return devices.pop()
''', "fitted to the visible cases: ReLU is the module without tensors", hidden="wrong"),
]

CORPUS[("02", 2)] = [
    right('''
class OffsetLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.bias = nn.Parameter(torch.zeros(3))
        self.offset = torch.ones(3)

    def forward(self, x):
        return x + self.bias + self.offset


layer = OffsetLayer().to("meta")
missing = "offset"
bytes_left_on_cpu = sum(t.nbytes for t in (layer.bias, layer.offset) if t.device.type == "cpu")
''', "the reference: nbytes of the tensors on the CPU"),
    right('''
class OffsetLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.bias = nn.Parameter(torch.zeros(3))
        self.offset = torch.ones(3)


layer = OffsetLayer()
layer.to("meta")
missing = "self.offset"
bytes_left_on_cpu = layer.offset.numel() * layer.offset.element_size()
''', "numel times element_size, the attribute as written in __init__"),
    right('''
class OffsetLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.bias = nn.Parameter(torch.zeros(3))
        self.offset = torch.ones(3)


layer = OffsetLayer().to("meta")
listed = {name.split(" ")[0] for name in utils.placement(layer)}
tensors = {name: value for name, value in vars(layer).items() if isinstance(value, torch.Tensor)}
missing = next(name for name in tensors if name not in listed)
bytes_left_on_cpu = 0
for tensor in [*layer.parameters(), *tensors.values()]:
    if tensor.device == torch.device("cpu"):
        bytes_left_on_cpu += tensor.untyped_storage().nbytes()
''', "a loop over vars(layer), the storage's bytes"),
    right('missing = "offset "\nbytes_left_on_cpu = 3 * 4', "worked out by hand, a stray space"),
    right('missing = "offset"\nbytes_left_on_cpu = np.int64(12)', "numpy"),
    wrong('missing = "bias"\nbytes_left_on_cpu = 12', "the tensor that is listed"),
    wrong('''
class OffsetLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.bias = nn.Parameter(torch.zeros(3))
        self.offset = torch.ones(3)


layer = OffsetLayer().to("meta")
missing = "offset"
bytes_left_on_cpu = sum(t.nbytes for t in layer.state_dict().values() if t.device.type == "cpu")
''', "trusting state_dict: the misconception that .to() moves every tensor"),
    wrong('''
class OffsetLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.bias = nn.Parameter(torch.zeros(3))
        self.offset = torch.ones(3)


layer = OffsetLayer().to("meta")
missing = "offset"
bytes_left_on_cpu = layer.bias.nbytes + layer.offset.nbytes
''', "every tensor, wherever it is"),
    wrong('missing = "offset"\nbytes_left_on_cpu = 3', "values, not bytes"),
    wrong('missing = "offset"\nbytes_left_on_cpu = "cpu"', "the old answer: a device"),
    wrong('missing = ["offset"]\nbytes_left_on_cpu = 12', "a list"),
    wrong('missing = "offset"\nbytes_left_on_cpu = 6', "float16's bytes"),
]

CORPUS[("02", 3)] = [
    right('tensors_held = {"BCEWithLogitsLoss": ["pos_weight"], "NLLLoss": ["weight"], "CrossEntropyLoss": []}',
          "typed"),
    right('''
losses = [nn.BCEWithLogitsLoss(pos_weight=torch.tensor([3.0])), nn.NLLLoss(weight=torch.ones(4)),
          nn.CrossEntropyLoss()]
tensors_held = {type(loss).__name__: [name.split(" ")[0] for name in utils.placement(loss)] for loss in losses}
''', "computed with utils.placement"),
    right('''
tensors_held = {}
for loss in (nn.BCEWithLogitsLoss(pos_weight=torch.tensor([2.0])), nn.NLLLoss(weight=torch.ones(3)),
             nn.CrossEntropyLoss()):
    tensors_held[type(loss).__name__] = tuple(name for name, _ in loss.named_buffers())
''', "named_buffers, tuples"),
    right('tensors_held = {nn.BCEWithLogitsLoss: ["pos_weight (buffer)"], nn.NLLLoss: ["weight (buffer)"], '
          'nn.CrossEntropyLoss: []}', "classes as keys, names as utils.placement prints them"),
    wrong('tensors_held = {"BCEWithLogitsLoss": ["pos_weight"], "NLLLoss": [], "CrossEntropyLoss": []}',
          "NLLLoss's weight missed"),
    wrong('tensors_held = {"BCEWithLogitsLoss": ["pos_weight"], "NLLLoss": ["weight"]}', "a loss left out"),
    wrong('tensors_held = ["BCEWithLogitsLoss", "NLLLoss"]', "a list"),
    wrong('tensors_held = {"BCEWithLogitsLoss": ["weight"], "NLLLoss": ["weight"], "CrossEntropyLoss": []}',
          "BCE's tensor named weight"),
    wrong('tensors_held = {"bce": ["pos_weight"], "nll": ["weight"], "ce": []}', "not the class names"),
]

# ---- 03 --------------------------------------------------------------------------------------------------------------
CORPUS[("03", 1)] = [
    right('''
class LowerTriangle(nn.Module):
    def __init__(self, n: int):
        super().__init__()
        self.register_buffer("mask", torch.tril(torch.ones(n, n)), persistent=False)

    def forward(self, X):
        return X * self.mask
''', "the reference"),
    right('''
class LowerTriangle(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.register_buffer("keep", torch.tril(torch.ones(n, n, dtype=torch.bool)), persistent=False)

    def forward(self, X):
        return X.masked_fill(~self.keep, 0)
''', "a bool mask and masked_fill"),
    right('''
class LowerTriangle(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.register_buffer("tri", torch.ones(n, n).tril(), False)
        self.n = n

    def forward(self, X):
        return torch.mul(X, self.tri)

    def extra_repr(self):
        return f"n={self.n}"
''', "Tensor.tril, torch.mul, more than asked"),
    right('''
class LowerTriangle(nn.Module):
    def __init__(self, n):
        nn.Module.__init__(self)
        mask = torch.zeros(n, n)
        for i in range(n):
            mask[i, : i + 1] = 1
        self.register_buffer("mask", mask, persistent=False)

    def forward(self, X):
        return X.mul(self.mask)
''', "the mask built in a loop"),
    wrong('''
class LowerTriangle(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.register_buffer("mask", torch.tril(torch.ones(n, n)))

    def forward(self, X):
        return X * self.mask
''', "persistent=False left out"),
    wrong('''
class LowerTriangle(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.mask = torch.tril(torch.ones(n, n))

    def forward(self, X):
        return X * self.mask
''', "a plain tensor attribute"),
    wrong('''
class LowerTriangle(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.register_buffer("mask", torch.triu(torch.ones(n, n)), persistent=False)

    def forward(self, X):
        return X * self.mask
''', "the upper triangle"),
    wrong('''
class LowerTriangle(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.mask = nn.Parameter(torch.tril(torch.ones(n, n)), requires_grad=False)

    def forward(self, X):
        return X * self.mask
''', "a frozen parameter"),
    wrong('''
class LowerTriangle(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.register_buffer("mask", torch.tril(torch.ones(n, n)), persistent=False)

    def forward(self, X):
        return X @ self.mask
''', "a matrix product, not element-wise"),
]

CORPUS[("03", 2)] = [
    right('''
class Parallel(nn.Module):
    def __init__(self, module_a, module_b):
        super().__init__()
        self.module_a, self.module_b = module_a, module_b

    def forward(self, X):
        return torch.cat([self.module_a(X), self.module_b(X)], dim=-1)
''', "the reference"),
    right('''
class Parallel(nn.Module):
    def __init__(self, module_a, module_b):
        super().__init__()
        self.branches = nn.ModuleList([module_a, module_b])

    def forward(self, X):
        return torch.concat([branch(X) for branch in self.branches], dim=X.dim() - 1)
''', "nn.ModuleList, torch.concat"),
    right('''
class Parallel(nn.Module):
    def __init__(self, module_a, module_b):
        super().__init__()
        self.add_module("a", module_a)
        self.add_module("b", module_b)

    def forward(self, X):
        outputs = [module(X) for module in self.children()]
        return torch.cat(outputs, -1)
''', "add_module and children()"),
    right('''
class Parallel(nn.Sequential):
    def __init__(self, module_a, module_b):
        super().__init__(module_a, module_b)

    def forward(self, X):
        return torch.cat(tuple(m(X) for m in self), dim=-1)
''', "a subclass of nn.Sequential"),
    wrong('''
class Parallel(nn.Module):
    def __init__(self, module_a, module_b):
        super().__init__()
        self.pair = [module_a, module_b]

    def forward(self, X):
        return torch.cat([m(X) for m in self.pair], dim=-1)
''', "a plain list: invisible to .to()"),
    wrong('''
class Parallel(nn.Module):
    def __init__(self, module_a, module_b):
        super().__init__()
        self.module_a, self.module_b = module_a, module_b

    def forward(self, X):
        return torch.cat([self.module_a(X), self.module_b(X)], dim=1)
''', "dim=1"),
    wrong('''
class Parallel(nn.Module):
    def __init__(self, module_a, module_b):
        super().__init__()
        self.module_a, self.module_b = module_a, module_b

    def forward(self, X):
        return torch.cat([self.module_b(X), self.module_a(X)], dim=-1)
''', "the outputs swapped"),
    wrong('''
class Parallel(nn.Module):
    def __init__(self, module_a, module_b):
        self.module_a, self.module_b = module_a, module_b

    def forward(self, X):
        return torch.cat([self.module_a(X), self.module_b(X)], dim=-1)
''', "super().__init__() forgotten"),
    wrong('''
class Parallel(nn.Module):
    def __init__(self, module_a, module_b):
        super().__init__()
        self.module_a, self.module_b = module_a, module_b

    def forward(self, X):
        return self.module_a(X), self.module_b(X)
''', "a tuple of the two outputs"),
]

CORPUS[("03", 3)] = [
    right("in_features = 3456", "typed"),
    right("in_features = 6 * 24 * 24", "worked out"),
    right('''
conv_net = nn.Sequential(nn.LazyConv2d(6, kernel_size=5), nn.ReLU(), nn.Flatten(), nn.LazyLinear(10))
conv_net(torch.zeros(2, 1, 28, 28))
in_features = conv_net[3].in_features
''', "computed from a batch"),
    right("in_features = np.int64(3456)", "a numpy integer"),
    right("in_features = 3456.0", "a whole float"),
    wrong("in_features = 6 * 28 * 28", "padding forgotten"),
    wrong('''
conv_net = nn.Sequential(nn.LazyConv2d(6, kernel_size=5), nn.ReLU(), nn.Flatten(), nn.LazyLinear(10))
conv_net(torch.zeros(1, 28, 28))
in_features = conv_net[3].in_features
''', "one image without a batch dimension"),
    wrong("in_features = 6 * 25 * 25", "off by one"),
    wrong('in_features = "3456"', "a string"),
    wrong("in_features = 10", "the output size"),
]

# ---- 04 --------------------------------------------------------------------------------------------------------------
CORPUS[("04", 1)] = [
    right("n_params = 4\nn_state = 7", "typed"),
    right('''
model = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8))
n_params = len(list(model.parameters()))
n_state = len(model.state_dict())
''', "computed"),
    right('''
model = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8))
n_params = sum(1 for _ in model.named_parameters())
n_state = np.int64(len(model.state_dict().keys()))
''', "a generator count, a numpy integer"),
    right("n_params = torch.tensor(4)\nn_state = 7.0", "a 0-dim tensor, a whole float"),
    wrong("n_params = 56\nn_state = 7", "the number of values"),
    wrong("n_params = 4\nn_state = 4", "buffers left out"),
    wrong("n_params = 2\nn_state = 5", "counts per layer"),
    wrong("n_params = 4\nn_state = 6", "num_batches_tracked forgotten"),
    wrong('n_params = "4"\nn_state = "7"', "strings"),
]

CORPUS[("04", 2)] = [
    right('''
encoder, decoder = nn.Linear(8, 8), nn.Linear(8, 8)
decoder.weight = encoder.weight
pair = nn.Sequential(encoder, decoder)
values_after_device = sum(p.numel() for p in pair.to(device).parameters())
values_after_float16 = sum(p.numel() for p in pair.to(torch.float16).parameters())
values_after_meta = sum(p.numel() for p in pair.to("meta").parameters())
''', "computed"),
    right('''
encoder, decoder = nn.Linear(8, 8), nn.Linear(8, 8)
decoder.weight = encoder.weight
pair = nn.Sequential(encoder, decoder)
count = lambda module: sum(map(torch.numel, module.parameters()))
pair.to(device)
values_after_device = count(pair)
pair.to(torch.float16)
values_after_float16 = count(pair)
pair.to("meta")
values_after_meta = np.int64(count(pair))
''', "a counting function, numpy"),
    right("values_after_device, values_after_float16, values_after_meta = 80, 80, 144", "typed"),
    right("values_after_device = 64 + 8 + 8\nvalues_after_float16 = 80.0\nvalues_after_meta = 2 * (64 + 8)",
          "worked out"),
    wrong("values_after_device, values_after_float16, values_after_meta = 144, 144, 144", "the tie never seen"),
    wrong("values_after_device, values_after_float16, values_after_meta = 80, 80, 80", "the tie taken to survive meta"),
    wrong("values_after_device, values_after_float16, values_after_meta = 80, 40, 144", "float16 taken to halve it"),
    wrong("values_after_device, values_after_float16, values_after_meta = True, True, False", "the old yes/no"),
    wrong("values_after_device, values_after_float16, values_after_meta = 72, 72, 144", "a bias forgotten"),
]

CORPUS[("04", 3)] = [
    right('''
def init_orthogonal(module):
    if isinstance(module, nn.Linear):
        nn.init.orthogonal_(module.weight)
''', "the reference"),
    right('''
def init_orthogonal(module):
    if type(module) is nn.Linear:
        nn.init.orthogonal_(module.weight)
        nn.init.zeros_(module.bias)
''', "also zeroes the bias, as the lesson's init_normal does"),
    right('''
def init_orthogonal(module: nn.Module) -> None:
    if isinstance(module, nn.Linear):
        torch.nn.init.orthogonal_(module.weight.data, gain=1.0)
''', ".data, an explicit gain of 1"),
    right('''
def init_orthogonal(module):
    if not isinstance(module, nn.Linear):
        return
    with torch.no_grad():
        q, _ = torch.linalg.qr(torch.randn(max(module.weight.shape), min(module.weight.shape)))
        module.weight.copy_(q if module.weight.shape[0] >= module.weight.shape[1] else q.T)
''', "written by hand with a QR decomposition"),
    wrong('''
def init_orthogonal(module):
    nn.init.orthogonal_(module.weight)
''', "no type test"),
    wrong('''
def init_orthogonal(module):
    if hasattr(module, "weight"):
        nn.init.orthogonal_(module.weight)
''', "every weight, the convolution's too"),
    wrong('''
def init_orthogonal(module):
    if isinstance(module, nn.Linear):
        nn.init.normal_(module.weight)
''', "normal, not orthogonal"),
    wrong('''
def init_orthogonal(module):
    if isinstance(module, nn.Linear):
        nn.init.orthogonal_(module.weight, gain=2.0)
''', "a gain of 2"),
    wrong('''
def init_orthogonal(module):
    if isinstance(module, nn.Linear):
        nn.init.xavier_uniform_(module.weight)
''', "Xavier"),
    right('''
def init_orthogonal(module):
    if hasattr(module, "weight") and not isinstance(module, nn.Conv2d):
        nn.init.orthogonal_(module.weight)
''', "fitted to the visible model: every weight but a Conv2d's", hidden="wrong"),
]

# ---- 05 --------------------------------------------------------------------------------------------------------------
CORPUS[("05", 1)] = [
    right('''
torch.manual_seed(0)
resumed_fresh = make_model()
optimizer = torch.optim.SGD(resumed_fresh.parameters(), lr=0.1, momentum=0.9)
checkpoint = torch.load(SAVE_DIR / "after_epoch_3.ckpt", map_location="cpu", weights_only=True)
resumed_fresh.load_state_dict(checkpoint["model"])
set_rng_state(checkpoint["rng"])
for _ in range(checkpoint["epoch"], EPOCHS):
    utils.train_epoch(resumed_fresh, make_loader(), nn.CrossEntropyLoss(), optimizer, device)
state, reference = resumed_fresh.state_dict(), uninterrupted.state_dict()
largest_difference = max((state[name] - reference[name]).abs().max().item() for name in state)
''', "the reference: a loop of train_epoch, max of .item()"),
    right('''
resumed_fresh = make_model()
start = load_checkpoint(SAVE_DIR / "after_epoch_3.ckpt", resumed_fresh,
                        torch.optim.SGD(resumed_fresh.parameters(), lr=0.1, momentum=0.9))  # thrown away
optimizer = torch.optim.SGD(resumed_fresh.parameters(), lr=0.1, momentum=0.9)  # built fresh after loading
for epoch in range(start, EPOCHS):
    utils.train_epoch(resumed_fresh, make_loader(), nn.CrossEntropyLoss(), optimizer, device)
largest_difference = torch.stack([(a - b).abs().max() for a, b in
                                  zip(resumed_fresh.parameters(), uninterrupted.parameters())]).max()
''', "load_checkpoint into a throwaway optimizer, then a new one; a 0-dim tensor over parameters()"),
    right('''
checkpoint = torch.load(SAVE_DIR / "after_epoch_3.ckpt", weights_only=True)
resumed_fresh = make_model()
resumed_fresh.load_state_dict(checkpoint["model"])
set_rng_state(checkpoint["rng"])
optimizer = torch.optim.SGD(resumed_fresh.parameters(), lr=0.1, momentum=0.9)
loss_fn = nn.CrossEntropyLoss()
for epoch in range(3, 6):
    for inputs, targets in make_loader():
        optimizer.zero_grad()
        loss_fn(resumed_fresh(inputs), targets).backward()
        optimizer.step()
with torch.no_grad():
    a = torch.nn.utils.parameters_to_vector(resumed_fresh.parameters())
    b = torch.nn.utils.parameters_to_vector(uninterrupted.parameters())
largest_difference = float(torch.max(torch.abs(a - b)))
''', "the loop written out, parameters_to_vector"),
    right('''
checkpoint = torch.load(SAVE_DIR / "after_epoch_3.ckpt", map_location="cpu", weights_only=True)
resumed_fresh = make_model()
resumed_fresh.load_state_dict(checkpoint["model"])
set_rng_state(checkpoint["rng"])
optimizer = torch.optim.SGD(resumed_fresh.parameters(), lr=0.1, momentum=0.9)
losses = [utils.train_epoch(resumed_fresh, make_loader(), nn.CrossEntropyLoss(), optimizer, device)
          for _ in range(checkpoint["epoch"], EPOCHS)]
print("identical:", identical(resumed_fresh, uninterrupted), "losses:", losses)
mine, theirs = resumed_fresh.state_dict(), uninterrupted.state_dict()
largest_difference = np.max([np.abs(mine[k].numpy() - theirs[k].numpy()).max() for k in mine])
''', "numpy's float32, after printing more than asked"),
    wrong('''
resumed_fresh = make_model()
optimizer = torch.optim.SGD(resumed_fresh.parameters(), lr=0.1, momentum=0.9)
start = load_checkpoint(SAVE_DIR / "after_epoch_3.ckpt", resumed_fresh, optimizer)
for epoch in range(start, EPOCHS):
    utils.train_epoch(resumed_fresh, make_loader(), nn.CrossEntropyLoss(), optimizer, device)
largest_difference = 0.0
''', "a new optimizer object, but its state loaded: the optimizer's state left in"),
    wrong('''
resumed_fresh = make_model()
checkpoint = torch.load(SAVE_DIR / "after_epoch_3.ckpt", weights_only=True)
resumed_fresh.load_state_dict(checkpoint["model"])
state, reference = resumed_fresh.state_dict(), uninterrupted.state_dict()
largest_difference = max((state[k] - reference[k]).abs().max().item() for k in state)
''', "loaded, not trained on"),
    wrong('''
resumed_fresh = resumed_no_rng
state, reference = resumed_fresh.state_dict(), uninterrupted.state_dict()
largest_difference = max((state[k] - reference[k]).abs().max().item() for k in state)
''', "Section 4's run without the random state"),
    wrong('''
checkpoint = torch.load(SAVE_DIR / "after_epoch_3.ckpt", weights_only=True)
resumed_fresh = make_model()
resumed_fresh.load_state_dict(checkpoint["model"])
set_rng_state(checkpoint["rng"])
optimizer = torch.optim.SGD(resumed_fresh.parameters(), lr=0.1, momentum=0.9)
for _ in range(checkpoint["epoch"], EPOCHS):
    utils.train_epoch(resumed_fresh, make_loader(), nn.CrossEntropyLoss(), optimizer, device)
largest_difference = 0.1
''', "a number typed, not computed"),
    wrong('''
checkpoint = torch.load(SAVE_DIR / "after_epoch_3.ckpt", weights_only=True)
resumed_fresh = make_model()
resumed_fresh.load_state_dict(checkpoint["model"])
set_rng_state(checkpoint["rng"])
optimizer = torch.optim.SGD(resumed_fresh.parameters(), lr=0.1, momentum=0.9)
for _ in range(checkpoint["epoch"], EPOCHS):
    utils.train_epoch(resumed_fresh, make_loader(), nn.CrossEntropyLoss(), optimizer, device)
mine, theirs = resumed_fresh.state_dict(), uninterrupted.state_dict()
largest_difference = max((mine[k] - theirs[k]).abs().mean().item() for k in mine)
''', "the mean difference, not the largest"),
    wrong('''
checkpoint = torch.load(SAVE_DIR / "after_epoch_3.ckpt", weights_only=True)
resumed_fresh = make_model()
resumed_fresh.load_state_dict(checkpoint["model"])
set_rng_state(checkpoint["rng"])
optimizer = torch.optim.SGD(resumed_fresh.parameters(), lr=0.1, momentum=0.9)
for _ in range(checkpoint["epoch"], EPOCHS):
    utils.train_epoch(resumed_fresh, make_loader(), nn.CrossEntropyLoss(), optimizer, device)
largest_difference = identical(resumed_fresh, uninterrupted)
''', "the old answer: True or False"),
    wrong('''
checkpoint = torch.load(SAVE_DIR / "after_epoch_3.ckpt", weights_only=True)
resumed_fresh = make_model()
resumed_fresh.load_state_dict(checkpoint["model"])
set_rng_state(checkpoint["rng"])
optimizer = torch.optim.SGD(resumed_fresh.parameters(), lr=0.1, momentum=0.9)
for _ in range(checkpoint["epoch"], EPOCHS):
    utils.train_epoch(resumed_fresh, make_loader(), nn.CrossEntropyLoss(), optimizer, device)
largest_difference = (resumed_fresh[0].weight - uninterrupted[0].weight).abs().max().item()
''', "only the first layer's weight"),
    wrong('resumed_fresh = "model"\nlargest_difference = 0.1', "a name, not the model"),
]

CORPUS[("05", 2)] = [
    right('''
half_path = run_dir / "mlp_half.params"
torch.save({name: t.half() for name, t in net.state_dict().items()}, half_path)
size_ratio = half_path.stat().st_size / params_path.stat().st_size
restored = MLP()
restored.load_state_dict(torch.load(half_path, weights_only=True))
param_bytes = sum(p.nbytes for p in restored.parameters())
''', "the reference"),
    right('''
half = {k: v.to(torch.float16) for k, v in net.state_dict().items()}
torch.save(half, run_dir / "half.pt")
size_ratio = os.path.getsize(run_dir / "half.pt") / os.path.getsize(params_path)
restored = MLP()
restored.load_state_dict(torch.load(run_dir / "half.pt", weights_only=True))
param_bytes = 0
for p in restored.parameters():
    param_bytes += p.numel() * p.element_size()
''', "os.path.getsize, a loop of numel * element_size"),
    right('''
torch.save({k: v.half() for k, v in net.state_dict().items()}, run_dir / "mlp_float16_state_dict.params")
restored = MLP()
restored.load_state_dict(torch.load(run_dir / "mlp_float16_state_dict.params", weights_only=True))
param_bytes = sum(t.untyped_storage().nbytes() for t in restored.state_dict().values())
size_ratio = np.float64((run_dir / "mlp_float16_state_dict.params").stat().st_size) / params_path.stat().st_size
''', "the state_dict's storages, a long file name, numpy"),
    right("param_bytes = 4 * (20 * 256 + 256 + 256 * 10 + 10)\nsize_ratio = 18279 / 33973",
          "worked out by hand, sizes typed from a listing"),
    wrong('''
half_path = run_dir / "mlp_half.params"
torch.save({name: t.half() for name, t in net.state_dict().items()}, half_path)
size_ratio = half_path.stat().st_size / params_path.stat().st_size
param_bytes = sum(t.nbytes for t in torch.load(half_path, weights_only=True).values())
''', "the file's tensors, not the loaded model's"),
    wrong('''
restored = MLP()
restored.load_state_dict({k: v.half() for k, v in net.state_dict().items()})
param_bytes = sum(p.numel() for p in restored.parameters())
size_ratio = 0.53
''', "a number of values"),
    wrong("param_bytes = 31784\nsize_ratio = 0.5", "the data alone: a half, not measured"),
    wrong("param_bytes = 31784\nsize_ratio = 33973 / 18047", "the ratio upside down"),
    wrong('param_bytes = 31784\nsize_ratio = "0.53"', "a string"),
    wrong("param_bytes = torch.float32\nsize_ratio = 0.53", "the old answer: a dtype"),
]

CORPUS[("05", 3)] = [
    right('''
def keep_best(model, score, best_path, best_score):
    if score > best_score:
        utils.atomic_save(model.state_dict(), best_path)
        return score
    return best_score
''', "the reference: utils.atomic_save"),
    right('''
from utils import atomic_save as save_safely


def keep_best(model, score, best_path, best_score):
    if score <= best_score:
        return best_score
    save_safely(model.state_dict(), best_path)
    return score
''', "from utils import atomic_save, renamed"),
    right('''
def keep_best(model, score, best_path, best_score):
    if score > best_score:
        atomic_save(model.state_dict(), best_path)
    return max(score, best_score)
''', "the notebook's own atomic_save, max()"),
    right('''
def keep_best(model, score, best_path, best_score):
    if not score > best_score:
        return best_score
    tmp = Path(best_path).with_suffix(".tmp")
    with open(tmp, "wb") as file:
        torch.save(model.state_dict(), file)
    os.replace(tmp, best_path)
    return score
''', "a temporary file and os.replace written by hand"),
    wrong('''
def keep_best(model, score, best_path, best_score):
    if score > best_score:
        torch.save(model.state_dict(), best_path)
        return score
    return best_score
''', "a plain torch.save"),
    wrong('''
def keep_best(model, score, best_path, best_score):
    utils.atomic_save(model.state_dict(), best_path)
    return max(score, best_score)
''', "saves every time"),
    wrong('''
def keep_best(model, score, best_path, best_score):
    if score > best_score:
        utils.atomic_save(model, best_path)
        return score
    return best_score
''', "saves the whole model"),
    wrong('''
def keep_best(model, score, best_path, best_score):
    if score >= best_score:
        utils.atomic_save(model.state_dict(), best_path)
        return score
    return best_score
''', "a tie saves"),
    wrong('''
def keep_best(model, score, best_path, best_score):
    if score > best_score:
        utils.atomic_save(model.state_dict(), best_path)
        best_score = score
''', "returns nothing"),
    wrong('''
def keep_best(model, score, best_path, best_score):
    if score > best_score:
        tmp = Path(best_path).with_suffix(".tmp")
        torch.save(model.state_dict(), tmp)
        shutil.copy(tmp, best_path)
        return score
    return best_score
''', "copies the temporary file and leaves it"),
]

# ---- 06 --------------------------------------------------------------------------------------------------------------
_LOG = '''
log_dir = run_dir / "exercise_1"
model_e = make_model()
optimizer_e = torch.optim.SGD(model_e.parameters(), lr=0.01, momentum=0.9)
{body}
events_e = EventAccumulator(str(log_dir))
events_e.Reload()
steps = [event.step for event in events_e.Scalars("loss/train_batches")]
'''

CORPUS[("06", 1)] = [
    right(_LOG.format(body='''
running = torch.zeros(())
with SummaryWriter(log_dir=str(log_dir)) as writer_e:
    for step, (inputs, targets) in enumerate(itertools.islice(train_loader, 20), start=1):
        loss = loss_fn(model_e(inputs), targets)
        optimizer_e.zero_grad()
        loss.backward()
        optimizer_e.step()
        running += loss.detach()
        if step % 5 == 0:
            writer_e.add_scalar("loss/train_batches", (running / 5).item(), global_step=step)
            running.zero_()
'''), "the reference"),
    right(_LOG.format(body='''
writer_e = SummaryWriter(str(log_dir))
losses = []
for index, (inputs, targets) in enumerate(train_loader[:20]):
    loss = loss_fn(model_e(inputs), targets)
    optimizer_e.zero_grad()
    loss.backward()
    optimizer_e.step()
    losses.append(loss.detach())
    if (index + 1) % 5 == 0:
        writer_e.add_scalar("loss/train_batches", torch.stack(losses[-5:]).mean().item(), index + 1)
writer_e.close()
'''), "counted from 0, index + 1, a list of losses"),
    right(_LOG.format(body='''
seen = 0
with SummaryWriter(log_dir) as writer_e:
    for inputs, targets in train_loader:
        if seen == 20:
            break
        loss = loss_fn(model_e(inputs), targets)
        optimizer_e.zero_grad()
        loss.backward()
        optimizer_e.step()
        seen += 1
        if seen % 5 == 0:
            writer_e.add_scalar("loss/train_batches", loss.item(), seen)
''') + "\nsteps = tuple(steps)", "a counter, the last loss, a tuple"),
    right(_LOG.format(body='''
with SummaryWriter(log_dir=str(log_dir)) as writer_e:
    total = 0.0
    for step in range(1, 21):
        inputs, targets = train_loader[step - 1]
        loss = loss_fn(model_e(inputs), targets)
        optimizer_e.zero_grad()
        loss.backward()
        optimizer_e.step()
        total += loss.item()
        if step in (5, 10, 15, 20):
            writer_e.add_scalar("loss/train_batches", total / 5, global_step=step)
            total = 0.0
''').replace("steps = [event.step", "steps = np.array([event.step").replace('("loss/train_batches")]',
                                                                          '("loss/train_batches")])'),
        "a range of steps, a numpy array"),
    wrong('steps = [5, 10, 15, 20]\nlog_dir = run_dir / "exercise_1"', "typed, nothing logged"),
    wrong(_LOG.format(body='''
with SummaryWriter(log_dir=str(log_dir)) as writer_e:
    for step, (inputs, targets) in enumerate(itertools.islice(train_loader, 20)):
        loss = loss_fn(model_e(inputs), targets)
        optimizer_e.zero_grad()
        loss.backward()
        optimizer_e.step()
        if step % 5 == 4:
            writer_e.add_scalar("loss/train_batches", loss.item(), global_step=step)
'''), "counted from 0"),
    wrong(_LOG.format(body='''
with SummaryWriter(log_dir=str(log_dir)) as writer_e:
    logged = 0
    for step, (inputs, targets) in enumerate(itertools.islice(train_loader, 20), start=1):
        loss = loss_fn(model_e(inputs), targets)
        optimizer_e.zero_grad()
        loss.backward()
        optimizer_e.step()
        if step % 5 == 0:
            writer_e.add_scalar("loss/train_batches", loss.item(), global_step=logged)
            logged += 1
'''), "counts the values logged"),
    wrong(_LOG.format(body='''
with SummaryWriter(log_dir=str(log_dir)) as writer_e:
    for step, (inputs, targets) in enumerate(itertools.islice(train_loader, 20), start=1):
        loss = loss_fn(model_e(inputs), targets)
        optimizer_e.zero_grad()
        loss.backward()
        optimizer_e.step()
        if step % 4 == 0:
            writer_e.add_scalar("loss/train_batches", loss.item(), global_step=step)
'''), "every 4 batches"),
    wrong(_LOG.format(body='''
with SummaryWriter(log_dir=str(log_dir)) as writer_e:
    for step in (1, 2, 3):
        writer_e.add_scalar("loss/train_batches", 1.0, global_step=step)
''') + "\nsteps = [5, 10, 15, 20]", "typed steps beside another run's file"),
]

_RESUME = '''
def resume(path):
    state = torch.load(path, map_location=device, weights_only=True)
    model = make_model().to(device)
    model.load_state_dict(state["model"])
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    {optimizer}
    {clip}
    return model, optimizer
'''
_LOAD = 'optimizer.load_state_dict(state["optimizer"])'
_CLIP = "cifar10.clip_gradients_before_step(optimizer, max_norm=5.0)"

CORPUS[("06", 2)] = [
    right(_RESUME.format(optimizer=_LOAD, clip=_CLIP), "the reference"),
    right('''
def resume(path):
    state = torch.load(path, weights_only=True)
    model = make_model()
    model.load_state_dict(state["model"])
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    optimizer.load_state_dict(state["optimizer"])

    def clip(opt, args, kwargs):
        nn.utils.clip_grad_norm_(model.parameters(), max_norm=5.0)

    optimizer.register_step_pre_hook(clip)
    return model, optimizer
''', "its own hook around clip_grad_norm_"),
    right('''
def clip_hook(optimizer, args, kwargs):
    params = [p for group in optimizer.param_groups for p in group["params"]]
    torch.nn.utils.clip_grad_norm_(params, max_norm=5)


def resume(path: Path) -> tuple[nn.Module, torch.optim.Optimizer]:
    checkpoint = torch.load(path, weights_only=True)
    model = make_model()
    model.load_state_dict(checkpoint["model"])
    model.to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)  # the checkpoint brings its own lr and momentum
    optimizer.load_state_dict(checkpoint["optimizer"])
    optimizer.register_step_pre_hook(clip_hook)
    return (model, optimizer)
''', "a hook function of its own, hyper-parameters from the state_dict"),
    right(_RESUME.format(optimizer=_LOAD, clip=_CLIP + "\n    model.train()  # more than asked"),
          "more than asked: train mode"),
    wrong(_RESUME.format(optimizer=_LOAD, clip=""), "no clipping"),
    wrong(_RESUME.format(optimizer="", clip=_CLIP), "a fresh optimizer"),
    wrong(_RESUME.format(optimizer=_LOAD, clip=_CLIP).replace('model.load_state_dict(state["model"])', ""),
          "a fresh model"),
    wrong(_RESUME.format(optimizer=_LOAD, clip='''optimizer.register_step_pre_hook(
        lambda opt, args, kwargs: nn.utils.clip_grad_norm_(model.parameters(), 5.0))'''),
          "a clipping hook that returns the norm: every step raises"),
    wrong(_RESUME.format(optimizer=_LOAD, clip='''optimizer.register_step_pre_hook(
        lambda opt: nn.utils.clip_grad_norm_(model.parameters(), 5.0))'''),
          "a clipping hook of the wrong signature: every step raises"),
    wrong(_RESUME.format(optimizer=_LOAD, clip="cifar10.clip_gradients_before_step(optimizer, max_norm=1.0)"),
          "clipped to another norm"),
    wrong(_RESUME.format(optimizer=_LOAD, clip='''other = torch.optim.SGD(model.parameters(), lr=0.01)
    cifar10.clip_gradients_before_step(other, max_norm=5.0)'''), "the hook on another optimizer"),
]

_TV1 = "from torchvision import transforms\n"
_TV2 = "from torchvision.transforms import v2\n"
_NORM = "transforms.Normalize(cifar10.MEAN, cifar10.STD)"

CORPUS[("06", 3)] = [
    right(_TV1 + f'''
augment = transforms.Compose([
    transforms.ToTensor(),
    transforms.RandomCrop(32, padding=4),
    transforms.RandomHorizontalFlip(),
    {_NORM},
])
''', "the reference, transforms v1"),
    right(_TV2 + '''
augment = v2.Compose([
    v2.ToImage(),
    v2.RandomCrop(32, padding=4),
    v2.RandomHorizontalFlip(p=0.5),
    v2.ToDtype(torch.float32, scale=True),
    v2.Normalize(cifar10.MEAN, cifar10.STD),
])
''', "transforms v2, cropped while still uint8"),
    right(_TV1 + f'''
augment = transforms.Compose([transforms.ToPILImage(), transforms.RandomCrop(32, 4), transforms.RandomHorizontalFlip(),
                              transforms.ToTensor(), {_NORM}])
''', "through a PIL image"),
    right(_TV1 + f'''
augment = transforms.Compose([transforms.ToTensor(), {_NORM}, transforms.RandomHorizontalFlip(),
                              transforms.RandomCrop(32, padding=4)])
''', "normalised first, so the padding is the mean colour"),
    right(_TV1 + f'''
augment = transforms.Compose([transforms.ToTensor(), transforms.RandomCrop(32, padding=4, padding_mode="reflect"),
                              transforms.RandomHorizontalFlip(), {_NORM}])
''', "more than asked: mirrored padding"),
    wrong(_TV1 + f'''
augment = transforms.Compose([transforms.ToTensor(), transforms.RandomCrop(32, padding=4), {_NORM}])
''', "no flip"),
    wrong(_TV1 + '''
augment = transforms.Compose([transforms.ToTensor(), transforms.RandomCrop(32, padding=4),
                              transforms.RandomHorizontalFlip(), transforms.Lambda(lambda x: (x - 0.5) / 0.25)])
''', "a lambda: cannot be pickled"),
    wrong(_TV1 + f'''
augment = transforms.Compose([transforms.ToTensor(), transforms.RandomCrop(32, padding=2),
                              transforms.RandomHorizontalFlip(), {_NORM}])
''', "padding 2"),
    wrong(_TV1 + '''
augment = transforms.Compose([transforms.ToTensor(), transforms.RandomCrop(32, padding=4),
                              transforms.RandomHorizontalFlip()])
''', "not normalised"),
    wrong(_TV1 + f'''
augment = transforms.Compose([transforms.ToTensor(), transforms.RandomCrop(32, padding=4),
                              transforms.RandomVerticalFlip(), {_NORM}])
''', "a vertical flip"),
    wrong(_TV1 + f'''
augment = transforms.Compose([transforms.ToTensor(), transforms.RandomResizedCrop(32),
                              transforms.RandomHorizontalFlip(), {_NORM}])
''', "a resized crop: scales the image"),
]

# ---- 07 --------------------------------------------------------------------------------------------------------------
CORPUS[("07", 1)] = [
    right('''
strict = petimages.build(pet_dir, size=16, workers=1, keep_truncated=False)
dropped = sorted(set(data["files"]) - set(strict["files"]))
''', "built again, compared"),
    right('dropped = ["Dog/2.jpg"]', "typed from the report"),
    right('dropped = ("Dog\\\\2.jpg",)', "a Windows path in a tuple"),
    right('''
strict = petimages.build(pet_dir, size=16, workers=1, keep_truncated=False)
dropped = {name for name in data["files"] if name not in strict["files"]}
''', "a set"),
    wrong('dropped = ["Cat/3.jpg"]', "a file that is not truncated"),
    wrong("dropped = []", "nothing"),
    wrong('dropped = ["Cat/666.jpg"]', "a file the default build skipped anyway"),
    wrong('dropped = "Dog/2.jpg"', "a string, not a list"),
    wrong('dropped = [name for name in data["files"] if name.startswith("Dog")][:1] + ["Dog/2.jpg"]',
          "one file too many"),
]

_GRAD = '''
def gradients(p):
    correct = torch.tensor([{target}])
    z = float(np.log(2 * p / (1 - p)))
    logits = torch.tensor([[0.0, 0.0, z]], requires_grad=True)
    grad_ce = torch.autograd.grad(F.cross_entropy(logits, correct), logits)[0][0, 2].item()
    mse = F.mse_loss(logits.softmax(dim=1), F.one_hot(correct, 3).float(){reduction})
    return grad_ce, torch.autograd.grad(mse, logits)[0][0, 2].item()
'''

CORPUS[("07", 2)] = [
    right(_GRAD.format(target=2, reduction=""), "the reference: torch.autograd.grad"),
    right('''
def gradients(p):
    z = math.log(2 * p / (1 - p))
    results = []
    for loss_of in (lambda l: F.cross_entropy(l, torch.tensor([2])),
                    lambda l: F.mse_loss(torch.softmax(l, dim=1), torch.tensor([[0.0, 0.0, 1.0]]))):
        logits = torch.tensor([[0.0, 0.0, z]], requires_grad=True)
        loss_of(logits).backward()
        results.append(logits.grad[0, 2])
    return tuple(results)
''', "backward() and .grad, tensors returned"),
    right('''
def gradients(p: float) -> tuple[float, float]:
    z = torch.tensor(np.log(2 * p / (1 - p)), dtype=torch.float64, requires_grad=True)
    logits = torch.stack([torch.zeros((), dtype=torch.float64), torch.zeros((), dtype=torch.float64), z])[None]
    ce = -torch.log_softmax(logits, dim=1)[0, 2]
    probs = torch.softmax(logits, dim=1)
    mse = ((probs - torch.tensor([[0.0, 0.0, 1.0]], dtype=torch.float64)) ** 2).mean()
    return torch.autograd.grad(ce, z)[0].item(), torch.autograd.grad(mse, z)[0].item()
''', "losses written by hand, float64, the gradient on z"),
    right('''
def gradients(p):
    logit = torch.tensor(math.log(2 * p / (1 - p)), requires_grad=True)
    logits = torch.cat([torch.zeros(2), logit.view(1)]).unsqueeze(0)
    target = torch.tensor([2])
    ce, = torch.autograd.grad(nn.CrossEntropyLoss()(logits, target), logit)
    mse, = torch.autograd.grad(nn.MSELoss()(logits.softmax(-1), F.one_hot(target, 3).float()), logit)
    return [np.float32(ce), np.float32(mse)]
''', "loss modules, numpy floats in a list"),
    wrong('''
def gradients(p):
    return p - 1, -p * (1 - p) ** 2
''', "the formulas typed in, no autograd"),
    wrong(_GRAD.format(target=2, reduction=', reduction="sum"'), "MSE summed, not averaged"),
    wrong(_GRAD.format(target=0, reduction=""), "the first class taken for the correct one"),
    wrong('''
def gradients(p):
    z = float(np.log(2 * p / (1 - p)))
    logits = torch.tensor([[0.0, 0.0, z]], requires_grad=True)
    return torch.autograd.grad(F.cross_entropy(logits, torch.tensor([2])), logits)[0][0, 2].item()
''', "one gradient only"),
    wrong('''
def gradients(p):
    z = float(np.log(p / (1 - p)))
    logits = torch.tensor([[0.0, 0.0, z]], requires_grad=True)
    grad_ce = torch.autograd.grad(F.cross_entropy(logits, torch.tensor([2])), logits)[0][0, 2].item()
    mse = F.mse_loss(logits.softmax(dim=1), torch.tensor([[0.0, 0.0, 1.0]]))
    return grad_ce, torch.autograd.grad(mse, logits)[0][0, 2].item()
''', "z for two classes"),
]

CORPUS[("07", 3)] = [
    right("flatten_size = 2048", "typed"),
    right("flatten_size = 128 * 4 * 4", "worked out"),
    right("flatten_size = np.int64(2048)", "a numpy integer"),
    right("flatten_size = 2048.0", "a whole float"),
    wrong("flatten_size = 128 * 2 * 2", "the 50x50 size"),
    wrong("flatten_size = 128 * 5 * 5", "a pooling's rounding missed"),
    wrong("flatten_size = 128 * 6 * 6", "another size"),
    wrong('flatten_size = "2048"', "a string"),
    wrong("flatten_size = 64 * 64", "the image's pixels"),
]

# ---- 08 --------------------------------------------------------------------------------------------------------------
CORPUS[("08", 1)] = [
    right('''
from torch.utils.data import DistributedSampler

dataset = ddp.toy_data()
shards = [list(DistributedSampler(dataset, num_replicas=3, rank=rank, shuffle=True, seed=0)) for rank in range(3)]
all_indices = [i for shard in shards for i in shard]
shard_sizes = [len(shard) for shard in shards]
appearing_twice = len(all_indices) - len(set(all_indices))
''', "the reference"),
    right("shard_sizes = [171, 171, 171]\nappearing_twice = 1", "typed"),
    right('''
from torch.utils.data import DistributedSampler

samplers = [DistributedSampler(range(512), num_replicas=3, rank=r) for r in range(3)]
shard_sizes = tuple(np.int64(len(s)) for s in samplers)
counts = np.bincount(np.concatenate([list(s) for s in samplers]))
appearing_twice = int((counts == 2).sum())
''', "np.bincount, a tuple of numpy integers"),
    right("shard_sizes = [math.ceil(512 / 3)] * 3\nappearing_twice = 3 * math.ceil(512 / 3) - 512",
          "worked out"),
    wrong("shard_sizes = [170, 171, 171]\nappearing_twice = 0", "split without repeats"),
    wrong("shard_sizes = [171, 171, 171]\nappearing_twice = 0", "the repeat not counted"),
    wrong("shard_sizes = [171, 171, 171]\nappearing_twice = 3", "one per shard"),
    wrong("shard_sizes = 513\nappearing_twice = 1", "the total"),
    wrong("shard_sizes = [170, 170, 170]\nappearing_twice = 0", "drop_last taken for the default"),
]

CORPUS[("08", 2)] = [
    right('''
from torch.utils.data import DistributedSampler

dataset = ddp.toy_data()
orders = {}
for use_set_epoch in (True, False):
    sampler = DistributedSampler(dataset, num_replicas=2, rank=0, shuffle=True, seed=0)
    epochs = []
    for epoch in range(2):
        if use_set_epoch:
            sampler.set_epoch(epoch)
        epochs.append(list(sampler))
    orders[use_set_epoch] = epochs
moved_with_set_epoch = sum(a != b for a, b in zip(*orders[True]))
moved_without = sum(a != b for a, b in zip(*orders[False]))
''', "the reference"),
    right('''
from torch.utils.data import DistributedSampler

def epochs(call_set_epoch):
    sampler = DistributedSampler(range(512), num_replicas=2, rank=0)
    lists = []
    for epoch in range(2):
        if call_set_epoch:
            sampler.set_epoch(epoch)
        lists.append(np.array(list(sampler)))
    return lists

first, second = epochs(True)
moved_with_set_epoch = (first != second).sum()
first, second = epochs(False)
moved_without = np.count_nonzero(first != second)
''', "numpy arrays: numpy integers"),
    right('''
from torch.utils.data import DistributedSampler

sampler = DistributedSampler(ddp.toy_data(), num_replicas=2, rank=0)
epoch_0 = torch.tensor(list(sampler))
sampler.set_epoch(1)
moved_with_set_epoch = (torch.tensor(list(sampler)) != epoch_0).sum()
plain = DistributedSampler(ddp.toy_data(), num_replicas=2, rank=0)
moved_without = int((torch.tensor(list(plain)) != torch.tensor(list(plain))).sum())
''', "tensors: a 0-dim tensor"),
    right("moved_with_set_epoch = 255\nmoved_without = 0", "the counts typed in"),
    wrong("moved_with_set_epoch = 0\nmoved_without = 0", "taken to never reshuffle"),
    wrong("moved_with_set_epoch = 255\nmoved_without = 255", "taken to reshuffle anyway"),
    wrong("moved_with_set_epoch = 256\nmoved_without = 0", "every position taken to move"),
    wrong("moved_with_set_epoch = True\nmoved_without = False", "the old yes/no"),
    wrong('''
from torch.utils.data import DistributedSampler

sampler = DistributedSampler(range(512), num_replicas=2, rank=0)
first = list(sampler)
sampler.set_epoch(1)
moved_with_set_epoch = len(set(first) ^ set(sampler))
moved_without = 0
''', "the indices that changed shard, not the positions that moved"),
]

_HALVES = '''
def step_in_halves(model, optimizer, x, y):
{body}
'''

CORPUS[("08", 3)] = [
    right(_HALVES.format(body='''    optimizer.zero_grad()
    for part_x, part_y in zip(x.chunk(2), y.chunk(2), strict=True):
        (nn.functional.cross_entropy(model(part_x), part_y) / 2).backward()
    optimizer.step()'''), "the reference: chunk(2)"),
    right(_HALVES.format(body='''    model.zero_grad(set_to_none=True)
    half = len(x) // 2
    for part_x, part_y in zip(x.split(half), y.split(half)):
        loss = F.cross_entropy(model(part_x), part_y) * 0.5
        loss.backward()
    optimizer.step()'''), "split(half), times 0.5, model.zero_grad"),
    right(_HALVES.format(body='''    optimizer.zero_grad()
    for part_x, part_y in zip(torch.tensor_split(x, 2), torch.tensor_split(y, 2)):
        loss = F.cross_entropy(model(part_x), part_y, reduction="sum") / len(x)
        loss.backward()
    optimizer.step()'''), "summed losses divided by the whole batch"),
    right(_HALVES.format(body='''    optimizer.zero_grad()
    n = x.shape[0] // 2
    losses = []
    for start in (0, n):
        out = model(x[start:start + n])
        losses.append(nn.CrossEntropyLoss()(out, y[start:start + n]).item())
        (nn.CrossEntropyLoss()(out, y[start:start + n]) / 2).backward()
    optimizer.step()
    return sum(losses) / 2  # more than asked: the mean loss'''), "slices, returns the loss"),
    wrong(_HALVES.format(body='''    optimizer.zero_grad()
    for part_x, part_y in zip(x.chunk(2), y.chunk(2)):
        F.cross_entropy(model(part_x), part_y).backward()
    optimizer.step()'''), "losses not divided by 2"),
    wrong(_HALVES.format(body='''    for part_x, part_y in zip(x.chunk(2), y.chunk(2)):
        optimizer.zero_grad()
        (F.cross_entropy(model(part_x), part_y) / 2).backward()
    optimizer.step()'''), "gradients zeroed between the halves"),
    wrong(_HALVES.format(body='''    for part_x, part_y in zip(x.chunk(2), y.chunk(2)):
        (F.cross_entropy(model(part_x), part_y) / 2).backward()
    optimizer.step()'''), "old gradients never zeroed"),
    wrong(_HALVES.format(body='''    optimizer.zero_grad()
    F.cross_entropy(model(x), y).backward()
    optimizer.step()'''), "one step on the whole batch, no halves"),
    wrong(_HALVES.format(body='''    optimizer.zero_grad()
    for part_x, part_y in zip(x.chunk(2), y.chunk(2)):
        (F.cross_entropy(model(part_x), part_y) / 2).backward()'''), "no step"),
    wrong(_HALVES.format(body='''    for part_x, part_y in zip(x.chunk(2), y.chunk(2)):
        optimizer.zero_grad()
        F.cross_entropy(model(part_x), part_y).backward()
        optimizer.step()'''), "a step per half"),
    right(_HALVES.format(body='''    optimizer.zero_grad()
    for part_x, part_y in ((x[:16], y[:16]), (x[16:], y[16:])):
        (F.cross_entropy(model(part_x), part_y) / 2).backward()
    optimizer.step()'''), "fitted to the visible batch: halves of 16 typed in", hidden="wrong"),
]

# ---- 09 --------------------------------------------------------------------------------------------------------------
_TIME = '''
def time_ms(fn, device):
    if device.type == "cuda":
        start_event, end_event = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start_event.record()
        fn()
        end_event.record()
        torch.cuda.synchronize()
        return start_event.elapsed_time(end_event)
{cpu}
'''

CORPUS[("09", 1)] = [
    right(_TIME.format(cpu="    return statistics.median(time_runs(fn, device)) * 1e3"), "the reference"),
    right(_TIME.format(cpu='''    utils.synchronize(device)
    start = time.perf_counter()
    fn()
    utils.synchronize(device)
    return (time.perf_counter() - start) * 1000'''), "perf_counter around one call"),
    right(_TIME.format(cpu="    return float(np.mean(utils.time_runs(fn, device, warmup=1, repeat=3))) * 1e3"),
          "the mean of utils.time_runs"),
    right(_TIME.format(cpu='''    runs = []
    for _ in range(3):
        begin = time.monotonic()
        fn()
        runs.append(time.monotonic() - begin)
    return np.float64(min(runs) * 1e3)'''), "the best of three, time.monotonic"),
    wrong(_TIME.format(cpu="    return statistics.median(time_runs(fn, device))"), "seconds"),
    wrong(_TIME.format(cpu="    return 0.0"), "nothing timed"),
    wrong(_TIME.format(cpu='    return "fast"'), "a word"),
    wrong(_TIME.format(cpu='''    start = time.perf_counter()
    return (time.perf_counter() - start) * 1e3'''), "fn never called"),
    wrong(_TIME.format(cpu="    return statistics.median(time_runs(fn, device)) * 1e6"), "microseconds"),
    right(_TIME.format(cpu="    return 20.0"), "fitted to the visible case: 20 ms typed in", hidden="wrong"),
]

CORPUS[("09", 2)] = [
    right("sizes = [16, 32, 64, 128]\nrates = [831.0, 940.0, 1029.0, 1005.0]", "typed"),
    right('''
sizes = sorted({16, 32, 64, 128, big_batch})
rates = [size / (0.01 + size * 0.001) for size in sizes]
''', "computed (a model of the timing here)"),
    right("sizes = np.array([128, 64, 32, 16])\nrates = np.array([1005.0, 1029.0, 940.0, 831.0])",
          "numpy arrays, largest first"),
    right("sizes = (16, 32, 64, 128)\nrates = (800, 900, 1000, 1000)", "tuples of whole numbers"),
    wrong("sizes = [16, 32, 64]\nrates = [1.0, 2.0, 3.0]", "a size left out"),
    wrong("sizes = [16, 32, 64, 128]\nrates = [1.0, 2.0, 3.0]", "a rate missing"),
    wrong("sizes = [16, 32, 64, 128]\nrates = [1.0, 2.0, -1.0, 3.0]", "a negative rate"),
    wrong('sizes = [16, 32, 64, 128]\nrates = ["fast", "fast", "faster", "fastest"]', "words"),
    wrong("sizes = [16, 32, 64, 128, 256]\nrates = [1.0, 2.0, 3.0, 4.0, 5.0]", "another size"),
]

_FLOPS = '''
from torch.utils.flop_counter import FlopCounterMode

probe = cifar10.cnn()
inputs, labels = torch.randn(2, 3, 32, 32), torch.randint(0, 10, (2,))


def count_flops(fn):
    with FlopCounterMode(display=False) as counter:
        fn()
    return counter.get_total_flops()


forward = count_flops(lambda: probe(inputs))
step = count_flops(lambda: F.cross_entropy(probe(inputs), labels).backward())
images = inputs.clone().requires_grad_(True)
with_grad = count_flops(lambda: F.cross_entropy(probe(images), labels).backward())
'''

CORPUS[("09", 3)] = [
    right(_FLOPS + "forwards_per_step = step / forward\nforwards_with_image_grad = with_grad / forward\n"
          "no_grad_layer = 0", "counted"),
    right("forwards_per_step = 138419712 / 49416704\nforwards_with_image_grad = 3.0\nno_grad_layer = 0",
          "the counts typed in"),
    right(_FLOPS + "forwards_per_step = np.float64(step) / forward\nforwards_with_image_grad = "
          "torch.tensor(with_grad / forward)\nno_grad_layer = np.int64(0)", "numpy and tensor values"),
    right(_FLOPS + "forwards_per_step = (step / 2) / (forward / 2)\nforwards_with_image_grad = 3\n"
          "no_grad_layer = 0.0", "per image, whole numbers as other types"),
    wrong("forwards_per_step = 3\nforwards_with_image_grad = 3.0\nno_grad_layer = 0", "the rule of thumb"),
    wrong("forwards_per_step = 2.8\nforwards_with_image_grad = 3.0\nno_grad_layer = 0", "copied from a printout"),
    wrong("forwards_per_step = 138419712 / 49416704\nforwards_with_image_grad = 138419712 / 49416704\n"
          "no_grad_layer = 0", "the images' gradient not asked for"),
    wrong("forwards_per_step = 138419712 / 49416704\nforwards_with_image_grad = 3.0\nno_grad_layer = 8",
          "the last layer"),
    wrong('forwards_per_step = 138419712 / 49416704\nforwards_with_image_grad = 3.0\nno_grad_layer = "conv"',
          "a name"),
]

# ---- 10 --------------------------------------------------------------------------------------------------------------
CORPUS[("10", 1)] = [
    right('''
conv_outputs = [(32, 32, 32), (32, 16, 16), (64, 8, 8)]
pooled = [(32, 16, 16), (32, 8, 8), (64, 4, 4)]
per_image = 0
for out, pool in zip(conv_outputs, pooled, strict=True):
    per_image += 4 * out[0] * out[1] * out[2]
    per_image += 8 * pool[0] * pool[1] * pool[2]
    per_image += 4 * pool[0] * pool[1] * pool[2]
per_image += 4 * 64 + 4 * 10
''', "the reference loop"),
    right("per_image = 315_688", "typed"),
    right('''
shapes = [(32, 32, 32), (32, 16, 16), (64, 8, 8)]
per_image = np.int64(sum(4 * math.prod(s) + 12 * math.prod(s) // 4 for s in shapes) + 4 * (64 + 10))
''', "a comprehension, numpy"),
    right("per_image = 315688.0", "a whole float"),
    wrong("per_image = 315_688 - 8 * (32 * 16 * 16 + 32 * 8 * 8 + 64 * 4 * 4)", "the indices left out"),
    wrong("per_image = 315_688 - 4 * (32 * 16 * 16 + 32 * 8 * 8 + 64 * 4 * 4)", "indices at 4 bytes"),
    wrong("per_image = 315_688 - 4 * 74", "the linear outputs left out"),
    wrong("per_image = 315_000", "rounded"),
    wrong('per_image = "315688"', "a string"),
]

CORPUS[("10", 2)] = [
    right("share = (19.27 - 7.27) / (19.27 - 2.75)", "from the printed MiB"),
    right("share = 0.73", "typed"),
    right("share = np.float32(12.0 / 16.52)", "numpy"),
    right("share = 73 / 100", "a percentage divided"),
    wrong("share = 73", "a percentage"),
    wrong("share = 7.27 / 19.27", "the wrong bytes divided"),
    wrong("share = 0.5", "a guess"),
    wrong('share = "73%"', "a string"),
    wrong("share = 2.75 / 19.27", "all four's remaining share"),
]

CORPUS[("10", 3)] = [
    right("adam_largest = 21", "typed"),
    right('''
params = list(cifar10.cnn().parameters())
adam_largest = (budget - 3 * memory.tensor_bytes(params)) // 315_688
''', "worked out from the budget"),
    right("adam_largest = np.int64(21)", "numpy"),
    right("adam_largest = 21.0", "a whole float"),
    wrong("adam_largest = 22", "SGD's"),
    wrong("adam_largest = 23", "more than SGD's"),
    wrong("adam_largest = 0", "nothing fits"),
    wrong("adam_largest = 20", "one state too many"),
    wrong('adam_largest = "21"', "a string"),
]

FORBIDDEN: dict[tuple[str, int], list[str]] = {
    ("02", 2): ["'offset'", "12", "on the CPU after the move: the offset"],
    ("02", 3): ["['pos_weight']", "['weight']"],
    ("03", 3): ["3456", "3,456", "24 x 24", "24x24"],
    ("04", 1): ["is 4", "is 7", "= 4", "= 7"],
    ("04", 2): ["80", "144"],
    ("05", 1): ["momentum", "velocity"],
    ("05", 2): ["31784", "31,784", "0.53", "0.538", "float32 parameters", "stay float32"],
    ("06", 1): ["[5, 10, 15, 20]"],
    ("07", 1): ["Dog/2.jpg", "1 truncated"],
    ("07", 2): ["-0.5000", "-0.9000", "-0.1250"],
    ("07", 3): ["2048", "2,048", "4 x 4"],
    ("08", 1): ["171", "513"],
    ("08", 2): ["seed + epoch", "same seed", "255"],
    ("09", 3): ["first convolution", "images themselves", "the images' input"],
    ("10", 1): ["315,688", "315688"],
    ("10", 2): ["0.73", "0.726"],
    ("10", 3): ["is 21", "(21)"],
}
"""Text a wrong answer's message never shows: the expected value, or the "why" kept for discussion. A message
may quote the student's own answer: these are checked only where that answer does not hold them."""
