"""A small policy network trained on kibo's shards on CPU with `kibo.torch.ShardDataset`,
printing top-1 accuracy on the validation split.

    make run PIPELINE=pipelines/dev.toml OUT=out/dev      # the dev corpus's shards
    .venv/bin/python examples/train_policy.py out/dev --minutes 3

With `--predict-set SET --predictions FILE` it then writes its top move for every
next-move row of an evaluation set (`kibo export vlm --split test --to SET`) as
`{"id", "answer"}` lines, for `kibo eval --set SET --predictions FILE` (docs/eval.md).
With `--save FILE` it writes the trained net (its weights, feature set, width and blocks)
for examples/gtp_policy.py, a GTP engine that plays it (`kibo match`, docs/match.md).
"""
import argparse
import json
import pathlib
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

from kibo.torch import ShardDataset


class PolicyNet(nn.Module):
    def __init__(self, channels_in, width=32, blocks=4):
        super().__init__()
        self.channels_in, self.width, self.blocks = channels_in, width, blocks
        self.stem = nn.Conv2d(channels_in, width, 3, padding=1)
        self.body = nn.ModuleList(nn.Conv2d(width, width, 3, padding=1) for _ in range(blocks))
        self.head = nn.Conv2d(width, 1, 1)
        self.pass_logit = nn.Linear(width, 1)

    def forward(self, x):
        x = F.relu(self.stem(x))
        for conv in self.body:
            x = F.relu(x + conv(x))
        board = self.head(x).flatten(1)
        return torch.cat([board, self.pass_logit(x.mean((2, 3)))], 1)


#: What `save_net` writes, so that `load_net` knows the file.
NET_FORMAT = "kibo-policy-net-1"


def save_net(net, path, features):
    """Writes `net` (its weights and what rebuilds it: the feature set its planes are
    in, input channels, width, blocks) to `path` with torch.save."""
    torch.save({"format": NET_FORMAT, "features": features, "channels_in": net.channels_in, "width": net.width,
                "blocks": net.blocks, "state_dict": net.state_dict()}, path)


def load_net(path):
    """(net in eval mode, feature set name) from a file `save_net` wrote."""
    saved = torch.load(path, map_location="cpu", weights_only=True)
    if not isinstance(saved, dict) or saved.get("format") != NET_FORMAT:
        raise ValueError(f"{path}: not a net examples/train_policy.py --save wrote")
    net = PolicyNet(saved["channels_in"], width=saved["width"], blocks=saved["blocks"])
    net.load_state_dict(saved["state_dict"])
    return net.eval(), saved["features"]


def accuracy(net, out, features, limit):
    net.eval()
    right = total = 0
    with torch.no_grad():
        for b in ShardDataset(out, split="val", features=features, symmetries=False, shuffle_buffer=1,
                              batch_size=512, policy="played"):
            pred = net(torch.from_numpy(b["spatial"])).argmax(1)
            right += (pred == torch.from_numpy(b["policy"]).argmax(1)).sum().item()
            total += len(pred)
            if total >= limit:
                break
    net.train()
    return right / max(total, 1), total


COLS = "ABCDEFGHJKLMNOPQRST"


def gtp(index, s):
    """GTP text of move `index` (361: pass) under the set row's symmetry `s` (kibo's
    coord::symmetry: bit 0 flips rows, bit 1 columns, bit 2 transposes, flips first)."""
    if index >= 361:
        return "pass"
    r, c = divmod(index, 19)
    r, c = (18 - r if s & 1 else r), (18 - c if s & 2 else c)
    r, c = (c, r) if s & 4 else (r, c)
    return f"{COLS[c]}{19 - r}"


def predict(net, out, features, set_dir, path):
    """The net's top move for each next-move row of the evaluation set in `set_dir`."""
    import pyarrow.parquet as pq
    rows = pq.read_table(pathlib.Path(set_dir) / "test", columns=["id", "task", "game_id", "move_number", "symmetry"])
    want = {(r["game_id"], r["move_number"]): r for r in rows.to_pylist() if r["task"] == "next-move"}
    net.eval()
    written = 0
    with torch.no_grad(), open(path, "w") as f:
        for b in ShardDataset(out, split="test", features=features, symmetries=False, shuffle_buffer=1,
                              batch_size=512, policy="played"):
            keys = [(g, int(m)) for g, m in zip(b["game_id"], b["move_number"])]
            if not any(k in want for k in keys):
                continue
            pred = net(torch.from_numpy(b["spatial"])).argmax(1).tolist()
            for k, p in zip(keys, pred):
                r = want.get(k)
                if r is not None:
                    f.write(json.dumps({"id": r["id"], "answer": gtp(p, r["symmetry"])}) + "\n")
                    written += 1
    print(f"predictions: {written} of {len(want)} next-move rows written to {path}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", help="kibo output folder (its samples/ shards)")
    ap.add_argument("--features", default="leela-18")
    ap.add_argument("--minutes", type=float, default=3.0)
    ap.add_argument("--batch-size", type=int, default=256)
    ap.add_argument("--val-positions", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--predict-set", help="an evaluation set (kibo export vlm --split test) to answer")
    ap.add_argument("--predictions", help="where to write the answers ({\"id\", \"answer\"} lines)")
    ap.add_argument("--save", help="where to write the trained net (for examples/gtp_policy.py)")
    a = ap.parse_args()
    torch.manual_seed(a.seed)
    data = ShardDataset(a.out, split="train", features=a.features, shuffle_buffer=50000, seed=a.seed,
                        batch_size=a.batch_size)
    first = next(iter(data))
    net = PolicyNet(first["spatial"].shape[1])
    opt = torch.optim.AdamW(net.parameters(), lr=2e-3, weight_decay=1e-4)
    start, seen, step = time.time(), 0, 0
    while time.time() - start < a.minutes * 60:
        for b in data:
            logits = net(torch.from_numpy(b["spatial"]))
            loss = -(torch.from_numpy(b["policy"]) * F.log_softmax(logits, 1)).sum(1).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            seen, step = seen + len(logits), step + 1
            if step % 100 == 0:
                print(f"step {step}: {seen} positions, loss {loss.item():.3f}, {time.time() - start:.0f} s", flush=True)
            if time.time() - start >= a.minutes * 60:
                break
    train_s = time.time() - start
    acc, n = accuracy(net, a.out, a.features, a.val_positions)
    print(f"validation top-1 accuracy: {acc:.3f} on {n} positions, after {seen} training positions in {train_s:.0f} s")
    if a.predict_set:
        predict(net, a.out, a.features, a.predict_set, a.predictions or "predictions.jsonl")
    if a.save:
        save_net(net, a.save, a.features)
        print(f"net saved to {a.save}")


if __name__ == "__main__":
    main()
