#!/usr/bin/env python3
"""`make bench-compare REF=<commit>`: the working tree's kibo against a reference commit.

Builds REF's `kibo` in a worktree of its own (`$KIBO_REF_ROOT/<short>`, default
`~/.cache/kibo-ref/<short>`, detached at REF) with a target folder of its own
(`~/.cache/kibo-target-ref-<short>`; the first time it is seeded with a copy of the working
tree's target folder so the dependencies are not compiled again), then runs REF and the
working tree's binary (`--new`, built by `make build`) alternately, REF first, ROUNDS
times each, on each corpus:

* `dev`: the dev corpus through `pipelines/dev.toml` (the working tree's file; if REF
  refuses it as a configuration error, REF's own `pipelines/dev.toml` for both sides);
* `1e7`: the 10^7-sample corpus of `make bench-scale` (`$SCALE_ROOT/1e7/files`, built with
  `cargo bench --bench scale -- gen 1e7` when absent) through the built-in default
  pipeline (no `--pipeline`), as `make bench-scale` runs it.

Each run is `kibo filter` then `kibo split` into an empty scratch folder, each process
timed by `/usr/bin/time` (wall, user + sys CPU, peak RSS) or, without it, by
`resource.getrusage(RUSAGE_CHILDREN)` around the process. `kibo run` is exactly these two
stages in one process (`cli.rs`: filter, then split, whose end writes the dataset card),
so the sum is `kibo run` plus one process start. Threads: `--threads` (default 1, for
stable per-core figures) on both sides. The best (lowest) of the rounds is reported per
stage; the total's best is the best round's filter + split. The ratios are new / REF
(below 1: the working tree is faster). Prints one table and writes it as
`OUTDIR/<short>.json` and `.md`. Standard library only.
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TIME = "/usr/bin/time"
STAGES = ("filter", "split")


def log(msg: str) -> None:
    print(f"bench-compare: {msg}", flush=True)


def git(*args: str, cwd: Path = ROOT) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


# ---------------------------------------------------------------------------------------
# Building REF
# ---------------------------------------------------------------------------------------


def build_ref(ref: str, ref_root: Path, seed_target: Path | None, units: list[str]) -> tuple[str, str, Path, Path]:
    """Worktree + release build of REF, asking cargo for the same `units` as the working
    tree's build (features resolve per invocation: the same units, the same features).
    Returns (sha, short, worktree, binary)."""
    try:
        sha = git("rev-parse", "--verify", f"{ref}^{{commit}}")
    except subprocess.CalledProcessError:
        sys.exit(f"bench-compare: REF={ref!r} is not a commit of this repository")
    short = sha[:7]
    wt = ref_root / short
    if (wt / ".git").exists():
        if git("rev-parse", "HEAD", cwd=wt) != sha:
            git("checkout", "--quiet", "--detach", sha, cwd=wt)
    else:
        wt.parent.mkdir(parents=True, exist_ok=True)
        git("worktree", "prune")
        git("worktree", "add", "--quiet", "--detach", str(wt), sha)
    target = Path.home() / ".cache" / f"kibo-target-ref-{short}"
    if not target.exists() and seed_target is not None and (seed_target / "release").is_dir():
        log(f"seeding {target} from {seed_target} (dependencies already compiled)")
        subprocess.run(["cp", "-a", str(seed_target), str(target)], check=True)
    env = dict(os.environ, CARGO_TARGET_DIR=str(target))
    env.setdefault("CARGO_BUILD_JOBS", "2")
    log(f"building REF {short} in {wt} (CARGO_TARGET_DIR={target})")
    t = time.monotonic()
    r = subprocess.run(["cargo", "build", "--release", *units], cwd=wt, env=env)
    if r.returncode != 0:
        sys.exit(f"bench-compare: building REF {short} failed (exit {r.returncode})")
    log(f"REF {short} built in {time.monotonic() - t:.0f} s")
    return sha, short, wt, target / "release" / "kibo"


def new_label() -> str:
    head = git("rev-parse", "--short=7", "HEAD")
    dirty = git("status", "--porcelain", "--untracked-files=no", "--", "src", "Cargo.toml", "Cargo.lock")
    return f"{head}+changes" if dirty else head


# ---------------------------------------------------------------------------------------
# Corpora
# ---------------------------------------------------------------------------------------


class Corpus:
    def __init__(self, name: str, pipeline: Path | None, inputs: list[Path], what: str):
        self.name = name
        self.pipeline = pipeline
        self.inputs = inputs
        self.what = what

    def args(self) -> list[str]:
        a = ["--pipeline", str(self.pipeline)] if self.pipeline else []
        for i in self.inputs:
            a += ["--input", str(i)]
        return a


def scale_corpus(scale_root: Path, build: bool) -> Path | None:
    files = scale_root / "1e7" / "files"
    if files.is_dir():
        return files
    if not build:
        log(f"{files} is absent and SCALE_BUILD=0: the 1e7 corpus is left out")
        return None
    log(f"{files} is absent: building it (cargo bench --bench scale -- gen 1e7; compiles the generator once)")
    env = dict(os.environ, SCALE_ROOT=str(scale_root))
    r = subprocess.run(["cargo", "bench", "--bench", "scale", "--", "gen", "1e7"], cwd=ROOT, env=env)
    if r.returncode != 0 or not files.is_dir():
        log(f"building the 1e7 corpus failed (exit {r.returncode}); it is left out")
        return None
    return files


def accepts(kibo: Path, pipeline: Path) -> tuple[bool, str]:
    """Whether `kibo` loads `pipeline`: `kibo split` on an empty folder loads and validates
    the pipeline first and only then finds no games table, so that message means accepted."""
    with tempfile.TemporaryDirectory(prefix="kibo-bench-compare-probe-") as d:
        r = subprocess.run(
            [str(kibo), "split", "--pipeline", str(pipeline), "--out", d, "-q"],
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
    msg = r.stderr.strip()
    return ("games table" in msg and r.returncode == 2), msg


def dev_pipeline(ref_kibo: Path, new_kibo: Path, ref_wt: Path) -> tuple[Path | None, str]:
    mine = ROOT / "pipelines" / "dev.toml"
    theirs = ref_wt / "pipelines" / "dev.toml"
    errors = []
    for cand, label in ((mine, "the working tree's pipelines/dev.toml"), (theirs, "REF's pipelines/dev.toml")):
        if not cand.is_file():
            errors.append(f"{label}: absent")
            continue
        ok_ref, msg_ref = accepts(ref_kibo, cand)
        ok_new, msg_new = accepts(new_kibo, cand)
        if ok_ref and ok_new:
            return cand, label
        for ok, side, msg in ((ok_ref, "REF", msg_ref), (ok_new, "new", msg_new)):
            if not ok:
                errors.append(f"{label} refused by {side}: {msg}")
                log(f"{label} refused by {side}: {msg}")
    return None, "; ".join(errors)


# ---------------------------------------------------------------------------------------
# Timing
# ---------------------------------------------------------------------------------------


def timed(cmd: list[str], log_path: Path) -> dict:
    """Runs cmd (cwd: the repository root) and returns wall, cpu (user + sys), rss_mib, rc."""
    with open(log_path, "ab") as lf:
        if os.access(TIME, os.X_OK):
            tf = log_path.with_suffix(".time")
            r = subprocess.run([TIME, "-o", str(tf), "-f", "%e %U %S %M", *cmd], cwd=ROOT, stdout=lf, stderr=lf)
            last = tf.read_text().strip().splitlines()[-1].split()
            wall, user, sys_, rss = float(last[0]), float(last[1]), float(last[2]), int(last[3])
        else:
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t = time.monotonic()
            r = subprocess.run(cmd, cwd=ROOT, stdout=lf, stderr=lf)
            wall = time.monotonic() - t
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            user, sys_ = after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime
            rss = after.ru_maxrss  # KiB; the maximum over all children so far
    return {"wall": wall, "cpu": user + sys_, "rss_mib": rss / 1024, "rc": r.returncode}


def samples_digest(out: Path) -> str:
    h = hashlib.sha256()
    d = out / "samples"
    for f in sorted(p for p in d.rglob("*") if p.is_file()) if d.is_dir() else []:
        h.update(str(f.relative_to(d)).encode() + b"\0")
        with open(f, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
    return h.hexdigest()[:16]


def figures(out: Path) -> dict:
    def load(name: str) -> dict:
        try:
            return json.loads((out / name).read_text())
        except (OSError, ValueError):
            return {}

    rep, man = load("report.json"), load("manifest.json")
    kept = rep.get("filter", {}).get("total", {}).get("games_kept")
    samples = man.get("tables", {}).get("samples", {}).get("rows")
    return {"games_kept": kept, "samples": samples}


def one_run(kibo: Path, corpus: Corpus, threads: int, scratch: Path, logf: Path, digest: bool) -> dict:
    out = scratch / "out"
    shutil.rmtree(out, ignore_errors=True)
    res = {}
    common = ["--out", str(out), "--threads", str(threads), "-q"]
    for stage in STAGES:
        extra = corpus.args() if stage == "filter" else (["--pipeline", str(corpus.pipeline)] if corpus.pipeline else [])
        m = timed([str(kibo), stage, *extra, *common], logf)
        # exit 1 = finished, some inputs unreadable (reported as rejects): still a full run
        if m["rc"] not in (0, 1):
            raise RuntimeError(f"{kibo} {stage} on {corpus.name} exited {m['rc']} (log: {logf})")
        res[stage] = m
    res["total"] = {
        "wall": sum(res[s]["wall"] for s in STAGES),
        "cpu": sum(res[s]["cpu"] for s in STAGES),
        "rss_mib": max(res[s]["rss_mib"] for s in STAGES),
    }
    res.update(figures(out))
    if digest:
        res["samples_sha256"] = samples_digest(out)
    shutil.rmtree(out, ignore_errors=True)
    return res


def best(runs: list[dict], stage: str) -> dict:
    """Lowest wall, CPU and RSS over the rounds, each on its own (for the total: of the
    per-round sums filter + split, never a sum of separate bests)."""
    return {k: min(r[stage][k] for r in runs) for k in ("wall", "cpu", "rss_mib")}


def compare_corpus(corpus: Corpus, ref_kibo: Path, new_kibo: Path, rounds: int, threads: int, scratch: Path) -> dict:
    runs: dict[str, list[dict]] = {"ref": [], "new": []}
    logf = scratch / f"{corpus.name}.log"
    log(f"{corpus.name}: {corpus.what}; {rounds} rounds, REF and new alternating, --threads {threads} (log: {logf})")
    for i in range(rounds):
        for side, kibo in (("ref", ref_kibo), ("new", new_kibo)):
            t = time.monotonic()
            r = one_run(kibo, corpus, threads, scratch, logf, digest=(i == 0))
            runs[side].append(r)
            log(
                f"  round {i + 1} {side:3}: filter {r['filter']['wall']:.2f} s / {r['filter']['cpu']:.2f} CPU-s, "
                f"split {r['split']['wall']:.2f} s / {r['split']['cpu']:.2f} CPU-s "
                f"({time.monotonic() - t:.0f} s)"
            )
    rows = []
    for stage in (*STAGES, "total"):
        ref_b, new_b = best(runs["ref"], stage), best(runs["new"], stage)
        rows.append(
            {
                "corpus": corpus.name,
                "stage": stage if stage != "total" else "filter+split",
                "ref_wall": ref_b["wall"],
                "ref_cpu": ref_b["cpu"],
                "new_wall": new_b["wall"],
                "new_cpu": new_b["cpu"],
                "wall_ratio": new_b["wall"] / ref_b["wall"] if ref_b["wall"] else None,
                "cpu_ratio": new_b["cpu"] / ref_b["cpu"] if ref_b["cpu"] else None,
                "ref_rss_mib": ref_b["rss_mib"],
                "new_rss_mib": new_b["rss_mib"],
            }
        )
    per_round = [n["total"]["cpu"] / r["total"]["cpu"] for r, n in zip(runs["ref"], runs["new"]) if r["total"]["cpu"]]
    return {
        "corpus": corpus.name,
        "what": corpus.what,
        "rows": rows,
        "runs": runs,
        "round_cpu_ratios": per_round,
        "ref_figures": {k: runs["ref"][0].get(k) for k in ("games_kept", "samples", "samples_sha256")},
        "new_figures": {k: runs["new"][0].get(k) for k in ("games_kept", "samples", "samples_sha256")},
    }


# ---------------------------------------------------------------------------------------
# Output
# ---------------------------------------------------------------------------------------


def table(results: list[dict], ref_label: str, new_label_: str) -> str:
    head = (
        f"{'corpus':7} {'stage':13} {'REF wall s':>10} {'REF CPU s':>10} {'new wall s':>10} {'new CPU s':>10} "
        f"{'wall new/REF':>12} {'CPU new/REF':>11} {'RSS MiB REF/new':>16}"
    )
    lines = [f"REF = {ref_label}, new = {new_label_}", head]
    for res in results:
        for r in res["rows"]:
            lines.append(
                f"{r['corpus']:7} {r['stage']:13} {r['ref_wall']:10.2f} {r['ref_cpu']:10.2f} {r['new_wall']:10.2f} "
                f"{r['new_cpu']:10.2f} {r['wall_ratio']:12.3f} {r['cpu_ratio']:11.3f} "
                f"{r['ref_rss_mib']:7.0f}/{r['new_rss_mib']:<8.0f}"
            )
    return "\n".join(lines)


def markdown(results: list[dict], meta: dict) -> str:
    out = [
        f"# bench-compare: {meta['new']} against REF {meta['ref']}",
        "",
        f"Finished {meta['when']}; best of {meta['rounds']} alternating runs per side, `--threads {meta['threads']}`; "
        f"host load average before: {meta['load_before']}. Wall and CPU (user + sys) in seconds per process.",
        "",
        "| corpus | stage | REF wall | REF CPU | new wall | new CPU | wall new/REF | CPU new/REF |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for res in results:
        for r in res["rows"]:
            out.append(
                f"| {r['corpus']} | {r['stage']} | {r['ref_wall']:.2f} | {r['ref_cpu']:.2f} | {r['new_wall']:.2f} | "
                f"{r['new_cpu']:.2f} | {r['wall_ratio']:.3f} | {r['cpu_ratio']:.3f} |"
            )
    out.append("")
    for res in results:
        out.append(f"* {res['corpus']}: {res['what']}; {describe(res)}")
    out += ["", meta["verdict"], ""]
    return "\n".join(out)


def describe(res: dict) -> str:
    rf, nf = res["ref_figures"], res["new_figures"]
    same = "identical" if rf.get("samples_sha256") == nf.get("samples_sha256") else "different"
    rr = res["round_cpu_ratios"]
    return (
        f"games kept REF {rf.get('games_kept')} / new {nf.get('games_kept')}, samples REF {rf.get('samples')} / "
        f"new {nf.get('samples')}, samples shards {same}; per-round end-to-end CPU ratios "
        f"{min(rr):.3f}–{max(rr):.3f}"
    )


def verdict(results: list[dict], threads: int) -> str:
    parts = []
    for res in results:
        tot = res["rows"][-1]
        r = tot["cpu_ratio"]
        word = "slower" if r > 1 else "faster"
        rr = res["round_cpu_ratios"]
        # Rounds that disagree on the sign of the change: the difference is the host's noise.
        noise = "; within the noise: the rounds go both ways" if len(rr) > 1 and min(rr) <= 1 <= max(rr) else ""
        parts.append(f"{res['corpus']} {r:.3f} ({abs(r - 1) * 100:.1f}% {word}{noise})")
    return f"verdict: end-to-end CPU new/REF (filter+split, best of rounds, {threads} thread(s)): " + ", ".join(parts)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ref", required=True, help="reference commit (anything git rev-parse takes)")
    ap.add_argument("--new", required=True, type=Path, help="the working tree's kibo binary (make build)")
    ap.add_argument("--units", default="--bin kibo",
                    help="cargo's unit flags of the working tree's build (the Makefile's RELEASE_UNITS), used for REF")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--corpora", default="dev,1e7", help="comma-separated: dev, 1e7")
    ap.add_argument("--scale-root", type=Path, default=Path(os.environ.get("SCALE_ROOT") or "/tmp/kibo-scale"))
    ap.add_argument("--no-scale-build", action="store_true", help="leave the 1e7 corpus out when it is absent")
    ap.add_argument("--ref-root", type=Path, default=Path.home() / ".cache" / "kibo-ref")
    ap.add_argument("--outdir", type=Path, default=ROOT / "out" / "bench-compare")
    a = ap.parse_args()
    if a.rounds < 1:
        sys.exit("bench-compare: ROUNDS must be at least 1")
    new_kibo = a.new.resolve()
    if not new_kibo.is_file():
        sys.exit(f"bench-compare: {new_kibo} is absent (make build)")
    seed = Path(os.environ["CARGO_TARGET_DIR"]) if os.environ.get("CARGO_TARGET_DIR") else None
    sha, short, ref_wt, ref_kibo = build_ref(a.ref, a.ref_root, seed, a.units.split())
    ref_label = f"{short} ({git('log', '-1', '--format=%cs %s', sha)[:70]})"
    nl = f"working tree {new_label()}"

    corpora = []
    wanted = [c.strip() for c in a.corpora.split(",") if c.strip()]
    for c in wanted:
        if c == "dev":
            p, label = dev_pipeline(ref_kibo, new_kibo, ref_wt)
            if p is None:
                log(f"dev: no pipeline file both binaries accept ({label}); left out")
                continue
            log(f"dev: using {label} ({p})")
            corpora.append(Corpus("dev", p, [], f"dev corpus, {label}"))
        elif c == "1e7":
            files = scale_corpus(a.scale_root, not a.no_scale_build)
            if files is not None:
                corpora.append(Corpus("1e7", None, [files], f"{files} (bench-scale 10^7), built-in default pipeline"))
        else:
            log(f"unknown corpus {c!r} (dev, 1e7); left out")
    if not corpora:
        sys.exit("bench-compare: nothing to compare")

    load_before = " ".join(f"{x:.2f}" for x in os.getloadavg())
    log(f"threads: {a.threads} per run (THREADS=N to change; 1 gives stable per-core figures)")
    results = []
    with tempfile.TemporaryDirectory(prefix="kibo-bench-compare-") as scratch:
        for corpus in corpora:
            try:
                results.append(compare_corpus(corpus, ref_kibo, new_kibo, a.rounds, a.threads, Path(scratch)))
            except RuntimeError as e:
                log(f"{corpus.name}: {e}")
                try:
                    sys.stderr.write(Path(scratch, f"{corpus.name}.log").read_text()[-3000:])
                except OSError:
                    pass
                sys.exit(f"bench-compare: {corpus.name} failed")
    meta = {
        "ref": ref_label,
        "ref_sha": sha,
        "new": nl,
        "new_binary": str(new_kibo),
        "ref_binary": str(ref_kibo),
        "rounds": a.rounds,
        "threads": a.threads,
        "when": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "load_before": load_before,
        "load_after": " ".join(f"{x:.2f}" for x in os.getloadavg()),
        "timer": TIME if os.access(TIME, os.X_OK) else "getrusage(RUSAGE_CHILDREN)",
    }
    meta["verdict"] = verdict(results, a.threads)
    print()
    print(table(results, ref_label, nl))
    for res in results:
        print(f"  {res['corpus']}: {describe(res)}")
    print(meta["verdict"])
    a.outdir.mkdir(parents=True, exist_ok=True)
    (a.outdir / f"{short}.json").write_text(json.dumps({"meta": meta, "results": results}, indent=1) + "\n")
    (a.outdir / f"{short}.md").write_text(markdown(results, meta))
    log(f"written: {a.outdir / (short + '.md')}, {a.outdir / (short + '.json')}")


if __name__ == "__main__":
    main()
