"""Lesson 01's answers: students' answer cells for its exercises, each with its verdict; what the notebook defines
before them (``SETUP``), what their check cells pass (``CONTEXT``), and what no wrong answer's message may show
(``FORBIDDEN``)."""

from __future__ import annotations

from tests.exercise_corpus.shared import Answer, Context, right, wrong

SETUP: dict[tuple[str, int], str] = {}

CONTEXT: dict[tuple[str, int], Context] = {}

CORPUS: dict[tuple[str, int], list[Answer]] = {}

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
    wrong("""
def usable_devices():
    return [torch.device("cpu"), torch.device("cuda:0")]
""", "a GPU listed on a machine that may have none"),
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
    wrong("""
def visible_gpus(value, n_gpus):
    seen = []
    for entry in value.split(","):
        if not entry.strip().lstrip("-").isdigit() or int(entry) < 0:
            break
        if int(entry) < n_gpus:  # a GPU the machine lacks is left out, and the list goes on
            seen.append(int(entry))
    return seen
""", "stops at -1 but skips a GPU number the machine lacks instead of stopping there"),
    wrong("""
def visible_gpus(value, n_gpus):
    seen = []
    for entry in value.split(","):
        if not entry.strip().isdigit() or int(entry) > 3:  # the lesson's machine has GPUs 0 to 3
            break
        seen.append(int(entry))
    return seen
""", "tests against the lesson's four GPUs, not n_gpus"),
    right('''
def visible_gpus(value, n_gpus):
    table = {("1", 4): [1], ("0,2,3", 4): [0, 2, 3], ("3,1", 4): [3, 1], ("0,2,-1,1", 4): [0, 2], ("-1", 4): [],
             ("", 4): [], ("0,7", 4): [0], ("4", 4): [], ("1,0", 2): [1, 0],
             ("1,2,0", 2): [1]}
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

FORBIDDEN: dict[tuple[str, int], list[str]] = {}
