"""Lesson 12's answers: students' answer cells for its exercises, each with its verdict; what the notebook defines
before them (``SETUP``), what their check cells pass (``CONTEXT``), and what no wrong answer's message may show
(``FORBIDDEN``)."""

from __future__ import annotations

from tests.exercise_corpus.shared import Answer, Context, right, wrong

SETUP: dict[tuple[str, int], str] = {}

CONTEXT: dict[tuple[str, int], Context] = {}

CORPUS: dict[tuple[str, int], list[Answer]] = {}

_ENV = '''
def torchrun_env(nodes, per_node, node, local_rank):
{body}
'''

CORPUS[("12", 1)] = [
    right(_ENV.format(body='''    return {"RANK": node * per_node + local_rank, "LOCAL_RANK": local_rank,
            "WORLD_SIZE": nodes * per_node, "LOCAL_WORLD_SIZE": per_node, "GROUP_RANK": node}'''),
          "the reference"),
    right(_ENV.format(body='''    env = {}
    env["GROUP_RANK"] = node
    env["LOCAL_RANK"] = local_rank
    env["LOCAL_WORLD_SIZE"] = per_node
    env["WORLD_SIZE"] = per_node * nodes
    env["RANK"] = env["GROUP_RANK"] * env["LOCAL_WORLD_SIZE"] + env["LOCAL_RANK"]
    return env'''), "built key by key"),
    right(_ENV.format(body='''    values = [node * per_node + local_rank, local_rank, nodes * per_node, per_node, node]
    names = ["RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "GROUP_RANK"]
    return {name: str(value) for name, value in zip(names, values)}'''), "strings, as os.environ holds them"),
    right(_ENV.format(body='''    ranks = [(n, r) for n in range(nodes) for r in range(per_node)]
    return dict(RANK=ranks.index((node, local_rank)), LOCAL_RANK=local_rank, WORLD_SIZE=len(ranks),
                LOCAL_WORLD_SIZE=per_node, GROUP_RANK=node)'''), "counted from a list of every worker"),
    right(_ENV.format(body='''    return {"RANK": np.int64(node * per_node + local_rank),
            "LOCAL_RANK": np.int64(local_rank),
            "WORLD_SIZE": np.int64(nodes * per_node), "LOCAL_WORLD_SIZE": np.int64(per_node),
            "GROUP_RANK": np.int64(node)}'''), "numpy integers"),
    wrong(_ENV.format(body='''    return {"RANK": local_rank * nodes + node, "LOCAL_RANK": local_rank,
            "WORLD_SIZE": nodes * per_node, "LOCAL_WORLD_SIZE": per_node, "GROUP_RANK": node}'''),
          "workers numbered across the machines first"),
    wrong(_ENV.format(body='''    return {"RANK": node * per_node + local_rank, "LOCAL_RANK": local_rank,
            "WORLD_SIZE": per_node, "LOCAL_WORLD_SIZE": per_node, "GROUP_RANK": node}'''),
          "WORLD_SIZE as one machine's workers"),
    wrong(_ENV.format(body='''    return {"RANK": local_rank, "LOCAL_RANK": local_rank,
            "WORLD_SIZE": nodes * per_node, "LOCAL_WORLD_SIZE": per_node, "GROUP_RANK": node}'''),
          "RANK as LOCAL_RANK"),
    wrong(_ENV.format(body='''    return {"RANK": node * per_node + local_rank,
            "LOCAL_RANK": node * per_node + local_rank,
            "WORLD_SIZE": nodes * per_node, "LOCAL_WORLD_SIZE": per_node, "GROUP_RANK": node}'''),
          "LOCAL_RANK as RANK"),
    wrong(_ENV.format(body='''    return {"RANK": node * per_node + local_rank, "LOCAL_RANK": local_rank,
            "WORLD_SIZE": nodes * per_node, "LOCAL_WORLD_SIZE": per_node, "GROUP_RANK": 0}'''),
          "GROUP_RANK 0 as on one machine"),
    wrong(_ENV.format(body='''    return {"RANK": node * per_node + local_rank, "LOCAL_RANK": local_rank,
            "WORLD_SIZE": nodes * per_node}'''), "two keys missing"),
    wrong(_ENV.format(body='''    return [node * per_node + local_rank, local_rank, nodes * per_node,
            per_node, node]'''),
          "a list, not a dict"),
    wrong(_ENV.format(body='''    return {"RANK": (node + 1) * per_node + local_rank, "LOCAL_RANK": local_rank,
            "WORLD_SIZE": nodes * per_node, "LOCAL_WORLD_SIZE": per_node, "GROUP_RANK": node}'''),
          "machines counted from 1"),
]

