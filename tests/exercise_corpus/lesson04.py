"""Lesson 04's answers: students' answer cells for its exercises, each with its verdict; what the notebook defines
before them (``SETUP``), what their check cells pass (``CONTEXT``), and what no wrong answer's message may show
(``FORBIDDEN``)."""

from __future__ import annotations

from tests.exercise_corpus.shared import Answer, Context, right, wrong

SETUP: dict[tuple[str, int], str] = {}

CONTEXT: dict[tuple[str, int], Context] = {}

CORPUS: dict[tuple[str, int], list[Answer]] = {}

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

FORBIDDEN = {
    ("04", 1): ["is 4", "is 7", "= 4", "= 7"],
    ("04", 2): ["80", "144"],
}
