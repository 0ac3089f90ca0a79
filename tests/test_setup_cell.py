"""The setup cell every notebook starts with: it finds the project, downloads it when a notebook is opened on its
own (Colab, Kaggle), and when that fails it stops with a message that says what failed and how to fix it, in the
edition's language and for the front end it runs in.

The network cases run against servers on this machine, never the internet: git is pointed at them with
``url.<server>.insteadOf`` (git's own setting), and ``NB_CLONE_TIMEOUT`` (``setup_cell.CLONE_TIMEOUT_ENV``) shortens
the 30 seconds the cell gives git, so that no test waits that long.

Most tests run the cell as a plain Python program with ipykernel's ``FORCE_COLOR=1`` and read its traceback as a
student reads it: without colour codes, which Python 3.13 adds to its own tracebacks when ``FORCE_COLOR`` is set
(``RuntimeError`` in magenta). One test runs the cell in a real kernel and checks what a Jupyter front end receives:
the error's type and its message as plain text, on every Python.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from tools.author import setup_cell
from tools.author.kernels import IPCKernelManager

ROOT = Path(__file__).resolve().parents[1]
REPO_URL = f"https://github.com/{setup_cell.REPO}"
FOLDER, ZIP_FOLDER = setup_cell.FOLDERS
TIMEOUT = 3
"""Seconds the tests give git (``NB_CLONE_TIMEOUT``) where the server never answers."""
HOSTED = ("COLAB_RELEASE_TAG", "KAGGLE_KERNEL_RUN_TYPE")
COLOUR = re.compile(r"\x1b\[[0-9;]*m")
"""A terminal colour code (SGR), such as Python 3.13 puts around the parts of a traceback under FORCE_COLOR."""


def setup_cell_process(cwd: Path, lang: str = "en", code: str = "", **env: str) -> subprocess.Popen[str]:
    """Start the setup cell of edition ``lang`` (or ``code``) as a plain Python program in ``cwd`` (it uses no
    IPython magics), with ipykernel 7.4's FORCE_COLOR=1 and outside Colab and Kaggle unless ``env`` says otherwise."""
    base = {key: value for key, value in os.environ.items() if key not in HOSTED}
    return subprocess.Popen(
        [sys.executable, "-c", code or setup_cell.setup_cell(lang)],
        cwd=cwd,
        env={**base, "FORCE_COLOR": "1", **env},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def run_setup_cell(cwd: Path, lang: str = "en", code: str = "", **env: str) -> subprocess.CompletedProcess[str]:
    """Run the setup cell (see ``setup_cell_process``) to the end; return what it did."""
    process = setup_cell_process(cwd, lang, code, **env)
    out, err = process.communicate(timeout=300)
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)


