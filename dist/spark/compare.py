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

# Rows are sorted by these columns: unique in samples (a game id is in the table once,
# duplicate games being rejects, and has one row per move) and in games; rejects are
# then sorted by every other scalar column too (ties broken whole).
SORT = {
    "samples": ["position_hash", "game_id", "move_number"],
    "games": ["game_id", "source_file", "member", "game_index"],
    "rejects": ["reason", "source_file", "member", "game_index", "detail"],
}
# report.json counts that must be equal (the layout of shards, memory figures and the
# Spark section differ by construction).
REPORT_KEYS = [
    ("games",), ("filter", "total"), ("filter", "by_source"), ("filter", "quirks"), ("filter", "charsets"),
    ("filter", "by_format"),
    ("split", "games_in"), ("split", "games_replayed"), ("split", "games_rejected"), ("split", "rejected_by_reason"),
    ("split", "moves"), ("split", "samples_before_dedup"), ("split", "samples"), ("split", "duplicate_games"),
    ("split", "tag_counts"), ("split", "dropped"), ("split", "games_with_consecutive_moves"),
    ("split", "samples_by_split"), ("split", "accounting"),
]


def files(out, table):
    return sorted((pathlib.Path(out) / table).glob("*.parquet"))


def read(out, table, columns=None, wide=False):
    """The table's rows (its shards in name order); `wide`: with 64-bit offsets, each
    shard widened as it is read."""
    parts = []
    for f in files(out, table):
        t = pq.read_table(f, columns=columns)
        if wide:
            t = pa.table([c.cast(widen(c.type)) for c in t.columns], names=t.column_names)
        parts.append(t)
    return pa.concat_tables(parts) if parts else None


def schema_of(out, table):
    fs = files(out, table)
    return pq.read_schema(fs[0]) if fs else None


def widen(t):
    """The same type with 64-bit offsets (a column of millions of boards is over 2 GiB)."""
    if pa.types.is_binary(t):
        return pa.large_binary()
    if pa.types.is_string(t):
        return pa.large_string()
    if pa.types.is_list(t):
        return pa.large_list(widen(t.value_type))
    return t


def order(out, table, schema):
    """Row order sorting `table` canonically by its key columns (SORT)."""
    keys = [k for k in SORT[table] if k in schema.names]
    if table == "rejects":
        scalar = [n for n in schema.names if not pa.types.is_list(schema.field(n).type)]
        keys += [k for k in scalar if k not in keys]
    t = read(out, table, keys, wide=True)
    return pc.sort_indices(t, sort_keys=[(k, "ascending") for k in keys])


BLOCK = 1 << 20


def compare_table(one, two, table, schema):
    """None if equal, else the first difference: one column at a time, in blocks of
    sorted rows, so memory is about one column of each table."""
    ia, ib = order(one, table, schema), order(two, table, schema)
    for name in schema.names:
        ca, cb = (read(d, table, [name], wide=True).column(0) for d in (one, two))
        for start in range(0, len(ia), BLOCK):
            xa = ca.take(ia[start:start + BLOCK]).combine_chunks()
            xb = cb.take(ib[start:start + BLOCK]).combine_chunks()
            if not xa.equals(xb):
                i = next(j for j in range(len(xa)) if xa[j] != xb[j])
                return f"column {name!r}, sorted row {start + i}: {xa[i]} != {xb[i]}"
    return None


def dig(v, path):
    for k in path:
        v = v.get(k) if isinstance(v, dict) else None
    return v


def compare(one, two, out=sys.stdout):
    """Returns the list of differences (empty: equal); prints one line per table."""
    problems = []
    for table in ("samples", "games", "rejects"):
        a, b = schema_of(one, table), schema_of(two, table)
        if a is None or b is None:
            problems.append(f"{table}: missing in {'first' if a is None else 'second'} folder")
            continue
        if a != b or a.metadata != b.metadata:
            problems.append(f"{table}: schemas differ:\n{a}\n---\n{b}")
            continue
        na, nb = (sum(pq.read_metadata(f).num_rows for f in files(d, table)) for d in (one, two))
        why = f"{na} rows != {nb} rows" if na != nb else compare_table(one, two, table, a)
        shards = (len(files(one, table)), len(files(two, table)))
        print(f"{table:8} {na:>9} rows, {len(a.names):>2} columns, shards {shards[0]:>3} vs {shards[1]:>3}: "
              f"{'EQUAL' if why is None else 'DIFFERENT: ' + why}", file=out)
        if why is not None:
            problems.append(f"{table}: {why}")
    la, lb = ([f.read_bytes() for f in sorted((pathlib.Path(d) / "labels").glob("*.parquet"))] for d in (one, two))
    if la or lb:
        same = la == lb
        print(f"labels   {len(la)} vs {len(lb)} files: {'BYTE-IDENTICAL' if same else 'DIFFERENT'}", file=out)
        if not same:
            problems.append("labels differ")
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
