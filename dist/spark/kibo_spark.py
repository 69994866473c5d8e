#!/usr/bin/env python3
"""kibo on Apache Spark: the same dataset as `kibo run`, built past one machine.

The corpus is cut into parts (contiguous ranges of kibo's input walk, about equal in
bytes). Spark runs one task per part for each map step, each task one `kibo part …`
process, and does the two corpus-wide steps as its own shuffles:

  plan    (driver)  kibo part plan                 → WORK/plan.json
  filter  (map)     kibo part filter, per part     → WORK/part-K/ (games, rejects, game_ids)
  dups    (shuffle) first copy of each game id in (part, row) order → WORK/dups/part=K/
  keys    (map)     kibo part keys, per part       → WORK/part-K/keys (key, part, srow, mv)
  dedup   (shuffle) per key: first (part, srow), count, move distribution → WORK/kept/part=K/
  write   (map)     kibo part write, per part      → WORK/part-K/samples
  finish  (driver)  kibo part finish               → OUT (tables, report.json, manifest.json, README.md)
  label   (map)     kibo part label, per part      → OUT/.tmp-label-chunks/ (with --label LIMIT)
          (driver)  kibo label                     → OUT/labels/ (the chunks found, none read again)

Canonical order is (part, row): a part is a range of the walk, so this is the one
process's games-table order whatever task ran first. See docs/distributed.md.

  python dist/spark/kibo_spark.py --kibo target/release/kibo --pipeline P --out DIR
  spark-submit --master yarn --files kibo dist/spark/kibo_spark.py --kibo kibo ...
"""
import argparse
import json
import os
import re
import shutil
import signal
import shlex
import subprocess
import sys
import time
import urllib.request

STEPS = ("filter", "dups", "keys", "dedup", "write")
# The staging folder a step's kibo process writes first: the fault injection waits for
# it, so the kill lands mid-write.
STAGING = {"filter": ".tmp-games", "keys": ".tmp-keys", "write": ".tmp-samples"}


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kibo", required=True, help="the kibo binary (a path on every executor, or shipped with --files)")
    ap.add_argument("--input", action="append", default=[], help="input file or folder (repeatable)")
    ap.add_argument("--licence", help="licence (SPDX id) of the --input sources; without it: recorded as unknown")
    ap.add_argument("--pipeline", help="pipeline TOML file (the same file drives `kibo run`)")
    ap.add_argument("--out", required=True, help="output folder")
    ap.add_argument("--work", help="work folder shared by the tasks (default: OUT/.spark-work)")
    ap.add_argument("--master", default=None, help="Spark master (default: spark-submit's, else local[2])")
    ap.add_argument("--parts", type=int, default=0, help="parts of the corpus (default: 2 per core, at least 4)")
    ap.add_argument("--threads", type=int, default=1, help="threads per kibo process (spark.task.cpus)")
    ap.add_argument("--resume", action="store_true", help="keep the steps a failed run finished (WORK/done-*)")
    ap.add_argument("--keep-work", action="store_true", help="leave the work folder after success")
    ap.add_argument("--label", type=int, default=None, metavar="LIMIT",
                    help="then `kibo label --limit LIMIT` (0: every row), one `kibo part label` task per part, each "
                         "with its own KataGo engines (docs/labels.md)")
    ap.add_argument("--label-flags", default="", help="more flags of kibo label, e.g. \"--katago-threads 4 --policy\"")
    ap.add_argument("--fault", default=os.environ.get("KIBO_SPARK_FAULT"),
                    help="testing: STEP:PART — SIGKILL that part's kibo process on its first attempt")
    return ap.parse_args(argv)


def kibo_argv(a, step, work, part=None, extra=()):
    argv = [a["kibo"], "part", step, "--work", work, "--out", a["out"], "--threads", str(a["threads"]), "-q"]
    if a["pipeline"]:
        argv += ["--pipeline", a["pipeline"]]
    for i in a["input"]:
        argv += ["--input", i]
    if a["licence"]:
        argv += ["--licence", a["licence"]]
    if part is not None:
        argv += ["--part", str(part)]
    return argv + list(extra)


def run_kibo(argv, kill_when=None, echo_stderr=False):
    """Runs one kibo process; returns (exit code, CPU seconds, stdout). Exit 1 (some
    inputs unreadable, each a rejects row) is success. With `kill_when` (a path), the
    process is sent SIGKILL as soon as that path exists: a task dying mid-run. With
    `echo_stderr`, its stderr (kibo's warnings) is passed on to ours."""
    import resource
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if kill_when:
        deadline = time.time() + 60
        while p.poll() is None and not os.path.exists(kill_when) and time.time() < deadline:
            time.sleep(0.005)
        if p.poll() is None:
            os.kill(p.pid, signal.SIGKILL)
    out, err = p.communicate()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if p.returncode not in (0, 1):
        how = f"killed by signal {-p.returncode}" if p.returncode < 0 else f"exit {p.returncode}"
        part = argv[argv.index("--part") + 1] if "--part" in argv else "-"
        raise RuntimeError(f"kibo part {argv[2]} (part {part}): {how}\n{err.decode(errors='replace')[-3000:]}")
    if echo_stderr:
        sys.stderr.write(err.decode(errors="replace"))
    return p.returncode, cpu, out.decode()


