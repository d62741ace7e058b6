"""Writes the model card (models/local-move.md) from export.py's metrics.json.

Usage: card.py METRICS.json HEAD.onnx CARD.md
"""

import json
import os
import sys


def pct(x):
    return f"{100 * x:.1f}%"


def main():
    metrics_path, model_path, card_path = sys.argv[1:4]
    m = json.load(open(metrics_path))
    d = m["data"]
    a = m["args"]
    kb = os.path.getsize(model_path) / 1024
    rows = "\n".join(
        f"| {name} | {m[f'{key}_examples']} | {pct(m[f'{key}_top1'])} | {pct(m[f'{key}_top3'])} |"
        for name, key in (("White's move", "white"), ("Black's move", "black"), ('"no move"', "no_move")))
    leaves = "\n".join(
        f"| {t}% | {pct(m[f'leaf_above_{t}_when_no_move'])} | {pct(m[f'leaf_above_{t}_when_a_move_followed'])} |"
        for t in (20, 30, 40, 50))
    epochs = "\n".join(
        f"| {e['epoch']} | {e['seconds']} | {e['eval_loss']:.3f} | {pct(e['move_top1'])} | {pct(e['no_move_top1'])} |"
        for e in m["log"])
    old = m.get("previous")
    replaced = (f"""

The head this one replaced, measured by the same script on the same examples: moves top-1
{pct(old["move_top1"])}, top-3 {pct(old["move_top3"])} (White's {pct(old["white_top1"])} / {pct(old["white_top3"])}, \
Black's {pct(old["black_top1"])} / {pct(old["black_top3"])}); "no move" top-1 {pct(old["no_move_top1"])}, \
top-3 {pct(old["no_move_top3"])}."""
                if old else "")
    stopped = (f"; {d['stopped']} worker(s) stopped early by the time limit, keeping every finished game"
               if d.get("stopped") else "")
    text = f"""# Model card: `local-move-head.onnx` on KataGo's b6c96 trunk

The local-move network of tengen's network-guided endgame trees: for a region of a position (and the local
moves that led to it), a probability for every White move, every Black move and "no move". It is KataGo's
g170 b6c96 trunk, imported from `{d["model"]}` (frozen, not retrained), and a small head trained on its
features. Contract, data and training: `docs/local-move-network.md`. Rebuilt by
`training/run.sh {d["games"] // 2} {d["solver_positions"]} {a["minutes"]:g}` (games per self-play worker, solved
positions, minutes of training).

## Network
- **Trunk**: KataGo's 6 blocks × 96 channels, the tip of its trunk (after the final norm and ReLU) as the
  feature map. Its input is KataGo's own encoding of the whole board with the local sequence as the game's
  history: the history planes show the local sequence's last five moves while the colours alternate back
  from the current position (KataGo's rule), and the player to move is the opponent of the last local mover
  (at the start of a sequence the head is asked with each colour and the answers averaged).
- **Head** ({m["params"]:,} parameters, ONNX opset {m["opset"]}, {kb:.0f} kB): the region mask joined to the
  trunk's features as a 97th channel (as in EndgameBot's public code), a 1×1 projection to {m["channels"]}
  channels, {m["blocks"]} residual block(s) of 3×3 convolutions, a 1×1 move head (White, Black) masked to the
  region, and a "no move" logit from the head's features pooled over the region (mean and max) and the
  trunk's features averaged over the board.

## Data
- **Self-play**: {d["games"]} games on 19x19 by the b6c96 raw policy ({d["moves"]:,} moves{stopped}), each sampled at
  temperature 1 for 30 moves and 0.6 after, a pass played when the policy gives it 25%; snapshots at 70%,
  78% and 86% of each game (±2%); KataGo's ownership at ±0.9 gives the undecided regions (2–60 points, grown
  by one point); later moves inside a region form its local sequence; each move is an example and the
  position after the last is a "no move" example.
- **Exact solver**: small walled corner and edge regions labelled by the exact solver
  (`examples/endgame_training_data.rs`), one of the best moves (or "no move") as the target
  ({d.get("solver_samples", 0):,} examples).
- **Examples**: {d["examples"]:,} in all, each stored once as trunk features (float16); the 8 symmetries are
  applied to the stored feature maps during training (KataGo trained its trunk under random symmetries, so
  its features are close to, not exactly, equivariant): {8 * d["examples"]:,} examples counting symmetries.
  Every tenth game (and the solver's own held-out tenth) is held out: {m["train_examples"]:,} training,
  {m["held_out_examples"]:,} held out.
- **Time**: {d["seconds"]:.0f} s of data generation (wall time summed over workers, one ONNX Runtime thread
  each, on a shared 2-core machine where the workers got 15–30% of a core each).

## Training
`train.py data data/model.pt --blocks {a["blocks"]} --channels {a["channels"]} --epochs {a["epochs"]} --minutes {a["minutes"]:g}`
(torch, CPU, {a["threads"]} threads, seed {a["seed"]}): cross-entropy to the move played (or "no move"), batch
{a["batch"]}, AdamW, warm-up then cosine decay from {a["lr"]}; {m["steps"]} steps in {m["train_seconds"]} s.

| epoch | seconds | held-out loss (at most 3,000 held-out examples) | move top-1 | "no move" top-1 |
|---|---|---|---|---|
{epochs}

## Threshold
The tree builder makes a node a leaf when "no move" is above 30%. `export.py` chose an offset of
{m["no_move_offset"]:+.1f} to the "no move" logit (baked into the head) on half of the held-out games
({m["calibration_examples"]:,} examples): the offset that best separates, at 30%, the examples whose target
is "no move" from those where a move followed. Nothing was tuned on the course's problems.

## Held-out accuracy
Measured by `training/export.py` with ONNX Runtime on the other half of the held-out games
({m["examples"]:,} examples; top-k over all 723 outputs):

| target | examples | top-1 | top-3 |
|---|---|---|---|
{rows}

All moves: top-1 {pct(m["move_top1"])}, top-3 {pct(m["move_top3"])}; the colour with more probability is the
colour that played in {pct(m["colour_right"])} of the move examples.{replaced}

"No move" above a threshold (the tree builder's leaf rule), on examples whose target is "no move" and on
those where a move followed:

| threshold | when "no move" | when a move followed |
|---|---|---|
{leaves}

## Limits
The self-play is KataGo's raw policy, not a search: its moves (the labels) are a weak player's, and its
games run long (passes come late). The sequences assign a game's later moves to regions by position only;
"no move" after the last local move says only that the game played elsewhere until it ended. How the
network does on the endgame problems is the endgame bench's business (`tengen endgame bench ... --method
net`), not this card's.
"""
    with open(card_path, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
