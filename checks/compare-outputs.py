#!/usr/bin/env python3
"""Compare the `samples` table of two kibo output folders, shard by shard.

    checks/compare-outputs.py [--strict-rejects] [--label NAME] DIR_A DIR_B

For every shard of DIR_A/samples and DIR_B/samples (the same file names are required):

* byte-identical files                          -> "identical"
* files that differ only in the Parquet key-value metadata entry
  `kibo.schema_version` (every byte before the footer equal, and the parsed footer
  equal once that entry is removed)              -> "identical apart from schema_version A -> B"
* anything else                                 -> FAIL, naming the first differing
  row group / column chunk / byte offset or footer field.

Also printed: the sample counts of report.json (split.samples, split.samples_by_split)
and manifest.json (tables.samples.rows) of both sides, and whether the rejects tables
(rejects/*.parquet, compared by content, rows sorted by source_file, member,
game_index, reason) are equal. A difference in the counts fails (they are the samples);
a rejects difference is a warning unless --strict-rejects.

Exit status: 0 when the samples are identical (or identical apart from
schema_version), 1 otherwise, 2 on a usage error.

Needs pyarrow (`make venv`, then run with .venv/bin/python).
"""

import argparse
import json
import os
import pickle
import struct
import subprocess
import sys

try:
    import pyarrow.parquet as pq
except ImportError:  # pragma: no cover
    sys.exit("compare-outputs.py: needs pyarrow; run it with .venv/bin/python (make venv)")

SCHEMA_KEY = b"kibo.schema_version"
CHUNK = 1 << 20


def footer_start(path):
    """(offset where the Thrift footer begins, file size)."""
    size = os.path.getsize(path)
    with open(path, "rb") as f:
        if size < 12:
            raise ValueError(f"{path}: {size} bytes, too small for Parquet")
        f.seek(size - 8)
        tail = f.read(8)
    if tail[4:] != b"PAR1":
        raise ValueError(f"{path}: no PAR1 magic at the end")
    (footer_len,) = struct.unpack("<I", tail[:4])
    return size - 8 - footer_len, size


def first_diff(path_a, path_b, length):
    """First differing byte offset within [0, length) of both files, or None."""
    with open(path_a, "rb") as fa, open(path_b, "rb") as fb:
        pos = 0
        while pos < length:
            n = min(CHUNK, length - pos)
            a, b = fa.read(n), fb.read(n)
            if a != b:
                for i, (x, y) in enumerate(zip(a, b)):
                    if x != y:
                        return pos + i
                return pos + min(len(a), len(b))
            pos += n
    return None


def same_bytes(path_a, path_b):
    if os.path.getsize(path_a) != os.path.getsize(path_b):
        return False
    return first_diff(path_a, path_b, os.path.getsize(path_a)) is None


def _attrs(obj, names):
    out = {}
    for n in names:
        try:
            v = getattr(obj, n)
        except Exception as e:  # an attribute pyarrow cannot give for this file
            v = f"<{type(e).__name__}>"
        out[n] = v
    return out


def _stats(st):
    if st is None:
        return None
    d = _attrs(st, ["has_min_max", "null_count", "distinct_count", "num_values", "physical_type", "logical_type"])
    d["logical_type"] = str(d["logical_type"])
    if st.has_min_max:
        d["min"] = st.min
        d["max"] = st.max
    return d


COLUMN_FIELDS = [
    "path_in_schema", "physical_type", "num_values", "compression", "encodings", "is_stats_set",
    "has_dictionary_page", "dictionary_page_offset", "data_page_offset", "index_page_offset",
    "file_offset", "file_path", "total_compressed_size", "total_uncompressed_size",
    "has_offset_index", "has_column_index",
]


