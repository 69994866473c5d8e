"""A small policy network trained on kibo's shards on CPU with `kibo.torch.ShardDataset`,
printing top-1 accuracy on the validation split.

    make run PIPELINE=pipelines/dev.toml OUT=out/dev      # the dev corpus's shards
    .venv/bin/python examples/train_policy.py out/dev --minutes 3
"""
import argparse
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

from kibo.torch import ShardDataset


class PolicyNet(nn.Module):
    def __init__(self, channels_in, width=32, blocks=4):
        super().__init__()
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


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", help="kibo output folder (its samples/ shards)")
    ap.add_argument("--features", default="leela-18")
    ap.add_argument("--minutes", type=float, default=3.0)
    ap.add_argument("--batch-size", type=int, default=256)
    ap.add_argument("--val-positions", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=0)
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


if __name__ == "__main__":
    main()
