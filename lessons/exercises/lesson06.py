"""Lesson 06's exercises (``notebooks/06_cifar10_training.ipynb``): TensorBoard steps, resuming with clipping, the
training transform."""

from __future__ import annotations

import contextlib
import math
import pickle
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from unittest import mock

import numpy as np
import torch
from torch import nn

import utils
from lessons.exercises.core import brief, call, declare, listed, need_callable, wrong

READS = ("item", "tolist", "numpy", "cpu", "__float__", "__int__")
"""The ``Tensor`` methods that bring a value back to Python (on a GPU, each waits for the GPU's queue)."""


@contextlib.contextmanager
def values_read(batch: list[int]) -> Iterator[list[int]]:
    """Record, for each call of a method of ``READS`` or of ``torch.cuda.synchronize`` meanwhile, the number of
    batches drawn when it was called, ``batch[0]`` (the real methods run)."""
    reads: list[int] = []

    def spy(real: Callable[..., Any]) -> Callable[..., Any]:
        def method(*args: Any, **kwargs: Any) -> Any:
            reads.append(batch[0])
            return real(*args, **kwargs)

        return method

    with contextlib.ExitStack() as stack:
        for name in READS:
            stack.enter_context(mock.patch.object(torch.Tensor, name, spy(getattr(torch.Tensor, name))))
        stack.enter_context(mock.patch.object(torch.cuda, "synchronize", spy(torch.cuda.synchronize)))
        yield reads


def _counted(batches: list[Any], batch: list[int]) -> Iterator[Any]:
    """The batches, counting in ``batch[0]`` how many have been drawn."""
    for item in batches:
        batch[0] += 1
        yield item


LOGGED_CASES = {"seed": 0, "batches": 20}  # the batches of 8 random inputs the check trains on
# BEGIN HIDDEN CASES
LOGGED_HIDDEN = {"seed": 1, "batches": 30}
# END HIDDEN CASES


@declare("06", 1, ("train_logged",), cases=LOGGED_CASES, hidden="LOGGED_HIDDEN",
         hint_en="Section 5 (“Training, with TensorBoard and checkpoints”) logs and reads back scalars; Going "
                 "deeper's “The sources' TensorBoard steps” says what a step counts.",
         hint_zh="第5节（“训练，同时记录TensorBoard日志并保存检查点”）记录并读回了标量；“进阶”部分的“原文的TensorBoard步数”"
                 "讲了步数数的是什么。")
