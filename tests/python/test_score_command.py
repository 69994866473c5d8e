"""`kibo score FILE`: the marked position, both counts, the recorded result, and the
PNG / SVG pictures."""
import subprocess


def test_kibo_score_prints_the_count_and_draws_it(kibo, shared, tmp_path):
    game = shared("dev/gnugo-regression-games/scoring/score47.sgf")
    png, svg = tmp_path / "s.png", tmp_path / "s.svg"
    out = subprocess.run([kibo, "score", str(game), "--png", str(png), "--svg", str(svg)],
                         capture_output=True, text=True, check=True).stdout
    assert "    A B C D E F G H J K L M N O P Q R S T" in out
    assert "game's rules, " in out and "Korean rules, korean: " in out
    assert "recorded RE[" in out
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    text = svg.read_text()
    assert text.startswith("<svg") and "Korean rules" in text
    # The same game counted twice prints the same report.
    again = subprocess.run([kibo, "score", str(game)], capture_output=True, text=True, check=True).stdout
    assert again == out
