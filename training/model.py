"""The local-move network and its input planes (the contract in docs/local-move-network.md)."""

import numpy as np
import torch
from torch import nn
import torch.nn.functional as F

HISTORY = 8
PLANES = 19
# Added to the move logits outside the region: those moves get no probability at any board size.
OUTSIDE = 1.0e4


def planes(boards, mask, to_move):
    """Input planes from the stored sample layout.

    boards: uint8 [n, 8, H, W] (0 empty, 1 Black, 2 White; index 0 = current position),
    mask: uint8 [n, H, W], to_move: uint8 [n] (0 Black, 1 White) -> float32 [n, 19, H, W].
    """
    n, _, h, w = boards.shape
    x = np.zeros((n, PLANES, h, w), dtype=np.float32)
    x[:, 0:16:2] = boards == 1
    x[:, 1:16:2] = boards == 2
    x[:, 16] = mask
    x[:, 17] = (to_move == 0)[:, None, None]
    x[:, 18] = 1.0
    return x


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


class LocalMoveNet(nn.Module):
    """A small residual tower; a 1x1 policy head (White's plane, then Black's) and a "no move" logit
    pooled over the region (mean and max), so that it does not depend on the board size."""

    def __init__(self, blocks=4, channels=32):
        super().__init__()
        self.stem = nn.Conv2d(PLANES, channels, 3, padding=1, bias=False)
        self.stem_bn = nn.BatchNorm2d(channels)
        self.blocks = nn.Sequential(*[Block(channels) for _ in range(blocks)])
        self.policy = nn.Conv2d(channels, 2, 1)
        self.pass_hidden = nn.Linear(2 * channels, channels)
        self.pass_out = nn.Linear(channels, 1)

    def forward(self, x):
        mask = x[:, 16:17]
        f = self.blocks(F.relu(self.stem_bn(self.stem(x))))
        moves = self.policy(f) + (mask - 1.0) * OUTSIDE
        moves = moves.flatten(1)
        area = mask.sum(dim=(2, 3)).clamp(min=1.0)
        mean = (f * mask).sum(dim=(2, 3)) / area
        peak = (f * mask).amax(dim=(2, 3))
        hidden = F.relu(self.pass_hidden(torch.cat([mean, peak], dim=1)))
        return torch.cat([moves, self.pass_out(hidden)], dim=1)
