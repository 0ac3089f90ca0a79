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
    ("10", 3): lambda folders, names: {"sgd_largest": 22, "budget": names["budget"]},
}

CORPUS: dict[tuple[str, int], list[Answer]] = {}

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

FORBIDDEN = {
    ("10", 1): ["315,688", "315688"],
    ("10", 2): ["0.73", "0.726"],
    ("10", 3): ["is 21", "(21)"],
}