def label_argv(a, args, part=None, parts=None):
    """`kibo label` (or with `part`, `kibo part label`) of the job's output folder."""
    argv = [a["kibo"]] + (["part", "label", "--part", str(part), "--parts", str(parts)] if part is not None else ["label"])
    argv += ["--out", a["out"], "--limit", str(args.label), "-q"]
    if a["pipeline"]:
        argv += ["--pipeline", a["pipeline"]]
    return argv + shlex.split(args.label_flags)


def label_task(a, args, parts):
    """The function of the label step's tasks: element = part number."""
    def task(part):
        from pyspark import SparkFiles
        b = dict(a)
        if not os.path.exists(b["kibo"]):
            b["kibo"] = SparkFiles.get(os.path.basename(b["kibo"]))
        t0 = time.time()
        rc, cpu, _ = run_kibo(label_argv(b, args, part, parts))
        return {"part": part, "rc": rc, "cpu_s": cpu, "wall_s": time.time() - t0}
    return task


def part_task(a, step, work, extra_of):
    """The function of one map step's tasks: element = part number."""
    def task(part):
        from pyspark import SparkFiles, TaskContext
        b = dict(a)
        if not os.path.exists(b["kibo"]):
            b["kibo"] = SparkFiles.get(os.path.basename(b["kibo"]))
        kill = None
        ctx = TaskContext.get()
        if a["fault"] == f"{step}:{part}" and ctx is not None and ctx.attemptNumber() == 0:
            kill = os.path.join(work, f"part-{part:05d}", STAGING[step])
        t0 = time.time()
        rc, cpu, _ = run_kibo(kibo_argv(b, step, work, part, extra_of(part)), kill)
        return {"part": part, "rc": rc, "cpu_s": cpu, "wall_s": time.time() - t0}
    return task


class MetricsUnavailable(Exception):
    """Spark's status API did not answer: the job stands, its step metrics are left out."""


class Metrics:
    """Tasks, attempts and shuffle bytes of each step, from Spark's own status API
    (the UI's REST endpoint on the driver), by job group."""

    def __init__(self, sc):
        self.sc = sc

    def _get(self, path):
        # The driver answers slowly on a loaded host (a 10 s timeout failed whole jobs at
        # a load of 8 on 2 cores): a generous timeout, tried three times.
        url = f"{self.sc.uiWebUrl}/api/v1/applications/{self.sc.applicationId}/{path}"
        for attempt in range(3):
            try:
                with urllib.request.urlopen(url, timeout=60) as r:
                    return json.load(r)
            except OSError as e:  # URLError and TimeoutError included
                if attempt == 2:
                    raise MetricsUnavailable(f"{url}: {e}") from e
                time.sleep(1 + attempt)

    def collect(self, groups):
        if not self.sc.uiWebUrl:
            return None
        for _ in range(50):  # the listener may lag behind the last job by a moment
            jobs = self._get("jobs")
            if all(j["status"] != "RUNNING" for j in jobs):
                break
            time.sleep(0.2)
        stages = {}
        for s in self._get("stages?details=false"):
            stages.setdefault(s["stageId"], []).append(s)
        out = {}
        for g in groups:
            m = {"jobs": 0, "stages": 0, "tasks": 0, "task_attempts": 0, "failed_attempts": 0,
                 "shuffle_write_bytes": 0, "shuffle_write_records": 0, "shuffle_read_bytes": 0}
            for j in jobs:
                if j.get("jobGroup") != g:
                    continue
                m["jobs"] += 1
                for sid in j["stageIds"]:
                    attempts = [s for s in stages.get(sid, []) if s["status"] != "SKIPPED"]
                    if not attempts:
                        continue
                    m["stages"] += 1
                    m["tasks"] += max(s["numTasks"] for s in attempts)
                    for s in attempts:
                        m["task_attempts"] += s["numCompleteTasks"] + s["numFailedTasks"] + s.get("numKilledTasks", 0)
                        m["failed_attempts"] += s["numFailedTasks"]
                        m["shuffle_write_bytes"] += s["shuffleWriteBytes"]
                        m["shuffle_write_records"] += s["shuffleWriteRecords"]
                        m["shuffle_read_bytes"] += s["shuffleReadBytes"]
            out[g] = m
        return out


