"""Extract chosen members of a tar archive, refusing any that could land outside the folder.

One function for every check and test that unpacks the KGS 2001 archive. Python's own
`filter="data"` (3.12, and the security releases 3.11.4, 3.10.12, 3.9.17 on) does the
refusing where it exists; on an older Python (Debian 12's 3.11.2) the members are checked
here by hand, more strictly than "data" does (a corpus of game records needs no more):
only regular files and folders, no absolute names, no `..`. Nothing is narrowed: every
member "data" refuses is refused here too, and so are links and absolute names, which
"data" would keep inside the folder.
"""
import os
import pathlib
import tarfile


class UnsafeMember(tarfile.TarError):
    """A member that `filter="data"` would refuse (named, with the archive)."""


def _check(member, archive):
    name = member.name
    parts = pathlib.PurePosixPath(name).parts
    if name.startswith("/") or os.path.isabs(name) or ".." in parts:
        raise UnsafeMember(f"{archive}: member {name!r} would be written outside the destination")
    if not (member.isfile() or member.isdir()):
        raise UnsafeMember(f"{archive}: member {name!r} is not a regular file or folder (type {member.type!r})")


def extract_members(archive, dest, names=None):
    """Extract the members of `archive` whose names are in `names` (all when None) into
    `dest`; returns the members extracted, in archive order."""
    with tarfile.open(archive) as t:
        members = [m for m in t.getmembers() if names is None or m.name in names]
        if hasattr(tarfile, "data_filter"):
            t.extractall(dest, members=members, filter="data")
        else:
            for m in members:
                _check(m, archive)
            # Mode bits as "data" leaves them: no set-id bits, owner read/write kept.
            for m in members:
                m.mode = (m.mode & 0o755) | (0o600 if m.isfile() else 0o700)
                m.uid = m.gid = 0
                m.uname = m.gname = ""
            t.extractall(dest, members=members)
    return members
