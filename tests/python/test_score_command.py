"""`kibo score FILE`: the marked position, both counts, the recorded result, and the
PNG / SVG pictures."""
import pathlib
import subprocess
import sys


def test_kibo_score_prints_the_count_and_draws_it(kibo, shared, tmp_path):
    game = shared("dev/gnugo-regression-games/scoring/score47.sgf")
    png, svg = tmp_path / "s.png", tmp_path / "s.svg"
    out = subprocess.run([kibo, "score", str(game), "--png", str(png), "--svg", str(svg)],
                         capture_output=True, text=True, check=True).stdout
    assert "    A B C D E F G H J K L M N O P Q R S T" in out
    assert "game's rules, " in out and "Korean rules, korean: " in out
    assert "recorded RE[" in out
    assert "\nchains:\n" in out and "  alive     " in out
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    text = svg.read_text()
    assert text.startswith("<svg") and "Korean rules" in text
    # The same game counted twice prints the same report.
    again = subprocess.run([kibo, "score", str(game)], capture_output=True, text=True, check=True).stdout
    assert again == out


def kgs_games(shared, tmp_path, names):
    """The KGS 2001 archive's members `names`, extracted into `tmp_path`."""
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "checks"))
    from tar_members import extract_members
    (archive,) = sorted(shared("dev/kgs-2001-archive").glob("*.tar.gz"))
    extract_members(archive, tmp_path, names)
    return {n: tmp_path / n for n in names}


def score_json(kibo, path):
    import json
    out = subprocess.run([kibo, "score", str(path), "--json"], capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def test_kibo_score_json_lists_every_chain(kibo, shared):
    game = shared("dev/gnugo-regression-games/scoring/score47.sgf")
    d = score_json(kibo, game)
    text = subprocess.run([kibo, "score", str(game)], capture_output=True, text=True, check=True).stdout
    assert f"recorded RE[{d['result_raw']}]: {d['check']}" in text
    assert len(d["marks"]) == 19 and all(len(r) == 19 for r in d["marks"])
    assert d["count"]["margin"] == d["counted_margin"]
    assert d["chains"] and {c["status"] for c in d["chains"]} <= {"alive", "dead", "seki", "unsettled"}
    # Every stone on the board is in exactly one chain; the dead stones are the dead chains'.
    stones = sum(r.count(ch) for r in d["marks"] for ch in "XOxo?")
    undecided_empty = sum(r.count("?") for r in d["marks"])
    assert sum(c["stones"] for c in d["chains"]) >= stones - undecided_empty
    assert sum(c["stones"] for c in d["chains"] if c["status"] == "dead") == len(d["dead"])
    assert sum(r.count("x") + r.count("o") for r in d["marks"]) == len(d["dead"])
    for c in d["chains"]:
        assert 0.0 <= c["own_share"] <= 1.0 and c["why"]


def test_a_seki_the_playouts_do_not_keep_is_no_seki(kibo, shared, tmp_path):
    """KGS 2001-10-13-5: the 4 white stones at E19 and the one at H18 share liberties with
    black's K19 group, so the shapes look like a seki; in the playouts they die (own
    share ~12%), and GNU Go (`final_status_list dead`) lists them dead: no seki, the
    black group alive, and the count agrees with the record (B+8.5)."""
    path = kgs_games(shared, tmp_path, ["KGS2001/2001-10-13-5.sgf"])["KGS2001/2001-10-13-5.sgf"]
    d = score_json(kibo, path)
    by = {c["at"]: c for c in d["chains"]}
    assert d["seki"] == []
    assert by["E19"]["status"] == "dead" and by["H18"]["status"] == "dead"
    assert by["K19"]["status"] == "alive"
    assert d["check"] == "agrees" and d["counted_margin"] == 8.5
