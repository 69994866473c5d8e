"""The score-check figures of docs/results/scoring.md: runs `kibo filter` on the KGS 2001
archive and on the GNU Go and Fuego regression games, reads `score_check` from the
games table (pyarrow) and prints, per source, the games that ended by counting with a
recorded score (`result_kind == score`), how many kibo decides (agrees + disagrees),
and how many of those agree with the record.

Usage:
    python checks/score_figures.py [--kibo PATH] [--shared DIR] [--list] [--json FILE]
                                  [--gnugo] [--gnugo-decided] [--salts N]

`--kibo` defaults to $KIBO, then ~/.cache/kibo-target/release/kibo; `--shared` to
$SHARED, then ../shared/data. `--list` prints every disagreement (source, member,
rules, komi, RE, counted margin, and the breakdown columns when the table has them).
`--json FILE` writes the figures and the disagreements as JSON. `--gnugo` also counts
every disagreement with GNU Go (`gnugo --score aftermath`, two at a time, ~1.5 s a
game) and gives its cause: *record wrong* (margin, or winner) when GNU Go's margin is
kibo's within 1 point, *kibo wrong* when it is the record's, *ambiguous* otherwise;
`--gnugo-decided` counts every decided game with GNU Go and prints how often its
winner is kibo's (minutes: ~500 games). GNU Go's counts are remembered by each record's
content in `$KIBO_GNUGO_CACHE` (default ~/.cache/kibo-gnugo-margins.json), so a second
binary is judged in the time of its `kibo filter` runs. `--salts N` runs each source
under N salted random streams of the playouts ($KIBO_PLAYOUT_SALT = 1..N) and prints
each figure's mean and spread: one stream is one draw of the playouts' noise, so a change
that plays other moves is weighed by its mean over the same salts. Asserts nothing.
"""
import concurrent.futures
import hashlib
import shutil
import argparse
import json
import re
import os
import pathlib
import subprocess
import sys
import tempfile

import pyarrow.parquet as pq

from tar_members import extract_members

SOURCES = [
    ("kgs2001", "dev/kgs-2001-archive"),
    ("gnugo", "dev/gnugo-regression-games"),
    ("fuego", "dev/fuego-regression-sgf"),
]
ROOT = pathlib.Path(__file__).resolve().parents[1]


# The verdicts that name another count than the record (schema 5; `disagrees` before).
DIFFERS = ("margin_differs", "winner_differs")

def games_table(kibo, path, out, salt=None):
    """`kibo filter` of `path` into `out` (the playouts' streams salted by `salt`, if
    given: $KIBO_PLAYOUT_SALT); the games table as a list of dicts."""
    pipeline = out.parent / "score-figures.toml"
    pipeline.write_text("[filter]\nmin_moves = 1\n")
    env = dict(os.environ)
    env.pop("KIBO_PLAYOUT_SALT", None)
    if salt is not None:
        env["KIBO_PLAYOUT_SALT"] = str(salt)
    subprocess.run([kibo, "filter", "--input", str(path), "--out", str(out), "--pipeline", str(pipeline), "-q"],
                   check=True, stderr=subprocess.DEVNULL, env=env)
    return pq.read_table(out / "games").to_pylist()


def figures(rows):
    counted = [r for r in rows if r.get("score_check") is not None]
    scored = [r for r in counted if r["result_kind"] == "score"]
    by = {k: sum(1 for r in scored if r["score_check"] == k)
          for k in ("agrees", "margin_differs", "winner_differs", "undecided")}
    by["disagrees"] = by["margin_differs"] + by["winner_differs"]
    decided = by["agrees"] + by["disagrees"]
    reasons = {}
    for r in scored:
        if r["score_check"] == "undecided":
            why = r.get("score_reason") or "?"
            kinds = sorted(set(re.findall(r"stones?, ([a-z ]+) \d+%\)", why)))
            why = " + ".join(kinds) if kinds else ("no winner" if "no winner" in why else "undecided points")
            reasons[why] = reasons.get(why, 0) + 1
    return {
        "counted": len(counted),
        "scored": len(scored),
        **by,
        "decided": decided,
        "decided_share": decided / len(scored) if scored else None,
        "agreement": by["agrees"] / decided if decided else None,
        "undecided_reasons": dict(sorted(reasons.items(), key=lambda kv: -kv[1])),
    }


