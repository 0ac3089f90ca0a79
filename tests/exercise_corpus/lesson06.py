"""Lesson 06's answers: students' answer cells for its exercises, each with its verdict; what the notebook defines
before them (``SETUP``), what their check cells pass (``CONTEXT``), and what no wrong answer's message may show
(``FORBIDDEN``)."""

from __future__ import annotations

from tests.exercise_corpus.shared import Answer, Context, right, wrong

SETUP = {
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

CONTEXT: dict[tuple[str, int], Context] = {("06", 2): lambda folders, names: {"checkpoint": folders["checkpoint"]}}

CORPUS: dict[tuple[str, int], list[Answer]] = {}

_LOGGED = '''
def train_logged(model, optimizer, batches, writer):
    running = torch.zeros((), device=device)
    for step, (inputs, targets) in enumerate(batches, start=1):
        loss = loss_fn(model(inputs), targets)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        {body}
'''
_EVERY_5 = '''running += loss.detach()
        if step % 5 == 0:
            writer.add_scalar("loss/train_batches", (running / 5).item(), global_step={step})
            running.zero_()'''

CORPUS[("06", 1)] = [
    right(_LOGGED.format(body=_EVERY_5.format(step="step")), "the reference: summed on the device, one .item() in 5"),
    right('''
def train_logged(model, optimizer, batches, writer):
    losses = []
    for index, (inputs, targets) in enumerate(batches):
        loss = F.cross_entropy(model(inputs), targets)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.detach())
        if (index + 1) % 5 == 0:
            writer.add_scalar("loss/train_batches", torch.stack(losses[-5:]).mean(), index + 1)  # a tensor
''', "counted from 0, index + 1, a tensor given to add_scalar"),
    right('''
def train_logged(model, optimizer, batches, writer):
    seen = 0
    for inputs, targets in batches:
        loss = loss_fn(model(inputs), targets)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        seen += 1
        if seen % 5 == 0:
            writer.add_scalar("loss/train_batches", loss.item(), seen)
            writer.add_scalar("loss/last_max_logit", float(model(inputs).detach().max()), seen)  # more than asked
''', "a counter, the last loss, two reads in a logged batch"),
    right('''
def train_logged(model: nn.Module, optimizer: torch.optim.Optimizer, batches, writer) -> None:
    """Train on each batch; log the loss every 5 batches at the number of batches seen."""
    total = None
    for step, batch in enumerate(batches, 1):
        inputs, targets = (t.to(device, non_blocking=True) for t in batch)
        optimizer.zero_grad(set_to_none=True)
        loss = loss_fn(model(inputs), targets)
        loss.backward()
        optimizer.step()
        total = loss.detach() if total is None else total + loss.detach()
        if step % 5 == 0:
            writer.add_scalar("loss/train_batches", total.cpu().numpy() / 5, global_step=step)
            total = None
''', "moves each batch to the device, .cpu().numpy() to log"),
    wrong(_LOGGED.format(body='''running += loss.item()  # waits for the GPU on every batch
        if step % 5 == 0:
            writer.add_scalar("loss/train_batches", running / 5, global_step=step)
            running = 0.0'''), "loss.item() on every batch"),
    wrong(_LOGGED.format(body='''print(f"batch {step}: loss {loss:.3f}")
        if step % 5 == 0:
            writer.add_scalar("loss/train_batches", loss.detach(), global_step=step)'''),
          "prints the loss of every batch"),
    wrong(_LOGGED.format(body=_EVERY_5.format(step="step - 1")), "counted from 0"),
    wrong(_LOGGED.format(body=_EVERY_5.format(step="step // 5")), "counts the values logged"),
    wrong(_LOGGED.format(body=_EVERY_5.format(step="step").replace("step % 5", "step % 4")), "every 4 batches"),
    wrong('''
def train_logged(model, optimizer, batches, writer):
    for step in (5, 10, 15, 20):
        writer.add_scalar("loss/train_batches", 1.0, global_step=step)
''', "typed steps, nothing trained"),
    right('''
def train_logged(model, optimizer, batches, writer):
    for step, (inputs, targets) in enumerate(batches, start=1):
        loss = loss_fn(model(inputs), targets)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step in (5, 10, 15, 20):
            writer.add_scalar("loss/train_batches", loss.item(), global_step=step)
''', "fitted to the visible 20 batches: the steps typed", hidden="wrong"),
    wrong('train_logged = [5, 10, 15, 20]', "the old answer: the steps, not a function"),
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

FORBIDDEN = {
    ("06", 1): ["[5, 10, 15, 20]"],
}
