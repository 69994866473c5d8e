"""Reading a board off a picture drawn by `kibo export vlm`, by the geometry docs/vlm.md
states and independently of kibo's code: intersection (row, col) of a picture with cells
of c px has its centre pixel at x = c·(col + 1) + c/2, y = c·(row + 1) + c/2, row 0 at the
top; a point is read at the four diagonal pixels (±d, ±d), d = round(0.31·c) (inside a
stone, outside the ko square, the previous-move ring and the grid lines).

Shared by test_export_vlm.py (every exported picture) and match_server.py (the stand-in
model of `kibo match`'s openai: player).
"""
import io

import numpy as np
from PIL import Image

N = 19


class Reader:
    """Reads the board off a picture with cells of `cell` px."""

    def __init__(self, cell):
        self.cell = cell
        d = round(0.31 * cell)
        centres = np.array([cell * (k + 1) + cell // 2 for k in range(N)])
        ys, xs = np.meshgrid(centres, centres, indexing="ij")
        self.points = [(ys + dy, xs + dx) for dy in (-d, d) for dx in (-d, d)]
        self.luts = {}  # palette -> what each colour of it is

    @staticmethod
    def classify(rgb):
        r, g, b = (int(v) for v in rgb)
        if max(r, g, b) < 80:
            return 1
        if min(r, g, b) > 200:
            return 2
        if r > 180 and 140 < g < 220 and b < 160:
            return 0
        return 9  # neither a stone nor the wood

    def read(self, png):
        img = Image.open(io.BytesIO(png))
        assert img.size == (21 * self.cell, 21 * self.cell), img.size
        assert img.mode == "P", img.mode
        idx = np.asarray(img)
        palette = tuple(img.getpalette()[: 3 * 256])
        lut = self.luts.get(palette)
        if lut is None:
            lut = self.luts[palette] = np.array([self.classify(c) for c in np.array(palette).reshape(-1, 3)],
                                                dtype=np.uint8)
        reads = np.stack([lut[idx[ys, xs]] for ys, xs in self.points])
        assert (reads == reads[0]).all(), "the four reads of a point disagree"
        assert (reads[0] != 9).all(), "a point reads as neither stone nor wood"
        return reads[0]
