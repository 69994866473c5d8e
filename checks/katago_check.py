#!/usr/bin/env python3
"""KataGo as the measure of kibo's score verdicts (issue 41): for the counted games of a
games table, KataGo's analysis engine reads the final position (the record's moves and
setup, the rules and komi kibo counted with) and gives its score lead; per source and per
verdict this prints how often KataGo names kibo's winner and the record's winner, and
whether its lead lies nearer kibo's count or the record's margin. Prints figures, asserts
nothing.

    checks/katago_check.py OUT/games [--katago BIN --model NET --config CFG] [--visits 8]
                          [--per-class 40] [--classes margin_differs,winner_differs,agrees]
                          [--judge kibo|katago] [--list]

`make katago` builds KataGo and fetches the net and config (their paths are the
defaults). Games are taken in games-table order, at most --per-class per source and
verdict; one query a game, all sent at once, answers read as they come (the engine
analyses them in parallel with its own threads).
"""
import argparse
import collections
import json
import os
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq

N = 19
COLS = "ABCDEFGHJKLMNOPQRST"
HOME = Path(os.environ.get("KATAGO_HOME", Path.home() / ".cache" / "kibo-katago"))
RULES = {"japanese": "japanese", "korean": "korean", "chinese": "chinese", "aga": "aga",
         "new_zealand": "new-zealand", "tromp_taylor": "tromp-taylor", "ing": "chinese"}


def gtp(i):
    return "pass" if i == N * N else f"{COLS[i % N]}{N - i // N}"


def query(g, visits):
    moves = [[c, gtp(m)] for c, m in zip(g["colors"], g["moves"])]
    stones = [["B", gtp(p)] for p in g["setup_black"]] + [["W", gtp(p)] for p in g["setup_white"]]
    rules = RULES.get((g["score_rules"] or "japanese").lower().replace("-", "_"), "japanese")
    return {"id": g["game_id"], "moves": moves, "initialStones": stones, "rules": rules,
            "komi": float(g["score_komi"] if g["score_komi"] is not None else 6.5),
            "boardXSize": N, "boardYSize": N, "analyzeTurns": [len(moves)], "maxVisits": visits,
            "includeOwnership": False}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("games")
    ap.add_argument("--katago", default=str(HOME / "katago-6a1fc5d" / "cpp" / "katago"))
    ap.add_argument("--model", default=str(HOME / "katrain" / "katrain" / "models" / "b10c384h6nbttflrs.bin.gz"))
    ap.add_argument("--config", default=str(HOME / "katrain" / "katrain" / "KataGo" / "analysis_config.cfg"))
    ap.add_argument("--visits", type=int, default=8)
    ap.add_argument("--per-class", type=int, default=40)
    ap.add_argument("--classes", default="margin_differs,winner_differs,agrees")
    ap.add_argument("--judge", choices=["kibo", "katago"], help="only the games whose score_judge is this")
    ap.add_argument("--list", action="store_true", help="also one line a game: file, RE, kibo's count, KataGo's lead")
    a = ap.parse_args()
    classes = a.classes.split(",")
    rows = [g for g in pq.read_table(a.games).to_pylist()
            if g["score_check"] in classes and g["result_kind"] == "score" and g["winner"] in ("B", "W")
            and g["counted_margin"] is not None and not g["mid_setup"]
            and (a.judge is None or g.get("score_judge", "kibo") == a.judge)]
    taken, per = [], collections.Counter()
    for g in rows:
        k = (g["source"], g["score_check"])
        if per[k] < a.per_class:
            per[k] += 1
            taken.append(g)
    if not taken:
        sys.exit("no counted game of those verdicts")
    for p in (a.katago, a.model, a.config):
        if not os.path.exists(p):
            sys.exit(f"{p} is missing: run `make katago`")
    proc = subprocess.Popen([a.katago, "analysis", "-config", a.config, "-model", a.model],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    for g in taken:
        proc.stdin.write(json.dumps(query(g, a.visits)) + "\n")
    proc.stdin.close()
    lead = {}
    for line in proc.stdout:
        r = json.loads(line)
        if "error" in r:
            print(f"katago: {r}", file=sys.stderr)
            continue
        lead[r["id"]] = r["rootInfo"]["scoreLead"]  # Black's side (the config's reportAnalysisWinratesAs)
    proc.wait()
    table = collections.defaultdict(lambda: collections.Counter())
    for g in taken:
        if g["game_id"] not in lead:
            continue
        t = table[(g["source"], g["score_check"])]
        kg = lead[g["game_id"]]
        rec = g["margin"] if g["margin"] is not None else None
        recorded = None if rec is None else (rec if g["winner"] == "B" else -rec)
        t["games"] += 1
        t["katago_names_kibo_winner"] += (kg > 0) == (g["counted_margin"] > 0)
        t["katago_names_record_winner"] += (kg > 0) == (g["winner"] == "B")
        if recorded is not None:
            near_kibo = abs(kg - g["counted_margin"]) < abs(kg - recorded)
            t["lead_nearer_kibo"] += near_kibo
            t["lead_nearer_record"] += not near_kibo
    if a.list:
        for g in taken:
            if g["game_id"] in lead:
                print(f"{g['source']:<8} {g['score_check']:<15} {g['source_file'].split('/')[-1]:<28} "
                      f"RE[{g['result_raw']}] kibo B{g['counted_margin']:+.1f} KataGo B{lead[g['game_id']]:+.1f} "
                      f"({g['score_rules']}, komi {g['score_komi']}); {g['score_reason'] or ''}")
    print(f"KataGo ({Path(a.model).name}, {a.visits} visits) on the final positions of {a.games}")
    print(f"{'source':<10} {'verdict':<15} {'games':>5} {'kibo winner':>11} {'record winner':>13} "
          f"{'lead nearer kibo':>16} {'nearer record':>13}")
    for (src, check), t in sorted(table.items()):
        n = t["games"]
        pct = lambda k: f"{t[k]} ({100 * t[k] / n:.0f}%)"
        print(f"{src:<10} {check:<15} {n:>5} {pct('katago_names_kibo_winner'):>11} "
              f"{pct('katago_names_record_winner'):>13} {pct('lead_nearer_kibo'):>16} {pct('lead_nearer_record'):>13}")


if __name__ == "__main__":
    main()