def git_redirect(target: str) -> dict[str, str]:
    """Environment that makes git fetch ``REPO_URL`` from ``target`` instead (no network in tests)."""
    return {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": f"url.{target}.insteadOf", "GIT_CONFIG_VALUE_0": REPO_URL}


def error_line(done: subprocess.CompletedProcess[str]) -> str:
    """Return the last line of the cell's traceback as a student reads it, without colour codes:
    ``RuntimeError: ...``."""
    assert done.returncode != 0, done.stdout
    return COLOUR.sub("", done.stderr).strip().splitlines()[-1]


def leftovers(folder: Path) -> list[str]:
    """Return what the cell left in ``folder``."""
    return sorted(p.name for p in folder.iterdir())


@pytest.fixture
def refused_url() -> Iterator[str]:
    """The address of a local port where nothing listens: every connection is refused at once. The port stays bound,
    not listening, until the test ends, so that nothing else can take it and answer."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        yield f"https://127.0.0.1:{probe.getsockname()[1]}/project"


class SilentServer:
    """A local TCP server that accepts every connection and never answers (a firewall that drops the replies):
    git's TLS handshake waits for it for 300 s. Records whether each client hung up."""

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"https://127.0.0.1:{self.listener.getsockname()[1]}/project"
        self.accepted = threading.Event()
        self.hung_up = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        connection, _ = self.listener.accept()
        self.accepted.set()
        with connection:
            connection.settimeout(120)
            try:
                while connection.recv(4096):  # the client's hello, never answered, until the client is gone
                    pass
            except OSError:
                return
            self.hung_up.set()

    def close(self) -> None:
        self.listener.close()


@pytest.fixture
def silent_server() -> Iterator[SilentServer]:
    server = SilentServer()
    yield server
    server.close()


def test_inside_the_project_it_finds_utils_and_sets_the_editions_language() -> None:
    check = "\nprint(utils.language())"
    english = run_setup_cell(ROOT / "notebooks", code=setup_cell.SETUP_CELL + check)
    assert english.stdout == "en\n" and english.stderr == ""  # nothing to say in JupyterLab or under the tests
    on_colab = {"COLAB_RELEASE_TAG": "test", "CUDA_VISIBLE_DEVICES": ""}
    chinese = run_setup_cell(ROOT / "notebooks" / "zh", code=setup_cell.SETUP_CELL_ZH + check, **on_colab)
    assert chinese.stdout == (  # the no-GPU line (tests/test_utils.py has it in English), in Chinese
        "这个Colab运行时没有GPU：代码执行程序 -> 更改运行时类型 -> GPU，然后重新运行全部单元格。"
        "现在先在CPU上继续运行。\nzh\n"
    )
    assert chinese.stderr == ""


def test_a_refused_download_says_what_failed_and_the_fix(tmp_path: Path, refused_url: str) -> None:
    done = run_setup_cell(tmp_path, **git_redirect(refused_url))
    last = error_line(done)
    assert last.startswith(f"RuntimeError: Could not download {REPO_URL} (fatal: unable to access ")
    assert "127.0.0.1" in last and "). Fix: put the project's folder, " in last  # git's words for the refusal
    assert f"{FOLDER} (a clone) or {ZIP_FOLDER} (GitHub's zip, unpacked), beside this notebook: {tmp_path}" in last
    assert last.endswith("; then run this cell again.")
    assert "StopIteration" not in done.stderr  # one clear error (the kernel test below: no colour codes in it)
    assert leftovers(tmp_path) == []  # nothing half-done in the way of the next try


def test_a_jupyter_front_end_receives_the_message_as_plain_text(
    tmp_path: Path, refused_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What JupyterLab, Colab or VS Code shows under the cell, as a real kernel sends it: an error output whose type
    and message are plain text, on every Python (ipykernel sets FORCE_COLOR=1 in the kernel itself; git's words
    inside the message carry no colour codes either), and nothing on stderr besides it."""
    for key in HOSTED:
        monkeypatch.delenv(key, raising=False)
    for key, value in git_redirect(refused_url).items():
        monkeypatch.setenv(key, value)
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(setup_cell.setup_cell("en"))])
    client = NotebookClient(
        notebook,
        kernel_name="python3",
        kernel_manager_class=IPCKernelManager,
        allow_errors=True,
        resources={"metadata": {"path": str(tmp_path)}},
    )
    client.execute()
    outputs = notebook.cells[0].outputs
    assert [output.output_type for output in outputs] == ["error"], outputs
    error = outputs[0]
    assert error.ename == "RuntimeError"
    assert error.evalue.startswith(f"Could not download {REPO_URL} (fatal: unable to access "), error.evalue
    assert error.evalue.endswith("; then run this cell again.") and "\x1b" not in error.evalue
    assert COLOUR.sub("", error.traceback[-1]) == f"RuntimeError: {error.evalue}"  # IPython colours only its frame
    assert leftovers(tmp_path) == []


def test_the_advice_fits_the_front_end_and_the_language(tmp_path: Path, refused_url: str) -> None:
    redirect = git_redirect(refused_url)
    colab = error_line(run_setup_cell(tmp_path, COLAB_RELEASE_TAG="test", **redirect))
    assert colab.endswith(
        "Fix: check the network, or upload the project's zip from GitHub with the Files pane and "
        f"!unzip -q {ZIP_FOLDER}.zip; then run this cell again."
    )
    kaggle = error_line(run_setup_cell(tmp_path, KAGGLE_KERNEL_RUN_TYPE="Interactive", **redirect))
    assert kaggle.endswith("Fix: switch on Settings -> Internet for this notebook; then run this cell again.")
    chinese = error_line(run_setup_cell(tmp_path, "zh", **redirect))
    assert chinese.startswith(f"RuntimeError: 无法下载{REPO_URL}（fatal: unable to access ")
    assert f"解决办法：把项目的文件夹{FOLDER}（git clone得到的）或{ZIP_FOLDER}" in chinese
    assert f"放到这个笔记本所在的文件夹，即{tmp_path}；然后重新运行这个单元格。" in chinese
    chinese_colab = error_line(run_setup_cell(tmp_path, "zh", COLAB_RELEASE_TAG="test", **redirect))
    assert f"用“文件”面板上传项目在GitHub上的zip压缩包，再运行!unzip -q {ZIP_FOLDER}.zip" in chinese_colab
    assert leftovers(tmp_path) == []


def test_a_silent_network_gives_up_in_time_and_ends_git(tmp_path: Path, silent_server: SilentServer) -> None:
    start = time.monotonic()
    done = run_setup_cell(tmp_path, NB_CLONE_TIMEOUT=str(TIMEOUT), **git_redirect(silent_server.url))
    seconds = time.monotonic() - start
    assert silent_server.accepted.is_set()  # git did reach the server and waited for it
    assert error_line(done).startswith(f"RuntimeError: Could not download {REPO_URL} (no answer within {TIMEOUT} s).")
    assert seconds < TIMEOUT + 20, seconds  # git alone would wait 300 s
    assert silent_server.hung_up.wait(10)  # git's helper that held the connection is gone too, not left waiting
    assert leftovers(tmp_path) == []
    chinese = run_setup_cell(tmp_path, "zh", NB_CLONE_TIMEOUT="0.5", **git_redirect(silent_server.url))
    assert f"（{0.5:g}秒内没有应答）" in error_line(chinese)


@pytest.mark.skipif(not (ROOT / ".git").exists(), reason="needs the project as a git repository to clone from")
def test_an_interrupted_download_never_blocks_the_next_try_which_downloads_the_project_once(
    tmp_path: Path, silent_server: SilentServer, refused_url: str
) -> None:
    stopped = setup_cell_process(tmp_path, **git_redirect(silent_server.url))
    assert silent_server.accepted.wait(60)  # git is waiting for the server
    assert [p for p in leftovers(tmp_path) if p.startswith(f".{FOLDER}-")]  # the clone's folder, renamed when whole
    stopped.send_signal(signal.SIGINT)  # what JupyterLab's stop button does: KeyboardInterrupt in the cell
    _, err = stopped.communicate(timeout=60)
    assert "KeyboardInterrupt" in err
    assert silent_server.hung_up.wait(10) and leftovers(tmp_path) == []  # git ended, its folder removed
    killed_kernel = tmp_path / f".{FOLDER}-abc123"  # a kernel killed mid-clone leaves its partial clone ...
    (killed_kernel / ".git" / "objects").mkdir(parents=True)
    done = run_setup_cell(tmp_path, **git_redirect(ROOT.as_uri()))
    assert done.returncode == 0, done.stderr  # ... which is not in the way: each try clones into a new folder
    assert leftovers(tmp_path) == [killed_kernel.name, FOLDER] and (tmp_path / FOLDER / "utils.py").is_file()
    again = run_setup_cell(tmp_path, **git_redirect(refused_url))  # already there: no download
    assert again.returncode == 0, again.stderr


def test_a_folder_in_the_way_is_named(tmp_path: Path, refused_url: str) -> None:
    (tmp_path / FOLDER / ".git").mkdir(parents=True)  # a clone that an older setup cell left half-done
    last = error_line(run_setup_cell(tmp_path, **git_redirect(refused_url)))
    assert last == (
        f"RuntimeError: {tmp_path / FOLDER} is there but is not the project (no utils.py and lessons/): delete or "
        "rename it, then run this cell again."
    )
    assert leftovers(tmp_path) == [FOLDER]


def test_githubs_zip_beside_the_notebook_is_found(tmp_path: Path, refused_url: str) -> None:
    unpacked = tmp_path / ZIP_FOLDER
    unpacked.mkdir()
    (unpacked / "utils.py").write_text((ROOT / "utils.py").read_text(encoding="utf-8"), encoding="utf-8")
    (unpacked / "lessons").mkdir()
    (unpacked / "lessons" / "__init__.py").write_text("")
    code = setup_cell.SETUP_CELL + "\nprint(utils.ROOT.name)"
    done = run_setup_cell(tmp_path, code=code, **git_redirect(refused_url))
    assert done.stdout == f"{ZIP_FOLDER}\n", done.stderr  # found beside the notebook, nothing downloaded


# ---- a mirror of the project: NB_REPO_URL (setup_cell.REPO_URL_ENV) -------------------------------------------------


def small_project(folder: Path) -> Path:
    """Make ``folder`` a git repository holding a stand-in for the project (the ``utils`` the setup cell calls)."""
    (folder / "lessons").mkdir(parents=True)
    (folder / "lessons" / "__init__.py").write_text("")
    (folder / "utils.py").write_text("def set_language(lang):\n    print(lang)\n\n\ndef check_runtime():\n    pass\n")
    who = ["-c", "user.name=teacher", "-c", "user.email=teacher@school.example"]
    for command in (["init", "-q"], ["add", "."], [*who, "commit", "-q", "-m", "the project"]):
        subprocess.run(["git", *command], cwd=folder, check=True, capture_output=True)
    return folder


def test_a_class_behind_a_slow_github_clones_the_project_from_its_mirror(tmp_path: Path, refused_url: str) -> None:
    mirror = small_project(tmp_path / "school-server").as_uri()  # a school's server, or a copy on Gitee
    classroom = tmp_path / "classroom"
    classroom.mkdir()
    github_refused = git_redirect(refused_url)  # GitHub out of reach: only the mirror can give the project
    done = run_setup_cell(classroom, "zh", **{setup_cell.REPO_URL_ENV: mirror}, **github_refused)
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"已从{mirror}下载项目，放在{classroom / FOLDER}。\nzh\n"  # where it came from, where it is
    assert (classroom / FOLDER / "utils.py").is_file() and leftovers(classroom) == [FOLDER]


def test_a_mirror_that_fails_is_named_and_the_variable_is_in_the_advice(tmp_path: Path, refused_url: str) -> None:
    github_refused = git_redirect(refused_url)
    empty = error_line(run_setup_cell(tmp_path, **{setup_cell.REPO_URL_ENV: ""}, **github_refused))
    assert empty.startswith(f"RuntimeError: Could not download {REPO_URL} (")  # empty: GitHub, as when unset
    assert empty.endswith(
        f"beside this notebook: {tmp_path}; or clone a mirror of it: %env {setup_cell.REPO_URL_ENV}=<its address>; "
        "then run this cell again."
    )
    mirror = refused_url.replace("/project", "/school/pytorch-gpu-notebooks.git")
    english = error_line(run_setup_cell(tmp_path, **{setup_cell.REPO_URL_ENV: mirror}))
    assert english.startswith(f"RuntimeError: Could not download {mirror} (fatal: unable to access ")
    assert f"%env {setup_cell.REPO_URL_ENV}=<its address>" in english
    for front in ({}, {"COLAB_RELEASE_TAG": "test"}, {"KAGGLE_KERNEL_RUN_TYPE": "Interactive"}):
        chinese = error_line(run_setup_cell(tmp_path, "zh", **{setup_cell.REPO_URL_ENV: mirror}, **front))
        assert chinese.startswith(f"RuntimeError: 无法下载{mirror}（fatal: unable to access ")
        assert "可以改从镜像（Gitee上的副本、学校的服务器）下载：%env NB_REPO_URL=镜像的地址。其他解决办法：" in chinese
    assert leftovers(tmp_path) == []


def test_a_students_own_utils_py_higher_up_is_passed_over(tmp_path: Path, refused_url: str) -> None:
    home = tmp_path / "home"  # a home folder, or a JupyterHub home, with a utils.py of the student's own
    (home / "course").mkdir(parents=True)
    (home / "utils.py").write_text("raise SystemExit('the wrong utils.py was imported')\n")
    mirror = small_project(tmp_path / "school-server").as_uri()
    done = run_setup_cell(home / "course", **{setup_cell.REPO_URL_ENV: mirror}, **git_redirect(refused_url))
    assert done.returncode == 0, done.stderr  # the stray utils.py is not the project: the project is downloaded
    assert done.stdout == f"Downloaded the project from {mirror} into {home / 'course' / FOLDER}.\nen\n"
    again = run_setup_cell(home / "course", **git_redirect(refused_url))
    assert again.returncode == 0 and again.stdout == "en\n", again.stderr  # found beside the notebook this time
