"""Lesson 08's answers: students' answer cells for its exercises, each with its verdict; what the notebook defines
before them (``SETUP``), what their check cells pass (``CONTEXT``), and what no wrong answer's message may show
(``FORBIDDEN``)."""

from __future__ import annotations

from tests.exercise_corpus.shared import Answer, Context, right, wrong

SETUP: dict[tuple[str, int], str] = {}

CONTEXT: dict[tuple[str, int], Context] = {}

CORPUS: dict[tuple[str, int], list[Answer]] = {}

CORPUS[("08", 1)] = [
    right('''
from torch.utils.data import DistributedSampler

dataset = ddp.toy_data()
shards = [list(DistributedSampler(dataset, num_replicas=3, rank=rank, shuffle=True, seed=0)) for rank in range(3)]
all_indices = [i for shard in shards for i in shard]
shard_sizes = [len(shard) for shard in shards]
appearing_twice = len(all_indices) - len(set(all_indices))
''', "the reference"),
    right("shard_sizes = [171, 171, 171]\nappearing_twice = 1", "typed"),
    right('''
from torch.utils.data import DistributedSampler

samplers = [DistributedSampler(range(512), num_replicas=3, rank=r) for r in range(3)]
shard_sizes = tuple(np.int64(len(s)) for s in samplers)
counts = np.bincount(np.concatenate([list(s) for s in samplers]))
appearing_twice = int((counts == 2).sum())
''', "np.bincount, a tuple of numpy integers"),
    right("shard_sizes = [math.ceil(512 / 3)] * 3\nappearing_twice = 3 * math.ceil(512 / 3) - 512",
          "worked out"),
    wrong("shard_sizes = [170, 171, 171]\nappearing_twice = 0", "split without repeats"),
    wrong("shard_sizes = [171, 171, 171]\nappearing_twice = 0", "the repeat not counted"),
    wrong("shard_sizes = [171, 171, 171]\nappearing_twice = 3", "one per shard"),
    wrong("shard_sizes = 513\nappearing_twice = 1", "the total"),
    wrong("shard_sizes = [170, 170, 170]\nappearing_twice = 0", "drop_last taken for the default"),
]

CORPUS[("08", 2)] = [
    right('''
from torch.utils.data import DistributedSampler

dataset = ddp.toy_data()
orders = {}
for use_set_epoch in (True, False):
    sampler = DistributedSampler(dataset, num_replicas=2, rank=0, shuffle=True, seed=0)
    epochs = []
    for epoch in range(2):
        if use_set_epoch:
            sampler.set_epoch(epoch)
        epochs.append(list(sampler))
    orders[use_set_epoch] = epochs
moved_with_set_epoch = sum(a != b for a, b in zip(*orders[True]))
moved_without = sum(a != b for a, b in zip(*orders[False]))
''', "the reference"),
    right('''
from torch.utils.data import DistributedSampler

def epochs(call_set_epoch):
    sampler = DistributedSampler(range(512), num_replicas=2, rank=0)
    lists = []
    for epoch in range(2):
        if call_set_epoch:
            sampler.set_epoch(epoch)
        lists.append(np.array(list(sampler)))
    return lists

first, second = epochs(True)
moved_with_set_epoch = (first != second).sum()
first, second = epochs(False)
moved_without = np.count_nonzero(first != second)
''', "numpy arrays: numpy integers"),
    right('''
from torch.utils.data import DistributedSampler

sampler = DistributedSampler(ddp.toy_data(), num_replicas=2, rank=0)
epoch_0 = torch.tensor(list(sampler))
sampler.set_epoch(1)
moved_with_set_epoch = (torch.tensor(list(sampler)) != epoch_0).sum()
plain = DistributedSampler(ddp.toy_data(), num_replicas=2, rank=0)
moved_without = int((torch.tensor(list(plain)) != torch.tensor(list(plain))).sum())
''', "tensors: a 0-dim tensor"),
    right("moved_with_set_epoch = 255\nmoved_without = 0", "the counts typed in"),
    wrong("moved_with_set_epoch = 0\nmoved_without = 0", "taken to never reshuffle"),
    wrong("moved_with_set_epoch = 255\nmoved_without = 255", "taken to reshuffle anyway"),
    wrong("moved_with_set_epoch = 256\nmoved_without = 0", "every position taken to move"),
    wrong("moved_with_set_epoch = True\nmoved_without = False", "the old yes/no"),
    wrong('''
from torch.utils.data import DistributedSampler

sampler = DistributedSampler(range(512), num_replicas=2, rank=0)
first = list(sampler)
sampler.set_epoch(1)
moved_with_set_epoch = len(set(first) ^ set(sampler))
moved_without = 0
''', "the indices that changed shard, not the positions that moved"),
]

