"""Lesson 05's answers: students' answer cells for its exercises, each with its verdict; what the notebook defines
before them (``SETUP``), what their check cells pass (``CONTEXT``), and what no wrong answer's message may show
(``FORBIDDEN``)."""

from __future__ import annotations

from tests.exercise_corpus.shared import Answer, Context, right, wrong

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
}

CONTEXT: dict[tuple[str, int], Context] = {
    ("05", 1): lambda folders, names: {"uninterrupted": names["uninterrupted"],
                                       "checkpoint": names["SAVE_DIR"] / "after_epoch_3.ckpt",
                                       "epochs": names["EPOCHS"], "batches": len(names["make_loader"]())},
}

CORPUS: dict[tuple[str, int], list[Answer]] = {}

_DIFFERENCE = """
state, reference = model.state_dict(), uninterrupted.state_dict()
largest_difference = max((state[k] - reference[k]).abs().max().item() for k in state)
"""

_FRESH = '''
def resume_fresh(path):
    checkpoint = torch.load(path, map_location="cpu", weights_only=True)
    model = make_model()
    model.load_state_dict(checkpoint["model"])
    {rng}
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    for _ in range({epochs}):
        utils.train_epoch(model, make_loader(), nn.CrossEntropyLoss(), optimizer, device)
    return model


model = resume_fresh(SAVE_DIR / "after_epoch_3.ckpt")
'''


def _fresh(rng: str = 'set_rng_state(checkpoint["rng"])', epochs: str = 'checkpoint["epoch"], EPOCHS',
           difference: str = _DIFFERENCE) -> str:
    """An answer built like the reference, with one part changed."""
    return _FRESH.format(rng=rng, epochs=epochs) + difference


CORPUS[("05", 1)] = [
    right(_fresh(), "the reference: torch.load, set_rng_state, a loop of train_epoch, max of .item()"),
    right('''
def resume_fresh(path: Path) -> nn.Module:
    model = make_model()
    start = load_checkpoint(path, model, torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9))  # thrown away
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)  # built fresh after loading
    for epoch in range(start, EPOCHS):
        utils.train_epoch(model, make_loader(), nn.CrossEntropyLoss(), optimizer, device)
    return model


resumed_fresh = resume_fresh(SAVE_DIR / "after_epoch_3.ckpt")
largest_difference = torch.stack([(a - b).abs().max() for a, b in
                                  zip(resumed_fresh.parameters(), uninterrupted.parameters())]).max()
''', "load_checkpoint into a throwaway optimizer, then a new one; a 0-dim tensor over parameters()"),
    right('''
def resume_fresh(path):
    checkpoint = torch.load(path, weights_only=True)
    net = make_model()
    net.load_state_dict(checkpoint["model"])
    set_rng_state(checkpoint["rng"])
    optimizer = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    for epoch in range(checkpoint["epoch"], EPOCHS):
        for inputs, targets in make_loader():
            optimizer.zero_grad()
            loss_fn(net(inputs), targets).backward()
            optimizer.step()
    return net


resumed = resume_fresh(SAVE_DIR / "after_epoch_3.ckpt")
with torch.no_grad():
    a = torch.nn.utils.parameters_to_vector(resumed.parameters())
    b = torch.nn.utils.parameters_to_vector(uninterrupted.parameters())
largest_difference = float(torch.max(torch.abs(a - b)))
''', "the loop written out, parameters_to_vector"),
    right(_fresh(difference='''
mine, theirs = model.state_dict(), uninterrupted.state_dict()
print("identical:", identical(model, uninterrupted))
largest_difference = np.max([np.abs(mine[k].numpy() - theirs[k].numpy()).max() for k in mine])
'''), "numpy's float32, after printing more than asked"),
    right(_fresh(difference='''
state, reference = model.state_dict(), uninterrupted.state_dict()
print(f"{max((state[k] - reference[k]).abs().max().item() for k in state):.4f}")
largest_difference = float(f"{max((state[k] - reference[k]).abs().max().item() for k in state):.4f}")
'''), "the value as printed with {:.4f}"),
    wrong('''
def resume_fresh(path):
    model = make_model()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    start = load_checkpoint(path, model, optimizer)
    for epoch in range(start, EPOCHS):
        utils.train_epoch(model, make_loader(), nn.CrossEntropyLoss(), optimizer, device)
    return model


model = resume_fresh(SAVE_DIR / "after_epoch_3.ckpt")
largest_difference = 0.0
''', "a new optimizer object, but its state loaded: the optimizer's state left in"),
    wrong(_fresh(rng="torch.manual_seed(0)  # as run_training does"),
          "a fresh optimizer, the random state not restored (seeded as run_training seeds)"),
    wrong(_fresh(rng="pass  # the random state left as it is"), "a fresh optimizer, the random state not restored"),
    wrong(_fresh(epochs='checkpoint["epoch"] + 1, EPOCHS'), "one epoch short"),
    wrong(_fresh(epochs='EPOCHS'), "all six epochs again, from epoch 3's weights"),
    wrong('''
def resume_fresh(path):
    model = make_model()
    model.load_state_dict(torch.load(path, weights_only=True)["model"])
    return model


model = resume_fresh(SAVE_DIR / "after_epoch_3.ckpt")
''' + _DIFFERENCE, "loaded, not trained on"),
    wrong(_fresh(difference="largest_difference = 0.1"), "a number typed, not computed"),
    wrong(_fresh(difference='''
mine, theirs = model.state_dict(), uninterrupted.state_dict()
largest_difference = max((mine[k] - theirs[k]).abs().mean().item() for k in mine)
'''), "the mean difference, not the largest"),
    wrong(_fresh(difference="largest_difference = identical(model, uninterrupted)"), "the old answer: True or False"),
    wrong(_fresh(difference="largest_difference = (model[0].weight - uninterrupted[0].weight).abs().max().item()"),
          "only the first layer's weight"),
    wrong('resume_fresh = resumed_no_rng\nlargest_difference = 0.1', "a model, not a function"),
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

FORBIDDEN = {
    ("05", 1): ["momentum", "velocity"],
    ("05", 2): ["31784", "31,784", "0.53", "0.538", "float32 parameters", "stay float32"],
}
