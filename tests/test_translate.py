"""The Chinese edition cannot drift: every English notebook has a twin in notebooks/zh/, paired cell by cell, with
nothing missing, stale or untranslated, the same code and structure, and the glossary's terms. Its outputs come from
running it (tools/author/run_notebooks.py): the same code prints the same numbers, in Chinese where the lessons speak,
and no line in two languages. Also the tool that keeps it in step, tools/author/translate.py, on small notebooks."""

from __future__ import annotations

import ast
import html
import re
import tokenize
from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbval.plugin import find_comment_markers

import utils
from lessons import exercises
from tools.author import core, editions, header, setup_cell, translate

ENGLISH = translate.english_notebooks()
IDS = [p.name for p in ENGLISH]
CJK = r"\u4e00-\u9fff"
ROOT = editions.ROOT
CODE_SPAN = r"`(?:[^`\n]|\n(?!\n))+`"  # inline code, which may continue on the next line of its paragraph
GLOSSARY_FILE = editions.ZH_NOTEBOOKS / "TERMINOLOGY.md"


def _pair(path: Path) -> tuple[nbformat.NotebookNode, nbformat.NotebookNode]:
    twin = translate.twin_path(path)
    assert twin.is_file(), f"no Chinese twin: run tools/author/translate.py {path.name[:2]}"
    return nbformat.read(path, as_version=4), nbformat.read(twin, as_version=4)


def prose(markdown: str) -> str:
    """Return markdown without code (fenced and inline, each inline span replaced by "C"), math, URLs and HTML."""
    text = re.sub(r"```.*?```", "", markdown, flags=re.S)
    text = re.sub(CODE_SPAN, "C", text)
    text = re.sub(r"\$[^$\n]+\$", "M", text)
    text = re.sub(r"\]\([^)]*\)", "]", text)  # link targets
    return re.sub(r"<[^>\n]+>", "", text)


def structure(markdown: str) -> dict[str, object]:
    """Return what must match between a cell and its translation: heading levels, links, images, code spans, math."""
    no_fences = re.sub(r"```.*?```", "", markdown, flags=re.S)
    return {
        "headings": [len(m.group(1)) for m in re.finditer(r"^(#{1,6}) ", no_fences, flags=re.M)],
        "links": len(re.findall(r"(?<!!)\[[^\]]*\]\([^)]*\)", no_fences)),
        "images": len(re.findall(r"!\[[^\]]*\]\([^)]*\)", no_fences)),
        "code spans": len(re.findall(CODE_SPAN, no_fences)),
        "code blocks": markdown.count("```"),
        "math": len(re.findall(r"\$[^$\n]+\$", no_fences)),
    }


def glossary() -> list[dict[str, object]]:
    """Return the rows of notebooks/zh/TERMINOLOGY.md: english, chinese, also (another name a reader may know, or
    ""), forms (regex), avoid (list), not inside (list)."""
    rows = []
    for line in GLOSSARY_FILE.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 6 or cells[0] in ("英文", "---") or not line.startswith("|"):
            continue
        forms = [f.strip() for f in cells[3].split(",") if f.strip()]
        pattern = re.compile(r"(?<![\w-])(" + "|".join(re.escape(f) for f in forms) + r")(?![\w-])", re.I)
        rows.append(
            {
                "english": cells[0],
                "chinese": cells[1],
                "also": cells[2],
                "forms": pattern,
                "avoid": [a.strip() for a in cells[4].split(",") if a.strip()],
                "not inside": [w.strip() for w in cells[5].split(",") if w.strip()],
            }
        )
    return rows


def first_use_gloss(term: dict[str, object]) -> str:
    """Return what the brackets hold at a term's first use: its English in the singular, then the other name a
    reader may know where the glossary gives one (``epoch，即迭代周期``)."""
    return f"{term['english']}，即{term['also']}" if term["also"] else str(term["english"])


# ---- the edition ----------------------------------------------------------------------------------------------------
def test_glossary_is_readable() -> None:
    terms = {str(t["english"]): t for t in glossary()}
    assert len(terms) >= 20 and {"tensor", "device", "epoch", "checkpoint", "pooling"} <= set(terms)
    assert first_use_gloss(terms["epoch"]) == "epoch，即迭代周期" and first_use_gloss(terms["tensor"]) == "tensor"
    assert first_use_gloss(terms["pooling"]) == "pooling，即汇聚"
    for term in terms.values():  # the English of a first use is itself one of the forms the check looks for
        assert term["forms"].fullmatch(str(term["english"])), term["english"]


@pytest.mark.parametrize("path", ENGLISH, ids=IDS)
def test_twin_has_the_same_cells_in_the_same_order(path: Path) -> None:
    en, zh = _pair(path)
    assert [(c.id, c.cell_type) for c in zh.cells] == [(c.id, c.cell_type) for c in en.cells]


@pytest.mark.parametrize("path", ENGLISH, ids=IDS)
def test_nothing_missing_stale_or_untranslated(path: Path) -> None:
    report = {kind: ids for kind, ids in translate.status(path).items() if ids}
    assert not report, f"zh/{path.name}: {report} (run tools/author/translate.py, then translate these cells)"


ANSWER_CELL = re.escape(editions.LANGUAGES["en"].answer).replace(r"\{number\}", r"\d+")
"""The first line of an exercise's answer cell, which holds the stub a student replaces."""


def compared(cell: Any) -> bool:
    """True for a code cell whose outputs strict nbval compares: not tagged or marked to ignore its output or skip."""
    tags = set(cell.metadata.get("tags", []))
    markers = dict(find_comment_markers(cell.source))
    ignored = {"nbval-ignore-output", "nbval-skip"} & tags or markers.get("check") is False or markers.get("skip")
    return cell.cell_type == "code" and not ignored


NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
SANITIZE_FILE = Path(__file__).resolve().parent / "nbval_sanitize.cfg"


def sanitized(text: str) -> str:
    """Return ``text`` with what nbval masks before it compares (tests/nbval_sanitize.cfg: memory addresses...)."""
    import configparser

    rules = configparser.ConfigParser()
    rules.read(SANITIZE_FILE, encoding="utf-8")
    for section in rules.sections():
        text = re.sub(rules[section]["regex"], rules[section]["replace"], text)
    return text


def output_text(output: Any) -> str:
    """Return what an output says in text: a stream's text, an error's type and message, else its text/plain."""
    if output.get("output_type") == "stream":
        return output.get("text", "")
    if output.get("output_type") == "error":
        return f"{output.get('ename')}: {output.get('evalue')}"
    return str(output.get("data", {}).get("text/plain", ""))


