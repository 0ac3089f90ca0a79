"""lessons/exercises/, proven on a corpus of students' answers (tests/exercise_corpus/): every right answer, in
whatever idiom, is "correct"; every wrong one is "wrong", with a message that gives neither the expected value nor
the "why" kept for discussion; in both languages. An answer fitted to the visible cases fails the hidden ones. The
stub counts as "not answered yet" (printed, never raised, unless strict). CUDA-only branches are judged under
tests/fake_cuda.py (torch's C layer faked, nothing else).
"""

from __future__ import annotations

import ast
import copy
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from torch import nn

import utils
from lessons import exercises
from lessons.exercises import hidden, lesson05, lesson09, lesson10
from tests import exercise_corpus as corpus
from tests.fake_cuda import FakeGpu

ROOT = Path(__file__).resolve().parents[1]
CJK = re.compile("[\u4e00-\u9fff]")


@pytest.fixture(autouse=True)
def english() -> Iterator[None]:
    before = utils.language()
    utils.set_language("en")
    yield
    utils.set_language(before)


def stub(*args: Any, **kwargs: Any) -> Any:
    """The answer cell's stub for a function, as a student first finds it."""
    raise NotImplementedError("your code here")


class StubModule(nn.Module):
    """The answer cell's stub for a class."""

    def __init__(self, *args: Any) -> None:
        super().__init__()
        raise NotImplementedError("your code here")


