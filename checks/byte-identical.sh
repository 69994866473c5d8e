#!/usr/bin/env bash
# Proves that two kibo binaries (typically before and after a refactor) write
# byte-identical `samples` shards, in six modes: five pipelines on the dev corpus
# (../shared/data/dev) and one on the edge corpus (../shared/data/edge), all in
# checks/modes/*.toml:
#
#   exact          default split settings (dedup = "exact")
#   symmetry       dedup = "symmetry"
#   off-influence  dedup = "off", influence = true
#   notags-quota   tags = false, max_samples_per_game = 20
#   bias-spilled   tactical_bias = true, max_samples_per_game = 30, dedup_memory_mb = 1
#                  (the dedup index spills to disk; a warning is printed if it did not)
#   edge           the edge corpus, min_moves = 1
#   labels         the embedded sample (pipelines/default.toml), then what is derived
#                  from it: `kibo label` of every row (--policy --ownership) by `make
#                  katago`'s engine with the tiny net of tests/python/tiny_katago_net.py,
#                  `kibo export vlm` of train,val (--answer engine, a judge share) and of
#                  test, and `kibo eval` of the test set with predictions made from its
#                  answers (true, wrong and missing, by row); compared by
#                  checks/compare-derived.py (labels, both exports, report and page)
#                  besides the samples. Needs KataGo (KATAGO_HOME, default
#                  ~/.cache/kibo-katago: `make katago`).
#
# Usage (from anywhere; the runs happen in the repository root, where the pipelines'
# relative paths point):
#
#   checks/byte-identical.sh KIBO_A KIBO_B [WORKDIR]
#       runs both binaries in every mode (WORKDIR/a/MODE, WORKDIR/b/MODE), one run at a
#       time, and compares each pair with checks/compare-outputs.py.
#   checks/byte-identical.sh --make-reference DIR KIBO
#       runs KIBO once in every mode into DIR/MODE (a reference for later checks).
#   checks/byte-identical.sh --reference DIR KIBO_B [WORKDIR]
#       runs only KIBO_B (into WORKDIR/b/MODE) and compares against DIR/MODE.
#
# Options (before the positional arguments):
#   --modes "exact edge"   only these modes (also MODES=... in the environment)
#   --threads N            worker threads per run (default 2)
#   --strict-rejects       a difference in the rejects table fails the mode as well
#
# WORKDIR defaults to a new /tmp/kibo-bi.XXXXXX, kept afterwards. Existing output
# folders of the runs are removed before each run. Each run's exit status and timing
# go to SIDE/MODE.run next to its output folder. kibo's exit status 1 (finished, some
# inputs unreadable) counts as a finished run; both sides must exit alike.
# Exit status: 0 when every mode is identical (or identical apart from the
# kibo.schema_version metadata entry), 1 when any differs or a run fails, 2 on usage.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ALL_MODES="exact symmetry off-influence notags-quota bias-spilled edge labels"
MODES=${MODES:-$ALL_MODES}
THREADS=2
STRICT=()
REFERENCE=""
MAKE_REF=""

usage() { sed -n '2,/^set -uo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
  case $1 in
    --modes) MODES=$2; shift 2 ;;
    --threads) THREADS=$2; shift 2 ;;
    --strict-rejects) STRICT=(--strict-rejects); shift ;;
    --reference) REFERENCE=$2; shift 2 ;;
    --make-reference) MAKE_REF=$2; shift 2 ;;
    -h|--help) usage ;;
    --*) echo "byte-identical.sh: unknown option $1" >&2; usage ;;
    *) break ;;
  esac
done

