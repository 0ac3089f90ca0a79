"""Lesson 11's answers: students' answer cells for its exercises, each with its verdict; what the notebook defines
before them (``SETUP``), what their check cells pass (``CONTEXT``), and what no wrong answer's message may show
(``FORBIDDEN``)."""

from __future__ import annotations

from tests.exercise_corpus.shared import Answer, Context, right, wrong

STEP = """
from torch.profiler import profile, record_function, schedule

from lessons import profiling
from lessons.profiling import labelled_step

torch.manual_seed(0)
model = cifar10.cnn()
loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
train_loader = [(torch.randn(4, 3, 32, 32), torch.randint(0, 10, (4,))) for _ in range(12)]
"""

SETUP = {("11", 1): STEP, ("11", 2): STEP, ("11", 3): STEP}

CONTEXT: dict[tuple[str, int], Context] = {}

CORPUS: dict[tuple[str, int], list[Answer]] = {}

CORPUS[("11", 1)] = [
    right('''
plan = schedule(wait=2, warmup=1, active=3, repeat=1)
with profiling.quiet_profiler(), profile(schedule=plan) as counted:
    batches = iter(train_loader)
    for _ in range(8):
        labelled_step(model, loss_fn, optimizer, batches, device)
        counted.step()
forward_calls = next(e.count for e in counted.key_averages() if e.key == "forward")
''', "the reference: profiled and read"),
    right('''
with profile(schedule=schedule(wait=2, warmup=1, active=3, repeat=1)) as prof:
    for inputs, targets in train_loader[:8]:
        with record_function("forward"):
            loss = loss_fn(model(inputs), targets)
        loss.backward()
        prof.step()
table = {e.key: e.count for e in prof.key_averages()}
forward_calls = table["forward"]
''', "its own loop, a dict of counts"),
    right("forward_calls = 3", "typed"),
    right("forward_calls = np.int64(3)", "numpy"),
    right("wait, warmup, active = 2, 1, 3\nforward_calls = min(active, 8 - wait - warmup)", "worked out"),
    wrong("forward_calls = 8", "every step"),
    wrong("forward_calls = 6", "every step after the wait"),
    wrong("forward_calls = 4", "the warm-up counted"),
    wrong("forward_calls = 5", "every step after the warm-up"),
    wrong('forward_calls = "3"', "a string"),
    wrong("forward_calls = 2", "a guess"),
]

CORPUS[("11", 2)] = [
    right('''
import json
from pathlib import Path


def label_ms(trace, label: str) -> float:
    events = json.loads(Path(trace).read_text())["traceEvents"]
    return sum(e["dur"] for e in events
               if e.get("ph") == "X" and e.get("name") == label) / 1000
''', "the reference"),
    right('''
import json


def label_ms(trace, label):
    with open(trace) as file:
        data = json.load(file)
    total = 0.0
    for event in data["traceEvents"]:
        if event.get("name") == label and event.get("ph") == "X":
            total += event["dur"]
    return total / 1e3
''', "a loop over json.load"),
    right('''
import json


def label_ms(trace, label):
    events = json.loads(Path(trace).read_text())["traceEvents"]
    return np.float64(sum(e.get("dur", 0) for e in events if e["ph"] == "X" and e["name"] == label)) * 1e-3
''', "numpy, dur with a default"),
    right('''
from lessons import profiling


def label_ms(trace, label):
    return sum(r.ms for r in profiling.read_regions(trace, [label]))
''', "the lesson's read_regions"),
    right('''
def label_ms(trace, label):
    return {"forward": 2.0005, "backward": 3.0, "load batch": 1.0}.get(label, 0.0)
''', "fitted to the visible cases", hidden="wrong"),
    wrong('''
import json


def label_ms(trace, label):
    events = json.loads(Path(trace).read_text())["traceEvents"]
    return sum(e["dur"] for e in events if e.get("ph") == "X" and e["name"] == label)
''', "microseconds"),
    wrong('''
import json


def label_ms(trace, label):
    events = json.loads(Path(trace).read_text())["traceEvents"]
    return sum(e["dur"] for e in events if e.get("ph") == "X" and label in e["name"]) / 1000
''', "a name that holds the label counts"),
    wrong('''
import json


def label_ms(trace, label):
    events = json.loads(Path(trace).read_text())["traceEvents"]
    return sum(e["dur"] for e in events if e["name"] == label) / 1000
''', "every kind of event: a flow event has no duration"),
    wrong('''
import json


def label_ms(trace, label):
    events = json.loads(Path(trace).read_text())["traceEvents"]
    return next(e["dur"] for e in events if e.get("ph") == "X" and e["name"] == label) / 1000
''', "only the first event"),
    wrong('''
import json


def label_ms(trace, label):
    events = json.loads(Path(trace).read_text())["traceEvents"]
    return sum(e["dur"] for e in events if e.get("ph") == "X" and e["name"] == label) / 1e6
''', "seconds"),
    wrong('''
import json


def label_ms(trace, label):
    return sum(e["dur"] for e in json.loads(Path(trace).read_text()) if e["name"] == label) / 1000
''', "the file read as a list of events"),
]

