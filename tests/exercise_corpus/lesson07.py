"""Lesson 07's answers: students' answer cells for its exercises, each with its verdict; what the notebook defines
before them (``SETUP``), what their check cells pass (``CONTEXT``), and what no wrong answer's message may show
(``FORBIDDEN``)."""

from __future__ import annotations

from tests.exercise_corpus.shared import Answer, Context, right, wrong

SETUP: dict[tuple[str, int], str] = {}

CONTEXT: dict[tuple[str, int], Context] = {
    ("07", 1): lambda folders, names: {"data": folders["data"], "pet_dir": folders["pet_dir"]},
}

CORPUS: dict[tuple[str, int], list[Answer]] = {}

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
    wrong("flatten_size = 512  # the out_features of the first linear layer", "a linear layer's out_features, 512"),
    wrong("flatten_size = 128 * 5 * 5", "a pooling's rounding missed"),
    wrong("flatten_size = 128 * 6 * 6", "another size"),
    wrong('flatten_size = "2048"', "a string"),
    wrong("flatten_size = 64 * 64", "the image's pixels"),
]

FORBIDDEN = {
    ("07", 1): ["Dog/2.jpg", "1 truncated"],
    ("07", 2): ["-0.5000", "-0.9000", "-0.1250"],
    ("07", 3): ["2048", "2,048", "4 x 4"],
}
