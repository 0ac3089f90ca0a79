"""Unit tests for lessons/downloads.py: resumable downloads checked by size and SHA-256, safe zip extraction."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from fake_downloads import URL, fake_urlopen, make_zip

import utils
from lessons import downloads


@pytest.mark.parametrize("name", ["../evil.txt", "/tmp/evil.txt", "PetImages/../../evil.txt", "..\\evil.txt"])
def test_safe_extract_refuses_path_escapes(name: str, tmp_path: Path) -> None:
    archive = make_zip(tmp_path / "bad.zip", {"PetImages/Cat/0.jpg": b"fine", name: b"evil"})
    with pytest.raises(ValueError, match="refusing to extract"):
        downloads.safe_extract(archive, tmp_path / "out")
    assert not (tmp_path / "out" / "PetImages").exists()  # nothing was written, not even the good member
    assert not (tmp_path / "evil.txt").exists()


def test_safe_extract_extracts_good_archives(tmp_path: Path) -> None:
    archive = make_zip(tmp_path / "good.zip", {"PetImages/Cat/0.jpg": b"cat", "readme[1].txt": b"hello"})
    dest = downloads.safe_extract(archive, tmp_path / "out")
    assert (dest / "PetImages" / "Cat" / "0.jpg").read_bytes() == b"cat"


def test_download_resumes_a_partial_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    payload = bytes(range(200)) * 50
    (tmp_path / "x.zip.part").write_bytes(payload[:3000])
    requests = fake_urlopen(monkeypatch, payload, honour_range=True)
    path = downloads.download_file(URL, tmp_path / "x.zip", len(payload))
    assert path.read_bytes() == payload and not (tmp_path / "x.zip.part").exists()
    assert requests[0].headers["Range"] == "bytes=3000-"
    assert capsys.readouterr().err == ""  # the progress bar is silent in quick mode (tests)


def test_download_restarts_when_the_server_ignores_the_range(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    payload = bytes(range(200)) * 50
    (tmp_path / "x.zip.part").write_bytes(b"junk" * 100)
    fake_urlopen(monkeypatch, payload, honour_range=False)
    assert downloads.download_file(URL, tmp_path / "x.zip", len(payload)).read_bytes() == payload


def test_download_interrupted_keeps_the_part_for_next_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    payload = bytes(range(200)) * 50
    fake_urlopen(monkeypatch, payload, honour_range=True, cut=4000)
    with pytest.raises(OSError, match="stopped at 4,000 of 10,000 bytes"):
        downloads.download_file(URL, tmp_path / "x.zip", len(payload))
    assert (tmp_path / "x.zip.part").stat().st_size == 4000 and not (tmp_path / "x.zip").exists()
    requests = fake_urlopen(monkeypatch, payload, honour_range=True)
    assert downloads.download_file(URL, tmp_path / "x.zip", len(payload)).read_bytes() == payload
    assert requests[0].headers["Range"] == "bytes=4000-"


def test_download_too_big_part_starts_over_and_complete_part_needs_no_request(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    payload = b"abc" * 100
    (tmp_path / "x.zip.part").write_bytes(payload + b"extra")
    requests = fake_urlopen(monkeypatch, payload, honour_range=True)
    assert downloads.download_file(URL, tmp_path / "x.zip", len(payload)).read_bytes() == payload
    assert "Range" not in requests[0].headers
    (tmp_path / "y.zip.part").write_bytes(payload)
    assert downloads.download_file(URL, tmp_path / "y.zip", len(payload)).read_bytes() == payload
    assert len(requests) == 1


def test_a_download_of_other_contents_is_deleted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    payload = b"a login page of the school's network, not the zip" * 10
    fake_urlopen(monkeypatch, payload, honour_range=True)
    with pytest.raises(OSError, match=f"is not the expected file \\(SHA-256 {hashlib.sha256(payload).hexdigest()}"):
        downloads.download_file(URL, tmp_path / "x.zip", len(payload), sha256="0" * 64)
    assert list(tmp_path.iterdir()) == []  # neither x.zip nor x.zip.part
    right = hashlib.sha256(payload).hexdigest()
    assert downloads.download_file(URL, tmp_path / "x.zip", len(payload), right).read_bytes() == payload


def test_what_a_chinese_notebook_prints_while_downloading_is_chinese(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Full mode in a Chinese notebook: a download cut off or of other contents, a zip that would unpack outside its
    folder: each message in Chinese, with the same numbers and names."""
    monkeypatch.setattr(utils, "_language", "en")
    utils.set_language("zh")
    payload = bytes(range(200)) * 50
    fake_urlopen(monkeypatch, payload, honour_range=True, cut=4000)
    with pytest.raises(OSError, match="^下载停在了4,000字节处（共10,000字节）；重新运行就会接着下载$"):
        downloads.download_file(URL, tmp_path / "x.zip", len(payload))
    fake_urlopen(monkeypatch, payload, honour_range=True)
    digest = hashlib.sha256(payload).hexdigest()
    with pytest.raises(OSError, match=f"^从{URL}下载的不是预期的文件（SHA-256是{digest}，而不是0{{64}}）；已经删除$"):
        downloads.download_file(URL, tmp_path / "y.zip", len(payload), sha256="0" * 64)
    archive = make_zip(tmp_path / "evil.zip", {"../escape.jpg": b"x"})
    with pytest.raises(ValueError, match="^拒绝解压'../escape.jpg'：它会落到目标文件夹之外$"):
        downloads.safe_extract(archive, tmp_path / "out")