# ---- the corpus ------------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """What the notebooks give the checks: 06's checkpoint (of SETUP's model), 07's cleaned pets, 09's and 10's
    sizes."""
    from lessons import generated_pets, petimages

    root = tmp_path_factory.mktemp("corpus")
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 3))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    nn.functional.cross_entropy(model(torch.randn(8, 4)), torch.randint(0, 3, (8,))).backward()
    optimizer.step()
    checkpoint = root / "epoch_01.pt"
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": 1}, checkpoint)
    pet_dir = generated_pets.make_quick(root / "pets", per_class=8)
    data = petimages.build(pet_dir, size=16, workers=1)
    setups = {}  # each exercise's setup runs once (05's trains four runs), each answer in a copy of its namespace
    for key, setup in corpus.SETUP.items():
        setups[key] = {"run_dir": root / f"setup_{key[0]}_{key[1]}"}
        setups[key]["run_dir"].mkdir()
        exec(corpus.PRELUDE, setups[key])
        exec(setup, setups[key])
    return {"root": root, "checkpoint": checkpoint, "data": data, "pet_dir": pet_dir, "setups": setups,
            "runs": setups[("05", 1)]}


def context_of(lesson: str, number: int, folders: dict[str, Any], namespace: dict[str, Any] | None = None
               ) -> dict[str, Any]:
    """The keyword arguments the notebook's check cell passes (the corpus's ``CONTEXT``); those that name what the
    notebook computed before the exercise come from ``namespace`` (the answer's, after its setup), or else from the
    setup's own."""
    make = corpus.CONTEXT.get((lesson, number))
    names = namespace if namespace is not None else folders["setups"].get((lesson, number), {})
    return make(folders, names) if make else {}


def run_answer(lesson: str, number: int, source: str, folders: dict[str, Any], where: Path
               ) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """Run an answer cell as the notebook would; return the answers the check takes, and the check's keyword
    arguments."""
    namespace: dict[str, Any] = dict(folders["setups"].get((lesson, number), {}))
    if not namespace:
        exec(corpus.PRELUDE, namespace)
    namespace.update({"run_dir": where, "data": folders["data"], "pet_dir": folders["pet_dir"]})
    exec(source, namespace)
    answers = tuple(namespace[name] for name in exercises.exercise(lesson, number).answers)
    return answers, context_of(lesson, number, folders, namespace)


CASES = [(lesson, number, index) for (lesson, number), answers in corpus.CORPUS.items()
         for index in range(len(answers))]


def test_the_corpus_covers_every_exercise() -> None:
    """At least four right answers and four wrong ones per exercise, every exercise of every notebook."""
    assert set(corpus.CORPUS) == set(exercises.EXERCISES)
    for key, answers in corpus.CORPUS.items():
        verdicts = [a.verdict for a in answers]
        assert verdicts.count("correct") >= 4 and verdicts.count("wrong") >= 4, key
    assert set(corpus.CONTEXT) == {key for key, e in exercises.EXERCISES.items() if e.context}  # what checks take
    fitted = [key for key, answers in corpus.CORPUS.items() for a in answers if a.hidden]
    assert len(fitted) >= 5 and all(exercises.exercise(*key).has_hidden for key in fitted)


@pytest.mark.parametrize(("lesson", "number", "index"), CASES,
                         ids=[f"{lesson}-{n}-{i}" for lesson, n, i in CASES])
def test_verdict(lesson: str, number: int, index: int, folders: dict[str, Any], tmp_path: Path) -> None:
    """The verdict in both languages; a wrong answer's message says what is wrong, never the expected value."""
    answer = corpus.CORPUS[(lesson, number)][index]
    given, context = run_answer(lesson, number, answer.source, folders, tmp_path)
    sentences = {}
    for lang in ("en", "zh"):
        utils.set_language(lang)
        kind, sentences[lang] = exercises.result(lesson, number, *given, **context)
        assert kind == answer.verdict, (answer.note, sentences[lang])
    utils.set_language("en")
    assert CJK.search(sentences["zh"]) and not CJK.search(sentences["en"]), sentences
    if answer.verdict == "wrong":
        assert "could not be checked" not in sentences["en"], (answer.note, sentences["en"])  # a foreseen mistake
        for text in corpus.FORBIDDEN.get((lesson, number), []):
            if text.strip("'\"[]()") not in answer.source:
                assert text not in sentences["en"] and text not in sentences["zh"], (answer.note, text, sentences)
    if exercises.exercise(lesson, number).has_hidden and answer.verdict == "correct":
        kind, sentence = exercises.result(lesson, number, *given, hidden=True, **context)
        assert kind == (answer.hidden or "correct"), (answer.note, sentence)


# ---- the stub, strict checks, grading --------------------------------------------------------------------------------
def test_every_stub_is_not_answered_yet(folders: dict[str, Any]) -> None:
    for (lesson, number), found in exercises.EXERCISES.items():
        context = context_of(lesson, number, folders)
        kind, sentence = exercises.result(lesson, number, *[None] * len(found.answers), **context)
        assert kind == "unanswered" and "not answered yet" in sentence, (lesson, number, sentence)
        if found.has_hidden:  # a function or class: its stub raises NotImplementedError
            first = StubModule if found.answers[0][0].isupper() else stub
            kind, _ = exercises.result(lesson, number, first, *[None] * (len(found.answers) - 1), **context)
            assert kind == "unanswered", (lesson, number)
    kind, sentence = exercises.result("04", 1, 4, None)
    assert kind == "unanswered" and "`n_state` still None" in sentence


def module_device(module: nn.Module) -> torch.device | None:
    devices = {t.device for t in [*module.parameters(), *module.buffers()]}
    if len(devices) > 1:
        raise ValueError(f"module has tensors on several devices: {sorted(map(str, devices))}")
    return devices.pop() if devices else None


def test_check_prints_and_never_raises_unless_strict(capsys: pytest.CaptureFixture) -> None:
    exercises.check("02", 1, stub)
    exercises.check("02", 1, lambda m: torch.device("cpu"))
    exercises.check("02", 1, module_device)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("○ Exercise 1: not answered yet")
    assert lines[1].startswith("✗ Exercise 1: not yet. `module_device(nn.ReLU())` returned cpu")
    assert lines[2] == "✓ Exercise 1: correct."
    with pytest.raises(AssertionError, match="returned cpu, for a module that has no parameters"):
        exercises.check("02", 1, lambda m: torch.device("cpu"), strict=True)
    with pytest.raises(AssertionError, match="not answered yet"):
        exercises.check("02", 1, stub, strict=True)


def test_a_solutions_check_never_says_correct(capsys: pytest.CaptureFixture) -> None:
    """Under a solution, after "Run all", the check speaks of the reference solution: the student's own check,
    higher up, is the only one that says "correct" (issue 40)."""
    exercises.check("02", 1, module_device, strict=True)
    exercises.check("03", 3, 3456, strict=True)
    utils.set_language("zh")
    exercises.check("02", 1, module_device, strict=True)
    assert capsys.readouterr().out.splitlines() == [
        "✓ Exercise 1: the reference solution passes the check.",
        "✓ Exercise 3: the reference solution passes the check.",
        "✓ 练习1：参考答案通过了检查。"]


def test_grade_raises_unless_right_and_runs_hidden_cases(capsys: pytest.CaptureFixture) -> None:
    fitted = next(a for a in corpus.CORPUS[("01", 2)] if a.hidden)
    namespace: dict[str, Any] = {}
    exec(fitted.source, namespace)
    exercises.grade("01", 2, namespace["visible_gpus"])
    assert capsys.readouterr().out == "✓ Exercise 2: correct.\n"
    with pytest.raises(AssertionError, match=r"visible_gpus\('2,0,1', 3\)` returned \[\]"):
        exercises.grade("01", 2, namespace["visible_gpus"], hidden=True)
    with pytest.raises(AssertionError, match="not yet"):
        exercises.grade("03", 3, 576, hidden=True)  # values have no hidden cases: the visible check runs
    assert {key for key, e in exercises.EXERCISES.items() if e.has_hidden} == {
        ("01", 2), ("01", 3), ("02", 1), ("03", 1), ("03", 2), ("04", 3), ("05", 1), ("05", 3), ("06", 1), ("06", 2),
        ("06", 3), ("07", 2), ("08", 3), ("09", 1), ("09", 2), ("10", 1), ("11", 2), ("11", 3), ("12", 1), ("12", 2),
        ("12", 3)}


def check_modules() -> dict[str, Any]:
    """Each lesson's check module, by lesson number."""
    import importlib

    return {p.stem[-2:]: importlib.import_module(f"lessons.exercises.{p.stem}")
            for p in sorted((ROOT / "lessons" / "exercises").glob("lesson[0-9][0-9].py"))}


def test_each_lesson_declares_its_exercises_and_hidden_cases_in_one_module() -> None:
    """Lesson NN's exercises are all declared in ``lessonNN.py``, each exercise with cases has exactly one hidden
    block there, of literal data, which is what the check runs with ``hidden=True``."""
    modules = check_modules()
    assert sorted(modules) == sorted({lesson for lesson, _ in exercises.EXERCISES})
    for lesson, module in modules.items():
        source = Path(module.__file__).read_text(encoding="utf-8")
        declared = {(c.args[0].value, c.args[1].value) for c in ast.walk(ast.parse(source)) if isinstance(c, ast.Call)
                    and getattr(c.func, "id", "") in ("declare", "Exercise") and len(c.args) > 2}
        own = [e for e in exercises.EXERCISES.values() if e.lesson == lesson]
        assert declared == {(e.lesson, e.number) for e in own}, lesson
        blocks = hidden.hidden_blocks(source)
        assert set(blocks) == {e.hidden for e in own if e.has_hidden}, lesson
        for found in (e for e in own if e.has_hidden):
            namespace: dict[str, Any] = {}
            exec(blocks[found.hidden], namespace)  # runs as it is, as nbgrader's hidden test cell runs it
            assert namespace[found.hidden] == found.hidden_cases() and found.cases is not None
            assert namespace[found.hidden] != found.cases
    for key, found in exercises.EXERCISES.items():
        assert found.has_hidden == (found.cases is not None), key  # a function or class answer has both


def test_stripped_hidden_cases_fail_loudly(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where a copy of lessons/ has its hidden blocks stripped (the handout, nbgrader's course), ``hidden=True`` is
    a teacher's setup error: it raises, it never passes, whatever the answer."""
    from lessons.exercises import lesson01

    source = Path(lesson01.__file__).read_text(encoding="utf-8")
    stripped = hidden.without_hidden_cases(source)
    assert not hidden.MARKER.search(stripped) and "VISIBLE_GPUS_HIDDEN = " not in stripped and "'2,0,1'" not in stripped
    compile(stripped, "lesson01.py", "exec")
    monkeypatch.delattr(lesson01, "VISIBLE_GPUS_HIDDEN")
    for answer in (stub, lambda value, n: []):
        with pytest.raises(LookupError, match="has no hidden cases"):
            exercises.grade("01", 2, answer, hidden=True)
    assert exercises.result("01", 2, stub)[0] == "unanswered"  # the visible check is as it was
    with pytest.raises(ValueError, match="not one assignment|unpaired"):  # never half stripped
        hidden.without_hidden_cases(source.replace(hidden.END, "", 1))


def test_grade_takes_the_hidden_cases_its_cell_defines() -> None:
    """nbgrader's hidden test cell defines the block's cases, then passes them: the same verdict as hidden=True."""
    from lessons.exercises import lesson01

    fitted = next(a for a in corpus.CORPUS[("01", 2)] if a.hidden)
    namespace: dict[str, Any] = {}
    exec(fitted.source, namespace)
    cases = copy.deepcopy(lesson01.VISIBLE_GPUS_HIDDEN)
    assert exercises.result("01", 2, namespace["visible_gpus"], hidden=cases) == exercises.result(
        "01", 2, namespace["visible_gpus"], hidden=True)
    assert exercises.result("01", 2, namespace["visible_gpus"], hidden=cases)[0] == "wrong"
    with pytest.raises(TypeError, match="no cases"):
        exercises.result("03", 3, 3456, hidden=[1])


# ---- CUDA, faked at torch's C layer ----------------------------------------------------------------------------------
def answer_of(lesson: str, number: int, note: str) -> Any:
    found = next(a for a in corpus.CORPUS[(lesson, number)] if a.note == note)
    namespace: dict[str, Any] = {}
    exec(corpus.PRELUDE, namespace)
    exec(found.source, namespace)
    return namespace[exercises.exercise(lesson, number).answers[0]]


def test_01_1_with_two_gpus(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(torch._C, "_cuda_getDeviceCount", lambda: 2, raising=False)
    monkeypatch.setattr(torch.cuda, "_initialized", True)
    monkeypatch.setattr(torch.cuda, "_cached_device_count", None)
    monkeypatch.setattr(torch.cuda, "_is_compiled", lambda: True)
    assert torch.cuda.device_count() == 2
    for note in ("the reference: a list of torch.device", "device names as strings",
                 "a loop, torch.device(type, index)"):
        kind, sentence = exercises.result("01", 1, answer_of("01", 1, note))
        assert kind == "correct", sentence
    for wrong, says in [(lambda: ["cpu"], "which are not this machine's GPUs"),
                        (lambda: ["cpu", "cuda", "cuda"], "without a number"),
                        (lambda: ["cpu", "cuda:0", "cuda:0"], "which are not this machine's GPUs")]:
        kind, sentence = exercises.result("01", 1, wrong)
        assert kind == "wrong" and says in sentence, sentence


def test_09_1_wall_clock_on_cuda_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the exercise asks for CUDA events, an answer that times a CUDA device with the wall clock is wrong.
    (The events answer cannot run here: a CUDA event needs a real GPU. Not run yet on one.)"""
    FakeGpu(monkeypatch)
    assert utils.get_device().type == "cuda"

    def wall_clock(fn: Any, device: torch.device) -> float:  # synchronises, but never uses events
        return float(np.median(utils.time_runs(fn, device, warmup=1, repeat=3))) * 1e3

    kind, sentence = exercises.result("09", 1, wall_clock)
    assert kind == "wrong" and "did not time with CUDA events" in sentence, sentence
    with lesson09.cuda_events_used() as calls:  # the spy calls the real methods: the C layer's error comes through
        with pytest.raises(RuntimeError):
            torch.cuda.Event(enable_timing=True).record()
    assert calls == ["record"]


def test_10_3_on_cuda_takes_a_margin(monkeypatch: pytest.MonkeyPatch) -> None:
    """On a GPU both searches run from one allocator state under one budget: Adam's batch is at most SGD's (up to the
    allocator's rounding) and not far below it, a margin a right answer meets on any GPU; the GPU run that gave Adam
    1.34 times SGD's batch searched from two states."""
    FakeGpu(monkeypatch)
    for value, kind in [(585, "correct"), (560, "correct"), (600, "correct"), (781, "wrong"), (280, "wrong")]:
        assert exercises.result("10", 3, 585, value, budget=320 * 2**20)[0] == kind, value


def test_05_1_where_a_resumed_run_is_only_close(folders: dict[str, Any]) -> None:
    """Where kernels add in an order that varies (some GPUs), two runs resumed from files that differ only in the
    optimizer state a fresh optimizer ignores end close, not bit for bit: the check takes them as the same run by its
    margin (lesson05.SAME_RUN), not by exact equality; and it takes the largest difference computed in float32 or
    float64."""
    namespace = dict(folders["setups"][("05", 1)])
    exec(corpus.CORPUS[("05", 1)][0].source, namespace)
    context = context_of("05", 1, folders, namespace)
    calls = []

    def drifting(path: Path) -> nn.Module:  # the reference, with the last-bit drift of a nondeterministic GPU
        model = namespace["resume_fresh"](path)
        calls.append(path)
        with torch.no_grad():
            for parameter in model.parameters():
                parameter.add_(torch.full_like(parameter, 1e-5 * len(calls)))
        return model

    model = drifting(context["checkpoint"])
    for dtype in (torch.float32, torch.float64):
        mine, theirs = model.state_dict(), namespace["uninterrupted"].state_dict()
        largest = max((mine[k].to(dtype) - theirs[k].to(dtype)).abs().max().item() for k in mine)
        assert largest > 10 * lesson05.SAME_RUN  # far from the margin: a fresh optimizer changes the run
        calls.clear()
        kind, sentence = exercises.result("05", 1, drifting, largest, **context)
        assert kind == "correct", (dtype, sentence)


# ---- the constants the checks hold -----------------------------------------------------------------------------------
def test_the_flop_counts_are_lesson_09s() -> None:
    from torch.utils.flop_counter import FlopCounterMode

    from lessons import cifar10

    probe = cifar10.cnn()
    x, y = torch.randn(2, 3, 32, 32), torch.randint(0, 10, (2,))

    def count(fn: Any) -> int:
        with FlopCounterMode(display=False) as counter:
            fn()
        return counter.get_total_flops()

    images = x.clone().requires_grad_(True)
    assert (count(lambda: nn.functional.cross_entropy(probe(x), y).backward()), count(lambda: probe(x)),
            count(lambda: nn.functional.cross_entropy(probe(images), y).backward())) == (
        lesson09.STEP_FLOPS, lesson09.FORWARD_FLOPS, lesson09.STEP_WITH_IMAGE_GRAD_FLOPS)


def test_the_saved_bytes_are_lesson_10s() -> None:
    from lessons import cifar10, memory

    model = cifar10.cnn()
    saved_at = {}
    for size in (2, 3):
        x, y = torch.randn(size, 3, 32, 32), torch.randint(0, 10, (size,))
        with memory.saved_tensors([*model.parameters(), x, y]) as saved:
            nn.functional.cross_entropy(model(x), y)
        saved_at[size] = memory.saved_bytes(saved)
    assert saved_at[3] - saved_at[2] == lesson10.SAVED_PER_IMAGE
    assert saved_at[2] - 2 * lesson10.SAVED_PER_IMAGE == lesson10.SAVED_PER_BATCH


def test_the_parameter_bytes_are_lesson_05s(folders: dict[str, Any]) -> None:
    mlp = folders["setups"][("05", 2)]["MLP"]()  # the corpus's copy of notebook 05's MLP, float32
    assert (sum(p.nbytes for p in mlp.parameters()), sum(p.numel() for p in mlp.parameters())) == (
        lesson05.MLP_PARAMETER_BYTES, lesson05.MLP_PARAMETER_VALUES)
    assert "self.hidden = nn.Linear(20, 256)" in (ROOT / "notebooks" / "05_save_load.ipynb").read_text(encoding="utf-8")


# ---- messages, hints, languages --------------------------------------------------------------------------------------
def test_an_answer_of_an_unforeseen_kind_is_wrong_not_an_error() -> None:
    held = {"BCEWithLogitsLoss": ["pos_weight", 1], "NLLLoss": ["weight"], "CrossEntropyLoss": []}
    kind, sentence = exercises.result("02", 3, held)
    assert kind == "wrong", sentence


def test_explanations_are_pointed_to(capsys: pytest.CaptureFixture) -> None:
    exercises.check("03", 3, 3456)
    assert "\"Why is a lazy layer handy here?\" is not for the check: answer it in words" in capsys.readouterr().out


def test_hint(capsys: pytest.CaptureFixture) -> None:
    exercises.hint("02", 1)
    assert capsys.readouterr().out.startswith("Hint for exercise 1: Section 3")
    with pytest.raises(ValueError, match="no exercise 4 in notebook '02'"):
        exercises.hint("02", 4)


def headings(lesson: str, lang: str) -> set[str]:
    folder = ROOT / "notebooks" / ("zh" if lang == "zh" else "")
    path = next(folder.glob(f"{lesson}_*.ipynb"))
    found = set()
    for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
        for line in "".join(cell["source"]).splitlines():
            if cell["cell_type"] == "markdown" and line.startswith("##"):
                found.add(re.sub(r"^#+ (\d+\. )?", "", line).strip())
    return found


def test_hints_point_to_sections_that_exist() -> None:
    """A hint points to the lesson's sections by their titles, in quotation marks: each title is a heading of the
    notebook, in each language."""
    for (lesson, _), found in exercises.EXERCISES.items():
        for lang, text in (("en", found.hint_en), ("zh", found.hint_zh)):
            titles = re.findall(r"“([^”]+)”", text)
            assert titles, (lesson, lang, text)
            assert set(titles) <= headings(lesson, lang), (lesson, lang, set(titles) - headings(lesson, lang))


def test_wrong_number_of_answers_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="takes memory_of"):
        exercises.check("01", 3, 1, 2)
    with pytest.raises(TypeError, match="takes sgd_largest, adam_largest, budget=budget"):
        exercises.check("10", 3, 29, 27)


def test_chinese_messages(capsys: pytest.CaptureFixture) -> None:
    utils.set_language("zh")
    exercises.check("02", 1, stub)
    exercises.check("02", 1, lambda m: torch.device("cpu"))
    exercises.check("02", 1, module_device)
    exercises.check("03", 3, 3456)
    exercises.hint("02", 1)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("○ 练习1：尚未作答")
    assert lines[1] == "✗ 练习1：还不对。`module_device(nn.ReLU())`返回了cpu，而这个模块既没有参数也没有缓冲区。"
    assert lines[2] == "✓ 练习1：正确。"
    assert lines[3].startswith("✓ 练习3：正确。问题“为什么这里用惰性层很方便？”不由检查判断：请用文字回答")
    assert lines[4].startswith("练习1的提示：第3节")
    said = [exercises.result("03", 3, torch.ones(3))[1], exercises.result("04", 1, None, None)[1]]
    assert "形状为(3,)的张量" in said[0] and "tensor" not in said[0], said  # no English phrase in a Chinese sentence
    assert "`n_params`、`n_state`仍是None" in said[1], said  # a Chinese list is joined with 、


def _literal_text(node: ast.AST) -> str:
    """A string constant's text, an f-string's literal parts; " " for anything else."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(_literal_text(v) for v in node.values)
    return " "


def chinese_strings() -> list[tuple[str, str]]:
    """Every (English, Chinese) pair of lessons/exercises/: the arguments of each say/wrong call, each exercise's
    hint and explanation (``declare(...)``, ``Exercise(...)``) and each (English, Chinese) tuple, f-strings by their
    literal parts."""
    pairs = []
    for path in sorted((ROOT / "lessons" / "exercises").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                args = [a for a in node.args if isinstance(a, (ast.Constant, ast.JoinedStr))]
                keywords = {k.arg: _literal_text(k.value) for k in node.keywords}
                if node.func.id in ("say", "wrong") and len(args) == 2:
                    pairs.append((_literal_text(args[0]), _literal_text(args[1])))
                elif node.func.id in ("declare", "Exercise") and "hint_en" in keywords:
                    pairs.append((keywords["hint_en"], keywords["hint_zh"]))
                    if "explain_en" in keywords:
                        pairs.append((keywords["explain_en"], keywords["explain_zh"]))
            elif isinstance(node, ast.Tuple) and len(node.elts) == 2 and all(
                    isinstance(e, (ast.Constant, ast.JoinedStr)) for e in node.elts):
                en, zh = (_literal_text(e) for e in node.elts)
                if CJK.search(zh) and not CJK.search(en):  # a message's (English, Chinese) parts
                    pairs.append((en, zh))
    return pairs


def test_the_checks_chinese_uses_the_glossarys_terms() -> None:
    """The glossary of notebooks/zh/TERMINOLOGY.md covers the checks' messages: no term it says to avoid, and where
    the English names a term, the Chinese uses the glossary's word for it (or says it in English, as code does)."""
    from tests.test_translate import chinese_text_problems, glossary

    pairs = chinese_strings()
    assert len(pairs) > 150
    problems = []
    for en, zh in pairs:
        assert CJK.search(zh), (en, zh)
        problems += [f"{zh!r}: {problem}" for problem in chinese_text_problems(zh)]  # words to avoid, ratios
        for term in glossary():
            english = re.sub(r"`[^`]*`", "", en)
            if term["forms"].search(english) and term["chinese"] not in zh and not term["forms"].search(zh) and (
                    not term["also"] or term["also"] not in zh):
                problems.append(f"{zh!r}: {term['english']!r} without {term['chinese']!r} ({en!r})")
    assert not problems, "\n".join(problems)


def test_checks_leave_the_random_generators_alone() -> None:
    torch.manual_seed(123)
    np.random.seed(123)
    expected = torch.rand(3), np.random.rand(3)
    torch.manual_seed(123)
    np.random.seed(123)
    exercises.result("04", 3, answer_of("04", 3, "the reference"))
    exercises.result("03", 2, answer_of("03", 2, "the reference"))
    assert torch.equal(torch.rand(3), expected[0]) and np.array_equal(np.random.rand(3), expected[1])


def test_every_exercise_checked_in_one_go(folders: dict[str, Any], tmp_path: Path) -> None:
    """Every exercise's first right answer checked one after the other in one process, as a notebook run does: no
    check leaves state that fails the next. (What the checks cost is measured, not asserted: benchmarks/RESULTS.md,
    "Issue 36: what the exercises' corpus ... cost in CI".)"""
    given = {key: run_answer(*key, next(a for a in answers if a.verdict == "correct").source, folders, tmp_path)
             for key, answers in corpus.CORPUS.items()}
    for (lesson, number), (answers, context) in given.items():
        kind, sentence = exercises.result(lesson, number, *answers, **context)
        assert kind == "correct", sentence


def test_a_verdict_is_seen_at_a_glance_by_a_mark_and_its_word_in_both_languages() -> None:
    """A student scanning a notebook tells done from not done by the line's first character (a shape, not a colour),
    then its word: ✓ correct, ✗ not yet, ○ not answered yet; the three marks differ."""
    assert len(set(exercises.core.MARKS.values())) == 3
    for lang, words in (("en", ("correct", "not yet", "not answered yet")), ("zh", ("正确", "还不对", "尚未作答"))):
        utils.set_language(lang)
        try:  # 04/1: the number of parameter tensors and of state_dict entries
            said = [exercises.result("04", 1, 4, 7), exercises.result("04", 1, 56, 7),
                    exercises.result("04", 1, None, None)]
        finally:
            utils.set_language("en")
        for (status, sentence), wanted, word in zip(said, ("correct", "wrong", "unanswered"), words, strict=True):
            assert status == wanted and sentence.startswith(exercises.core.MARKS[status] + " "), sentence
            assert word in sentence.split(".")[0].split("：")[1 if lang == "zh" else 0], sentence


def _headings(path: Path) -> tuple[dict[str, str], set[str]]:
    """A notebook's numbered section headings (number -> title) and its ``###`` headings."""
    numbered, titles = {}, set()
    for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
        if cell["cell_type"] == "markdown":
            for line in "".join(cell["source"]).splitlines():
                if found := re.match(r"^## (\d+)\. (.+)$", line):
                    numbered[found.group(1)] = found.group(2).strip()
                elif line.startswith("### "):
                    titles.add(line[4:].strip())
    return numbered, titles


SECTIONS = {"en": r"Sections? (\d+)(?: and (\d+))? \(“([^”]+)”(?:, “([^”]+)”)?\)", "zh": r"第(\d+)节（“([^”]+)”）"}
"""How a hint names a section of its lesson: by number and title (English: one or two, as "Sections 2 and 3")."""
DEEPER = {"en": r"Going deeper's “([^”]+)”", "zh": r"“进阶”部分的“([^”]+)”"}
"""How a hint names a part of Going deeper: by its title."""


def _named_sections(hint: str, lang: str) -> list[tuple[str, str]]:
    """The (number, title) pairs a hint names."""
    pairs = []
    for groups in re.findall(SECTIONS[lang], hint):
        pairs += [(groups[0], groups[2]), (groups[1], groups[3])] if lang == "en" else [groups]
    return [(number, title) for number, title in pairs if number]


@pytest.mark.parametrize("key", sorted(exercises.EXERCISES), ids=lambda key: f"{key[0]}-{key[1]}")
def test_every_hint_points_to_a_section_the_lesson_has(key: tuple[str, int]) -> None:
    """A hint names sections by number and title, and Going deeper's parts by title: each is one of the lesson's
    headings, in both editions (the Chinese hint writes “进阶”部分 as the glossary says)."""
    found = exercises.EXERCISES[key]
    english = next((ROOT / "notebooks").glob(f"{key[0]}_*.ipynb"))
    for lang, hint, path in (("en", found.hint_en, english), ("zh", found.hint_zh, ROOT / "notebooks" / "zh" /
                                                                english.name)):
        numbered, titles = _headings(path)
        for number, title in _named_sections(hint, lang):
            assert numbered.get(number) == title, (path.name, hint, number, numbered.get(number))
        for title in re.findall(DEEPER[lang], hint):
            assert title in titles, (path.name, hint, title)
        assert "进阶部分" not in hint.replace("“进阶”部分", ""), hint


@pytest.mark.parametrize("path", sorted((ROOT / "notebooks" / "zh").glob("[0-9][0-9]_*.ipynb")), ids=lambda p: p.name)
def test_the_chinese_exercise_sections_follow_the_glossary(path: Path) -> None:
    """The Chinese exercises, hints in their text, answer cells and solutions use the glossary's words, as the cores
    above them do (tests/test_translate.py reads the cores; this reads from ``## 练习`` on)."""
    import nbformat

    from tests.test_translate import chinese_text_problems, chinese_texts

    nb = nbformat.read(path, as_version=4)
    core = set(chinese_texts(nb))
    problems = [f"cell {index}: {problem}" for index, text in chinese_texts(nb, exercises=True)
                if (index, text) not in core for problem in chinese_text_problems(text)]
    assert not problems, problems
