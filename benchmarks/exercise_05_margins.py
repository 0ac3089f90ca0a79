"""The figures behind the margins of exercises 05/1 and 05/2's checks (lessons/exercises/lesson05.py), on this machine.

    .venv/bin/python benchmarks/exercise_05_margins.py              # seeds 0-11 in quick mode, 0-5 in full mode
    .venv/bin/python benchmarks/exercise_05_margins.py --seeds 2     # fewer seeds

05/1: notebook 05's Section 4 (its own cells, read from the notebook by id) and the solution of exercise 1, run with
the seed of every ``torch.manual_seed(0)`` replaced, which draws other dropout masks and batch orders, as another
device's generator does. For each run it prints the largest absolute difference from the uninterrupted run's
weights of: the run resumed with every state restored, the run with a fresh optimizer (exercise 1), the run without
the random state, and the epoch-3 checkpoint. 05/2: the float16 file's size over the float32 file's for files of
several name lengths (the zip records inside are named after the file's stem).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
import torch  # noqa: E402
from torch import nn  # noqa: E402

import utils  # noqa: E402

SECTION_4 = ["9ea8c850", "c45f53b2", "342bd7d9", "e58d23f9", "8640234a", "9ec1eb6b", "e769758e", "30df7a6a", "e10c6637"]
"""Notebook 05's cells from its imports to Section 4's comparison, then exercise 1's solution."""


def largest(a: nn.Module, b: nn.Module) -> float:
    state_a, state_b = a.state_dict(), b.state_dict()
    return max((state_a[k].double() - state_b[k].double()).abs().max().item() for k in state_a)


def resume_runs(seed: int, quick: bool) -> dict[str, float]:
    """Run Section 4 and exercise 1's solution with ``seed``; return the largest differences from the uninterrupted
    run."""
    os.environ["NB_QUICK"] = "1" if quick else "0"
    cells = {c["id"]: "".join(c["source"]) for c in json.loads(
        (ROOT / "notebooks" / "05_save_load.ipynb").read_text(encoding="utf-8"))["cells"]}
    folder = utils.DATA_DIR / "05_margins"  # git-ignored, as the notebook's own folder; removed at the end
    namespace = {"ROOT": ROOT, "utils": utils, "Path": Path}
    with contextlib.redirect_stdout(io.StringIO()):
        for cell in SECTION_4:
            source = cells[cell].replace("manual_seed(0)", f"manual_seed({seed})")
            source = source.replace('"05_save_load"', '"05_margins"')
            if cell == "30df7a6a":  # the comparison's definitions, without its checks (they hold for seed 0)
                source = source.split("\n\n\nprint(")[0]
            exec(source, namespace)
    uninterrupted = namespace["uninterrupted"]
    checkpoint = torch.load(namespace["SAVE_DIR"] / "after_epoch_3.ckpt", weights_only=True)
    epoch_3 = namespace["make_model"]()
    epoch_3.load_state_dict(checkpoint["model"])
    shutil.rmtree(folder)
    return {"restored": largest(namespace["resumed"], uninterrupted),
            "fresh optimizer": largest(namespace["resumed_fresh"], uninterrupted),
            "no random state": largest(namespace["resumed_no_rng"], uninterrupted),
            "epoch-3 checkpoint": largest(epoch_3, uninterrupted)}


def size_ratios() -> list[tuple[str, str, int, int, float]]:
    """The float16 file's size over the float32 file's, for a few pairs of file names."""
    class MLP(nn.Module):  # notebook 05's
        def __init__(self) -> None:
            super().__init__()
            self.hidden = nn.Linear(20, 256)
            self.output = nn.Linear(256, 10)

    torch.manual_seed(0)
    state = MLP().state_dict()
    folder = Path(tempfile.mkdtemp())
    rows = []
    for full, half in [("mlp.params", "mlp_half.params"), ("mlp.params", "h.pt"), ("mlp.params", "x" * 60 + ".pt"),
                       ("a" * 40 + ".params", "h.pt")]:
        torch.save(state, folder / full)
        torch.save({k: v.half() for k, v in state.items()}, folder / half)
        a, b = (folder / full).stat().st_size, (folder / half).stat().st_size
        rows.append((full, half, a, b, b / a))
    shutil.rmtree(folder)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=0, help="seeds per mode (default: 12 quick, 6 full)")
    args = parser.parse_args()
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads")
    for quick, default in ((True, 12), (False, 6)):
        for seed in range(args.seeds or default):
            found = resume_runs(seed, quick)
            said = ", ".join(f"{k} {v:.3g}" for k, v in found.items())
            print(f"{'quick' if quick else 'full '} seed {seed:2}: {said}", flush=True)
    for full, half, a, b, ratio in size_ratios():
        print(f"{half[:20]:20} {b:6} bytes / {full[:20]:20} {a:6} bytes = {ratio:.4f}")


if __name__ == "__main__":
    main()