abs() { # absolute path of $1 (need not exist yet)
  case $1 in /*) printf '%s\n' "$1" ;; *) printf '%s/%s\n' "$PWD" "$1" ;; esac
}
need_bin() {
  if [ ! -x "$1" ]; then echo "byte-identical.sh: $1 is not an executable" >&2; exit 2; fi
}

if [ -n "$MAKE_REF" ]; then
  [ $# -eq 1 ] || usage
  KIBO_A=""; KIBO_B=$(abs "$1"); need_bin "$KIBO_B"; WORK=$(abs "$MAKE_REF")
elif [ -n "$REFERENCE" ]; then
  [ $# -ge 1 ] && [ $# -le 2 ] || usage
  KIBO_A=""; KIBO_B=$(abs "$1"); need_bin "$KIBO_B"; REFERENCE=$(abs "$REFERENCE")
  [ -d "$REFERENCE" ] || { echo "byte-identical.sh: no reference folder $REFERENCE" >&2; exit 2; }
  WORK=$(abs "${2:-$(mktemp -d /tmp/kibo-bi.XXXXXX)}")
else
  [ $# -ge 2 ] && [ $# -le 3 ] || usage
  KIBO_A=$(abs "$1"); KIBO_B=$(abs "$2"); need_bin "$KIBO_A"; need_bin "$KIBO_B"
  WORK=$(abs "${3:-$(mktemp -d /tmp/kibo-bi.XXXXXX)}")
fi
for m in $MODES; do
  [ "$m" = labels ] || [ -f "$ROOT/checks/modes/$m.toml" ] || { echo "byte-identical.sh: no checks/modes/$m.toml" >&2; exit 2; }
done
KATAGO_HOME=${KATAGO_HOME:-$HOME/.cache/kibo-katago}
KATAGO_FLAGS=(--katago-binary "$KATAGO_HOME/katago-6a1fc5d/cpp/katago"
  --katago-model "" --katago-config "$KATAGO_HOME/katrain/katrain/KataGo/analysis_config.cfg")
if [[ " $MODES " == *" labels "* ]] && [ ! -x "${KATAGO_FLAGS[1]}" ]; then
  echo "byte-identical.sh: mode labels needs KataGo at ${KATAGO_FLAGS[1]} (make katago, or set KATAGO_HOME)" >&2; exit 2
fi

PY=${PY:-$ROOT/.venv/bin/python}
if [ -z "$MAKE_REF" ] && ! "$PY" -c 'import pyarrow' 2>/dev/null; then
  echo "byte-identical.sh: $PY cannot import pyarrow (run make venv, or set PY)" >&2; exit 2
fi
cd "$ROOT" || exit 2

# derive KIBO OUT: mode labels' steps after the run (labels, two VLM exports, eval);
# returns the first failing step's exit status.
derive() {
  local kibo=$1 out=$2 net
  net=$(dirname "$out")/tiny-net.bin.gz
  [ -f "$net" ] || "$PY" "$ROOT/tests/python/tiny_katago_net.py" "$net" >/dev/null || return 2
  local flags=("${KATAGO_FLAGS[@]}"); flags[3]=$net
  "$kibo" label --out "$out" --limit 0 --splits train,val,test --policy --ownership --threads "$THREADS" -q "${flags[@]}" || return $?
  "$kibo" export vlm --out "$out" --to "$out/vlm-train" --limit 0 --answer engine --symmetries 8 \
    --mix next-move=0.5,transcribe=0.1,tactics=0.2,judge=0.2 -q || return $?
  "$kibo" export vlm --out "$out" --to "$out/vlm-test" --split test --limit 0 --symmetries 8 \
    --mix next-move=0.4,transcribe=0.2,tactics=0.2,judge=0.2 -q || return $?
  # Predictions from the set's own answers: true, wrong or missing, by row.
  "$PY" - "$out/vlm-test/test" "$out/preds.jsonl" <<'PY' || return 2
import json, sys, pyarrow.parquet as pq
rows = pq.read_table(sys.argv[1], columns=["id", "answer"]).to_pylist()
with open(sys.argv[2], "w") as f:
    for k, r in enumerate(rows):
        if k % 4 == 3:
            continue
        f.write(json.dumps({"id": r["id"], "answer": r["answer"] if k % 4 < 2 else "I would play Q16."}) + "\n")
PY
  "$kibo" eval --set "$out/vlm-test" --predictions "$out/preds.jsonl" --report "$out/eval.json" --html "$out/eval.html" >/dev/null
}

# run KIBO MODE OUTDIR: one pipeline run; writes OUTDIR.run; prints one line.
run() {
  local kibo=$1 mode=$2 out=$3 t0 t1 rc wall cpu rss samples spilled bytes u s m pipeline
  rm -rf "$out" "$out.run" "$out.log" "$out.time" "$out.compare"
  mkdir -p "$(dirname "$out")"
  pipeline=checks/modes/$mode.toml
  [ "$mode" = labels ] && pipeline=pipelines/default.toml
  t0=$(date +%s.%N)
  if [ -x /usr/bin/time ]; then
    /usr/bin/time -f '%U %S %M' -o "$out.time" \
      "$kibo" run --pipeline "$pipeline" --out "$out" --threads "$THREADS" -q >"$out.log" 2>&1
    rc=$?
  else
    "$kibo" run --pipeline "$pipeline" --out "$out" --threads "$THREADS" -q >"$out.log" 2>&1
    rc=$?
  fi
  if [ "$mode" = labels ] && [ "$rc" -lt 2 ]; then
    derive "$kibo" "$out" >>"$out.log" 2>&1; d=$?
    [ "$d" -eq 0 ] || rc=$((d < 2 ? 3 : d))
  fi
  t1=$(date +%s.%N)
  wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
  cpu="?"; rss="?"
  if [ -s "$out.time" ]; then
    read -r u s m < <(tail -n 1 "$out.time")
    cpu=$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }'); rss=$((m / 1024))
  fi
  read -r samples spilled < <("$PY" -c '
import json, sys
s = json.load(open(sys.argv[1]))["split"]
d = s.get("dedup")
print(s["samples"], "off" if d is None else ("spilled" if d.get("spilled") else "in-memory"))' "$out/report.json" 2>/dev/null || echo "? ?")
  bytes=$(du -sb "$out/samples" 2>/dev/null | cut -f1); bytes=${bytes:-?}
  printf 'rc=%s wall=%s cpu=%s rss_mib=%s samples=%s samples_bytes=%s dedup=%s kibo=%s\n' \
    "$rc" "$wall" "$cpu" "$rss" "$samples" "$bytes" "$spilled" "$kibo" > "$out.run"
  printf '  run %-13s %-40s exit %s, wall %6ss, cpu %6ss, peak RSS %4s MiB, %s samples, %s bytes of samples, dedup %s\n' \
    "$mode" "$out" "$rc" "$wall" "$cpu" "$rss" "$samples" "$bytes" "$spilled"
  if [ "$mode" = bias-spilled ] && [ "$rc" -lt 2 ] && [ "$spilled" != spilled ]; then
    echo "  WARNING: bias-spilled ran with the dedup index $spilled: the spill path is not exercised"
  fi
  if [ "$rc" -ge 2 ]; then
    echo "  run FAILED (exit $rc); last lines of $out.log:"; tail -n 20 "$out.log" | sed 's/^/    /'
  fi
  return 0
}
rc_of() { sed -n 's/^rc=\([0-9]*\).*/\1/p' "$1.run" 2>/dev/null; }

echo "byte-identical: $(nproc) cores, --threads $THREADS, modes: $MODES"
if [ -n "$MAKE_REF" ]; then
  echo "reference: $KIBO_B -> $WORK/<mode>"
  status=0
  for m in $MODES; do
    run "$KIBO_B" "$m" "$WORK/$m"
    r=$(rc_of "$WORK/$m"); [ "${r:-9}" -lt 2 ] || status=1
  done
  echo "reference $([ $status -eq 0 ] && echo done || echo 'FAILED (see above)'): $WORK"
  exit $status
fi

if [ -n "$REFERENCE" ]; then
  echo "A: reference outputs in $REFERENCE/<mode>"
else
  echo "A: $KIBO_A"
fi
echo "B: $KIBO_B"
echo "work folder: $WORK"
declare -A RESULT
status=0
for m in $MODES; do
  echo "== $m"
  if [ -n "$REFERENCE" ]; then
    A_OUT=$REFERENCE/$m
    if [ -f "$A_OUT.run" ]; then echo "  ref $m: $(cat "$A_OUT.run")"; fi
  else
    A_OUT=$WORK/a/$m
    run "$KIBO_A" "$m" "$A_OUT"
  fi
  B_OUT=$WORK/b/$m
  run "$KIBO_B" "$m" "$B_OUT"
  ra=$(rc_of "$A_OUT"); rb=$(rc_of "$B_OUT")
  why=""
  if [ "${ra:-0}" -ge 2 ] || [ "${rb:-9}" -ge 2 ]; then
    why="a run failed"
  elif [ -n "$ra" ] && [ "$ra" != "$rb" ]; then
    why="exit status differs ($ra vs $rb)"
  fi
  t0=$(date +%s.%N)
  "$PY" "$ROOT/checks/compare-outputs.py" --label "$m" "${STRICT[@]}" "$A_OUT" "$B_OUT" > "$B_OUT.compare" 2>&1
  crc=$?
  if [ "$m" = labels ]; then
    "$PY" "$ROOT/checks/compare-derived.py" --label "$m" "$A_OUT" "$B_OUT" >> "$B_OUT.compare" 2>&1
    drc=$?
    [ "$drc" -eq 0 ] || why="${why:+$why; }labels, exports or eval differ"
  fi
  sed 's/^/  /' "$B_OUT.compare"
  verdict=$(sed -n 's/^\[[^]]*\] SUMMARY: \([^:]*\):.*/\1/p' "$B_OUT.compare" | tail -n 1)
  t1=$(date +%s.%N)
  echo "  compare took $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')s"
  if [ "$crc" -ne 0 ]; then why="${why:+$why; }samples differ"; fi
  if [ -n "$why" ]; then
    RESULT[$m]="DIFFERENT ($why)"; status=1
  else
    RESULT[$m]="${verdict:-identical}"
  fi
done
echo "== summary"
for m in $MODES; do printf '  %-13s %s\n' "$m" "${RESULT[$m]:-not run}"; done
if [ $status -eq 0 ]; then echo "byte-identical: ALL MODES IDENTICAL"; else echo "byte-identical: SOME MODES DIFFER"; fi
exit $status