def same_numbers_problems(en_outputs: list[Any], zh_outputs: list[Any]) -> list[str]:
    """Return how the Chinese outputs of a cell differ from the English ones beyond their words: another kind or
    number of outputs (a stream's name included), or another multiset of numbers in any output (after what nbval
    masks: ``sanitized``)."""
    kinds = [(o.get("output_type"), o.get("name")) for o in en_outputs]
    if [(o.get("output_type"), o.get("name")) for o in zh_outputs] != kinds:
        return [f"outputs {kinds} in English, {[(o.get('output_type'), o.get('name')) for o in zh_outputs]} in Chinese"]
    problems = []
    for en, zh in zip(en_outputs, zh_outputs, strict=True):
        en_numbers, zh_numbers = (sorted(NUMBER.findall(sanitized(output_text(o)))) for o in (en, zh))
        if en_numbers != zh_numbers:
            problems.append(f"numbers {en_numbers} in English, {zh_numbers} in Chinese")
    return problems


@pytest.mark.parametrize("path", ENGLISH, ids=IDS)
def test_same_code_and_same_numbers(path: Path) -> None:
    """Token for token but for comments; the exceptions are the generated setup cell, which is each edition's own
    (tools/author/template.py, compared with it by tests/test_hygiene.py): its messages are in its language; and
    the answer cells, whose stubs' docstrings and messages are Chinese: string literals may differ there, in
    Chinese, everything else is token for token. Every output nbval compares holds the English one's numbers, in
    outputs of the same kinds: the same code, run in the other edition, computes the same."""
    en, zh = _pair(path)
    setup = next(cell.id for cell in en.cells if cell.cell_type == "code")
    for index, (en_cell, zh_cell) in enumerate(zip(en.cells, zh.cells, strict=True)):
        if en_cell.cell_type != "code":
            continue
        where = f"zh/{path.name} cell {index} ({en_cell.id})"
        if en_cell.id == setup:
            assert (en_cell.source, zh_cell.source) == (setup_cell.SETUP_CELL, setup_cell.SETUP_CELL_ZH), where
        elif re.match(ANSWER_CELL, en_cell.source):  # a stub's docstring and message are in the edition's language
            english, chinese = translate.code_tokens(en_cell.source), translate.code_tokens(zh_cell.source)
            assert [kind for kind, _ in english] == [kind for kind, _ in chinese], f"{where}: code"
            differ = [(a, b) for a, b in zip(english, chinese, strict=True) if a != b]
            assert all(kind == tokenize.STRING and re.search(f"[{CJK}]", text) for _, (kind, text) in differ), where
        else:
            assert translate.code_tokens(zh_cell.source) == translate.code_tokens(en_cell.source), f"{where}: code"
        assert dict(find_comment_markers(zh_cell.source)) == dict(find_comment_markers(en_cell.source)), where
        assert zh_cell.execution_count == en_cell.execution_count, where
        if compared(en_cell) and en_cell.id != setup:
            assert not same_numbers_problems(en_cell.outputs, zh_cell.outputs), (where, same_numbers_problems(
                en_cell.outputs, zh_cell.outputs))
        if en_cell.source.startswith(editions.LANGUAGES["en"].solution):
            assert zh_cell.source.startswith(editions.LANGUAGES["zh"].solution), f"{where}: solution marker"


def test_same_numbers_catches_a_changed_number_or_output() -> None:
    stream = nbformat.v4.new_output
    english = [stream("stream", name="stdout", text="4 epochs, loss 0.512 on 3,000 images\n")]
    assert not same_numbers_problems(english, [stream("stream", name="stdout", text="3,000张图像，4轮，损失0.512\n")])
    assert same_numbers_problems(english, [stream("stream", name="stdout", text="3,000张图像，4轮，损失0.513\n")])
    assert same_numbers_problems(english, [stream("stream", name="stderr", text="4 epochs, loss 0.512 on 3,000\n")])
    assert same_numbers_problems(english, [*english, stream("display_data", data={"text/plain": "x"})])


def test_the_setup_cells_differ_only_in_comments_and_the_words_of_their_messages() -> None:
    """The Chinese setup cell runs the English cell's code: the same tokens, but for string literals (its messages,
    and the language it sets), which are Chinese."""
    english, chinese = (translate.code_tokens(cell) for cell in (setup_cell.SETUP_CELL, setup_cell.SETUP_CELL_ZH))
    assert [kind for kind, _ in english] == [kind for kind, _ in chinese]
    differ = [(a, b) for a, b in zip(english, chinese, strict=True) if a != b]
    assert differ and all(kind == tokenize.STRING for (kind, _), _ in differ)
    assert ('"en"' in [text for _, text in english]) and ('"zh"' in [text for _, text in chinese])
    for (_, text_en), (_, text_zh) in differ:  # the same fields to fill in, and Chinese words in each message
        assert re.findall(r"\{[^}]*\}", text_en) == re.findall(r"\{[^}]*\}", text_zh), (text_en, text_zh)
        assert text_en == '"en"' or re.search(f"[{CJK}]", text_zh), text_zh


@pytest.mark.parametrize("path", ENGLISH, ids=IDS)
def test_markdown_is_chinese_with_the_same_structure(path: Path) -> None:
    en, zh = _pair(path)
    for index, (en_cell, zh_cell) in enumerate(zip(en.cells, zh.cells, strict=True)):
        if en_cell.cell_type != "markdown":
            continue
        where = f"zh/{path.name} cell {index} ({en_cell.id})"
        assert structure(zh_cell.source) == structure(en_cell.source), where
        if zh_cell.metadata.get("translation", {}).get("status") == "verbatim":
            continue
        text = prose(zh_cell.source)
        cjk, latin = len(re.findall(f"[{CJK}]", text)), len(re.findall(r"[A-Za-z]", text))
        if latin:
            assert cjk >= 0.3 * (cjk + latin), f"{where}: mostly Latin letters ({latin} vs {cjk} Chinese characters)"