def describe(md):
    """The parsed footer as ordered (name, value) pairs, key-value metadata without schema_version."""
    items = [
        ("created_by", md.created_by),
        ("format_version", md.format_version),
        ("num_rows", md.num_rows),
        ("num_columns", md.num_columns),
        ("num_row_groups", md.num_row_groups),
        # str() of a ParquetSchema starts with "<pyarrow._parquet.ParquetSchema object at 0x...>"
        ("schema", [l for l in str(md.schema).splitlines() if not l.startswith("<pyarrow.")]),
    ]
    kv = dict(md.metadata or {})
    version = kv.pop(SCHEMA_KEY, None)
    items.append(("key_value_metadata", sorted(kv.items())))
    for r in range(md.num_row_groups):
        rg = md.row_group(r)
        items.append((f"row_group[{r}]", _attrs(rg, ["num_rows", "num_columns", "total_byte_size"])))
        for c in range(rg.num_columns):
            col = rg.column(c)
            d = _attrs(col, COLUMN_FIELDS)
            d["encodings"] = tuple(d["encodings"]) if isinstance(d["encodings"], (list, tuple)) else d["encodings"]
            d["statistics"] = _stats(col.statistics) if col.is_stats_set else None
            items.append((f"row_group[{r}].column[{c}] {col.path_in_schema}", d))
    return items, version


def chunk_ranges(md):
    """[(row group, column path, start, end)] of every column chunk."""
    out = []
    for r in range(md.num_row_groups):
        rg = md.row_group(r)
        for c in range(rg.num_columns):
            col = rg.column(c)
            start = col.dictionary_page_offset if col.has_dictionary_page else col.data_page_offset
            if start is not None:
                out.append((r, col.path_in_schema, start, start + col.total_compressed_size))
    return out