def disagreements(name, rows):
    keys = ["member", "source_file", "game_index", "rules", "komi", "handicap", "result_raw", "counted_margin",
            "score_rules", "score_territory_black", "score_territory_white", "score_prisoners_black",
            "score_prisoners_white", "score_dead_black", "score_dead_white", "score_komi", "score_korean_margin"]
    return [{"source": name, **{k: r.get(k) for k in keys if k in r}}
            for r in rows if r["result_kind"] == "score" and r.get("score_check") in DIFFERS]


# GNU Go plays the game out before it counts, and seeds its random choices from the clock
# unless told a seed: without `--seed`, 3 of 587 KGS records got another count on a second
# run (one of them another winner).
GNUGO_ARGS = ["--seed", "1", "--score", "aftermath"]


def gnugo_margin(gnugo, path):
    """GNU Go's count of the game's end, black − white (`None` if it gives none)."""
    out = subprocess.run([gnugo, *GNUGO_ARGS, "-l", str(path)], capture_output=True, text=True,
                         timeout=300).stdout
    m = re.search(r"(White|Black) wins by ([\d.]+) points", out)
    if m:
        return float(m.group(2)) * (1 if m.group(1) == "Black" else -1)
    return 0.0 if re.search(r"jigo", out, re.I) else None


def recorded_margin(raw):
    m = re.match(r"([BW])\+([\d.]+)$", raw or "")
    return None if not m else float(m.group(2)) * (1 if m.group(1) == "B" else -1)


def cause(record, kibo, gnugo):
    """Whose count GNU Go's is: kibo's alone (the record is wrong), the record's alone
    (kibo is wrong), or both or neither (ambiguous); all margins black − white."""
    if gnugo is None:
        return "no GNU Go count"
    near_kibo = abs(gnugo - kibo) <= 1
    near_record = record is not None and abs(gnugo - record) <= 1
    if near_kibo and not near_record:
        if record is not None and (record > 0) != (kibo > 0):
            return "record wrong: winner"
        return "record wrong: margin"
    if near_record and not near_kibo:
        return "kibo wrong"
    return "ambiguous"


def decided(rows):
    """The games that ended with a recorded score whose count kibo decided."""
    return [r for r in rows if r["result_kind"] == "score" and r.get("score_check") in ("agrees", *DIFFERS)]


def same_winner_as_gnugo(rows, shared):
    """In how many of `rows` GNU Go's count names kibo's winner."""
    theirs = with_gnugo(rows, shared)
    return sum(1 for r, g in zip(rows, theirs) if g and (g > 0) == (r["counted_margin"] > 0))


def with_gnugo(rows, shared):
    """GNU Go's margin for each row (a games-table row)."""
    with tempfile.TemporaryDirectory() as tmp:
        return gnugo_margins(rows, shared, tmp)


def gnugo_margins(rows, shared, tmp):
    gnugo = shutil.which("gnugo") or "/usr/games/gnugo"
    members = {r["member"] for r in rows if r.get("member")}
    for archive in sorted((pathlib.Path(shared) / "dev/kgs-2001-archive").glob("*.tar.gz")):
        extract_members(archive, tmp, members)
    paths = [pathlib.Path(tmp) / r["member"] if r.get("member") else pathlib.Path(r["source_file"]) for r in rows]
    return cached_margins(gnugo, paths)


# GNU Go's counts of the KGS 2001 games with a score result, kept with the code so that a
# first run does not spend ~15 CPU-minutes recounting them: written by
# `--write-gnugo-answers`, one margin per record digest, for the GNU Go version it names.
ANSWERS = ROOT / "checks" / "answers" / "gnugo-kgs-2001.json"
# One committed answer in SPOT_CHECK is asked of GNU Go again on every machine that has not
# counted that record itself, and must be the same.
SPOT_CHECK = 16


