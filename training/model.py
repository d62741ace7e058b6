"""The local-move head on KataGo's trunk (the contract in docs/local-move-network.md), and the stored data.

The trunk (KataGo's b6c96, frozen) is run by tengen (examples/local_move_games.rs) and its final feature
map stored; this head reads that map with the region mask joined to it as one more channel.
"""

import json
import os

import numpy as np
import torch
from torch import nn
import torch.nn.functional as F

SIDE = 19
AREA = SIDE * SIDE
NO_MOVE = 2 * AREA
TRUNK_CHANNELS = 96
# Added to the move logits outside the region: those moves get no probability at any board size.
OUTSIDE = 1.0e4


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv1 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(c)
        self.conv2 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(c)

    def forward(self, x):
        y = F.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return F.relu(x + y)


class LocalMoveHead(nn.Module):
    """Trunk features + mask -> a 1x1 projection, residual blocks, then a 1x1 move head (White's plane,
    then Black's) and a "no move" logit from the head's features pooled over the region (mean and max)
    and the trunk's features averaged over the board."""

    def __init__(self, blocks=1, channels=48, trunk_channels=TRUNK_CHANNELS):
        super().__init__()
        self.project = nn.Conv2d(trunk_channels + 1, channels, 1, bias=False)
        self.project_bn = nn.BatchNorm2d(channels)
        self.blocks = nn.Sequential(*[Block(channels) for _ in range(blocks)])
        self.moves = nn.Conv2d(channels, 2, 1)
        self.no_move_hidden = nn.Linear(2 * channels + trunk_channels, channels)
        self.no_move_out = nn.Linear(channels, 1)

    def forward(self, features, mask):
        x = torch.cat([features, mask], dim=1)
        f = self.blocks(F.relu(self.project_bn(self.project(x))))
        moves = (self.moves(f) + (mask - 1.0) * OUTSIDE).flatten(1)
        area = mask.sum(dim=(2, 3)).clamp(min=1.0)
        mean = (f * mask).sum(dim=(2, 3)) / area
        peak = (f * mask).amax(dim=(2, 3))
        board = features.mean(dim=(2, 3))
        hidden = F.relu(self.no_move_hidden(torch.cat([mean, peak, board], dim=1)))
        return torch.cat([moves, self.no_move_out(hidden)], dim=1)


def load_dir(path):
    """One output directory of examples/local_move_games.rs: features float16 [n, C, 19, 19], mask uint8
    [n, 19, 19], meta int32 [n, 5] (game, target, to move, step, region size). A run stopped early keeps
    the examples whose three parts were all written."""
    meta = np.fromfile(os.path.join(path, "meta.i32"), dtype=np.int32)
    mask = np.fromfile(os.path.join(path, "mask.u8"), dtype=np.uint8)
    feats = np.fromfile(os.path.join(path, "features.f16"), dtype=np.float16)
    n = min(len(meta) // 5, len(mask) // AREA, len(feats) // (TRUNK_CHANNELS * AREA))
    meta = meta[: n * 5].reshape(n, 5)
    mask = mask[: n * AREA].reshape(n, SIDE, SIDE)
    # The head can only name points of the region; the exact solver's best move is sometimes outside it
    # (a capture at a last liberty outside), and such an example is dropped.
    point = meta[:, 1] % AREA
    keep = (meta[:, 1] == NO_MOVE) | (mask.reshape(n, AREA)[np.arange(n), point] == 1)
    if not keep.all():
        print(f"{path}: {int((~keep).sum())} examples whose move is outside the region dropped", flush=True)
    feats = feats[: n * TRUNK_CHANNELS * AREA].reshape(n, TRUNK_CHANNELS, SIDE, SIDE)
    if keep.all():
        return {"features": feats, "mask": mask, "meta": meta}
    return {"features": feats[keep], "mask": mask[keep], "meta": meta[keep]}


def load_all(root):
    """Every `games-*` directory under `root`, concatenated."""
    parts = [load_dir(os.path.join(root, d)) for d in sorted(os.listdir(root))
             if d.startswith("games-") and os.path.isdir(os.path.join(root, d))]
    return {k: np.concatenate([p[k] for p in parts]) for k in ("features", "mask", "meta")}


def held_out(meta):
    """Every tenth game is held out (all its snapshots and sequences)."""
    return meta[:, 0] % 10 == 0


def symmetric(features, mask, target, sym):
    """One of the 8 symmetries of the square applied to a batch: feature maps [n, C, 19, 19], masks
    [n, 1, 19, 19] and target indices [n] (the head's output layout)."""
    plane, point = target // AREA, target % AREA
    y, x = point // SIDE, point % SIDE
    if sym & 1:
        features, mask, y = features.flip(2), mask.flip(2), SIDE - 1 - y
    if sym & 2:
        features, mask, x = features.flip(3), mask.flip(3), SIDE - 1 - x
    if sym & 4:
        features, mask, (y, x) = features.transpose(2, 3), mask.transpose(2, 3), (x, y)
    moved = plane * AREA + y * SIDE + x
    return features.contiguous(), mask.contiguous(), torch.where(target == NO_MOVE, target, moved)


def info(root):
    """The summed info.json of the `games-*` directories (games, moves, examples, seconds)."""
    total = {"games": 0, "moves": 0, "examples": 0, "seconds": 0.0, "dirs": 0, "solver_samples": 0,
             "solver_positions": 0}
    for d in sorted(os.listdir(root)):
        path = os.path.join(root, d, "info.json")
        if d.startswith("games-") and os.path.exists(path):
            i = json.load(open(path))
            for k in ("games", "moves", "examples", "seconds", "solver_samples", "solver_positions"):
                total[k] += i.get(k, 0)
            total["dirs"] += 1
            total["stopped"] = total.get("stopped", 0) + int("stopped" in i)
            total["model"] = i["model"]
    # The exact solver's own run (examples/endgame_training_data.rs): its positions and time.
    solver = os.path.join(root, "solver", "info.json")
    if os.path.exists(solver):
        i = json.load(open(solver))
        total["solver_positions"] = i.get("positions", 0)
        total["seconds"] += i.get("seconds", 0.0)
    return total
