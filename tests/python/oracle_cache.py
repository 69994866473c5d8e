"""Answers of the slow oracles (KataGo's features.py and board.py), remembered between runs.

An oracle's answer is a function of its input and of its code alone, so it is kept under
a digest of both: the oracle's source files and the test file that calls it (any edit to
either asks the oracle again), and the input the test hands it. kibo's side is computed
on every run; only the oracle's answers are remembered, as the GNU Go counts are
(`checks/score_figures.py`, `cached_margins`).

One file per oracle in `$KIBO_ORACLE_CACHE` (default `~/.cache/kibo-oracle/`), holding the
entries that the last run used, replaced atomically. Set `KIBO_ORACLE_CACHE=off` to ask
the oracle every time.
"""
import hashlib
import json
import os
import pathlib
import pickle


def _root():
    return pathlib.Path(os.environ.get("KIBO_ORACLE_CACHE") or pathlib.Path.home() / ".cache" / "kibo-oracle")


class OracleCache:
    """`get(key)` / `put(key, value)` over the answers of oracle `name`, whose code is
    `code_files`; `save()` writes the entries this run used. `hits` and `misses` count
    the lookups."""

    def __init__(self, name, code_files):
        h = hashlib.blake2b(digest_size=16)
        for f in sorted(pathlib.Path(p).resolve() for p in code_files):
            h.update(f.name.encode() + b"\0" + f.read_bytes() + b"\0")
        self.code = h.hexdigest()
        self.off = os.environ.get("KIBO_ORACLE_CACHE") == "off"
        self.path = _root() / f"{name}.pkl"
        self.old, self.used = {}, {}
        self.hits = self.misses = 0
        if not self.off:
            try:
                saved = pickle.loads(self.path.read_bytes())
                if saved.get("code") == self.code:
                    self.old = saved["entries"]
            except (OSError, ValueError, KeyError, EOFError, pickle.UnpicklingError):
                pass

    @staticmethod
    def key(*parts):
        """The digest of an input: `parts` as JSON (lists, numbers, strings, None)."""
        text = json.dumps(parts, sort_keys=True, separators=(",", ":"))
        return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()

    def get(self, key):
        value = self.old.get(key)
        if value is None:
            self.misses += 1
        else:
            self.hits += 1
            self.used[key] = value
        return value

    def put(self, key, value):
        self.used[key] = value

    def save(self):
        if self.off:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_bytes(pickle.dumps({"code": self.code, "entries": self.used}, protocol=pickle.HIGHEST_PROTOCOL))
        os.replace(tmp, self.path)