def footer_info(path):
    """The parsed footer of `path`, read in a child process: pyarrow can abort the whole
    process (C++ terminate) on a corrupt footer. Returns (info dict, None) or (None, error)."""
    p = subprocess.run([sys.executable, os.path.abspath(__file__), "--footer-info", path],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode != 0:
        how = f"signal {-p.returncode}" if p.returncode < 0 else f"exit {p.returncode}"
        err = p.stderr.decode("utf-8", "replace").strip().splitlines()
        return None, f"pyarrow cannot read the footer ({how}{': ' + err[-1] if err else ''})"
    return pickle.loads(p.stdout), None


def _footer_info_child(path):
    md = pq.ParquetFile(path).metadata
    items, version = describe(md)
    sys.stdout.buffer.write(pickle.dumps({"items": items, "version": version, "chunks": chunk_ranges(md)}))
    return 0


def locate(chunks, offset):
    """Names the column chunk (or the region) that holds byte `offset` of a file."""
    if offset < 4:
        return "the leading PAR1 magic"
    if chunks is None:
        return "footer of A unreadable"
    best = None
    for r, path, start, end in chunks:
        if start <= offset < end:
            return f"row group {r}, column {path} (chunk at {start}..{end})"
        if start <= offset and (best is None or start > best[0]):
            best = (start, end, r, path)
    if best is not None:
        return f"after row group {best[2]} column {best[3]} (page index area, or between chunks)"
    return "unknown region"


def short(v, n=160):
    r = repr(v)
    return r if len(r) <= n else r[: n - 3] + "..."


def first_list_diff(va, vb):
    for i, (x, y) in enumerate(zip(va, vb)):
        if x != y:
            return f"item {i}: {short(x)} vs {short(y)}"
    return f"{len(va)} vs {len(vb)} items"


def compare_shard(path_a, path_b):
    """(ok, message) for one shard present on both sides."""
    if same_bytes(path_a, path_b):
        return True, "identical"
    try:
        fs_a, size_a = footer_start(path_a)
        fs_b, size_b = footer_start(path_b)
    except ValueError as e:
        return False, f"FAIL: {e}"
    info_a, err_a = footer_info(path_a)
    chunks_a = info_a["chunks"] if info_a else None
    if fs_a != fs_b:
        off = first_diff(path_a, path_b, min(fs_a, fs_b))
        where = f"first differing byte at {off} ({locate(chunks_a, off)})" if off is not None else \
            f"data length differs ({fs_a} vs {fs_b} bytes before the footer)"
        return False, f"FAIL: {where}; sizes {size_a} vs {size_b}"
    off = first_diff(path_a, path_b, fs_a)
    if off is not None:
        return False, f"FAIL: first differing byte at {off} of {fs_a} before the footer ({locate(chunks_a, off)})"
    info_b, err_b = footer_info(path_b)
    if err_a or err_b:
        off = first_diff(path_a, path_b, min(size_a, size_b))
        return False, f"FAIL: footer differs (first differing byte at {off}); {'A' if err_a else 'B'}: {err_a or err_b}"
    items_a, ver_a = info_a["items"], info_a["version"]
    items_b, ver_b = info_b["items"], info_b["version"]
    for (name_a, va), (name_b, vb) in zip(items_a, items_b):
        if name_a != name_b:
            return False, f"FAIL: footer differs at {name_a!r} vs {name_b!r}"
        if va != vb:
            if isinstance(va, dict) and isinstance(vb, dict):
                keys = [k for k in va if va.get(k) != vb.get(k)] or [k for k in vb if k not in va]
                return False, f"FAIL: footer differs at {name_a}, field {keys[0]}: {short(va.get(keys[0]))} vs {short(vb.get(keys[0]))}"
            if isinstance(va, list) and isinstance(vb, list):
                return False, f"FAIL: footer differs at {name_a}, {first_list_diff(va, vb)}"
            return False, f"FAIL: footer differs at {name_a}: {short(va)} vs {short(vb)}"
    if len(items_a) != len(items_b):
        return False, f"FAIL: footer has {len(items_a)} vs {len(items_b)} entries"
    if ver_a == ver_b:
        # Parsed footers equal, schema_version equal, yet the footer bytes differ:
        # something pyarrow does not expose (e.g. field order, page index offsets).
        return False, "FAIL: footer bytes differ in a field the parsed metadata does not show"
    dec = lambda v: None if v is None else v.decode("utf-8", "replace")
    return True, f"identical apart from schema_version {dec(ver_a)} -> {dec(ver_b)}"


def shard_names(d):
    folder = os.path.join(d, "samples")
    if not os.path.isdir(folder):
        return None
    return sorted(f for f in os.listdir(folder) if not f.startswith("."))


def load_json(d, name):
    try:
        with open(os.path.join(d, name)) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def counts(d):
    rep = load_json(d, "report.json") or {}
    man = load_json(d, "manifest.json") or {}
    split = rep.get("split") or {}
    samples_tab = ((man.get("tables") or {}).get("samples") or {})
    return {
        "report.split.samples": split.get("samples"),
        "report.split.samples_by_split": split.get("samples_by_split"),
        "manifest.tables.samples.rows": samples_tab.get("rows"),
    }


REJECT_KEYS = ["source_file", "member", "game_index", "reason"]


def read_rejects(d):
    folder = os.path.join(d, "rejects")
    if not os.path.isdir(folder):
        return None
    files = sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".parquet"))
    rows = []
    for f in files:
        rows.extend(pq.read_table(f).to_pylist())
    return rows


def _sort_key(row):
    # None sorts before any value; values of mixed types compare as strings.
    return tuple((row.get(k) is not None, str(row.get(k)) if row.get(k) is not None else "") for k in REJECT_KEYS) + (
        json.dumps(row, sort_keys=True, default=str),
    )


