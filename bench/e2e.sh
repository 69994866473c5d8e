#!/usr/bin/env bash
# End-to-end figures on the KGS archive (or $KGS): kibo filter and filter+split with one
# thread and with all threads, then the Python peer (bench/peer) on the same input, and
# the ratio per core (best of REPEAT runs of each, default 3). Prints; asserts nothing.
set -euo pipefail
KIBO=${KIBO:?set KIBO to the kibo binary}
KGS=${KGS:-../shared/data/dev/kgs-2001-archive}
PY=${PY:-.venv/bin/python}
if [ ! -e "$KGS" ]; then echo "bench: $KGS is absent; nothing to measure"; exit 0; fi
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
measure() { # label, out-name, args...
  local label=$1 name=$2; shift 2
  python3 - "$label" "$OUT/$name.timing.json" "$@" <<'PY'
import resource, subprocess, sys, time, json, os
label, timing, *cmd = sys.argv[1:]
t = time.time()
p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
wall = time.time() - t
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = ru.ru_utime + ru.ru_stime
json.dump({"wall": wall, "cpu": cpu, "rss_mib": ru.ru_maxrss / 1024}, open(timing, "w"))
if p.returncode not in (0, 1):
    print(p.stdout, p.stderr)
    sys.exit(1)
out = cmd[cmd.index("--out") + 1]
rp = os.path.join(out, "report.json")
if not os.path.exists(rp):
    print(f"{label}: wall {wall:.2f}s, cpu {cpu:.2f}s, peak RSS {ru.ru_maxrss/1024:.0f} MiB")
    sys.exit(0)
rep = json.load(open(rp))
f = rep["filter"]["total"]
line = (f"{label}: wall {wall:.2f}s, cpu {cpu:.2f}s, peak RSS {ru.ru_maxrss/1024:.0f} MiB; "
        f"filter {f['games_found']} games, {f['games_found']/wall:.0f} games/s, "
        f"{f['bytes_read']/1e6/wall:.1f} MB/s of input as stored")
if "split" in rep:
    s = rep["split"]
    b = sum(x["bytes"] for x in s["shards"])
    n = max(s["samples"], 1)
    line += (f"; split {s['samples_before_dedup']} samples, {s['samples']} after dedup: "
             f"{s['samples']/wall:.0f} samples/s end to end, {cpu/n*1e6:.2f} CPU-s per million samples, "
             f"{b/n:.1f} bytes/sample")
print(line)
PY
}
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
measure "kibo filter, 1 thread        " f1 "$KIBO" filter --input "$KGS" --out "$OUT/f1" --threads 1 -q
measure "kibo filter, all threads     " fN "$KIBO" filter --input "$KGS" --out "$OUT/fN" -q
measure "kibo filter+split, 1 thread  " r1 "$KIBO" run --input "$KGS" --out "$OUT/r1" --threads 1 -q
measure "kibo filter+split, all threads" rN "$KIBO" run --input "$KGS" --out "$OUT/rN" -q
python3 - "$OUT" <<'PY'
import json, os, sys
o = sys.argv[1]
a = json.load(open(os.path.join(o, "r1.timing.json"))); b = json.load(open(os.path.join(o, "rN.timing.json")))
print(f"thread scaling ({os.cpu_count()} cores): all threads {a['wall'] / b['wall']:.2f}x faster than 1 thread (wall {a['wall']:.2f}s -> {b['wall']:.2f}s)")
PY
# Memory against corpus size: the same archive plus a mirrored copy of every game (new
# games, new positions: twice the samples), dedup index capped at 8 MB so that it spills.
python3 - "$KGS" "$OUT/mirror" <<'PY'
import os, re, sys, tarfile
src, dst = sys.argv[1:]
os.makedirs(dst, exist_ok=True)
flip = bytes.maketrans(b"abcdefghijklmnopqrs", b"srqponmlkjihgfedcba")
paths = [src] if os.path.isfile(src) else [os.path.join(r, f) for r, _, fs in os.walk(src) for f in fs]
n = 0
for p in paths:
    if not p.endswith((".tar.gz", ".tgz")):
        continue
    with tarfile.open(p) as t:
        for m in t:
            if m.isfile() and m.name.endswith(".sgf"):
                data = t.extractfile(m).read()
                data = re.sub(rb"\[([a-s][a-s])\]", lambda x: b"[" + x.group(1).translate(flip) + b"]", data)
                n += 1
                open(os.path.join(dst, f"m{n:06d}.sgf"), "wb").write(data)
PY
printf '[split]\ndedup_memory_mb = 8\n' > "$OUT/spill.toml"
measure "kibo filter+split, dedup spilled, archive       " m1 "$KIBO" run --input "$KGS" --out "$OUT/m1" -q --pipeline "$OUT/spill.toml"
measure "kibo filter+split, dedup spilled, archive+mirror" m2 "$KIBO" run --input "$KGS" --input "$OUT/mirror" --out "$OUT/m2" -q --pipeline "$OUT/spill.toml"
printf '[split]\ntags = false\n' > "$OUT/notags.toml"
measure "kibo filter+split, 1 thread, no tags" r1n "$KIBO" run --input "$KGS" --out "$OUT/r1n" --threads 1 -q --pipeline "$OUT/notags.toml"
python3 - "$OUT" <<'PY'
import json, os, sys
o = sys.argv[1]
a = json.load(open(os.path.join(o, "r1.timing.json"))); b = json.load(open(os.path.join(o, "r1n.timing.json")))
print(f"tags: end-to-end slowdown {a['cpu'] / b['cpu']:.2f}x CPU ({a['cpu']:.2f}s with tags, {b['cpu']:.2f}s without)")
PY
if [ -x "$PY" ]; then
  measure "python peer (sgfmill+pyarrow)" peer "$PY" bench/peer/peer.py --input "$KGS" --out "$OUT/peer"
  # The host is shared: take the best (least disturbed) of REPEAT runs of each side,
  # run alternately, for the ratio.
  for i in $(seq 2 "${REPEAT:-3}"); do
    measure "kibo filter+split, 1 thread, run $i" "r1_$i" "$KIBO" run --input "$KGS" --out "$OUT/r1_$i" --threads 1 -q
    measure "python peer, run $i" "peer_$i" "$PY" bench/peer/peer.py --input "$KGS" --out "$OUT/peer_$i"
  done
  python3 - "$OUT" <<'PY'
import glob, json, os, sys
out = sys.argv[1]
peer = json.load(open(os.path.join(out, "peer", "peer_report.json")))
k = json.load(open(os.path.join(out, "r1", "report.json")))["split"]
def best(name):  # least CPU among name.timing.json and name_<i>.timing.json
    paths = glob.glob(os.path.join(out, f"{name}.timing.json")) + glob.glob(os.path.join(out, f"{name}_*.timing.json"))
    return min(json.load(open(p))["cpu"] for p in paths), len(paths)
(kc, n), (pc, _) = best("r1"), best("peer")
ks, ps = k["samples"] / kc, peer["samples"] / pc
print(f"per core, best of {n} runs each (samples after dedup per CPU-second): kibo {ks:.0f} ({kc:.2f} CPU-s), "
      f"peer {ps:.0f} ({pc:.2f} CPU-s), ratio {ks / max(ps, 1e-9):.1f}x")
PY
else
  echo "bench: $PY missing (make venv); peer not run"
fi
