"""Lesson 02's answers: students' answer cells for its exercises, each with its verdict; what the notebook defines
before them (``SETUP``), what their check cells pass (``CONTEXT``), and what no wrong answer's message may show
(``FORBIDDEN``)."""

from __future__ import annotations

from tests.exercise_corpus.shared import Answer, Context, right, wrong

SETUP: dict[tuple[str, int], str] = {}

CONTEXT: dict[tuple[str, int], Context] = {}

CORPUS: dict[tuple[str, int], list[Answer]] = {}

CORPUS[("02", 1)] = [
    wrong('''
def module_device(module):
    devices = {t.device for t in module.state_dict(keep_vars=True).values()}
    if len(devices) > 1:
        raise ValueError(f"module has tensors on several devices: {sorted(map(str, devices))}")
    return devices.pop() if devices else None
''', "state_dict(keep_vars=True): misses a buffer registered with persistent=False"),
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
    right('missing = "layer.offset"\nbytes_left_on_cpu = 12', "the tensor named with the layer, as code names it"),
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

FORBIDDEN = {
    ("02", 2): ["'offset'", "12", "on the CPU after the move: the offset"],
    ("02", 3): ["['pos_weight']", "['weight']"],
}
