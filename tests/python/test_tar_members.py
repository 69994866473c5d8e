"""checks/tar_members.py: the archive members the checks unpack, refused when unsafe on
every Python, whether or not it has `tarfile.data_filter` (3.12, 3.11.4 on; Debian 12's
3.11.2 has not)."""
import io
import pathlib
import sys
import tarfile

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "checks"))
import tar_members  # noqa: E402


def archive(path, *members):
    with tarfile.open(path, "w:gz") as t:
        for name, kind in members:
            info = tarfile.TarInfo(name)
            if kind == "file":
                data = b"(;GM[1]SZ[19])"
                info.size, info.mode = len(data), 0o4777
                t.addfile(info, io.BytesIO(data))
            elif kind == "symlink":
                info.type, info.linkname = tarfile.SYMTYPE, "/etc/passwd"
                t.addfile(info)
            elif kind == "fifo":
                info.type = tarfile.FIFOTYPE
                t.addfile(info)
    return path


@pytest.fixture(params=["data_filter", "by_hand"])
def python(request, monkeypatch):
    """Both ways: Python's own filter (where it has one) and the check by hand."""
    if request.param == "data_filter":
        if not hasattr(tarfile, "data_filter"):
            pytest.skip(f"Python {sys.version.split()[0]} has no tarfile.data_filter")
    else:
        monkeypatch.delattr(tarfile, "data_filter", raising=False)
    return request.param


def test_the_chosen_members_are_extracted_without_set_id_bits(python, tmp_path):
    a = archive(tmp_path / "a.tar.gz", ("2001/a.sgf", "file"), ("2001/b.sgf", "file"))
    got = tar_members.extract_members(a, tmp_path / "out", {"2001/b.sgf"})
    assert [m.name for m in got] == ["2001/b.sgf"]
    assert (tmp_path / "out/2001/b.sgf").read_bytes() == b"(;GM[1]SZ[19])"
    assert not (tmp_path / "out/2001/a.sgf").exists()
    assert (tmp_path / "out/2001/b.sgf").stat().st_mode & 0o7000 == 0


@pytest.mark.parametrize("member", [("../escape.sgf", "file"), ("evil", "symlink"), ("pipe", "fifo")])
def test_a_member_that_could_leave_the_folder_or_is_not_a_file_is_refused(python, tmp_path, member):
    a = archive(tmp_path / "a.tar.gz", ("ok.sgf", "file"), member)
    with pytest.raises(tarfile.TarError):
        tar_members.extract_members(a, tmp_path / "out")
    assert not (tmp_path / "escape.sgf").exists()
