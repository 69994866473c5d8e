#!/usr/bin/env python3
"""Compares two kibo output folders as datasets (not bytes): the same samples (every
column, rows sorted by position_hash), the same games and the same rejects (rows sorted),
the same schemas, the same counts in report.json and the same dataset card.

  python dist/spark/compare.py ONE_PROCESS_OUT SPARK_OUT      (exit 0: equal)
"""
import json
import pathlib
import sys

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

# Rows are sorted by these columns, then by every other column (ties broken whole).
SORT = {
    "samples": ["position_hash", "game_id", "move_number"],
    "games": ["game_id", "source_file", "member", "game_index"],
    "rejects": ["reason", "source_file", "member", "game_index", "detail"],
}
# report.json counts that must be equal (the layout of shards, memory figures and the
# Spark section differ by construction).
REPORT_KEYS = [
    ("games",), ("filter", "total"), ("filter", "by_source"), ("filter", "quirks"), ("filter", "charsets"),
    ("split", "games_in"), ("split", "games_replayed"), ("split", "games_rejected"), ("split", "rejected_by_reason"),
    ("split", "moves"), ("split", "samples_before_dedup"), ("split", "samples"), ("split", "duplicate_games"),
    ("split", "tag_counts"), ("split", "dropped"), ("split", "games_with_consecutive_moves"),
    ("split", "samples_by_split"), ("split", "accounting"),
]


def read(out, table):
    files = sorted((pathlib.Path(out) / table).glob("*.parquet"))
    parts = [pq.read_table(f) for f in files]
    t = pa.concat_tables(parts) if parts else None
    return t


def sortable(t):
    """Columns a sort can use (lists and binaries of lists cannot be sort keys)."""
    return [n for n in t.column_names if not pa.types.is_list(t.schema.field(n).type)]


def canonical(t, table):
    t = t.combine_chunks()
    keys = [k for k in SORT[table] if k in t.column_names]
    keys += [k for k in sortable(t) if k not in keys]
    idx = pc.sort_indices(t, sort_keys=[(k, "ascending") for k in keys])
    return t.take(idx)


def first_difference(a, b):
    for name in a.column_names:
        ca, cb = a.column(name), b.column(name)
        if not ca.equals(cb):
            for i in range(len(ca)):
                if ca[i] != cb[i]:
                    return f"column {name!r}, sorted row {i}: {ca[i]} != {cb[i]}"
            return f"column {name!r} differs"
    return "tables differ"


def dig(v, path):
    for k in path:
        v = v.get(k) if isinstance(v, dict) else None
    return v


def compare(one, two, out=sys.stdout):
    """Returns the list of differences (empty: equal); prints one line per table."""
    problems = []
    for table in ("samples", "games", "rejects"):
        a, b = read(one, table), read(two, table)
        if a is None or b is None:
            problems.append(f"{table}: missing in {'first' if a is None else 'second'} folder")
            continue
        if a.schema != b.schema:
            problems.append(f"{table}: schemas differ:\n{a.schema}\n---\n{b.schema}")
            continue
        if a.schema.metadata != b.schema.metadata:
            problems.append(f"{table}: schema metadata differs")
        ok = a.num_rows == b.num_rows
        why = f"{a.num_rows} rows != {b.num_rows} rows"
        if ok:
            ca, cb = canonical(a, table), canonical(b, table)
            ok = ca.equals(cb)
            why = "" if ok else first_difference(ca, cb)
        files = (len(list((pathlib.Path(one) / table).glob("*.parquet"))), len(list((pathlib.Path(two) / table).glob("*.parquet"))))
        print(f"{table:8} {a.num_rows:>9} rows, {a.num_columns:>2} columns, shards {files[0]:>3} vs {files[1]:>3}: "
              f"{'EQUAL' if ok else 'DIFFERENT: ' + why}", file=out)
        if not ok:
            problems.append(f"{table}: {why}")
    ra, rb = (json.loads((pathlib.Path(d) / "report.json").read_text()) for d in (one, two))
    bad = [".".join(k) for k in REPORT_KEYS if dig(ra, k) != dig(rb, k)]
    print(f"report   {len(REPORT_KEYS)} count sections: {'EQUAL' if not bad else 'DIFFERENT: ' + ', '.join(bad)}", file=out)
    problems += [f"report.json {k} differs" for k in bad]
    card = [(pathlib.Path(d) / "README.md").read_text() if (pathlib.Path(d) / "README.md").exists() else None for d in (one, two)]
    same_card = card[0] is not None and card[0] == card[1]
    print(f"card     README.md: {'EQUAL' if same_card else 'DIFFERENT or missing'}", file=out)
    if not same_card:
        problems.append("README.md differs or is missing")
    return problems


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(1 if compare(sys.argv[1], sys.argv[2]) else 0)
