#!/usr/bin/env bash
# End-to-end figures: filter and filter+split on the KGS archive (or $KGS), with one
# thread and with all threads. Prints; asserts nothing.
set -euo pipefail
KIBO=${KIBO:?set KIBO to the kibo binary}
KGS=${KGS:-../shared/data/dev/kgs-2001-archive}
if [ ! -e "$KGS" ]; then echo "bench: $KGS is absent; nothing to measure"; exit 0; fi
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
measure() { # label, args...
  local label=$1; shift
  python3 - "$label" "$@" <<'PY'
import resource, subprocess, sys, time, json, os
label, *cmd = sys.argv[1:]
t = time.time()
p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
wall = time.time() - t
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = ru.ru_utime + ru.ru_stime
out = cmd[cmd.index("--out") + 1]
rep = json.load(open(os.path.join(out, "report.json")))
f = rep["filter"]["total"]
line = f"{label}: wall {wall:.2f}s, cpu {cpu:.2f}s, peak RSS {ru.ru_maxrss/1024:.0f} MiB; filter {f['games_found']} games, {f['games_found']/wall:.0f} games/s, {f['bytes_read']/1e6/wall:.1f} MB/s (input bytes as stored)"
if "split" in rep:
    s = rep["split"]
    b = sum(x["bytes"] for x in s["shards"])
    line += f"; split {s['samples']} samples, {s['samples']/wall:.0f} samples/s end to end, {cpu/max(s['samples'],1)*1e6:.2f} CPU-s per million samples, {b/max(s['samples'],1):.1f} bytes/sample"
print(line)
if p.returncode not in (0, 1):
    print(p.stderr)
PY
}
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
measure "filter, 1 thread " "$KIBO" filter --input "$KGS" --out "$OUT/f1" --threads 1 -q
measure "filter, all threads" "$KIBO" filter --input "$KGS" --out "$OUT/fN" -q
measure "filter+split, 1 thread " "$KIBO" run --input "$KGS" --out "$OUT/r1" --threads 1 -q
measure "filter+split, all threads" "$KIBO" run --input "$KGS" --out "$OUT/rN" -q