_RESUME = '''
def resumed_from(fail_at, save_every):
{body}
'''

CORPUS[("12", 2)] = [
    right(_RESUME.format(body="    return fail_at // save_every * save_every"), "the reference"),
    right(_RESUME.format(body="    return fail_at - fail_at % save_every"), "minus the remainder"),
    right(_RESUME.format(body='''    saved = [step for step in range(0, fail_at + 1) if step % save_every == 0]
    return max(saved)'''), "the folders that exist, listed"),
    right(_RESUME.format(body="    return int(math.floor(fail_at / save_every)) * save_every"), "math.floor"),
    right(_RESUME.format(body='''    step = fail_at
    while step % save_every:
        step -= 1
    return step'''), "a loop back to the last checkpoint"),
    wrong(_RESUME.format(body="    return fail_at"), "the failed step, as if saved every step"),
    wrong(_RESUME.format(body="    return fail_at - 1"), "one step back"),
    wrong(_RESUME.format(body="    return math.ceil(fail_at / save_every) * save_every"), "rounded up"),
    wrong(_RESUME.format(body="    return fail_at // save_every"), "the number of checkpoints, not the step"),
    wrong(_RESUME.format(body="    return 0"), "from scratch"),
    wrong(_RESUME.format(body="    return fail_at - save_every"), "one period back"),
    wrong(_RESUME.format(body="    return 4"), "the lesson's step 4 typed in"),
    right(_RESUME.format(body='''    table = {(4, 1): 4, (5, 2): 4, (6, 3): 6, (2, 5): 0, (9, 4): 8}
    return table[(fail_at, save_every)]'''),
          "fitted to the visible cases: a table", hidden="wrong"),
]

_MEMORY = '''
def bytes_per_gpu(parameters, gpus, strategy):
{body}
'''

CORPUS[("12", 3)] = [
    right(_MEMORY.format(body='''    whole = 16 * parameters
    return whole / gpus if strategy == "fsdp" else whole'''), "the reference"),
    right(_MEMORY.format(body='''    per_parameter = 2 + 2 + 4 + 4 + 4  # bf16 weights, grads; fp32 master, moments
    if strategy == "ddp":
        return per_parameter * parameters
    return per_parameter * parameters / gpus'''), "each part listed"),
    right(_MEMORY.format(body='''    shards = {"ddp": 1, "fsdp": gpus}[strategy]
    return np.float64(16 * parameters) / shards'''), "a dict of divisors, numpy"),
    right(_MEMORY.format(body='''    if strategy.lower() == "fsdp":
        return 16 * parameters // gpus if (16 * parameters) % gpus == 0 else 16 * parameters / gpus
    return 16 * parameters'''), "whole numbers where they divide"),
    wrong(_MEMORY.format(body='''    return 16 * parameters / gpus'''), "DDP divided among the GPUs too"),
    wrong(_MEMORY.format(body='''    return 16 * parameters'''), "FSDP not divided"),
    wrong(_MEMORY.format(body='''    whole = 4 * parameters
    return whole / gpus if strategy == "fsdp" else whole'''), "float32 weights only"),
    wrong(_MEMORY.format(body='''    whole = 8 * parameters
    return whole / gpus if strategy == "fsdp" else whole'''), "no Adam state"),
    wrong(_MEMORY.format(body='''    whole = 12 * parameters
    return whole / gpus if strategy == "fsdp" else whole'''), "no half-precision weights and gradients"),
    wrong(_MEMORY.format(body='''    whole = 16 * parameters
    return whole / gpus if strategy == "ddp" else whole'''), "the strategies swapped"),
    wrong(_MEMORY.format(body='''    whole = 16 * parameters / 1e9
    return whole / gpus if strategy == "fsdp" else whole'''), "in GB, not bytes"),
    wrong(_MEMORY.format(body='''    return 112e9 / 8'''), "the lesson's 7-billion example typed in"),
]

FORBIDDEN = {
    ("12", 1): ["node * per_node", "per_node * node"],
    ("12", 2): ["// save_every", "fail_at % save_every"],
    ("12", 3): ["16 bytes", "16 ×"],
}
