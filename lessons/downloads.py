"""Downloads that can be trusted: a resumable HTTP download checked by size and SHA-256, and a zip extraction
that refuses members landing outside the target folder.

Generic helpers, not a lesson's topic: notebook 07 uses them through ``petimages.fetch`` and describes them
without showing them. Its unit tests are in ``tests/test_downloads.py``.
"""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

import utils


def download_file(url: str, path: str | os.PathLike[str], expected_bytes: int, sha256: str | None = None) -> Path:
    """Download ``url`` to ``path`` (making its folder), with a progress bar, resuming a ``.part`` file; return path.

    The file gets its name only when it has ``expected_bytes`` (and, if given, the SHA-256 ``sha256``): a complete
    download of other contents is deleted and raises OSError, so nothing wrong is kept under ``path``."""
    import urllib.request

    path = Path(path)
    part = path.with_name(path.name + ".part")
    have = part.stat().st_size if part.is_file() else 0
    if have > expected_bytes:  # cannot be the start of the right file: start again
        part.unlink()
        have = 0
    if have < expected_bytes:
        request = urllib.request.Request(url, headers={"Range": f"bytes={have}-"} if have else {})
        with urllib.request.urlopen(request, timeout=60) as response:
            if response.status != 206:  # the server ignored the range and sends everything
                have = 0
            from tqdm.std import tqdm

            part.parent.mkdir(parents=True, exist_ok=True)  # only once the server answered: offline, nothing is made
            bar = tqdm(
                total=expected_bytes,
                initial=have,
                unit="B",
                unit_scale=True,
                desc=path.name,
                disable=utils.is_quick_mode(),
            )
            with open(part, "ab" if have else "wb") as file, bar:
                while chunk := response.read(1 << 20):
                    file.write(chunk)
                    bar.update(len(chunk))
    got = part.stat().st_size
    if got != expected_bytes:
        if got > expected_bytes:
            part.unlink()
        raise OSError(
            utils.localized(
                f"the download stopped at {got:,} of {expected_bytes:,} bytes; run again to resume",
                f"下载停在了{got:,}字节处（共{expected_bytes:,}字节）；重新运行就会接着下载",
            )
        )
    if sha256 is not None and (digest := file_sha256(part)) != sha256:
        part.unlink()
        raise OSError(
            utils.localized(
                f"the download from {url} is not the expected file (SHA-256 {digest}, not {sha256}); deleted",
                f"从{url}下载的不是预期的文件（SHA-256是{digest}，而不是{sha256}）；已经删除",
            )
        )
    os.replace(part, path)
    return path


def file_sha256(path: str | os.PathLike[str]) -> str:
    """Return the SHA-256 of the file at ``path`` (hex digits), read in pieces."""
    import hashlib

    with open(path, "rb") as file:
        return hashlib.file_digest(file, "sha256").hexdigest()


def safe_extract(zip_path: str | os.PathLike[str], dest: str | os.PathLike[str]) -> Path:
    """Extract ``zip_path`` into ``dest`` after checking that no member lands outside ``dest``; return ``dest``."""
    from pathlib import PurePosixPath

    dest = Path(dest).resolve()
    with zipfile.ZipFile(zip_path) as archive:
        members = archive.infolist()
        for member in members:
            name = member.filename.replace("\\", "/")
            inside = (dest / name).resolve().is_relative_to(dest)
            if name.startswith("/") or ".." in PurePosixPath(name).parts or not inside:
                raise ValueError(
                    utils.localized(
                        f"refusing to extract {member.filename!r}: it would land outside the target folder",
                        f"拒绝解压{member.filename!r}：它会落到目标文件夹之外",
                    )
                )
        for member in utils.progress(members, desc=utils.localized("extracting", "解压")):
            archive.extract(member, dest)
    return dest
