"""Lesson 10's answers: students' answer cells for its exercises, each with its verdict; what the notebook defines
before them (``SETUP``), what their check cells pass (``CONTEXT``), and what no wrong answer's message may show
(``FORBIDDEN``)."""

from __future__ import annotations

from tests.exercise_corpus.shared import Answer, Context, right, wrong

SETUP = {
    ("10", 3): """
budget = 8 * 2**20
""",
}

CONTEXT: dict[tuple[str, int], Context] = {
    ("10", 3): lambda folders, names: {"budget": names["budget"] * 5 // 4},
}

CORPUS: dict[tuple[str, int], list[Answer]] = {}

_PER_IMAGE = '''
def saved_per_image(widths):
    total, size = 0, 32
    for channels in widths:
        pooled = channels * (size // 2) ** 2
        total += 4 * channels * size * size  # the conv output, saved by the max-pool
        total += {indices} * pooled  # the indices of the maxima
        total += 4 * pooled  # the pooled output, saved by the next layer
        size //= 2
    return total + {linear}
'''


def _per_image(indices: str = "8", linear: str = "4 * 64 + 4 * 10") -> str:
    return _PER_IMAGE.format(indices=indices, linear=linear)


CORPUS[("10", 1)] = [
    right(_per_image(), "the reference loop"),
    right('''
def saved_per_image(widths):
    shapes = [(widths[0], 32), (widths[1], 16), (widths[2], 8)]
    return np.int64(sum(4 * c * s * s + 12 * c * (s // 2) ** 2 for c, s in shapes) + 4 * (64 + 10))
''', "a comprehension, numpy"),
    right('''
def saved_per_image(widths: list[int]) -> float:
    """Bytes saved per image: conv outputs, pool indices (int64) and outputs, linear outputs."""
    c1, c2, c3 = widths
    conv = 4 * (c1 * 32 * 32 + c2 * 16 * 16 + c3 * 8 * 8)
    pooled_values = c1 * 16 * 16 + c2 * 8 * 8 + c3 * 4 * 4
    return float(conv + 8 * pooled_values + 4 * pooled_values + 4 * 64 + 4 * 10)
''', "each term written out, a whole float"),
    right('''
def saved_per_image(widths):
    model = nn.Sequential(
        nn.Conv2d(3, widths[0], 5, padding=2), nn.MaxPool2d(2), nn.Conv2d(widths[0], widths[1], 5, padding=2),
        nn.MaxPool2d(2), nn.Conv2d(widths[1], widths[2], 5, padding=2), nn.MaxPool2d(2), nn.Flatten(),
        nn.Linear(widths[2] * 16, 64), nn.Linear(64, 10))
    model, x = model.to("meta"), torch.randn(1, 3, 32, 32, device="meta")
    total = 0
    for layer in model:
        y = layer(x)
        if isinstance(layer, nn.MaxPool2d):  # its input, the indices, its output (saved by the next layer)
            total += 4 * x.numel() + 8 * y.numel() + 4 * y.numel()
        if isinstance(layer, nn.Linear):
            total += 4 * y.numel()  # its output, saved by the next layer or the loss
        x = y
    return total
''', "the shapes walked on meta tensors"),
    right("def saved_per_image(widths):\n    return {(32, 32, 64): 315_688, (16, 32, 32): 186_664}[tuple(widths)]",
          "fitted to the visible widths: a table", hidden="wrong"),
    wrong("def saved_per_image(widths):\n    return 315_688", "typed: right for the lesson's widths only"),
    wrong(_per_image(indices="0"), "the indices left out"),
    wrong(_per_image(indices="4"), "indices at 4 bytes"),
    wrong(_per_image(linear="0"), "the linear outputs left out"),
    wrong("def saved_per_image(widths):\n    return 315_000", "rounded, and one number for every network"),
    wrong('def saved_per_image(widths):\n    return "315688"', "a string"),
    wrong("saved_per_image = 315688", "the old answer: a number, not a function"),
]

CORPUS[("10", 2)] = [
    right('''
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)
model = cifar10.cnn()
blocks = [model[0:2], model[2:4], model[4:6], model[6:]]
inputs, targets = torch.randn(64, 3, 32, 32), torch.randint(0, 10, (64,))


def saved_with(first_checkpointed):
    with memory.saved_tensors([*model.parameters(), inputs, targets]) as saved:
        x = inputs
        for block in blocks[:first_checkpointed]:
            x = checkpoint(block, x, use_reentrant=False)
        for block in blocks[first_checkpointed:]:
            x = block(x)
        F.cross_entropy(x, targets)
    return memory.saved_bytes(saved)


plain, first, every = saved_with(0), saved_with(1), saved_with(4)
share = (plain - first) / (plain - every)
''', "measured: the reference"),
    right("share = (19.27 - 7.27) / (19.27 - 2.75)", "from the printed MiB"),
    right("share = np.float32((20204036 - 7621124) / (20204036 - 2886148))", "numpy, from byte counts"),
    right("share = torch.tensor(12582912 / 17317888)", "a 0-dim tensor, from byte counts"),
    wrong("share = 72.66", "a percentage"),
    wrong("share = 7.27 / 19.27", "the wrong bytes divided"),
    wrong("share = 0.75", "a guess: three quarters"),
    wrong("share = 0.73", "a guess near it"),
    wrong('share = "73%"', "a string"),
    wrong("share = 2.75 / 19.27", "all four's remaining share"),
]

_SEARCH = '''
params = list(cifar10.cnn().parameters())
sgd_largest = (budget * 5 // 4 - 2 * memory.tensor_bytes(params) - 4) // 315_688
adam_largest = (budget * 5 // 4 - 3 * memory.tensor_bytes(params) - 4) // 315_688
'''

CORPUS[("10", 3)] = [
    right(_SEARCH, "worked out from the budget"),
    right("sgd_largest, adam_largest = 29, 27", "typed"),
    right("sgd_largest = np.int64(29)\nadam_largest = np.int64(27)", "numpy"),
    right("sgd_largest = 29.0\nadam_largest = 27.0", "whole floats"),
    wrong("sgd_largest, adam_largest = 29, 28", "one less than SGD's, guessed"),
    wrong("sgd_largest, adam_largest = 22, 21", "section 5's budget, not the exercise's"),
    wrong("sgd_largest, adam_largest = 29, 29", "SGD's"),
    wrong("sgd_largest, adam_largest = 29, 0", "nothing fits"),
    wrong("sgd_largest, adam_largest = 29, 26", "one state too many"),
    wrong('sgd_largest, adam_largest = 29, "27"', "a string"),
]

FORBIDDEN = {
    ("10", 1): ["315688", "186,664", "186664"],
    ("10", 2): ["0.7266", "0.726"],
    ("10", 3): ["is 27", "(27)"],
}
