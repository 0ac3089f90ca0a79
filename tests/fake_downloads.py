"""Fakes for the tests of downloads (tests/test_downloads.py, tests/test_petimages.py): a zip written from a dict,
and ``urllib.request.urlopen`` replaced by a server that answers from bytes in memory, honouring Range or not."""

from __future__ import annotations

import io
import urllib.request
import zipfile
from pathlib import Path

import pytest

URL = "https://example.invalid/kagglecatsanddogs_5340.zip"  # never contacted: the tests replace urlopen


def make_zip(path: Path, members: dict[str, bytes]) -> Path:
    """Write a zip holding ``members`` (name -> bytes) at ``path``; return ``path``."""
    with zipfile.ZipFile(path, "w") as archive:
        for name, content in members.items():
            archive.writestr(name, content)
    return path


class FakeResponse(io.BytesIO):
    """What ``urlopen`` returns: a readable body with an HTTP status."""

    def __init__(self, body: bytes, status: int) -> None:
        super().__init__(body)
        self.status = status


def fake_urlopen(monkeypatch: pytest.MonkeyPatch, payload: bytes, honour_range: bool, cut: int | None = None) -> list:
    """Answer every ``urlopen`` with ``payload`` (from the asked offset if ``honour_range``, up to ``cut``); return
    the list of requests made."""
    requests = []

    def urlopen(request: urllib.request.Request, timeout: float) -> FakeResponse:
        requests.append(request)
        start = int(request.headers.get("Range", "bytes=0-")[6:-1]) if honour_range else 0
        body = payload[start:cut]
        return FakeResponse(body, 206 if honour_range and start else 200)

    monkeypatch.setattr(urllib.request, "urlopen", urlopen)
    return requests