@pytest.mark.parametrize("path", ENGLISH, ids=IDS)
def test_chinese_punctuation_and_no_spaces_around_english(path: Path) -> None:
    _, zh = _pair(path)
    for index, cell in enumerate(zh.cells):
        if cell.cell_type != "markdown" or cell.metadata.get("translation", {}).get("status") == "verbatim":
            continue
        for line in prose(cell.source).splitlines():
            if line.lstrip().startswith("|"):  # tables: cells may hold code names and numbers side by side
                line = re.sub(r"\s*\|\s*", "|", line)
            where = f"zh/{path.name} cell {index}: {line.strip()[:60]!r}"
            assert not re.search(f"[{CJK}][,;:?!()]|[,;:?!(][{CJK}]|[{CJK}]\\.(\\s|$)", line), (
                f"{where}: ASCII punctuation"
            )
            assert not re.search(f"[{CJK}] +[A-Za-z0-9*\\[]|[A-Za-z0-9*\\]] +[{CJK}]", line), f"{where}: a space"


def unrendered_bold(markdown: str) -> list[str]:
    """Return the bold spans that Markdown leaves as literal asterisks: a closing ``**`` right after full-width
    punctuation and right before a letter or a Chinese character is not a closing delimiter (CommonMark's
    flanking rules), so ``**易错点。**在GPU上`` shows its asterisks; ``**易错点**。在GPU上`` is bold."""
    broken = []
    for line in re.sub(r"`[^`\n]*`", "`C`", markdown).splitlines():
        for number, match in enumerate(re.finditer(r"\*\*", line)):
            before, after = line[match.start() - 1 : match.start()], line[match.end() : match.end() + 1]
            if number % 2 and re.match(r"[，。：；？！、）」』]", before) and re.match(f"[{CJK}A-Za-z0-9]", after):
                broken.append(line[max(0, match.start() - 15) : match.end() + 5])
    return broken


def test_unrendered_bold_is_caught() -> None:
    assert unrendered_bold("**易错点。**在GPU上") and not unrendered_bold("**易错点**。在GPU上")
    assert not unrendered_bold("好。**你将学到**") and not unrendered_bold("**练习1**：写")


@pytest.mark.parametrize("path", ENGLISH, ids=IDS)
def test_bold_renders(path: Path) -> None:
    _, zh = _pair(path)
    broken = [(i, b) for i, c in enumerate(zh.cells) if c.cell_type == "markdown" for b in unrendered_bold(c.source)]
    assert not broken, f"zh/{path.name}: bold that shows its asterisks (move the punctuation after **): {broken}"


def glossary_problems(en: nbformat.NotebookNode, zh: nbformat.NotebookNode, name: str) -> list[str]:
    """Return every place where the Chinese notebook ``zh`` does not use the glossary's terms as it says: a term to
    avoid, a term of the English cell missing from its translation, or a first use not written as
    ``*中文*（english）`` (``*轮*（epoch，即迭代周期）`` where the glossary gives another name)."""
    problems = []
    first_use_checked: set[str] = set()
    for index, (en_cell, zh_cell) in enumerate(zip(en.cells, zh.cells, strict=True)):
        if en_cell.cell_type != "markdown" or index == 0:
            continue
        english, chinese = prose(en_cell.source), prose(zh_cell.source)
        body = "\n".join(line for line in chinese.splitlines() if not line.startswith("#"))
        skip = set(zh_cell.metadata.get("translation", {}).get("terms_not_used", []))
        where = f"zh/{name} cell {index} ({en_cell.id})"
        for term in glossary():
            unmasked = chinese
            for word in term["not inside"]:  # 偏差修正 (Adam's bias correction) is not the bias parameter's 偏差
                unmasked = unmasked.replace(word, "□" * len(word))
            problems += [
                f"{where}: {a!r} (the glossary says {term['chinese']!r})" for a in term["avoid"] if a in unmasked
            ]
            if term["english"] in skip or not term["forms"].search(english):
                continue
            if term["chinese"] not in chinese:
                problems.append(f"{where}: {term['english']!r} is {term['chinese']!r} in Chinese")
                continue
            masked = body
            for word in term["not inside"]:  # 块 in 模块 is not block
                masked = masked.replace(word, "□" * len(word))
            if term["english"] not in first_use_checked and term["chinese"] in masked:
                first_use_checked.add(term["english"])
                at = masked.index(term["chinese"])
                ok = body[at - 1 : at] == "*" and re.match(r"[^*\n]*\*（([^）]*)）", body[at:])
                gloss = first_use_gloss(term)
                if not (ok and ok.group(1) == gloss):
                    problems.append(
                        f"{where}: first use of {term['chinese']!r} is not written *{term['chinese']}*（{gloss}）"
                    )
    return problems


# ---- the glossary's rules for any Chinese text: notebooks here; other Chinese text (the exercises' messages, ...)
# is checked by passing its strings to chinese_text_problems ------------------------------------------------------
QUOTED = re.compile(r"“[^”]*”")  # quotations (of the sources, of d2l-zh): copied as written
OTHER_NAME = re.compile(r"（[^（）]*，即[^（）]*）")  # a first use's brackets, which name the other translation
RATIO = re.compile(r"((?:\d[\d.,]*(?:\s*(?:–|-|~|到|至)\s*\d[\d.,]*)?)|[一二两三四五六七八九十百千几]+|多少)倍")
END_OF_CORE = "本课的核心内容到此为止。小结和练习在最后；下面的“进阶”部分是选学内容。"
GOING_DEEPER_OPENS = "选学内容："


def one_word_rules() -> list[tuple[str, list[str]]]:
    """Return the table "一个意思一个词" of notebooks/zh/TERMINOLOGY.md: (the word used, the words not used)."""
    text = GLOSSARY_FILE.read_text(encoding="utf-8").split("## 一个意思一个词", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cells) == 2 and cells[0] not in ("用", "---"):
            rows.append((cells[0], [w.strip() for w in cells[1].split(",") if w.strip()]))
    return rows


def ratio_problems(text: str) -> list[str]:
    """Return each "N倍" not written "是……的N倍" (or as the next of a list, "的6.8倍和7.9倍"): "快了2.3倍" reads as 3.3
    times to a Chinese reader."""
    problems = []
    for match in RATIO.finditer(text):
        before = text[: match.start()]
        if not (before.endswith("的") or re.search(r"倍\s*(和|、|或|到)$", before)):
            problems.append(f"{text[max(0, match.start() - 12) : match.end()]!r}: write 是……的N倍")
    return problems


