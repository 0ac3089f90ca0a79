"""Kernels that talk over Unix sockets in a folder of their own: no TCP port to race for.

jupyter_client gives a new kernel its five TCP ports by binding sockets to port 0, noting the ports the system
picked and closing the sockets; the kernel binds those ports a moment later, in its own process. Anything on the
machine may take one of them in between (another kernel being started, or the local end of any outgoing
connection), and the kernel then dies with ``zmq.error.ZMQError: Address already in use``. CI met it once in
tools/author/run_notebooks.py, with three jobs starting kernels at once on two cores. A kernel whose sockets are Unix
sockets (``transport="ipc"``) in a fresh temporary folder cannot collide with anything, and nothing about the
kernel changes but how its messages travel. Used by tools/author/run_notebooks.py, by conftest.py for nbval's kernels
and by the tests that start a kernel. Unix sockets exist on Linux and macOS, where the project's tools run (on Windows,
under WSL2).

A Jupyter server has the same race for its own port when it is given one found free beforehand. Given ``port=0``, it
binds one the system picks and writes it into its runtime folder, where ``server_port`` reads it.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import weakref
from pathlib import Path

from jupyter_client.manager import KernelManager
from traitlets import default


class IPCKernelManager(KernelManager):
    """A ``KernelManager`` whose kernel listens on Unix sockets in a temporary folder of its own, removed at
    shutdown (or, for a manager that never started a kernel, when it is garbage-collected or the process ends).
    Its socket paths are short (``/tmp/kernel-XXXXXXXX/ipc-1``): a Unix socket's path must fit in about
    100 bytes."""

    _ipc_folder: str | None = None

    @default("transport")
    def _default_transport(self) -> str:
        return "ipc"

    @default("ip")
    def _default_ip(self) -> str:
        if self.transport != "ipc":
            return super()._ip_default()
        self._ipc_folder = tempfile.mkdtemp(prefix="kernel-")
        weakref.finalize(self, shutil.rmtree, self._ipc_folder, ignore_errors=True)  # no kernel started: no shutdown
        return os.path.join(self._ipc_folder, "ipc")

    async def _async_cleanup_resources(self, restart: bool = False) -> None:
        """Remove the connection file and the sockets (jupyter_client's own cleanup, which ``shutdown_kernel``
        calls), and with them the folder unless the kernel restarts."""
        await super()._async_cleanup_resources(restart=restart)
        if not restart and self._ipc_folder is not None:
            shutil.rmtree(self._ipc_folder, ignore_errors=True)


def ipc_options(folder: str | os.PathLike[str]) -> list[str]:
    """Return the command-line options that make a Jupyter application (``jupyter nbconvert --execute``,
    ``nbgrader autograde``) start its kernels on Unix sockets in ``folder``, which must exist and have a short path
    (``tempfile.mkdtemp()``). The application must start its kernels one at a time: each one takes the same
    socket names, free again once the one before has shut down."""
    return ["--KernelManager.transport=ipc", f"--KernelManager.ip={os.path.join(folder, 'ipc')}"]


def server_port(runtime: str | os.PathLike[str]) -> int | None:
    """Return the port of the Jupyter server (JupyterLab, ``jupyter lab``) whose runtime folder is ``runtime``
    (``JUPYTER_RUNTIME_DIR``, one server's alone), from the file it writes there once it knows its port
    (``jpserver-<pid>.json``); None before that. Started with ``--ServerApp.port=0``, the server has picked and
    bound its port itself, a moment apart in its own process, instead of seconds after another process found it
    free."""
    for info in Path(runtime).glob("jpserver-*.json"):
        try:
            return int(json.loads(info.read_text(encoding="utf-8"))["port"])
        except (ValueError, KeyError, OSError):  # still being written: read it again on the next try
            return None
    return None
