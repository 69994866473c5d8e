#!/usr/bin/env python3
"""Compare what byte-identical.sh's `labels` mode derives from one output folder: the
labels table, the two VLM exports and the eval report, between two sides.

    checks/compare-derived.py [--label NAME] DIR_A DIR_B

Compared, file by file (the same relative paths are required on both sides):

* DIR/labels/*.parquet: byte-identical, or else read with pyarrow and compared column
  by column: "values identical, schema differs" (columns added or removed, a type or its
  nullability changed, the Parquet metadata changed) names what differs; any differing
  value FAILS, naming the column and the first row;
* DIR/vlm-train/**, DIR/vlm-test/** (Parquet shards with their PNG bytes, the card):
  byte-identical;
* DIR/eval.json and DIR/eval.html (`kibo eval --report/--html`): byte-identical; a
  differing report prints the keys whose values differ.

A file that names its own output folder (the set's `out`, the report's paths) counts as
identical when A's bytes with A's folder written as B's are B's bytes.

Exit status: 0 when every file is byte-identical, 1 otherwise (a labels table whose
values are identical but whose schema changed is reported and also exits 1: a change to
the table's contract is a change to name), 2 on a usage error. Needs pyarrow.
"""
import argparse
import filecmp
import json
import pathlib
import sys

import pyarrow.parquet as pq


def files(root):
    return sorted(p.relative_to(root) for p in root.rglob("*") if p.is_file()) if root.is_dir() else []


def labels_values(a, b):
    """(verdict line, whether the values are identical) for two labels files."""
    ta, tb = pq.read_table(a), pq.read_table(b)
    notes = []
    ca, cb = set(ta.column_names), set(tb.column_names)
    if ca - cb:
        notes.append(f"columns only in A: {sorted(ca - cb)}")
    if cb - ca:
        notes.append(f"columns only in B: {sorted(cb - ca)}")
    if ta.num_rows != tb.num_rows:
        return f"FAIL: {ta.num_rows} rows against {tb.num_rows}", False
    for name in [n for n in ta.column_names if n in cb]:
        fa, fb = ta.schema.field(name), tb.schema.field(name)
        if fa.type != fb.type or fa.nullable != fb.nullable:
            notes.append(f"{name}: {fa.type}{'' if fa.nullable else ' not null'} -> "
                         f"{fb.type}{'' if fb.nullable else ' not null'}")
        va, vb = ta.column(name).to_pylist(), tb.column(name).to_pylist()
        if va != vb:
            i = next(i for i, (x, y) in enumerate(zip(va, vb)) if x != y)
            return f"FAIL: column {name} differs first at row {i}: {va[i]!r} against {vb[i]!r}", False
    ma = {k: v for k, v in (ta.schema.metadata or {}).items() if k != b"ARROW:schema"}
    mb = {k: v for k, v in (tb.schema.metadata or {}).items() if k != b"ARROW:schema"}
    for k in sorted(set(ma) | set(mb)):
        if ma.get(k) != mb.get(k):
            notes.append(f"metadata {k.decode()}: {str(ma.get(k, b'-'))[:60]} -> {str(mb.get(k, b'-'))[:60]}")
    return "values identical, schema differs: " + "; ".join(notes or ["(the Parquet encoding only)"]), True


def json_keys_differing(a, b, path=""):
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                out.append(f"{path}{k} ({'only in B' if k not in a else 'only in A'})")
            else:
                out += json_keys_differing(a[k], b[k], f"{path}{k}.")
        return out
    return [] if a == b else [path.rstrip(".")]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--label", default="labels")
    ap.add_argument("a", type=pathlib.Path)
    ap.add_argument("b", type=pathlib.Path)
    a = ap.parse_args()
    tag = f"[{a.label}]"
    status, counts = 0, {"identical": 0, "different": 0}
    # Files that name their own output folder (the set's `out`, the report's paths) are
    # the same when A's folder, written as B's, gives B's bytes.
    root_a, root_b = str(a.a.resolve()).encode(), str(a.b.resolve()).encode()
    moved = 0
    for part in ["labels", "vlm-train", "vlm-test", "eval.json", "eval.html"]:
        pa, pb = a.a / part, a.b / part
        if pa.is_file() or pb.is_file():
            names = [pathlib.Path("")] if pa.is_file() and pb.is_file() else None
            if names is None:
                print(f"{tag} {part}: FAIL: present on one side only")
                status = 1
                continue
        else:
            fa, fb = files(pa), files(pb)
            if not fa:
                print(f"{tag} {part}: FAIL: no files in {pa}")
                status = 1
                continue
            if fa != fb:
                print(f"{tag} {part}: FAIL: the files differ: only in A {sorted(set(fa) - set(fb))[:5]}, "
                      f"only in B {sorted(set(fb) - set(fa))[:5]}")
                status = 1
                continue
            names = fa
        same = 0
        for n in names:
            x, y = pa / n, pb / n
            if filecmp.cmp(x, y, shallow=False):
                same += 1
                continue
            if x.read_bytes().replace(root_a, root_b) == y.read_bytes():
                same += 1
                moved += 1
                continue
            status = 1
            counts["different"] += 1
            if part == "labels" and x.suffix == ".parquet":
                line, _ = labels_values(x, y)
                print(f"{tag} {part}/{n}: {line}")
            elif x.suffix == ".json":
                keys = json_keys_differing(json.loads(x.read_text()), json.loads(y.read_text()))
                print(f"{tag} {part}: differs" + (f" in {', '.join(keys[:12])}" if keys else " (bytes only)"))
            else:
                print(f"{tag} {part}/{n}: differs")
        counts["identical"] += same
        print(f"{tag} {part}: {same} of {len(names)} files byte-identical")
    verdict = "identical" if status == 0 else "different"
    print(f"{tag} SUMMARY: {verdict}: {counts['identical']} files identical ({moved} of them once A's folder "
          f"is written as B's), {counts['different']} differ")
    return status


if __name__ == "__main__":
    sys.exit(main())