def chinese_text_problems(text: str) -> list[str]:
    """Return what breaks the glossary's rules in a piece of Chinese text (prose without its code, a comment, a
    string): a word the glossary says not to use, or a ratio not written 是……的N倍. Quotations and a first use's
    note of the other translation are left as they are."""
    plain = OTHER_NAME.sub("", QUOTED.sub("“”", text))
    avoid = [(str(t["chinese"]), list(t["avoid"]), list(t["not inside"])) for t in glossary()]
    avoid += [(use, words, []) for use, words in one_word_rules()]
    problems = [f"{word!r} (the glossary says {use!r})" for use, words, allowed in avoid for word in words
                if word in _without(plain, allowed)]  # "偏差修正" is not the bias "偏差"
    return problems + ratio_problems(plain)


def _without(text: str, words: list[str]) -> str:
    """Return ``text`` with every one of ``words`` taken out."""
    for word in words:
        text = text.replace(word, "")
    return text


def chinese_texts(nb: nbformat.NotebookNode, exercises: bool = False) -> list[tuple[int, str]]:
    """Return (cell index, text) for the Chinese a reader reads in a notebook: markdown prose without its code, code
    comments, and string literals with Chinese in them; up to the exercises, or to the end with ``exercises``."""
    texts = []
    end = None if exercises else core.heading_index(nb, editions.LANGUAGES["zh"].exercises)
    for index, cell in enumerate(nb.cells[:end]):
        if cell.cell_type == "markdown" and index:
            texts.append((index, prose(cell.source)))
        elif cell.cell_type == "code":
            texts += [(index, comment) for comment in translate.comments(cell.source)]
            texts += [(index, s) for kind, s in translate.code_tokens(cell.source)
                      if kind == tokenize.STRING and re.search(f"[{CJK}]", s)]
    return texts


@pytest.mark.parametrize("path", ENGLISH, ids=IDS)
def test_chinese_text_follows_the_glossarys_rules(path: Path) -> None:
    _, zh = _pair(path)
    problems = [f"zh/{path.name} cell {index}: {problem}" for index, text in chinese_texts(zh)
                for problem in chinese_text_problems(text)]
    assert not problems, "\n".join(problems)


CHINESE_PAGES = ["README.zh.md", "docs/TEACHING.zh.md", "data/README.zh.md", "tools/teacher/handout/README.zh.md"]
"""The Chinese pages beside the notebooks: they follow the glossary too."""
CODE_WITH_CHINESE = ["utils.py", *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "lessons").glob("*.py"))]
"""Modules whose Chinese strings (messages, figure descriptions) a student reads; the exercises' are checked in
tests/test_exercises.py."""


