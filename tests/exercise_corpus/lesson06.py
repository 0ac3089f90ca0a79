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

FORBIDDEN = {
    ("06", 1): ["[5, 10, 15, 20]"],
}
