"""Lesson 09's answers: students' answer cells for its exercises, each with its verdict; what the notebook defines
before them (``SETUP``), what their check cells pass (``CONTEXT``), and what no wrong answer's message may show
(``FORBIDDEN``)."""

from __future__ import annotations

from tests.exercise_corpus.shared import Answer, Context, right, wrong

SETUP: dict[tuple[str, int], str] = {}

CONTEXT: dict[tuple[str, int], Context] = {}

CORPUS: dict[tuple[str, int], list[Answer]] = {}

_TIME = '''
def time_ms(fn, device):
    if device.type == "cuda":
        start_event, end_event = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start_event.record()
        fn()
        end_event.record()
        torch.cuda.synchronize()
        return start_event.elapsed_time(end_event)
{cpu}
'''

CORPUS[("09", 1)] = [
    right(_TIME.format(cpu="    return statistics.median(time_runs(fn, device)) * 1e3"), "the reference"),
    right(_TIME.format(cpu='''    utils.synchronize(device)
    start = time.perf_counter()
    fn()
    utils.synchronize(device)
    return (time.perf_counter() - start) * 1000'''), "perf_counter around one call"),
    right(_TIME.format(cpu="    return float(np.mean(utils.time_runs(fn, device, warmup=1, repeat=3))) * 1e3"),
          "the mean of utils.time_runs"),
    right(_TIME.format(cpu='''    runs = []
    for _ in range(3):
        begin = time.monotonic()
        fn()
        runs.append(time.monotonic() - begin)
    return np.float64(min(runs) * 1e3)'''), "the best of three, time.monotonic"),
    wrong(_TIME.format(cpu="    return statistics.median(time_runs(fn, device))"), "seconds"),
    wrong(_TIME.format(cpu="    return 0.0"), "nothing timed"),
    wrong(_TIME.format(cpu='    return "fast"'), "a word"),
    wrong(_TIME.format(cpu='''    start = time.perf_counter()
    return (time.perf_counter() - start) * 1e3'''), "fn never called"),
    wrong(_TIME.format(cpu="    return statistics.median(time_runs(fn, device)) * 1e6"), "microseconds"),
    wrong(_TIME.format(cpu='''    start = time.perf_counter()
    for _ in range(5):
        fn()
    return (time.perf_counter() - start) * 1e3'''), "five calls summed, not the milliseconds of one"),
    right(_TIME.format(cpu="    return 20.0"), "fitted to the visible case: 20 ms typed in", hidden="wrong"),
]

CORPUS[("09", 2)] = [
    right('''
def images_per_second(run_step, batch_size, device):
    seconds = time_runs(run_step, device, warmup=1, repeat=3)
    return batch_size / statistics.median(seconds)
''', "the reference: time_runs' median"),
    right('''
def images_per_second(run_step, batch_size, device):
    return batch_size / utils.time_it(run_step, device)
''', "utils.time_it"),
    right('''
def images_per_second(run_step, batch_size: int, device: torch.device) -> float:
    """Training images per second: batch_size images per step, steps timed by hand."""
    run_step()  # warm up
    utils.synchronize(device)
    start = time.perf_counter()
    for _ in range(4):
        run_step()
    utils.synchronize(device)
    return np.float64(4 * batch_size / (time.perf_counter() - start))
''', "a loop timed by hand, a numpy float"),
    right('''
def images_per_second(run_step, batch_size, device):
    fastest = min(time_runs(run_step, device, warmup=2, repeat=5))
    return torch.tensor(batch_size / fastest)
''', "the fastest run, a 0-dim tensor"),
    wrong('''
def images_per_second(run_step, batch_size, device):
    return statistics.median(time_runs(run_step, device)) * 1e3
''', "milliseconds per step"),
    wrong('''
def images_per_second(run_step, batch_size, device):
    return 1 / statistics.median(time_runs(run_step, device))
''', "steps per second"),
    wrong('''
def images_per_second(run_step, batch_size, device):
    return statistics.median(time_runs(run_step, device)) / batch_size
''', "seconds per image"),
    wrong('''
def images_per_second(run_step, batch_size, device):
    return 1.0
''', "made up"),
    wrong('''
def images_per_second(run_step, batch_size, device):
    return batch_size / sum(time_runs(run_step, device))
''', "five steps' time taken for one step's"),
    wrong("images_per_second = [831.0, 940.0, 1029.0, 1005.0]", "the old answer: rates, not a function"),
    right('''
def images_per_second(run_step, batch_size, device):
    return {16: 1600.0, 64: 6400.0}[batch_size] * 0.95
''', "fitted to the visible cases: a table", hidden="wrong"),
]

_FLOPS = '''
from torch.utils.flop_counter import FlopCounterMode

probe = cifar10.cnn()
inputs, labels = torch.randn(2, 3, 32, 32), torch.randint(0, 10, (2,))


def count_flops(fn):
    with FlopCounterMode(display=False) as counter:
        fn()
    return counter.get_total_flops()


forward = count_flops(lambda: probe(inputs))
step = count_flops(lambda: F.cross_entropy(probe(inputs), labels).backward())
images = inputs.clone().requires_grad_(True)
with_grad = count_flops(lambda: F.cross_entropy(probe(images), labels).backward())
'''

CORPUS[("09", 3)] = [
    right(_FLOPS + "forwards_per_step = step / forward\nforwards_with_image_grad = with_grad / forward\n"
          "no_grad_layer = 0", "counted"),
    right("forwards_per_step = 138419712 / 49416704\nforwards_with_image_grad = 3.0\nno_grad_layer = 0",
          "the counts typed in"),
    right(_FLOPS + "forwards_per_step = np.float64(step) / forward\nforwards_with_image_grad = "
          "torch.tensor(with_grad / forward)\nno_grad_layer = np.int64(0)", "numpy and tensor values"),
    right(_FLOPS + "forwards_per_step = (step / 2) / (forward / 2)\nforwards_with_image_grad = 3\n"
          "no_grad_layer = 0.0", "per image, whole numbers as other types"),
    wrong("forwards_per_step = 3\nforwards_with_image_grad = 3.0\nno_grad_layer = 0", "the rule of thumb"),
    wrong(_FLOPS + "forwards_per_step = step / forward\nforwards_with_image_grad = with_grad / forward\n"
          "no_grad_layer = probe[0]", "the layer itself, not its index"),
    wrong("forwards_per_step = 2.8\nforwards_with_image_grad = 3.0\nno_grad_layer = 0", "copied from a printout"),
    wrong("forwards_per_step = 138419712 / 49416704\nforwards_with_image_grad = 138419712 / 49416704\n"
          "no_grad_layer = 0", "the images' gradient not asked for"),
    wrong("forwards_per_step = 138419712 / 49416704\nforwards_with_image_grad = 3.0\nno_grad_layer = 8",
          "the last layer"),
    wrong('forwards_per_step = 138419712 / 49416704\nforwards_with_image_grad = 3.0\nno_grad_layer = "conv"',
          "a name"),
]

FORBIDDEN = {
    ("09", 3): ["first convolution", "images themselves", "the images' input"],
}