class AnswersDiffer(AssertionError):
    """GNU Go's count of a record is not the one `ANSWERS` holds."""


def record_digest(path):
    return hashlib.blake2b(pathlib.Path(path).read_bytes(), digest_size=16).hexdigest()


def committed_answers(version):
    """`ANSWERS`' margins by record digest, if they were made with GNU Go `version`."""
    try:
        data = json.loads(ANSWERS.read_text())
    except (OSError, ValueError):
        return {}
    same = data.get("gnugo") == version and data.get("command") == gnugo_command()
    return data.get("margins", {}) if same else {}


def gnugo_command():
    return "gnugo " + " ".join(GNUGO_ARGS) + " -l RECORD"


def spot_checked(digest):
    return int(digest[:8], 16) % SPOT_CHECK == 0


def gnugo_version(gnugo):
    """GNU Go's version line."""
    return subprocess.run([gnugo, "--version"], capture_output=True, text=True).stdout.split("\n")[0]


def cached_margins(gnugo, paths, stats=None):
    """GNU Go's margin (`gnugo_margin`) of each record, two at a time. A count depends on
    the record and GNU Go alone, so it is remembered by the file's content (blake2b), GNU
    Go's version and `GNUGO_ARGS`: the counts this machine made in `$KIBO_GNUGO_CACHE` (default
    ~/.cache/kibo-gnugo-margins.json), so that a second kibo binary, or a second test
    run, counts each game with GNU Go once; then the committed `ANSWERS`. A committed
    answer whose digest is spot-checked (one in `SPOT_CHECK`) is counted here too, and
    `AnswersDiffer` is raised when GNU Go's count is not the committed one (as when
    this machine's count of any committed record differs). `stats`, a dict, gets the
    number of answers from each place."""
    version = gnugo_version(gnugo)
    cache_file = pathlib.Path(os.environ.get("KIBO_GNUGO_CACHE", os.path.expanduser("~/.cache/kibo-gnugo-margins.json")))
    try:
        cache = json.loads(cache_file.read_text())
    except (OSError, ValueError):
        cache = {}
    committed = committed_answers(version)
    digests = [record_digest(p) for p in paths]
    keys = [f"{version} {' '.join(GNUGO_ARGS)}:{d}" for d in digests]
    todo = sorted({k: p for k, d, p in zip(keys, digests, paths)
                   if k not in cache and (d not in committed or spot_checked(d))}.items())
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        for (k, _), m in zip(todo, pool.map(lambda kp: gnugo_margin(gnugo, kp[1]), todo)):
            cache[k] = m
    if todo:
        cache_file.parent.mkdir(parents=True, exist_ok=True)
        tmp = cache_file.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(cache, sort_keys=True))
        os.replace(tmp, cache_file)
    differ = sorted({f"{p}: GNU Go {cache[k]}, {ANSWERS.name} {committed[d]}"
                     for k, d, p in zip(keys, digests, paths) if k in cache and d in committed and cache[k] != committed[d]})
    if differ:
        raise AnswersDiffer(f"{len(differ)} of GNU Go's counts are not the committed ones in {ANSWERS} (rewrite it: "
                            f"`.venv/bin/python checks/score_figures.py --write-gnugo-answers`): " + "; ".join(differ[:5]))
    if stats is not None:
        asked = {k for k, _ in todo}
        stats["asked"] = sum(1 for k in keys if k in asked)
        stats["spot_checked"] = sum(1 for k, d in zip(keys, digests) if k in asked and d in committed)
        stats["committed"] = sum(1 for k in keys if k not in cache)
        stats["remembered"] = len(keys) - stats["asked"] - stats["committed"]
    return [cache[k] if k in cache else committed[d] for k, d in zip(keys, digests)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kibo", default=os.environ.get("KIBO", os.path.expanduser("~/.cache/kibo-target/release/kibo")))
    ap.add_argument("--shared", default=os.environ.get("SHARED", str(ROOT.parent / "shared" / "data")))
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--json")
    ap.add_argument("--gnugo", action="store_true")
    ap.add_argument("--gnugo-decided", action="store_true")
    ap.add_argument("--write-gnugo-answers", action="store_true",
                    help=f"count every KGS 2001 game whose record gives a score with GNU Go, afresh, and write "
                         f"the margins to {ANSWERS.relative_to(ROOT)}; nothing else")
    ap.add_argument("--salts", type=int, default=0,
                    help="run every source under the salts 1..N of the playouts' streams and print each "
                         "figure's mean and standard deviation over them (with --gnugo-decided: GNU Go's "
                         "winner agreement too)")
    ap.add_argument("--first-salt", type=int, default=1, help="with --salts N: the salts K..K+N-1 (default 1)")
    a = ap.parse_args()
    if a.write_gnugo_answers:
        return write_gnugo_answers(a)
    if a.salts:
        return salted(a)
    decided_rows = {}
    result = {"kibo": a.kibo, "sources": {}, "disagreements": []}
    with tempfile.TemporaryDirectory() as tmp:
        for name, sub in SOURCES:
            path = pathlib.Path(a.shared) / sub
            if not path.exists():
                print(f"{name}: {path} absent, skipped", file=sys.stderr)
                continue
            rows = games_table(a.kibo, path, pathlib.Path(tmp) / name)
            decided_rows[name] = decided(rows)
            result["sources"][name] = figures(rows)
            result["disagreements"] += disagreements(name, rows)
    print(f"{'source':<9} {'counted':>7} {'scored':>6} {'agrees':>6} {'disagr':>6} {'undec':>6} "
          f"{'decided':>8} {'agreement':>9}")
    for name, f in result["sources"].items():
        share = f"{f['decided_share']:.1%}" if f["decided_share"] is not None else "-"
        agr = f"{f['agreement']:.1%}" if f["agreement"] is not None else "-"
        print(f"{name:<9} {f['counted']:>7} {f['scored']:>6} {f['agrees']:>6} {f['disagrees']:>6} "
              f"{f['undecided']:>6} {share:>8} {agr:>9}")
        if f["undecided_reasons"] and f["undecided_reasons"] != {"?": f["undecided"]}:
            print(f"          undecided: {json.dumps(f['undecided_reasons'])}")
        if a.gnugo:
            rows = [r for r in decided_rows[name] if r["score_check"] in DIFFERS]
            causes = {}
            for r, g in zip(rows, with_gnugo(rows, a.shared)):
                c = cause(recorded_margin(r["result_raw"]), r["counted_margin"], g)
                causes[c] = causes.get(c, 0) + 1
                for d in result["disagreements"]:
                    if d["source"] == name and (d.get("member"), d.get("source_file")) == (r.get("member"),
                                                                                           r.get("source_file")):
                        d["gnugo_margin"], d["cause"] = g, c
            f["disagreement_causes"] = causes
            print(f"          disagreements by cause (GNU Go): {json.dumps(causes)}")
        if a.gnugo_decided:
            rows = decided_rows[name]
            same = same_winner_as_gnugo(rows, a.shared)
            f["gnugo_same_winner"] = same
            print(f"          GNU Go names kibo's winner in {same} of {len(rows)} decided games "
                  f"({same / len(rows):.1%})" if rows else "")
    if a.list:
        for d in result["disagreements"]:
            print("  " + " ".join(f"{k}={v}" for k, v in d.items() if v is not None))
    if a.json:
        pathlib.Path(a.json).write_text(json.dumps(result, indent=1, default=str) + "\n")


def write_gnugo_answers(a):
    """`--write-gnugo-answers`: GNU Go's margin of every KGS 2001 record with a score result
    (`kibo filter` with min_moves 1), each counted now, into `ANSWERS`."""
    gnugo = shutil.which("gnugo") or "/usr/games/gnugo"
    version = gnugo_version(gnugo)
    with tempfile.TemporaryDirectory() as tmp:
        rows = [r for r in games_table(a.kibo, pathlib.Path(a.shared) / "dev/kgs-2001-archive", pathlib.Path(tmp) / "out")
                if r["result_kind"] == "score"]
        members = {r["member"] for r in rows}
        for archive in sorted((pathlib.Path(a.shared) / "dev/kgs-2001-archive").glob("*.tar.gz")):
            extract_members(archive, tmp, members)
        paths = sorted({pathlib.Path(tmp) / m for m in members})
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            margins = list(pool.map(lambda p: gnugo_margin(gnugo, p), paths))
        answers = {record_digest(p): m for p, m in zip(paths, margins)}
    ANSWERS.parent.mkdir(parents=True, exist_ok=True)
    tmpf = ANSWERS.with_suffix(".tmp")
    tmpf.write_text(json.dumps({
        "what": "GNU Go's margin (black - white; null: no count) of every KGS 2001 record whose result is a score, "
                "by the blake2b-128 digest of the record's bytes",
        "gnugo": version,
        "command": gnugo_command(),
        "made_by": ".venv/bin/python checks/score_figures.py --write-gnugo-answers",
        "margins": answers}, indent=1, sort_keys=True) + "\n")
    os.replace(tmpf, ANSWERS)
    print(f"{ANSWERS}: {len(answers)} records counted by {version}")


def salted(a):
    """`--salts N`: the figures of every source under salts 1..N, then their mean and
    standard deviation. One stream's figures are one draw of the playouts' noise (about
    a point on these sources): a change to the playouts is weighed by its mean over the
    same salts against the mean of the binary before it (docs/results/scoring.md, "Fourth round")."""
    import statistics
    per = {}
    verdicts = {}  # source -> one {game: score_check} per salt
    with tempfile.TemporaryDirectory() as tmp:
        for salt in range(a.first_salt, a.first_salt + a.salts):
            line = []
            for name, sub in SOURCES:
                path = pathlib.Path(a.shared) / sub
                if not path.exists():
                    sys.exit(f"{name}: {path} absent")
                out = pathlib.Path(tmp) / f"{name}-{salt}"
                rows = games_table(a.kibo, path, out, salt)
                shutil.rmtree(out, ignore_errors=True)
                f = figures(rows)
                fig = {"decided": f["decided_share"], "agreement": f["agreement"]}
                verdicts.setdefault(name, []).append(
                    {(r.get("member"), r.get("source_file"), r.get("game_index")): r["score_check"]
                     for r in rows if r["result_kind"] == "score" and r.get("score_check") is not None})
                if a.gnugo_decided:
                    rows = decided(rows)
                    fig["gnugo_winner"] = same_winner_as_gnugo(rows, a.shared) / len(rows) if rows else None
                per.setdefault(name, []).append(fig)
                line.append(f"{name} " + "/".join(f"{v:.1%}" if v is not None else "-" for v in fig.values()))
            print(f"salt {salt:>3}: " + "  ".join(line), flush=True)
    summary = {}
    print(f"{'source':<9} {'figure':<13} {'mean':>7} {'sd':>6} {'min':>7} {'max':>7}   (over {a.salts} salts)")
    for name, figs in per.items():
        for key in figs[0]:
            vals = [f[key] for f in figs if f[key] is not None]
            if not vals:
                continue
            mean, sd = statistics.fmean(vals), statistics.pstdev(vals)
            summary.setdefault(name, {})[key] = {"mean": mean, "sd": sd, "min": min(vals), "max": max(vals)}
            print(f"{name:<9} {key:<13} {mean:>7.2%} {sd:>6.2%} {min(vals):>7.1%} {max(vals):>7.1%}")
    # How often one game's verdict changes from one stream to the next: the noise each
    # game's verdict carries (a change that plays fewer playouts must not raise it).
    for name, runs in verdicts.items():
        pairs = list(zip(runs, runs[1:]))
        if pairs:
            flips = statistics.fmean(sum(1 for k in x if x[k] != y.get(k)) / max(len(x), 1) for x, y in pairs)
            summary.setdefault(name, {})["verdict_flips"] = flips
            print(f"{name:<9} verdict changes from one salt to the next: {flips:.2%} of scored games")
    if a.json:
        pathlib.Path(a.json).write_text(json.dumps({"kibo": a.kibo, "salts": a.salts, "per_salt": per,
                                                    "summary": summary}, indent=1) + "\n")


if __name__ == "__main__":
    main()