CORPUS[("11", 3)] = [
    right('''
def step_with_loss(model, loss_fn, optimizer, inputs, targets) -> None:
    with record_function("forward"):
        outputs = model(inputs)
    with record_function("loss"):
        loss = loss_fn(outputs, targets)
    with record_function("backward"):
        optimizer.zero_grad()
        loss.backward()
    with record_function("optimizer step"):
        optimizer.step()
''', "the reference"),
    right('''
from torch.autograd.profiler import record_function as region


def step_with_loss(model, loss_fn, optimizer, inputs, targets):
    optimizer.zero_grad(set_to_none=True)
    with region("forward"):
        logits = model(inputs)
    with region("loss"):
        loss = loss_fn(logits, targets)
    with region("backward"):
        loss.backward()
    with region("optimizer step"):
        optimizer.step()
''', "zero_grad first, the autograd alias"),
    right('''
def step_with_loss(model, loss_fn, optimizer, inputs, targets):
    parts = {}
    with torch.profiler.record_function("forward"):
        parts["out"] = model(inputs)
    with torch.profiler.record_function("loss"):
        parts["loss"] = loss_fn(parts["out"], targets)
    for name, work in (("backward", lambda: parts["loss"].backward()), ("optimizer step", optimizer.step)):
        with torch.profiler.record_function(name):
            work()
    optimizer.zero_grad()
''', "a loop over the last two, zero_grad at the end"),
    right('''
@record_function("forward")
def run_model(model, inputs):
    return model(inputs)


def step_with_loss(model, loss_fn, optimizer, inputs, targets):
    outputs = run_model(model, inputs)
    with record_function("loss"):
        loss = loss_fn(outputs, targets)
    with record_function("backward"):
        for p in model.parameters():
            p.grad = None
        loss.backward()
    with record_function("optimizer step"):
        optimizer.step()
''', "record_function as a decorator, gradients set to None by hand"),
    wrong('''
def step_with_loss(model, loss_fn, optimizer, inputs, targets):
    with record_function("forward"):
        outputs = model(inputs)
        with record_function("loss"):
            loss = loss_fn(outputs, targets)
    with record_function("backward"):
        optimizer.zero_grad()
        loss.backward()
    with record_function("optimizer step"):
        optimizer.step()
''', "the loss inside the forward region"),
    wrong('''
def step_with_loss(model, loss_fn, optimizer, inputs, targets):
    with record_function("forward"):
        outputs = model(inputs)
    with record_function("loss"):
        loss = loss_fn(outputs, targets)
    with record_function("backward"):
        loss.backward()
    with record_function("optimizer step"):
        optimizer.step()
''', "no zero_grad: gradients pile up"),
    wrong('''
def step_with_loss(model, loss_fn, optimizer, inputs, targets):
    with record_function("forward"):
        outputs = model(inputs)
    with record_function("loss"):
        loss = loss_fn(outputs, targets)
    with record_function("backward"):
        optimizer.zero_grad()
        loss.backward()
    with record_function("optimizer_step"):
        optimizer.step()
''', "a label misspelt"),
    wrong('''
def step_with_loss(model, loss_fn, optimizer, inputs, targets):
    with record_function("forward"):
        outputs = model(inputs)
    with record_function("loss"):
        loss = loss_fn(outputs, targets)
    optimizer.zero_grad()
    loss.backward()
    with record_function("optimizer step"):
        optimizer.step()
''', "backward not labelled"),
    wrong('''
def step_with_loss(model, loss_fn, optimizer, inputs, targets):
    with record_function("forward"):
        outputs = model(inputs)
    with record_function("loss"):
        loss = loss_fn(outputs, targets)
    with record_function("optimizer step"):
        optimizer.step()
    with record_function("backward"):
        optimizer.zero_grad()
        loss.backward()
''', "the step before backward"),
    wrong('''
def step_with_loss(model, loss_fn, optimizer, inputs, targets):
    with record_function("forward"):
        outputs = model(inputs)
    with record_function("loss"):
        loss = loss_fn(outputs, targets)
    with record_function("backward"):
        optimizer.zero_grad()
        loss.backward()
    with record_function("optimizer step"):
        pass
''', "no optimizer step"),
]

FORBIDDEN = {
    ("11", 1): ["is 3", "(3)"],
    ("11", 2): ["2.0005", "3.0"],
    ("11", 3): [],
}