_HALVES = '''
def step_in_halves(model, optimizer, x, y):
{body}
'''

CORPUS[("08", 3)] = [
    right(_HALVES.format(body='''    optimizer.zero_grad()
    for part_x, part_y in zip(x.chunk(2), y.chunk(2), strict=True):
        (nn.functional.cross_entropy(model(part_x), part_y) / 2).backward()
    optimizer.step()'''), "the reference: chunk(2)"),
    right(_HALVES.format(body='''    model.zero_grad(set_to_none=True)
    half = len(x) // 2
    for part_x, part_y in zip(x.split(half), y.split(half)):
        loss = F.cross_entropy(model(part_x), part_y) * 0.5
        loss.backward()
    optimizer.step()'''), "split(half), times 0.5, model.zero_grad"),
    right(_HALVES.format(body='''    optimizer.zero_grad()
    for part_x, part_y in zip(torch.tensor_split(x, 2), torch.tensor_split(y, 2)):
        loss = F.cross_entropy(model(part_x), part_y, reduction="sum") / len(x)
        loss.backward()
    optimizer.step()'''), "summed losses divided by the whole batch"),
    right(_HALVES.format(body='''    optimizer.zero_grad()
    n = x.shape[0] // 2
    losses = []
    for start in (0, n):
        out = model(x[start:start + n])
        losses.append(nn.CrossEntropyLoss()(out, y[start:start + n]).item())
        (nn.CrossEntropyLoss()(out, y[start:start + n]) / 2).backward()
    optimizer.step()
    return sum(losses) / 2  # more than asked: the mean loss'''), "slices, returns the loss"),
    wrong(_HALVES.format(body='''    optimizer.zero_grad()
    for part_x, part_y in zip(x.chunk(2), y.chunk(2)):
        F.cross_entropy(model(part_x), part_y).backward()
    optimizer.step()'''), "losses not divided by 2"),
    wrong(_HALVES.format(body='''    for part_x, part_y in zip(x.chunk(2), y.chunk(2)):
        optimizer.zero_grad()
        (F.cross_entropy(model(part_x), part_y) / 2).backward()
    optimizer.step()'''), "gradients zeroed between the halves"),
    wrong(_HALVES.format(body='''    for part_x, part_y in zip(x.chunk(2), y.chunk(2)):
        (F.cross_entropy(model(part_x), part_y) / 2).backward()
    optimizer.step()'''), "old gradients never zeroed"),
    wrong(_HALVES.format(body='''    optimizer.zero_grad()
    F.cross_entropy(model(x), y).backward()
    optimizer.step()'''), "one step on the whole batch, no halves"),
    wrong(_HALVES.format(body='''    optimizer.zero_grad()
    for part_x, part_y in zip(x.chunk(2), y.chunk(2)):
        (F.cross_entropy(model(part_x), part_y) / 2).backward()'''), "no step"),
    wrong(_HALVES.format(body='''    for part_x, part_y in zip(x.chunk(2), y.chunk(2)):
        optimizer.zero_grad()
        F.cross_entropy(model(part_x), part_y).backward()
        optimizer.step()'''), "a step per half"),
    wrong(_HALVES.format(body='''    optimizer.zero_grad()
    for part_x, part_y in ((x[:16], y[:16]), (x[16:], y[16:])):
        (F.cross_entropy(model(part_x), part_y) / 2).backward()
    optimizer.step()'''), "halves of 16 typed in, from the text's example: wrong for any other batch"),
]

FORBIDDEN = {
    ("08", 1): ["171", "513"],
    ("08", 2): ["seed + epoch", "same seed", "255"],
}
