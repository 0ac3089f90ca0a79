"""tools/installer.sh and tools/setup.sh from the user's side: the package index a user set for pip is the one the
setup installs from, and a Windows shell gets a message that says what to do instead of a traceback.

The index tests serve a folder of tiny wheels made here as a PEP 503 simple index (``http.server`` on 127.0.0.1)
and make every other host unreachable: the proxy variables point at a port where nothing listens, with only
127.0.0.1 exempt, so an install that ignored the user's index would have to reach PyPI, and fails. The server
records which tool fetched what (``User-Agent``). They run the ``install`` function that ``tools/setup.sh`` runs, in
a bare virtual environment whose pip is this one's (linked, not installed) and whose uv is this one's.
"""

from __future__ import annotations

import base64
import hashlib
import http.server
import os
import socket
import subprocess
import sys
import sysconfig
import threading
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
UV = Path(sys.executable).parent / "uv"
"""The uv that tools/setup.sh installed into the environment running the tests."""


def wheel(folder: Path, name: str, requires: tuple[str, ...] = ()) -> Path:
    """Write a tiny pure-Python wheel ``name`` 1.0 (a module that knows its name) into ``folder``; return it."""
    files = {
        f"{name}/__init__.py": f"NAME = {name!r}\n",
        f"{name}-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: {}\nVersion: 1.0\n{}".format(
            name, "".join(f"Requires-Dist: {r}\n" for r in requires)
        ),
        f"{name}-1.0.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: true\n"
        "Tag: py3-none-any\n",
    }
    record = [
        f"{path},sha256={base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b'=').decode()},"
        f"{len(text.encode())}"
        for path, text in files.items()
    ]
    files[f"{name}-1.0.dist-info/RECORD"] = "\n".join([*record, f"{name}-1.0.dist-info/RECORD,,"]) + "\n"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}-1.0-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as archive:
        for member, text in files.items():
            archive.writestr(member, text)
    return path


def simple_index(root: Path, index: str, *wheels: Path) -> None:
    """Make ``root/index/`` a PEP 503 simple index of ``wheels`` (which lie in ``root/files/``)."""
    names = []
    for path in wheels:
        project = path.name.split("-")[0]
        names.append(project)
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        page = root / index / project / "index.html"
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text(f'<a href="../../files/{path.name}#sha256={digest}">{path.name}</a>\n')
    (root / index / "index.html").write_text("".join(f'<a href="{n}/">{n}</a>\n' for n in names))


class Index:
    """A local web server for a folder; records each request's path and the tool that made it."""

    def __init__(self, folder: Path) -> None:
        self.requests: list[tuple[str, str]] = []
        requests = self.requests

        class Handler(http.server.SimpleHTTPRequestHandler):
            def __init__(self, *args: object, **kwargs: object) -> None:
                super().__init__(*args, directory=str(folder), **kwargs)  # type: ignore[arg-type]

            def send_head(self):  # noqa: ANN202 (http.server's signature)
                requests.append((self.path, self.headers.get("User-Agent", "").split("/")[0]))
                return super().send_head()

            def log_message(self, *args: object) -> None:  # quiet
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()


@pytest.fixture
def index(tmp_path: Path) -> Iterator[Index]:
    """Serves ``tmp_path/served``: ``simple/`` (a mirror with tinya and tinyb, which needs tinya) and ``extra/``
    (another index, with tinyc); ``tmp_path/links/`` holds tinyd, a folder of wheels for ``--find-links``."""
    served = tmp_path / "served"
    a, b, c = (wheel(served / "files", n, r) for n, r in (("tinya", ()), ("tinyb", ("tinya",)), ("tinyc", ())))
    simple_index(served, "simple", a, b)
    simple_index(served, "extra", c)
    wheel(tmp_path / "links", "tinyd")
    server = Index(served)
    yield server
    server.close()


_REFUSING: list[socket.socket] = []  # the port of refused_url, bound while this module's tests run


@pytest.fixture(scope="module", autouse=True)
def _refusing_port_closed_after_the_module() -> Iterator[None]:
    yield
    while _REFUSING:
        _REFUSING.pop().close()


def refused_url() -> str:
    """An address on this machine where nothing listens: every connection is refused at once. Its port stays bound,
    not listening, until this module's tests are done (the socket is not inherited by the tools they start), so that
    nothing else can take the port and answer."""
    if not _REFUSING:
        probe = socket.socket()
        probe.bind(("127.0.0.1", 0))
        _REFUSING.append(probe)
    return f"http://127.0.0.1:{_REFUSING[0].getsockname()[1]}"