def logs_at_the_number_of_batches_seen(train_logged: Callable[..., Any], cases: dict[str, Any]) -> None:
    """``train_logged(model, optimizer, batches, writer)`` trains on every batch and logs one value every 5
    batches, at the number of batches seen, reading a value back from the device only in the batches it logs."""
    need_callable(train_logged, "train_logged")
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    from torch.utils.tensorboard import SummaryWriter

    device, count = utils.get_device(), cases["batches"]
    generator = torch.Generator().manual_seed(cases["seed"])
    batches = [(torch.randn(8, 4, generator=generator).to(device),
                torch.randint(0, 3, (8,), generator=generator).to(device)) for _ in range(count)]
    torch.manual_seed(cases["seed"])
    model = nn.Linear(4, 3).to(device)
    before = model.weight.detach().clone()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    shown = f"train_logged(model, optimizer, batches, writer) for {count} batches"
    batch = [0]
    with tempfile.TemporaryDirectory() as folder:
        with SummaryWriter(log_dir=folder) as writer, values_read(batch) as reads:
            call(shown, train_logged, model, optimizer, _counted(batches, batch), writer)
        events = EventAccumulator(folder)
        events.Reload()
        logged = {tag: [e.step for e in events.Scalars(tag)] for tag in events.Tags().get("scalars", [])}
    if batch[0] != count or torch.equal(model.weight.detach(), before):
        raise wrong(f"`{shown}` did not train on every batch", f"`{shown}`没有在每个批量上训练")
    if not logged:
        raise wrong(f"`{shown}` logged no scalar with `writer.add_scalar`",
                    f"`{shown}`没有用`writer.add_scalar`记录任何标量")
    steps = next((s for s in logged.values() if len(s) == count // 5), next(iter(logged.values())))
    if steps in (list(range(count // 5)), list(range(1, count // 5 + 1))):
        raise wrong(f"`{shown}` logged at the steps {steps}: global_step counts the values logged, not the batches "
                    "seen",
                    f"`{shown}`记录的步数是{listed(steps)}：这样global_step数的是记录的次数，而不是看过的批量数")
    if steps == list(range(4, count, 5)):
        raise wrong(f"`{shown}` logged at the steps {steps}: when the first value is logged, more batches than 4 have "
                    "been seen",
                    f"`{shown}`记录的步数是{listed(steps)}：记录第一个值的时候，看过的批量不止4个")
    if steps != list(range(5, count + 1, 5)):
        raise wrong(f"`{shown}` logged at the steps {steps}: not one value every 5 batches, at the number of batches "
                    "seen",
                    f"`{shown}`记录的步数是{listed(steps)}：不是每5个批量记录一次、步数为已看过的批量数")
    if len(set(reads)) > len(steps):
        raise wrong(f"`{shown}` read a value back from the device in {len(set(reads))} of the {count} batches "
                    "(`.item()`, `float()`, `.cpu()` ...): on a GPU each read waits for it; read only to log",
                    f"`{shown}`在{count}个批量中的{len(set(reads))}个里把数值从设备读回了Python（`.item()`、`float()`、"
                    "`.cpu()`……）：在GPU上每次读取都要等GPU；只在记录时读取")


RESUME_CASES = {"seed": 3, "scale": 100.0}  # the gradients of the step after resuming: scale * randn(seed)
# BEGIN HIDDEN CASES
RESUME_HIDDEN = {"seed": 7, "scale": 40.0}
# END HIDDEN CASES


@declare("06", 2, ("resume",), context=("checkpoint",), cases=RESUME_CASES, hidden="RESUME_HIDDEN",
         hint_en="Section 5 (“Training, with TensorBoard and checkpoints”) saves the checkpoint; Going deeper's “Why "
                 "the gradients are clipped” shows the clipping.",
         hint_zh="第5节（“训练，同时记录TensorBoard日志并保存检查点”）保存了检查点；“进阶”部分的“为什么要裁剪梯度”展示了梯度裁剪。")
def resumes_model_optimizer_and_clipping(resume: Callable[[Path], Any], checkpoint: Path,
                                         cases: dict[str, Any]) -> None:
    """``resume(path)`` returns the checkpoint's model and optimizer (momentum included), the optimizer clipping
    the gradients to a total norm of 5 before each step."""
    need_callable(resume, "resume")
    stored = torch.load(checkpoint, map_location="cpu", weights_only=True)
    shown = f"resume({utils.shown_path(checkpoint)!r})"
    got = call(shown, resume, checkpoint)
    if not (isinstance(got, tuple) and len(got) == 2 and isinstance(got[0], nn.Module)
            and isinstance(got[1], torch.optim.Optimizer)):
        raise wrong(f"`{shown}` returned {brief(got)}; return (model, optimizer)",
                    f"`{shown}`返回了{brief(got)}；应返回(model, optimizer)")
    model, optimizer = got
    for name, value in model.state_dict().items():
        if name not in stored["model"] or not torch.equal(value.cpu(), stored["model"][name]):
            raise wrong(f"the model's `{name}` is not the checkpoint's", f"模型的`{name}`不是检查点里的")
    params = list(model.parameters())
    if {id(p) for group in optimizer.param_groups for p in group["params"]} != {id(p) for p in params}:
        raise wrong("the optimizer does not update the returned model's parameters",
                    "优化器更新的不是返回的模型的参数")
    saved = stored["optimizer"]["state"]
    buffers = [optimizer.state.get(p, {}).get("momentum_buffer") for p in params]
    if len(saved) != len(params) or any(
            b is None or not torch.equal(b.cpu(), saved[i]["momentum_buffer"]) for i, b in enumerate(buffers)):
        raise wrong("the optimizer's momentum buffers are not the checkpoint's",
                    "优化器的动量缓冲区不是检查点里的")
    # One step with large gradients: it must run, clip them to a total norm of 5, and update as SGD does.
    generator = torch.Generator().manual_seed(cases["seed"])
    scale = cases["scale"]
    for p in params:
        p.grad = (scale * torch.randn(p.shape, generator=generator)).to(p.device, p.dtype)
    before = [p.detach().clone() for p in params]
    momentum = [b.detach().clone() for b in buffers]
    call("optimizer.step()", optimizer.step)
    norm = torch.linalg.vector_norm(torch.stack([torch.linalg.vector_norm(p.grad.float()) for p in params])).item()
    if not math.isclose(norm, 5.0, rel_tol=1e-4):
        raise wrong(f"after `optimizer.step()` on gradients of total norm above 5, their norm is {norm:.4g}: the "
                    "gradient clipping is not the lesson's",
                    f"在总范数超过5的梯度上调用`optimizer.step()`之后，它们的范数是{norm:.4g}：梯度裁剪和课上的不一样")
    for p, old, buffer, group in ((p, o, b, g) for g in optimizer.param_groups for p, o, b in
                                  zip(params, before, momentum, strict=True) if any(p is q for q in g["params"])):
        update = group["lr"] * (group["momentum"] * buffer + p.grad)
        if not torch.allclose(p.detach(), old - update, atol=1e-6, rtol=1e-5):
            raise wrong("`optimizer.step()` did not update the parameters as SGD with the checkpoint's momentum does",
                        "`optimizer.step()`没有按照带检查点动量的SGD那样更新参数")


AUGMENT_CASES = {"seed": 0}  # the seed of the image (NumPy) and of the 40 augmentations (PyTorch)
# BEGIN HIDDEN CASES
AUGMENT_HIDDEN = {"seed": 1}
# END HIDDEN CASES


@declare("06", 3, ("augment",), cases=AUGMENT_CASES, hidden="AUGMENT_HIDDEN",
         hint_en="torchvision's transforms do each step; Going deeper's “Worker processes: why the dataset lives in "
                 "a module” says what a worker needs.",
         hint_zh="torchvision的变换能完成每一步；“进阶”部分的“工作进程：为什么数据集要放在模块里”讲了工作进程需要什么。")
def augments_as_the_training_transform(augment: Callable[[Any], Any], cases: dict[str, Any]) -> None:
    """``augment`` pickles, and turns a uint8 image into a normalised float32 tensor: a random 32x32 crop of the
    image padded by 4, flipped half of the time."""
    need_callable(augment, "augment")
    from lessons import cifar10

    try:
        copy = pickle.loads(pickle.dumps(augment))
    except Exception as error:
        raise wrong(f"`augment` cannot be pickled ({type(error).__name__}), so worker processes started with "
                    "'spawn' cannot have it",
                    f"`augment`无法被pickle（{type(error).__name__}），用“spawn”启动的工作进程就拿不到它") from error
    image = np.random.default_rng(cases["seed"]).integers(0, 256, size=(32, 32, 3), dtype=np.uint8)
    torch.manual_seed(cases["seed"])
    outputs = [call("augment(image)", copy, image) for _ in range(40)]
    if not all(isinstance(o, torch.Tensor) and o.shape == (3, 32, 32) and o.dtype == torch.float32 for o in outputs):
        raise wrong("`augment(image)` of a uint8 (32, 32, 3) image is not a float32 (3, 32, 32) tensor",
                    "`augment(image)`作用于uint8 (32, 32, 3)图像的结果不是float32 (3, 32, 32)张量")
    mean, std = (torch.tensor(v).view(3, 1, 1) for v in (cifar10.MEAN, cifar10.STD))
    plain = torch.from_numpy(image).permute(2, 0, 1).float() / 255
    norm = (plain - mean) / std
    # Every augmented image: a 32x32 window of the image padded by 4 (with zeros before or after normalising, or
    # mirrored, or the edge repeated), flipped or not, normalised as the test transform does. The window's centre
    # finds its place (padding never reaches it), then the whole window is compared.
    padded = [nn.functional.pad(plain, (4,) * 4), nn.functional.pad(plain[None], (4,) * 4, mode="reflect")[0],
              nn.functional.pad(plain[None], (4,) * 4, mode="replicate")[0]]
    bigs = torch.stack([*((p - mean) / std for p in padded), nn.functional.pad(norm, (4,) * 4)])  # (4, 3, 40, 40)
    centres = bigs[0].unfold(1, 8, 1).unfold(2, 8, 1)[:, 12:21, 12:21]  # (3, 9, 9, 8, 8): no padding reaches them
    seen = []  # (shift, flipped) of each output
    for out in outputs:
        found = None
        for flipped, window in ((False, out), (True, out.flip(-1))):
            distance = (centres - window[:, None, None, 12:20, 12:20]).abs().amax(dim=(0, 3, 4))  # (9, 9)
            i, j = divmod(int(distance.argmin()), 9)
            full = (bigs[:, :, i : i + 32, j : j + 32] - window).abs().amax(dim=(1, 2, 3)).min()
            if full <= 1e-4:
                found = (max(abs(i - 4), abs(j - 4)), flipped)
        if found is None:
            unnormalised = float(out.min()) >= 0 and float(out.max()) <= 1
            raise wrong("`augment(image)` is not normalised as the test transform is" if unnormalised else
                        "`augment(image)` is not a window of the image padded by 4 pixels, flipped or not, "
                        "normalised as the test transform is",
                        "`augment(image)`没有像测试变换那样规范化" if unnormalised else
                        "`augment(image)`不是四周填充4个像素的图像中的一个窗口（可能水平翻转），再像测试变换那样规范化")
        seen.append(found)
    if {flipped for _, flipped in seen} != {False, True}:
        raise wrong("in 40 calls, `augment(image)` never flipped the image, or always did",
                    "调用40次，`augment(image)`从不翻转图像，或者每次都翻转")
    if max(shift for shift, _ in seen) < 4:
        raise wrong("in 40 calls, `augment(image)` never shifted the image by 4 pixels: the crop is not random "
                    "over the image padded by 4",
                    "调用40次，`augment(image)`从没有把图像平移4个像素：裁剪不是在四周填充4个像素的图像上随机进行的")
