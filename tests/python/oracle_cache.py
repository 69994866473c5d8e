"""Answers of the slow oracles (KataGo's features.py and board.py), remembered between runs.

An oracle's answer is a function of its input and of its code alone, so it is kept under
a digest of both: the oracle's source files and the test file that calls it (any edit to
either asks the oracle again), and the input the test hands it. kibo's side is computed
on every run; only the oracle's answers are remembered, as the GNU Go counts are
(`checks/score_figures.py`, `cached_margins`).

Two places, in this order: this machine's answers, one file per oracle in
`$KIBO_ORACLE_CACHE` (default `~/.cache/kibo-oracle/`), holding the entries that the last
run used, replaced atomically; then the committed answers, `checks/answers/<name>.pkl.xz`,
so that a first run does not ask the oracle for everything. One committed answer in
`SPOT_CHECK` (by its key) is asked of the oracle again on a machine that has not asked it
itself, and must be the same (`AnswersDiffer` otherwise). Set `KIBO_ORACLE_CACHE=off` to
ask the oracle every time (neither place is read); `KIBO_WRITE_ORACLE_ANSWERS=1` rewrites
the committed file with the answers the run used.
"""
import hashlib
import json
import lzma
import os
import pathlib
import pickle

ANSWERS = pathlib.Path(__file__).resolve().parents[2] / "checks" / "answers"
SPOT_CHECK = 16


class AnswersDiffer(AssertionError):
    """The oracle's answer is not the committed one."""


def _root():
    return pathlib.Path(os.environ.get("KIBO_ORACLE_CACHE") or pathlib.Path.home() / ".cache" / "kibo-oracle")


def spot_checked(key):
    return int(key[:8], 16) % SPOT_CHECK == 0


class OracleCache:
    """`get(key)` / `put(key, value)` over the answers of oracle `name`, whose code is
    `code_files`; `save()` writes the entries this run used. `hits` (this machine's),
    `committed`, `misses` and `spot_checked` count the lookups."""

    def __init__(self, name, code_files):
        h = hashlib.blake2b(digest_size=16)
        for f in sorted(pathlib.Path(p).resolve() for p in code_files):
            h.update(f.name.encode() + b"\0" + f.read_bytes() + b"\0")
        self.code = h.hexdigest()
        self.off = os.environ.get("KIBO_ORACLE_CACHE") == "off"
        self.path = _root() / f"{name}.pkl"
        self.committed_path = ANSWERS / f"{name}.pkl.xz"
        self.old, self.theirs, self.used = {}, {}, {}
        self.hits = self.committed = self.misses = self.spot_checked = 0
        if not self.off:
            self.old = self._load(lambda: self.path.read_bytes())
            self.theirs = self._load(lambda: lzma.decompress(self.committed_path.read_bytes()))

    def _load(self, read):
        try:
            saved = pickle.loads(read())
            if saved.get("code") == self.code:
                return saved["entries"]
        except (OSError, ValueError, KeyError, EOFError, lzma.LZMAError, pickle.UnpicklingError):
            pass
        return {}

    @staticmethod
    def key(*parts):
        """The digest of an input: `parts` as JSON (lists, numbers, strings, None)."""
        text = json.dumps(parts, sort_keys=True, separators=(",", ":"))
        return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()

    def get(self, key):
        """The remembered answer, or None: ask the oracle, then `put` its answer (a
        spot-checked committed answer is None here, so that the oracle is asked)."""
        value = self.old.get(key)
        if value is not None:
            self.hits += 1
        elif key in self.theirs and not spot_checked(key):
            value = self.theirs[key]
            self.committed += 1
        else:
            self.misses += 1
            return None
        self.used[key] = value
        return value

    def put(self, key, value, same=lambda a, b: a == b):
        """The oracle's answer; where the committed answers hold `key`, `same(theirs,
        value)` must hold."""
        if key in self.theirs:
            self.spot_checked += 1
            if not same(self.theirs[key], value):
                raise AnswersDiffer(f"{self.committed_path}: the oracle's answer for {key} is not the committed "
                                    f"one; rewrite the file (KIBO_ORACLE_CACHE=off KIBO_WRITE_ORACLE_ANSWERS=1)")
        self.used[key] = value

    def save(self):
        if os.environ.get("KIBO_WRITE_ORACLE_ANSWERS") == "1":
            self._write(self.committed_path, lzma.compress(self._pickled()))
        if not self.off:
            self._write(self.path, self._pickled())

    def _pickled(self):
        return pickle.dumps({"code": self.code, "entries": dict(sorted(self.used.items()))}, protocol=5)

    @staticmethod
    def _write(path, data):
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_bytes(data)
        os.replace(tmp, path)