def chinese_strings_of(path: Path) -> list[str]:
    """Return the string literals with Chinese in a Python file (f-strings' literal parts included)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [node.value for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and re.search(f"[{CJK}]", node.value)]


@pytest.mark.parametrize("page", CHINESE_PAGES + CODE_WITH_CHINESE)
def test_the_chinese_beside_the_notebooks_follows_the_glossary(page: str) -> None:
    path = ROOT / page
    texts = chinese_strings_of(path) if path.suffix == ".py" else [prose(path.read_text(encoding="utf-8"))]
    problems = [f"{page}: {problem}" for text in texts for problem in chinese_text_problems(text)]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("path", ENGLISH, ids=IDS)
def test_fixed_phrases_end_the_core_and_open_going_deeper(path: Path) -> None:
    _, zh = _pair(path)
    deeper = core.heading_index(zh, editions.LANGUAGES["zh"].going_deeper)
    assert deeper is not None, f"zh/{path.name}: no going-deeper heading"
    assert zh.cells[deeper - 1].source.rstrip().endswith(END_OF_CORE), f"zh/{path.name} cell {deeper - 1}"
    opening = zh.cells[deeper].source.split(editions.LANGUAGES["zh"].going_deeper, 1)[1].strip()
    assert opening.startswith(GOING_DEEPER_OPENS), f"zh/{path.name} cell {deeper}: {opening[:30]!r}"


def test_chinese_text_rules_catch_what_a_reader_misreads() -> None:
    assert {use for use, _ in one_word_rules()} >= {"批量", "池化", "惰性层", "张/秒", "“进阶”部分", "显存", "图像",
                                                    "键值服务", "核函数"}
    for wrong in ["快了2.3倍", "GPU比CPU快4.0–4.6倍", "速度提高了50倍", "大约要占四倍", "1,000个批次",
                  "最大汇聚层", "梯度检查点", "12,000 images/s", "见进阶部分", "可以选读", "GPU内存不够", "归一化",
                  "三张图片", "键值存储", "启动一个CUDA内核", "偏差", "见下文"]:
        assert chinese_text_problems(wrong), wrong
    for right in ["分批计算的速度是逐张计算的2.3倍", "是CPU的4.0–4.6倍", "分别是原来的6.8倍和7.9倍", "原文循环的多少倍",
                  "翻倍", "最大*池化*，即原文的“汇聚”", "最大池化（pooling，即汇聚）", "12,000张/秒", "见“进阶”部分",
                  "显存不够", "每秒训练的图像数是原文循环的88到358倍", "Adam的偏差修正", "键值服务",
                  "启动核函数", "*激活检查点*（activation checkpointing，即梯度检查点）"]:
        assert not chinese_text_problems(right), right


@pytest.mark.parametrize("path", ENGLISH, ids=IDS)
def test_glossary_terms_are_used_as_the_glossary_says(path: Path) -> None:
    en, zh = _pair(path)
    problems = glossary_problems(en, zh, path.name)
    assert not problems, "\n".join(problems)


def test_glossary_check_wants_the_singular_and_the_other_name() -> None:
    def problems(english: str, chinese: str) -> list[str]:
        en = nbformat.v4.new_notebook(
            cells=[nbformat.v4.new_markdown_cell("# x"), nbformat.v4.new_markdown_cell(english)]
        )
        zh = nbformat.v4.new_notebook(
            cells=[nbformat.v4.new_markdown_cell("# x"), nbformat.v4.new_markdown_cell(chinese)]
        )
        return glossary_problems(en, zh, "x.ipynb")

    assert not problems("The parameters.", "模型的*参数*（parameter）。")
    assert problems("The parameters.", "模型的*参数*（parameters）。")  # glosses in the singular
    assert problems("The parameters.", "模型的参数。") and problems("The parameters.", "模型。")
    assert not problems("Train 5 epochs.", "训练5*轮*（epoch，即迭代周期）。")
    assert problems("Train 5 epochs.", "训练5*轮*（epoch）。")  # d2l-zh's name is given at the first use
    assert not problems("A max-pool.", "最大*池化*（pooling，即汇聚）。") and problems("A max-pool.", "最大池化。")
    assert not problems("Adam's correction.", "Adam的偏差修正。")  # the glossary's 不算在内: not the bias
    assert problems("Adam's correction.", "Adam修正层的偏差。")  # a word to avoid, outside its exception


# ---- the tool, on notebooks of its own ----------------------------------------------------------------------------
def _english(tmp_path: Path) -> Path:
    nb = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_markdown_cell(f"# 01 · Devices\n\n{header.colab_link('01_x.ipynb')}\n\n**Time:** 5 s"),
            nbformat.v4.new_code_cell(setup_cell.SETUP_CELL, execution_count=1),
            nbformat.v4.new_markdown_cell("Every tensor lives on a device."),
            nbformat.v4.new_code_cell(
                "x = 1  # one\nprint(x)",
                execution_count=2,
                outputs=[nbformat.v4.new_output("stream", name="stdout", text="1\n")],
            ),
            nbformat.v4.new_code_cell("print(2)", execution_count=3),
        ]
    )
    path = tmp_path / "01_x.ipynb"
    nbformat.write(nb, path)
    return path


def test_sync_copies_code_and_outputs_and_lists_what_needs_translating(tmp_path: Path) -> None:
    english = _english(tmp_path)
    twin = tmp_path / "zh" / english.name
    report = translate.sync(english, twin)
    en, zh = nbformat.read(english, as_version=4), nbformat.read(twin, as_version=4)
    assert report["missing"] == [c.id for c in en.cells if c.id != en.cells[1].id]  # the setup cell is generated
    assert report["untranslated"] == [en.cells[0].id, en.cells[2].id, en.cells[3].id]  # cell 4 has no comment
    assert zh.cells[1].source == setup_cell.SETUP_CELL_ZH
    assert header.colab_link(english.name, "zh") in zh.cells[0].source
    assert zh.cells[3].outputs == en.cells[3].outputs and zh.cells[4].metadata["translation"]["status"] == "same"
    assert translate.status(english, twin)["untranslated"] == report["untranslated"]


def test_changed_english_is_stale_but_changed_code_keeps_its_chinese_comments(tmp_path: Path) -> None:
    english = _english(tmp_path)
    twin = tmp_path / "zh" / english.name
    translate.sync(english, twin)
    en, zh = nbformat.read(english, as_version=4), nbformat.read(twin, as_version=4)
    for cell_id, text in [
        (en.cells[0].id, "# 01 · 设备"),
        (en.cells[2].id, "每个张量都在某个设备上。"),
        (en.cells[3].id, "x = 1  # 一\nprint(x)"),
    ]:
        translate.mark_translated(zh, en, cell_id, text)
    nbformat.write(zh, twin)
    assert not any(translate.status(english, twin).values())
    en.cells[2].source = "Every tensor lives on exactly one device."  # prose changed: stale
    en.cells[3].source = "x = 2  # one\nprint(x)"  # code changed, comment did not: carried over
    en.cells[3].outputs = [nbformat.v4.new_output("stream", name="stdout", text="2\n")]
    en.cells[0].source = en.cells[0].source.replace("5 s", "6 s")  # a new time line alone changes nothing
    nbformat.write(en, english)
    report = translate.sync(english, twin)
    zh = nbformat.read(twin, as_version=4)
    assert report["stale"] == [en.cells[2].id] and zh.cells[2].metadata["translation"]["source"] != en.cells[2].source
    assert zh.cells[3].source == "x = 2  # 一\nprint(x)" and zh.cells[3].outputs == en.cells[3].outputs
    en.cells[3].source = "x = 2  # two\nprint(x)"  # the comment changed: stale
    nbformat.write(en, english)
    assert translate.sync(english, twin)["stale"] == [en.cells[2].id, en.cells[3].id]


def test_removed_and_moved_english_cells_follow(tmp_path: Path) -> None:
    english = _english(tmp_path)
    twin = tmp_path / "zh" / english.name
    translate.sync(english, twin)
    en = nbformat.read(english, as_version=4)
    en.cells = [en.cells[0], en.cells[1], en.cells[4], en.cells[2]]
    nbformat.write(en, english)
    translate.sync(english, twin)
    assert [c.id for c in nbformat.read(twin, as_version=4).cells] == [c.id for c in en.cells]


def test_code_tokens_ignore_comments_only() -> None:
    assert translate.code_tokens("x = 1  # one\n# two\n") == translate.code_tokens("x = 1  # 一\n")
    assert translate.code_tokens("x = 1") != translate.code_tokens("x = 2")
    assert translate.code_tokens('print("a")') != translate.code_tokens('print("甲")')  # strings are code


def test_code_spans_may_cross_a_line_break() -> None:
    assert structure("a `x\ny` b `z`")["code spans"] == 2 and prose("说明`x\ny`，然后") == "说明C，然后"


def test_checks_catch_bad_translations() -> None:
    assert structure("# A\n[x](y) `c` $m$") != structure("# 甲\n[x](y) $m$")
    assert "C" in prose("用`device`") and "http" not in prose("[链接](http://x)")
    line = prose("使用 `device` 选择设备,然后训练.")
    assert re.search(f"[{CJK}] +[A-Za-z0-9*\\[]", line) and re.search(f"[{CJK}][,;:?!()]", line)


def test_sync_keeps_the_chinese_runs_outputs_of_unchanged_cells(tmp_path: Path) -> None:
    """A Chinese cell's outputs are its own run's: syncing replaces them with English ones only where the English
    code changed (a placeholder until tools/author/run_notebooks.py runs the twin)."""
    english = _english(tmp_path)
    twin = tmp_path / "zh" / english.name
    translate.sync(english, twin)
    zh = nbformat.read(twin, as_version=4)
    zh.cells[4].outputs = [nbformat.v4.new_output("stream", name="stdout", text="二\n")]  # what the Chinese run printed
    nbformat.write(zh, twin)
    translate.sync(english, twin)
    assert nbformat.read(twin, as_version=4).cells[4].outputs[0].text == "二\n"
    en = nbformat.read(english, as_version=4)
    en.cells[4].source = "print(3)"
    en.cells[4].outputs = [nbformat.v4.new_output("stream", name="stdout", text="3\n")]
    nbformat.write(en, english)
    translate.sync(english, twin)
    assert nbformat.read(twin, as_version=4).cells[4].outputs == en.cells[4].outputs


def test_a_figures_description_is_in_the_editions_language(monkeypatch: pytest.MonkeyPatch) -> None:
    """What utils.show_figure shows when the Chinese setup cell set the language: the Chinese description as alt text
    and plain text, both languages in its metadata."""
    import IPython.display
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda data, raw, metadata: shown.append((data, metadata)))
    monkeypatch.setattr(utils, "_language", "en")
    for lang in ("en", "zh"):
        utils.set_language(lang)
        fig, ax = plt.subplots(figsize=(1, 1))
        ax.plot([0, 1], "o-")
        utils.show_figure(fig, 'A line that rises ("up").', "一条上升的线（“上”）。")
    (en_data, en_metadata), (zh_data, zh_metadata) = shown
    assert en_data["text/plain"] == 'A line that rises ("up").' and zh_data["text/plain"] == "一条上升的线（“上”）。"
    assert f'alt="{html.escape("一条上升的线（“上”）。")}"' in zh_data["text/html"]
    both = {"en": 'A line that rises ("up").', "zh": "一条上升的线（“上”）。"}
    assert en_metadata == zh_metadata == {utils.FIGURE_METADATA: both}


@pytest.mark.parametrize("path", ENGLISH, ids=IDS)
def test_every_figure_is_described_in_its_editions_language(path: Path) -> None:
    for edition, nb in zip(("en", "zh"), _pair(path), strict=True):
        for index, cell in enumerate(nb.cells):
            for output in cell.get("outputs", []):
                described = output.get("metadata", {}).get(utils.FIGURE_METADATA)
                if described is None:
                    continue
                where = f"{edition}/{path.name} cell {index}"
                assert output.data["text/plain"] == described[edition], where
                assert f'alt="{html.escape(described[edition])}"' in output.data["text/html"], where


# ---- no output line in two languages -----------------------------------------------------------------------------
NAMES = {
    "none", "true", "false",  # Python's own
    "torch", "torchvision", "pytorch", "numpy", "pillow", "opencv", "pip", "jupyter", "jupyterlab", "colab", "kaggle",
    "tensorboard", "nbval", "python",
    "cpu", "cuda", "mps", "meta", "softmax", "logit", "ms",  # devices, terms, units Chinese text writes in English
    "cat", "dog",  # PetImages' classes (folder names), and CIFAR-10's and the generated shapes' below
    "airplane", "automobile", "bird", "deer", "frog", "horse", "ship", "truck",
    "diagonals", "checkers", "disk", "ring", "square", "cross", "triangle", "dots",
}
"""English words that a Chinese line may hold: names of Python values, libraries, devices, terms and data classes."""

KEPT_AS_PRINTED = re.compile(
    r"`[^`]*`"  # code
    r"|https?://[^\s（）()；，、]+"  # addresses
    r"|\b[A-Z]\w*(?:Error|Exception|Warning)\b(?::[^（）\n]*)?"  # an error (a library's message, as it prints it)
    r"|“[^”]*”|（[\x20-\x7e]+）"  # a quotation, or a name printed elsewhere, quoted in full-width brackets
)
"""What a Chinese line keeps as it is printed elsewhere: code, addresses, errors and their messages, quotations."""


def english_words(line: str) -> list[str]:
    """Return the English words of a line that holds Chinese: the words outside what it keeps as printed elsewhere
    (``KEPT_AS_PRINTED``) that are not code-like (a name with digits, ``_ . / = - ( )``, capitals inside it: a path,
    an identifier, a dtype, a unit such as MiB, an abbreviation such as CIFAR-10) nor one of ``NAMES``; [] for a line
    without Chinese."""
    if not re.search(f"[{CJK}]", line):
        return []
    rest = KEPT_AS_PRINTED.sub(" ", line)
    chunks = re.findall(r"[\x21-\x7e]+", rest)  # runs of printable ASCII between spaces and Chinese
    words = []
    for chunk in chunks:
        for word in re.findall(r"[\w./=()'-]+", chunk):
            letters = word.strip("'.,:;()")
            if not re.fullmatch(r"[A-Za-z][a-z]+", letters):  # code-like, a number, one letter, capitals inside
                continue
            if letters.lower() not in NAMES:
                words.append(letters)
    return words


def mixed_lines(nb: nbformat.NotebookNode) -> list[str]:
    """Return every stored output line of ``nb`` that holds Chinese and English words (``english_words``)."""
    found = []
    for index, cell in enumerate(nb.cells):
        for output in cell.get("outputs", []):
            found += [f"cell {index} ({cell.id}): {line!r}" for line in output_text(output).splitlines()
                      if english_words(line)]
    return found


def test_the_rule_finds_lines_in_two_languages() -> None:
    for mixed in ["4 epochs on 生成的图形，不是CIFAR-10; logs go to data/runs", "data: 快速模式的生成样本",
                  "480 training images (快速模式的生成样本), batch 32", "快速模式的生成样本: 480 training images",
                  "test accuracy 0.894 (快速模式的生成样本)", "练习1：not yet", "skipped: 零字节"]:
        assert english_words(mixed), mixed
    for chinese in ["练习2：尚未作答（`missing`, `bytes_left_on_cpu`仍是None）：把占位代码换成你的答案。",
                    "torchvision没能在data/no-cifar-here/中找到它（RuntimeError: Dataset not found or corrupted. You "
                    "can use download=True to download it）。", "获取方法：下载https://www.cs.toronto.edu/~kriz/cifar.html"
                    "（cifar-10-python.tar.gz，170 MB）", "每列一个类别：h-stripes、v-stripes、disk、dots。",
                    "内存（MiB）在cpu上从2.41 MiB增长到19.27 MiB", "正确类别的logit上梯度的大小，softmax + MSE",
                    "  其中CMYK      0     1", "跳过的条目：Dog/400.jpg（无法读取：UnidentifiedImageError）",
                    "第5级对比第2级（a wait per step）", "标有“(wrong)”并加粗边框", "float32的张量在cuda:0上",
                    "all English: no Chinese, not mixed", "快速模式的生成样本               Cat     Dog"]:
        assert not english_words(chinese), (chinese, english_words(chinese))


@pytest.mark.parametrize("path", ENGLISH, ids=IDS)
def test_no_chinese_output_line_holds_english_words(path: Path) -> None:
    """What the lessons print in the Chinese edition is Chinese, or English as a whole line (the notebooks' own
    English prints, PyTorch's messages): never both in one line."""
    found = mixed_lines(_pair(path)[1])
    assert not found, f"zh/{path.name}: lines in two languages:\n" + "\n".join(found)


# ---- what the lessons' helpers print -------------------------------------------------------------------------------
def english_helper_line(text: str) -> str | None:
    """Return the first line of ``text`` that the lessons' helpers print in English (an exercise's check, the line
    ``utils.expect_error`` prints, the data sets' labels, cleaning report and messages), else None."""
    from lessons import cifar10, petimages

    labels = [cifar10.DATA_LABELS["generated"]["en"], petimages.DATA_LABELS["quick"]["en"],
              petimages.DATA_LABELS["generated"]["en"]]
    starts = ("Real CIFAR-10 is not available", "PetImages is not available", "Going on with GENERATED",
              "skipped: ", "  of them ", "RuntimeError: Real CIFAR-10 is not available")
    ends = ("is set, so this stops here.)", ": rebuilding it")
    for line in text.splitlines():
        if (re.match(r"[✓✗○] Exercise \d+: ", line) or line == utils.EXPECTED_ERROR["en"] or line.startswith(starts)
                or line.endswith(ends) or any(label in line for label in labels) or "is set: generated" in line):
            return line
    return None


@pytest.mark.parametrize("path", ENGLISH, ids=IDS)
def test_what_the_lessons_helpers_print_is_chinese_in_the_chinese_twin(path: Path) -> None:
    """A Chinese notebook's stored outputs hold no English exercise check, expected-error line, data label,
    cleaning report or data message: the Chinese run printed them in Chinese."""
    _, zh = _pair(path)
    for index, cell in enumerate(zh.cells):
        for output in cell.get("outputs", []):
            english = english_helper_line(output_text(output))
            assert english is None, f"zh/{path.name} cell {index} ({cell.id}) prints English: {english!r}"


def test_an_english_helper_line_is_caught(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """The check above finds each English output of the helpers, and none of what they print in Chinese."""
    from lessons import cifar10, generated_pets, petimages

    pets = generated_pets.make_quick(tmp_path / "quick", per_class=6)
    data = petimages.build(pets, workers=1)
    shapes = cifar10.CIFARArrays(*cifar10.draw_shapes(10), cifar10.GENERATED_CLASSES)
    printed = {}
    for lang in ("en", "zh"):
        utils.set_language(lang)
        try:
            print(petimages.data_label(pets))
            print(petimages.cleaning_report(data, pets))
            print(cifar10.data_label(shapes))
            with utils.expect_error(RuntimeError, match=r"(?s)cifar-10-python\.tar\.gz.*no-cifar-here/"):  # as 06
                cifar10.load_real(train=True, root=tmp_path / "no-cifar-here", download=False)
            exercises.check("04", 1, None, None)
            exercises.check("03", 3, 3456)
        finally:
            utils.set_language("en")
        printed[lang] = capsys.readouterr().out
    assert english_helper_line(printed["zh"]) is None and not [line for line in printed["zh"].splitlines()
                                                                 if english_words(line)]
    lines = printed["en"].splitlines()
    assert english_helper_line(lines[0]) == "quick sample, generated"
    rows = [line for line in lines if line.startswith(("skipped: ", "  of them "))]
    assert len(rows) >= 4 and all(english_helper_line(line) == line for line in rows)  # the report's rows
    after = printed["en"].split(utils.EXPECTED_ERROR["en"] + "\n")[1]
    assert english_helper_line(after).startswith("RuntimeError: Real CIFAR-10 is not available")
    assert english_helper_line(utils.EXPECTED_ERROR["en"]) == utils.EXPECTED_ERROR["en"]
    checks = [line for line in lines if re.match(r"[✓✗○] Exercise ", line)]
    assert len(checks) == 2 and all(english_helper_line(line) == line for line in checks)
    banner = "!" * 100 + "\nPetImages is not available (Network is unreachable). To use ..."
    assert english_helper_line(banner) == "PetImages is not available (Network is unreachable). To use ..."


# ---- the sentences the notebooks print: utils.say and its catalog ----------------------------------------------------
LESSON_MODULES = sorted((ROOT / "lessons").glob("*.py"))


def _code_sources() -> list[tuple[str, str]]:
    """Return (where, code) for every English code cell but the setup cell, and for every lesson module."""
    sources = []
    for path in ENGLISH:
        nb = nbformat.read(path, as_version=4)
        for cell in [c for c in nb.cells if c.cell_type == "code"][1:]:
            code = "\n".join("" if line.lstrip().startswith(("!", "%")) else line for line in cell.source.splitlines())
            sources.append((f"{path.name} cell {cell.id}", code))
    sources += [(f"lessons/{path.name}", path.read_text(encoding="utf-8")) for path in LESSON_MODULES]
    return sources


def _is_call_to(node: ast.AST, names: set[str]) -> bool:
    func = node.func if isinstance(node, ast.Call) else None
    return (isinstance(func, ast.Name) and func.id in names) or (
        isinstance(func, ast.Attribute) and func.attr in names and isinstance(func.value, ast.Name)
        and func.value.id == "utils")


def said_templates(sources: list[tuple[str, str]]) -> dict[str, list[str]]:
    """Return each template passed to ``utils.say`` or ``utils.tr`` in ``sources``, with where; a template that is not
    a string literal is listed under ``"<not a literal>"``."""
    found: dict[str, list[str]] = {}
    for where, code in sources:
        for node in ast.walk(ast.parse(code)):
            if _is_call_to(node, {"say", "tr"}) and node.args:
                first = node.args[0]
                literal = isinstance(first, ast.Constant) and isinstance(first.value, str)
                key = first.value if literal else "<not a literal>"
                found.setdefault(key, []).append(where)
    return found


def fields(template: str) -> list[tuple[str, str, str]]:
    """Return the replacement fields of a ``str.format`` template as (name, spec, conversion), numbering ``{}``; the
    spec without its fill, alignment and width, which a translation may change (Chinese pads no column as English
    does), keeping what says how a value is written (``,``, ``.3f``)."""
    import string

    out, auto = [], 0
    for _, name, spec, conversion in string.Formatter().parse(template):
        if name is None:
            continue
        if name == "":
            name, auto = str(auto), auto + 1
        written = re.fullmatch(r"(?:.?[<>=^])?([+\- ]?z?#?)0?\d*([,_]?(?:\.\d+)?[a-zA-Z%]?)", spec or "")
        out.append((name, "".join(written.groups()) if written else str(spec), conversion or ""))
    return sorted(out)


def literal_english(node: ast.Call) -> list[str]:
    """Return the English words in the string literals that a ``print`` call prints (``english_words`` of the text
    with a Chinese character added, so that every word counts; replacement fields are left out)."""
    words = []
    for arg in [*node.args, *(k.value for k in node.keywords if k.arg == "sep")]:
        parts = arg.values if isinstance(arg, ast.JoinedStr) else [arg]
        for part in parts:
            if isinstance(part, ast.Constant) and isinstance(part.value, str):
                words += english_words("中 " + part.value)
    return words


def test_every_said_sentence_has_its_chinese() -> None:
    catalog = utils._zh_catalog()
    said = said_templates(_code_sources())
    assert "<not a literal>" not in said, f"utils.say/tr need a literal template: {said.get('<not a literal>')}"
    missing = {t: w for t, w in said.items() if t not in catalog}
    assert not missing, "add these to lessons/zh_messages/<lesson>.json:\n" + "\n".join(
        f"{t!r} ({', '.join(w)})" for t, w in missing.items())
    unused = sorted(set(catalog) - set(said))
    assert not unused, f"entries no code says any more: {unused}"
    for english, chinese in catalog.items():
        assert fields(chinese) == fields(english), f"{chinese!r} must fill the fields of {english!r}"
        text = re.sub(r"\{[^{}]*\}", "〇", chinese)
        assert re.search(f"[{CJK}]", text) and not english_words(text), f"not Chinese: {chinese!r}"


def test_the_catalog_files_are_one_per_lesson_and_agree() -> None:
    import json

    lessons = {path.name[:2] for path in ENGLISH}
    seen: dict[str, tuple[str, str]] = {}
    for path in sorted(utils.ZH_MESSAGES.glob("*")):
        assert path.suffix == ".json" and path.name[:2] in lessons, f"{path.name}: name it <lesson number>.json"
        for english, chinese in json.loads(path.read_text(encoding="utf-8")).items():
            first = seen.setdefault(english, (path.name, chinese))
            assert first[1] == chinese, f"{english!r}: {first[0]} says {first[1]!r}, {path.name} {chinese!r}"


def test_notebooks_print_sentences_through_say() -> None:
    """A sentence a notebook prints goes through ``utils.say`` (or ``utils.localized``), so that the Chinese twin
    prints it in Chinese; a print may show names (``x.device``, ``type=``) and values as they are."""
    found = []
    for where, code in _code_sources():
        for node in ast.walk(ast.parse(code)):
            if _is_call_to(node, {"print"}) and (words := literal_english(node)):
                found.append(f"{where}: print with English words {words}")
    assert not found, "\n".join(found)


def test_the_print_rule_tells_sentences_from_names() -> None:
    def english(code: str) -> list[str]:
        return literal_english(ast.parse(code).body[0].value)

    assert english('print("same object:", a is b)') == ["same", "object"]
    assert english('print(f"weighted loss: {loss:.3f}, weight on {w.device}")') == ["weighted", "loss", "weight", "on"]
    for names in ['print("x.device:", x.device)', 'print(f"{name:<10} {value}")', 'print(model)',
                  'print("type=", type(x))', 'print(f"cpu: {t:.1f} ms")', 'print(utils.localized("a b", "甲"))']:
        assert not english(names), names


LIBRARY_MESSAGE = re.compile(r"\s*(?:\w+\.)*[A-Z]\w*(?:Error|Exception|Warning|Interrupt)\b")
"""The start of a library's error or warning as Python shows it (``UserWarning: ...``): it and the lines after it in
the same output are the library's words until a line in Chinese."""


def english_sentences(nb: nbformat.NotebookNode) -> list[str]:
    """Return every stored stdout or text output line of a Chinese notebook that holds three or more English words
    and no Chinese, outside a library's message (``LIBRARY_MESSAGE``) or table (an output that starts with a rule of
    dashes, as the profiler's does): a sentence the lesson prints in English."""
    found = []
    for index, cell in enumerate(nb.cells):
        for output in cell.get("outputs", []):
            text = output_text(output)
            if (output.get("output_type") == "error" or output.get("name") == "stderr"
                    or re.match(r"\s*-{3,}[- ]*\n", text)):
                continue
            in_message = False
            for line in text.splitlines():
                if re.search(f"[{CJK}]", line):
                    in_message = False
                elif LIBRARY_MESSAGE.match(line):
                    in_message = True
                elif re.fullmatch(r"<[^<>]*>", line.strip()):  # a value's repr: <All keys matched successfully>
                    continue
                elif not in_message and len(english_words("中 " + re.sub(r"'[^'\n]*'", "", line))) >= 3:
                    found.append(f"cell {index} ({cell.id}): {line!r}")
    return found


def test_an_english_sentence_in_a_chinese_output_is_caught() -> None:
    outputs = ["same object: True | same memory: True", "UserWarning: torch.set_default_tensor_type() is deprecated"
               "\nas of PyTorch 2.1, please use it\n同一个对象：True", "同一个对象：True\nthe result is on cpu",
               "utils.placement: {'0.weight': 'cpu'}", "{'state[0].exp_avg': 'meta', 'state[1].exp_avg_sq': 'meta'}",
               "  cuda:0  NVIDIA H100 80GB HBM3  80 GiB",
               "-------  ---------\n   Name  Self CPU %\n-------  ---------\nSelf CPU time total: 2.409s",
               "<All keys matched successfully>"]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(outputs=[
        nbformat.v4.new_output("stream", name="stdout", text=text)]) for text in outputs])
    assert [line.split(": ", 1)[1] for line in english_sentences(nb)] == [
        "'same object: True | same memory: True'", "'the result is on cpu'"]


@pytest.mark.parametrize("path", ENGLISH, ids=IDS)
def test_a_chinese_notebook_prints_no_english_sentence(path: Path) -> None:
    """The lessons' own sentences come in Chinese (``utils.say``, ``utils.localized``); PyTorch's and Python's
    messages stay as they print, after their ``...Error:`` or ``...Warning:``."""
    found = english_sentences(_pair(path)[1])
    assert not found, f"zh/{path.name}: English sentences in the outputs:\n" + "\n".join(found)


@pytest.mark.parametrize("path", ENGLISH, ids=IDS)
def test_the_chinese_stubs_say_where_to_write(path: Path) -> None:
    """A Chinese answer cell's stub raises in Chinese, as nbgrader's release of the course does."""
    from tools.teacher.nbgrader_course import CODE_STUB

    _, zh = _pair(path)
    for cell in zh.cells:
        if cell.cell_type == "code" and "NotImplementedError(" in cell.source:
            assert CODE_STUB["en"] not in cell.source and CODE_STUB["zh"] in cell.source, f"zh/{path.name} {cell.id}"
