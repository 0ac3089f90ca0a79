"""Lesson 09's answers: students' answer cells for its exercises, each with its verdict; what the notebook defines
before them (``SETUP``), what their check cells pass (``CONTEXT``), and what no wrong answer's message may show
(``FORBIDDEN``)."""

from __future__ import annotations

from tests.exercise_corpus.shared import Answer, Context, right, wrong

SETUP = {
    ("09", 2): """
big_batch = 128
""",
}

CONTEXT: dict[tuple[str, int], Context] = {("09", 2): lambda folders, names: {"big_batch": names["big_batch"]}}

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
    right("sizes = [16, 32, 64, 128]\nrates = [831.0, 940.0, 1029.0, 1005.0]", "typed"),
    right('''
sizes = sorted({16, 32, 64, 128, big_batch})
rates = [size / (0.01 + size * 0.001) for size in sizes]
''', "computed (a model of the timing here)"),
    right("sizes = np.array([128, 64, 32, 16])\nrates = np.array([1005.0, 1029.0, 940.0, 831.0])",
          "numpy arrays, largest first"),
    right("sizes = (16, 32, 64, 128)\nrates = (800, 900, 1000, 1000)", "tuples of whole numbers"),
    wrong("sizes = [16, 32, 64]\nrates = [1.0, 2.0, 3.0]", "a size left out"),
    wrong("sizes = [16, 32, 64, 128]\nrates = [1.0, 2.0, 3.0]", "a rate missing"),
    wrong("sizes = [16, 32, 64, 128]\nrates = [1.0, 2.0, -1.0, 3.0]", "a negative rate"),
    wrong('sizes = [16, 32, 64, 128]\nrates = ["fast", "fast", "faster", "fastest"]', "words"),
    right("sizes = [16, 32, 64, 128, 256]\nrates = [1.0, 2.0, 3.0, 4.0, 5.0]", "256 swept too: more than asked"),
    right("sizes = [16, 32, 64, 128, big_batch]\nrates = [5.0, 4.0, 3.0, 2.0, 1.0]",
          "the sizes as the text lists them: 128 twice where big_batch is 128"),
    wrong("sizes = [16, 32, 64, 256]\nrates = [1.0, 2.0, 3.0, 4.0]", "another size instead of 128"),
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
