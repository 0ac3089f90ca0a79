"""tools/author/kernels.py: kernels on Unix sockets in a folder of their own, for every tool and test starting one."""

from __future__ import annotations

import gc
import json
import os
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat
import nbval.kernel
from nbclient import NotebookClient

from tools.author import kernels
from tools.author.kernels import IPCKernelManager


def test_a_kernel_listens_on_unix_sockets_in_its_own_folder_removed_at_shutdown(tmp_path: Path) -> None:
    km = IPCKernelManager(kernel_name="python3")
    km.start_kernel(cwd=str(tmp_path))
    folder = Path(km.ip).parent
    client = km.client()
    try:
        info = km.get_connection_info()
        assert info["transport"] == "ipc" and Path(info["ip"]).is_absolute() and len(info["ip"]) < 60
        client.start_channels()
        client.wait_for_ready(timeout=60)
        reply = client.execute_interactive("import os; print(os.getcwd())", timeout=60)
        assert reply["content"]["status"] == "ok"
        ports = {value for name, value in info.items() if name.endswith("_port")}
        assert sorted(p.name for p in folder.iterdir()) == sorted(f"ipc-{port}" for port in ports)  # all 5 channels
    finally:
        client.stop_channels()
        km.shutdown_kernel(now=True)
    assert not folder.exists()


def test_a_taken_tcp_port_does_not_matter(tmp_path: Path) -> None:
    """What broke CI: a port picked for a kernel and taken by another process before the kernel bound it. Here every
    port the system would hand out next is taken while the kernel starts; the kernel needs none."""
    held = []
    try:
        for _ in range(20):  # the next ports bind(0) gives out, held for the kernel's whole start
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            s.listen()
            held.append(s)
        notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print(6 * 7)")])
        NotebookClient(notebook, kernel_name="python3", kernel_manager_class=IPCKernelManager,
                       resources={"metadata": {"path": str(tmp_path)}}).execute()
        assert "".join(o["text"] for o in notebook.cells[0].outputs if o.get("name") == "stdout") == "42\n"
    finally:
        for s in held:
            s.close()


def test_two_kernels_at_once_get_separate_folders() -> None:
    first, second = IPCKernelManager(kernel_name="python3"), IPCKernelManager(kernel_name="python3")
    first.start_kernel()
    second.start_kernel()
    try:
        assert Path(first.ip).parent != Path(second.ip).parent
        assert first.shell_port == second.shell_port  # the same names, in folders of their own
    finally:
        first.shutdown_kernel(now=True)
        second.shutdown_kernel(now=True)


def test_a_manager_that_never_starts_a_kernel_leaves_no_folder() -> None:
    """Reading the address makes the folder; a manager dropped without starting a kernel removes it all the same."""
    manager = IPCKernelManager()
    folder = Path(manager.ip).parent
    assert folder.is_dir()
    del manager
    gc.collect()
    assert not folder.exists()


def test_nbval_under_pytest_starts_its_kernels_this_way() -> None:
    assert nbval.kernel.KernelManager is IPCKernelManager  # conftest.py


def test_the_options_make_a_jupyter_application_use_unix_sockets(tmp_path: Path) -> None:
    notebook = tmp_path / "n.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "import json, sys\nfrom ipykernel.connect import get_connection_info\n"
        "print(json.loads(get_connection_info())['transport'])")]), notebook)
    sockets = tempfile.mkdtemp(prefix="kernels-")
    try:
        done = subprocess.run([sys.executable, "-m", "jupyter", "nbconvert", "--to", "notebook", "--execute",
                               "--inplace", *kernels.ipc_options(sockets), str(notebook)],
                              capture_output=True, text=True, timeout=300, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        assert os.listdir(sockets) == []  # the kernel's sockets, removed at shutdown
    finally:
        os.rmdir(sockets)
    outputs = nbformat.read(notebook, as_version=4).cells[0].outputs  # a print may arrive in pieces: join them
    assert "".join(o["text"] for o in outputs if o.get("name") == "stdout") == "ipc\n"


def test_server_port_reads_the_servers_runtime_file_once_it_is_whole(tmp_path: Path) -> None:
    assert kernels.server_port(tmp_path) is None  # the server has not written it yet
    info = tmp_path / "jpserver-4242.json"
    info.write_text('{"base_url": "/", "port": 38', encoding="utf-8")  # caught while being written
    assert kernels.server_port(tmp_path) is None
    info.write_text(json.dumps({"base_url": "/", "port": 38467, "pid": 4242}), encoding="utf-8")
    assert kernels.server_port(tmp_path) == 38467  # tests/test_student_edition.py reads a real server's