def tree_cpu_seconds(root):
    """CPU seconds (user + system) of process `root` and every descendant alive now,
    with the children each has reaped (Linux /proc): the JVM, its Python workers and,
    through them, the kibo processes. None where /proc cannot be read."""
    tick = os.sysconf("SC_CLK_TCK")
    procs = {}
    try:
        for d in os.listdir("/proc"):
            if not d.isdigit():
                continue
            try:
                with open(f"/proc/{d}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            # After the name: state ppid ... utime(14) stime(15) cutime(16) cstime(17).
            procs[int(d)] = (int(fields[1]), sum(int(x) for x in fields[11:15]))
    except OSError:
        return None
    if root not in procs:
        return None
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        total += procs[pid][1]
        todo += [c for c, (ppid, _) in procs.items() if ppid == pid]
    return total / tick


def with_retries(master):
    """local[N] runs each task once; give it the cluster default of 4 attempts per task
    (spark.task.maxFailures), so a task that dies is retried as on a cluster."""
    m = re.fullmatch(r"local\[(\d+|\*)\]", master or "")
    return f"local[{m.group(1)},4]" if m else master


def main(argv=None):
    args = parse_args(argv)
    out = os.path.abspath(args.out)
    work = os.path.abspath(args.work or os.path.join(out, ".spark-work"))
    a = {"kibo": os.path.abspath(args.kibo) if os.path.exists(args.kibo) else args.kibo,
         "input": [os.path.abspath(i) if os.path.exists(i) else i for i in args.input],
         "pipeline": os.path.abspath(args.pipeline) if args.pipeline else None,
         "licence": args.licence, "out": out, "threads": args.threads, "fault": args.fault}
    if os.path.isdir(work) and not args.resume:
        shutil.rmtree(work)
    os.makedirs(work, exist_ok=True)
    t_start = time.time()

    from pyspark.sql import SparkSession, Window, functions as F
    from pyspark import SparkConf, SparkFiles
    builder = SparkSession.builder.appName("kibo")
    master = args.master or os.environ.get("SPARK_MASTER")
    if not master and not SparkConf().contains("spark.master"):  # not under spark-submit
        master = "local[2]"
    if master:
        builder = builder.master(with_retries(master))
    if (master or "").startswith("local"):
        # Local mode: few shuffle partitions (the default 200 is for clusters). On a
        # cluster, spark-submit's --conf settings are left as they are.
        builder = builder.config("spark.sql.shuffle.partitions", "8")
    spark = (builder.config("spark.task.cpus", str(args.threads))
             .config("spark.ui.showConsoleProgress", "false")
             # kibo reads Spark's outputs (dups, kept); it reads zstd, not snappy.
             .config("spark.sql.parquet.compression.codec", "zstd")
             .getOrCreate())
    sc = spark.sparkContext
    sc.setLogLevel("ERROR")
    if not os.path.exists(a["kibo"]):  # shipped with --files: the driver's copy
        a["kibo"] = SparkFiles.get(os.path.basename(a["kibo"])) if os.path.exists(
            SparkFiles.get(os.path.basename(a["kibo"]))) else a["kibo"]

    def done(step):
        return os.path.join(work, f"done-{step}")

    timings = {}
    cpu = {}

    def step(name, fn):
        if args.resume and os.path.exists(done(name)):
            print(f"kibo-spark: {name}: done in an earlier run, skipped (--resume)", file=sys.stderr)
            return
        sc.setJobGroup(name, f"kibo {name}")
        t0 = time.time()
        res = fn()
        timings[name] = time.time() - t0
        if res:
            cpu[name] = sum(r["cpu_s"] for r in res)
        open(done(name), "w").close()
        print(f"kibo-spark: {name}: {timings[name]:.1f}s", file=sys.stderr)

    # plan (driver)
    cores = sc.defaultParallelism
    parts = args.parts or max(4, 2 * cores)
    if not (args.resume and os.path.exists(os.path.join(work, "plan.json"))):
        # The plan checks the inputs: its warnings (a source without a licence) are shown.
        _, _, text = run_kibo(kibo_argv(a, "plan", work, extra=["--parts", str(parts)]), echo_stderr=True)
    with open(os.path.join(work, "plan.json")) as f:
        plan = json.load(f)
    ks = [p["part"] for p in plan["parts"]]

    def map_step(name, extra_of=lambda k: []):
        return lambda: sc.parallelize(ks, len(ks)).map(part_task(a, name, work, extra_of)).collect()

    dedup_on = dedup_mode(a["pipeline"]) != "off"
    dups_of = lambda k: ["--dups", os.path.join(work, "dups", f"part={k}")]

    def dups():
        ids = spark.read.parquet(os.path.join(work, "part-*", "game_ids"))
        w = Window.partitionBy("game_id").orderBy("part", "row")
        d = (ids.withColumn("n", F.row_number().over(w)).withColumn("first", F.first("location").over(w))
             .filter("n > 1").select("part", F.col("row").cast("long"), "first"))
        d.repartition("part").write.mode("overwrite").partitionBy("part").parquet(os.path.join(work, "dups"))

    def dedup():
        keys = spark.read.parquet(os.path.join(work, "part-*", "keys"))
        per_move = keys.groupBy("key", "mv").agg(F.count(F.lit(1)).alias("c"), F.min(F.struct("part", "srow")).alias("first"))
        kept = per_move.groupBy("key").agg(F.min("first").alias("first"), F.sum("c").alias("count"),
                                           F.sort_array(F.collect_list(F.struct("mv", "c"))).alias("dist"))
        kept = kept.select(F.col("first.part").alias("part"), F.col("first.srow").cast("long").alias("srow"), "key",
                           F.col("count").cast("long"), F.col("dist.mv").cast("array<int>").alias("dist_moves"),
                           F.col("dist.c").cast("array<long>").alias("dist_counts"))
        kept.repartition("part").write.mode("overwrite").partitionBy("part").parquet(os.path.join(work, "kept"))

    step("filter", map_step("filter"))
    step("dups", dups)
    if dedup_on:
        step("keys", map_step("keys", dups_of))
        step("dedup", dedup)
    step("write", map_step("write", lambda k: dups_of(k) + ["--kept", os.path.join(work, "kept", f"part={k}")]))

    try:
        metrics = Metrics(sc).collect([s for s in STEPS if s in timings]) if timings else None
    except MetricsUnavailable as e:
        print(f"kibo-spark: warning: Spark's status API did not answer ({e}); "
              "the step metrics are left out of the figures", file=sys.stderr)
        metrics = None
    figures = {
        "master": sc.master, "spark_version": spark.version, "parts": len(ks), "default_parallelism": cores,
        "steps": {s: dict((metrics or {}).get(s, {}), seconds=round(timings[s], 3),
                          **({"kibo_cpu_s": round(cpu[s], 3)} if s in cpu else {})) for s in timings},
    }
    jvm = getattr(getattr(sc, "_gateway", None), "proc", None)
    jvm_cpu = tree_cpu_seconds(jvm.pid) if jvm is not None else None
    if jvm_cpu is not None:
        import resource
        me = resource.getrusage(resource.RUSAGE_SELF)
        figures["cpu_s_local"] = round(jvm_cpu + me.ru_utime + me.ru_stime, 2)
    if metrics:
        figures["map_tasks"] = sum(metrics[s]["tasks"] for s in ("filter", "keys", "write") if s in metrics)
        figures["shuffle_write_bytes"] = sum(m["shuffle_write_bytes"] for m in metrics.values())
    spark_json = os.path.join(work, "spark.json")
    with open(spark_json, "w") as f:
        json.dump(figures, f, indent=1)
    t0 = time.time()
    run_kibo(kibo_argv(a, "finish", work, extra=["--spark", spark_json]))
    if args.label is not None:
        # Each part labels its chunks into OUT/.tmp-label-chunks/; `kibo label` then finds
        # them all (the engine is not started) and installs OUT/labels/.
        step("label", lambda: sc.parallelize(ks, len(ks)).map(label_task(a, args, len(ks))).collect())
        run_kibo(label_argv(a, args))
    spark.stop()
    wall = time.time() - t_start
    finish_s = time.time() - t0
    with open(os.path.join(out, "report.json")) as f:
        samples = json.load(f)["split"]["samples"]
    cpu_all = figures.get("cpu_s_local")
    cpu_text = f", {cpu_all:.1f} CPU-s on this machine ({cpu_all / max(samples, 1) * 1e6:.2f} CPU-s per million samples)" if cpu_all else ""
    print(f"kibo-spark: {samples} samples in {wall:.1f}s wall ({samples / max(wall, 1e-9):.0f} samples/s){cpu_text}, "
          f"{len(ks)} parts, master {figures['master']}; finish {finish_s:.1f}s", file=sys.stderr)
    for s, m in figures["steps"].items():
        print(f"kibo-spark:   {s:7} {m['seconds']:7.1f}s  tasks {m.get('tasks', '?'):>3}  attempts "
              f"{m.get('task_attempts', '?'):>3}  shuffle {m.get('shuffle_write_bytes', 0) / 1e6:8.1f} MB", file=sys.stderr)
    if not args.keep_work:
        shutil.rmtree(work, ignore_errors=True)
    return 0


def dedup_mode(pipeline):
    """`split.dedup` of the pipeline file (default exact)."""
    if not pipeline:
        return "exact"
    import tomllib
    with open(pipeline, "rb") as f:
        return tomllib.load(f).get("split", {}).get("dedup", "exact")


if __name__ == "__main__":
    sys.exit(main())