@pytest.fixture
def venv(tmp_path: Path) -> Path:
    """A bare virtual environment with this environment's uv, and pip linked in (``pip config list``, and pip where
    uv cannot do the job), in 0.2 s instead of the 5 s that installing pip takes."""
    if not UV.is_file():
        pytest.skip("no uv beside this Python: tools/setup.sh installs it")
    folder = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", folder], check=True)
    (folder / "bin" / "uv").symlink_to(UV)
    linked = tmp_path / "pip-only"
    linked.mkdir()
    # pip's folder in this environment, found without importing pip: an `import pip` (or a find_spec of it) in this
    # process makes setuptools' distutils hack fall back to the standard library's deprecated distutils for good,
    # and nbgrader's import of setuptools in a later test then fails on its DeprecationWarning
    (linked / "pip").symlink_to(Path(sysconfig.get_path("purelib")) / "pip")
    site = subprocess.run(
        [folder / "bin" / "python", "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    (Path(site) / "linked_pip.pth").write_text(f"{linked}\n")
    return folder


def user_env(tmp_path: Path, **settings: str) -> dict[str, str]:
    """The environment of a user whose pip settings are ``settings`` (PIP_* variables) and nothing else: no pip or
    uv variables or user configuration of this machine, a fresh uv cache, and no host but 127.0.0.1 reachable."""
    drop = ("PIP_", "UV_", "VIRTUAL_ENV", "SSL_", "REQUESTS_CA")
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith(drop) and "proxy" not in k.lower()}
    home = tmp_path / "home"
    nowhere = refused_url()
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),  # the user's pip.conf and uv.toml
        XDG_CONFIG_DIRS=str(tmp_path / "xdg"),  # pip's /etc/xdg/pip/pip.conf
        UV_CACHE_DIR=str(tmp_path / "uv-cache"),
        UV_NO_CONFIG="1",  # uv's own settings of this machine (/etc/uv/uv.toml) play no part
        UV_HTTP_RETRIES="0",  # a refused connection fails at once
        HTTP_PROXY=nowhere,
        HTTPS_PROXY=nowhere,
        ALL_PROXY=nowhere,
        NO_PROXY="127.0.0.1",
        **settings,
    )
    return env


def install(venv: Path, env: dict[str, str], *args: str | Path) -> subprocess.CompletedProcess[str]:
    """Run tools/installer.sh's ``install VENV ARGS...``, as tools/setup.sh does."""
    script = 'set -euo pipefail; source tools/installer.sh; install "$@"'
    return subprocess.run(
        ["bash", "-c", script, "install", venv, *map(str, args)], cwd=ROOT, env=env, capture_output=True, text=True
    )


def installed(venv: Path, *modules: str) -> bool:
    code = f"import {', '.join(modules)}"
    return subprocess.run([venv / "bin" / "python", "-c", code], capture_output=True).returncode == 0


def test_the_users_mirror_extra_index_and_wheel_folder_are_what_uv_installs_from(
    tmp_path: Path, index: Index, venv: Path
) -> None:
    requirements = tmp_path / "requirements.txt"
    requirements.write_text("tinyb\ntinyc\ntinyd\n")  # tinyb needs tinya: the mirror's, too
    env = user_env(tmp_path)
    ignored = install(venv, env, "-r", requirements)  # nothing set: uv tries PyPI, which is out of reach here
    assert ignored.returncode != 0 and "pypi.org" in ignored.stderr and not index.requests
    settings = {
        "PIP_INDEX_URL": f"{index.url}/simple",
        "PIP_EXTRA_INDEX_URL": f"{index.url}/extra",
        "PIP_FIND_LINKS": str(tmp_path / "links"),
        "PIP_TRUSTED_HOST": "127.0.0.1",
    }
    done = install(venv, {**env, **settings}, "-r", requirements)
    assert done.returncode == 0, done.stderr
    assert installed(venv, "tinya", "tinyb", "tinyc", "tinyd")
    fetched = {path for path, _ in index.requests}
    assert {"/simple/tinyb/", "/simple/tinya/", "/extra/tinyc/", "/files/tinyb-1.0-py3-none-any.whl"} <= fetched
    assert {tool for _, tool in index.requests} == {"uv"}  # uv did the work, not pip


def test_pip_conf_at_every_level_is_read_as_pip_reads_it(tmp_path: Path, index: Index, venv: Path) -> None:
    user_conf = tmp_path / "home" / ".config" / "pip" / "pip.conf"  # the user's: a mirror that is out of reach ...
    user_conf.parent.mkdir(parents=True)
    user_conf.write_text(f"[global]\nindex-url = {refused_url()}/simple\nfind-links = {tmp_path / 'links'}\n")
    (venv / "pip.conf").write_text(  # ... overridden by the environment's own, whose [install] wins over [global]
        f"[global]\nindex-url = {refused_url()}/simple\n[install]\nindex-url = {index.url}/simple\n"
        f"extra-index-url =\n    {index.url}/extra\n"
    )
    done = install(venv, user_env(tmp_path), "tinyb", "tinyc", "tinyd")
    assert done.returncode == 0, done.stderr
    assert installed(venv, "tinya", "tinyb", "tinyc", "tinyd") and {t for _, t in index.requests} == {"uv"}
    pointer = tmp_path / "elsewhere.ini"  # PIP_CONFIG_FILE, and a PIP_* variable over every file
    pointer.write_text(f"[global]\nextra-index-url = {refused_url()}/extra\n")
    settings = {"PIP_CONFIG_FILE": str(pointer), "PIP_EXTRA_INDEX_URL": f"{index.url}/extra"}
    again = install(venv, user_env(tmp_path, **settings), "--reinstall", "tinyc")
    assert again.returncode == 0, again.stderr