def compare_rejects(dir_a, dir_b):
    """(equal: bool | None, message)."""
    ra, rb = read_rejects(dir_a), read_rejects(dir_b)
    if ra is None and rb is None:
        return None, "no rejects table on either side"
    if ra is None or rb is None:
        return False, f"rejects table only in {'B' if ra is None else 'A'}"
    cols_a = set(ra[0]) if ra else set()
    cols_b = set(rb[0]) if rb else set()
    common = sorted(cols_a & cols_b) if ra and rb else sorted(cols_a | cols_b)
    only = sorted(cols_a ^ cols_b) if ra and rb else []
    ra = sorted(({k: r.get(k) for k in common} for r in ra), key=_sort_key)
    rb = sorted(({k: r.get(k) for k in common} for r in rb), key=_sort_key)
    note = f" (columns only on one side, not compared: {', '.join(only)})" if only else ""
    if len(ra) != len(rb):
        return False, f"different: {len(ra)} vs {len(rb)} rows{note}"
    for i, (x, y) in enumerate(zip(ra, rb)):
        if x != y:
            col = next(k for k in common if x.get(k) != y.get(k))
            key = ", ".join(f"{k}={x.get(k)!r}" for k in REJECT_KEYS if k in x)
            return False, f"different: sorted row {i} ({key}), column {col}: {x.get(col)!r} vs {y.get(col)!r}{note}"
    return True, f"equal ({len(ra)} rows, {len(common)} columns){note}"


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--footer-info":  # internal: see footer_info
        return _footer_info_child(sys.argv[2])
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dir_a")
    ap.add_argument("dir_b")
    ap.add_argument("--strict-rejects", action="store_true", help="a rejects difference fails too")
    ap.add_argument("--label", default="", help="prefix for every line (e.g. the mode)")
    args = ap.parse_args()
    p = f"[{args.label}] " if args.label else ""
    a, b = args.dir_a, args.dir_b
    ok = True

    names_a, names_b = shard_names(a), shard_names(b)
    if names_a is None or names_b is None:
        for d, n in ((a, names_a), (b, names_b)):
            if n is None:
                print(f"{p}FAIL: no samples/ folder in {d}")
        print(f"{p}SUMMARY: FAIL (samples table missing)")
        return 1
    n_ident = n_version = n_fail = 0
    versions = set()
    for name in sorted(set(names_a) | set(names_b)):
        if name not in names_b or name not in names_a:
            print(f"{p}samples/{name}: FAIL: only in {'A' if name in names_a else 'B'}")
            n_fail += 1
            continue
        good, msg = compare_shard(os.path.join(a, "samples", name), os.path.join(b, "samples", name))
        size = os.path.getsize(os.path.join(a, "samples", name))
        print(f"{p}samples/{name}: {msg} ({size} bytes)")
        if not good:
            n_fail += 1
        elif msg == "identical":
            n_ident += 1
        else:
            n_version += 1
            versions.add(msg.split("schema_version ", 1)[1])
    if n_fail:
        ok = False

    ca, cb = counts(a), counts(b)
    for k in ca:
        same = ca[k] == cb[k]
        print(f"{p}{k}: A {json.dumps(ca[k])}  B {json.dumps(cb[k])}  {'equal' if same else 'DIFFERENT'}")
        if not same:
            ok = False

    rej_equal, rej_msg = compare_rejects(a, b)
    rej_bad = rej_equal is False
    level = ("FAIL" if args.strict_rejects else "WARNING") if rej_bad else "ok"
    print(f"{p}rejects: {rej_msg}" + (f" [{level}]" if rej_bad else ""))
    if rej_bad and args.strict_rejects:
        ok = False

    total = len(set(names_a) | set(names_b))
    verdict = "IDENTICAL" if ok and n_version == 0 else (
        f"IDENTICAL apart from schema_version {', '.join(sorted(versions))}" if ok else "FAIL")
    extra = "; rejects differ (warning)" if rej_bad and not args.strict_rejects else ""
    print(f"{p}SUMMARY: {verdict}: {total} shards, {n_ident} byte-identical, "
          f"{n_version} identical apart from schema_version, {n_fail} differing; "
          f"samples {ca['report.split.samples']} vs {cb['report.split.samples']}{extra}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