def test_every_setting_is_handed_over_or_left_to_pip(tmp_path: Path) -> None:
    def handed(**settings: str) -> list[str]:
        script = 'source tools/installer.sh; pip_settings_for_uv "$1"'
        done = subprocess.run(
            ["bash", "-c", script, "settings", sys.prefix],
            cwd=ROOT,
            env=user_env(tmp_path, PIP_CONFIG_FILE=os.devnull, **settings),  # no file: not this machine's /etc/pip.conf
            capture_output=True,
            text=True,
            check=True,
        )
        return done.stdout.split()

    assert handed() == []  # a user who set nothing: uv's defaults (PyPI)
    assert handed(
        PIP_INDEX_URL="https://mirror.example/simple",
        PIP_EXTRA_INDEX_URL="https://a.example/simple https://b.example/simple",
        PIP_FIND_LINKS="/srv/wheels",
        PIP_TRUSTED_HOST="mirror.example a.example:8080",
        PIP_NO_INDEX="yes",
        PIP_CERT="/etc/school-ca.pem",
        PIP_CLIENT_CERT="/etc/me.pem",
        PIP_PROXY="http://proxy.school:3128",
        PIP_KEYRING_PROVIDER="subprocess",
    ) == [
        "--keyring-provider=subprocess",
        "--no-index",
        "--index-url=https://mirror.example/simple",
        "--extra-index-url=https://a.example/simple",
        "--extra-index-url=https://b.example/simple",
        "--index-strategy=unsafe-best-match",  # pip looks in every index for the best version: so does uv then
        "--find-links=/srv/wheels",
        "--allow-insecure-host=mirror.example",
        "--allow-insecure-host=a.example:8080",
        "SSL_CERT_FILE=/etc/school-ca.pem",
        "SSL_CLIENT_CERT=/etc/me.pem",
        *(f"{name}=http://proxy.school:3128" for name in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy")),
    ]
    assert handed(PIP_KEYRING_PROVIDER="import") == ["pip"]  # pip's own keyring: only pip can use it


def test_what_uv_cannot_take_over_is_installed_by_pip_from_the_same_index(
    tmp_path: Path, index: Index, venv: Path
) -> None:
    settings = {"PIP_INDEX_URL": f"{index.url}/simple", "PIP_KEYRING_PROVIDER": "import"}
    done = install(venv, user_env(tmp_path, **settings), "--no-cache-dir", "tinyb")
    assert done.returncode == 0, done.stderr
    assert installed(venv, "tinya", "tinyb") and {tool for _, tool in index.requests} == {"pip"}


# ---- Windows: a shell without a POSIX venv layout gets the WSL2 steps, not a traceback ---------------------------


def run_setup(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """Run tools/setup.sh as a student would, building ``tmp_path/venv`` (never the project's .venv)."""
    base = {k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "PYTHON"))}
    return subprocess.run(
        ["bash", "tools/setup.sh"],
        cwd=ROOT,
        env={**base, "VENV": str(tmp_path / "venv"), **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


def says_use_wsl(done: subprocess.CompletedProcess[str]) -> bool:
    """The message: what this is, the WSL2 steps and the same two commands, in English and Chinese; nothing else."""
    err = done.stderr
    return (
        done.returncode == 1
        and err.startswith("tools/setup.sh: this is a Windows shell (Git Bash, MSYS2 or Cygwin)")
        and "wsl --install -d Ubuntu-24.04" in err
        and "bash tools/setup.sh && .venv/bin/jupyter lab" in err
        and "在Windows上请使用WSL2和Ubuntu" in err
        and "Traceback" not in err
        and done.stdout == ""
    )


@pytest.mark.parametrize("system", ["MINGW64_NT-10.0-19045", "MSYS_NT-10.0-22631", "CYGWIN_NT-10.0-19045"])
def test_git_bash_msys_and_cygwin_are_told_to_use_wsl(tmp_path: Path, system: str) -> None:
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "uname").write_text(f"#!/bin/sh\necho {system}\n")  # what `uname -s` says in Git Bash (MINGW64) ...
    (fake / "uname").chmod(0o755)
    done = run_setup(tmp_path, PATH=f"{fake}{os.pathsep}{os.environ['PATH']}")
    assert says_use_wsl(done), done.stderr
    assert not (tmp_path / "venv").exists()  # nothing made


def test_a_windows_python_that_makes_scripts_instead_of_bin_is_told_to_use_wsl(tmp_path: Path) -> None:
    python = tmp_path / "python3"  # ... and a Windows Python found on PATH by a shell that says it is Linux
    python.write_text(
        "#!/bin/sh\n"
        'if [ "$1" = -m ] && [ "$2" = venv ]; then mkdir -p "$3/Scripts" && : > "$3/Scripts/python.exe"; exit 0; fi\n'
        f'exec {sys.executable} "$@"\n'
    )
    python.chmod(0o755)
    done = run_setup(tmp_path, PYTHON=str(python))
    assert says_use_wsl(done), done.stderr
    assert (tmp_path / "venv" / "Scripts").is_dir()  # what that Python made, left for the student to see
