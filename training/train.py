"""Trains the local-move network on the samples of examples/endgame_training_data.rs.

Usage: train.py DATA_DIR CHECKPOINT [--epochs E] [--blocks B] [--channels C] [--crop K] [--minutes M]

The regions sit at a corner or an edge, so each 19x19 sample is cut to the KxK window at that corner or
edge (the network is fully convolutional and its "no move" head pools over the region only, so it runs
on the whole board afterwards); that makes training several times cheaper on a CPU.
"""

import argparse
import json
import math
import time

import numpy as np
import torch
import torch.nn.functional as F

from model import LocalMoveNet, planes

SIDE = 19
AREA = SIDE * SIDE


def load(data_dir, split):
    part = lambda what: np.load(f"{data_dir}/{split}-{what}.npy")
    return {
        "boards": part("boards"),
        "mask": part("mask"),
        "to_move": part("to-move"),
        "index": part("target-index"),
        "prob": part("target-prob"),
    }


def crop(data, k):
    """Cuts every sample to the kxk window holding its region, flush with the edges the region touches.
    Returns the input planes and the dense targets [n, 2*k*k + 1]."""
    mask = data["mask"]
    n = len(mask)
    rows, cols = mask.any(axis=2), mask.any(axis=1)
    origin = []
    for has in (rows, cols):
        lo = has.argmax(axis=1)
        hi = SIDE - 1 - has[:, ::-1].argmax(axis=1)
        start = np.clip((lo + hi) // 2 - k // 2, 0, SIDE - k)
        start = np.where(hi == SIDE - 1, SIDE - k, start)
        origin.append(np.where(lo == 0, 0, start))
    oy, ox = origin
    ys = oy[:, None] + np.arange(k)
    xs = ox[:, None] + np.arange(k)
    i = np.arange(n)
    boards = data["boards"][i[:, None, None, None], np.arange(8)[None, :, None, None],
                            ys[:, None, :, None], xs[:, None, None, :]]
    cut = mask[i[:, None, None], ys[:, :, None], xs[:, None, :]]
    target = np.zeros((n, 2 * k * k + 1), dtype=np.float32)
    index, prob = data["index"].astype(np.int64), data["prob"]
    plane, point = np.divmod(np.maximum(index, 0), AREA)
    y, x = np.divmod(point, SIDE)
    dense = np.where(index == 2 * AREA, 2 * k * k,
                     plane * k * k + (y - oy[:, None]) * k + (x - ox[:, None]))
    used = index >= 0
    np.add.at(target, (np.broadcast_to(i[:, None], index.shape)[used], dense[used]), prob[used])
    return planes(boards, cut, data["to_move"]), target


def transform(x, target, k, sym):
    """Applies one of the 8 symmetries of the square to a batch of planes and its targets."""
    moves = target[:, :-1].reshape(-1, 2, k, k)
    if sym & 1:
        x, moves = x.flip(2), moves.flip(2)
    if sym & 2:
        x, moves = x.flip(3), moves.flip(3)
    if sym & 4:
        x, moves = x.transpose(2, 3), moves.transpose(2, 3)
    return x.contiguous(), torch.cat([moves.flatten(1), target[:, -1:]], dim=1)


def metrics(logits, target):
    """Top-1 local-move accuracy (argmax among the target's moves) on samples that have moves, and
    "no move" accuracy (argmax is "no move") on samples whose target is "no move"."""
    best = logits.argmax(dim=1)
    hit = target.gather(1, best[:, None])[:, 0] > 0
    no_move = target[:, -1] > 0.5
    move_acc = hit[~no_move].float().mean().item() if (~no_move).any() else float("nan")
    pass_acc = hit[no_move].float().mean().item() if no_move.any() else float("nan")
    return move_acc, pass_acc


def evaluate(model, x, target, batch=1024):
    model.eval()
    with torch.no_grad():
        logits = torch.cat([model(x[i:i + batch]) for i in range(0, len(x), batch)])
    loss = -(target * F.log_softmax(logits, dim=1)).sum(dim=1).mean().item()
    model.train()
    return (loss, *metrics(logits, target))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("data")
    ap.add_argument("checkpoint")
    ap.add_argument("--epochs", type=int, default=6)
    ap.add_argument("--blocks", type=int, default=4)
    ap.add_argument("--channels", type=int, default=32)
    ap.add_argument("--crop", type=int, default=9)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--minutes", type=float, default=15.0,
                    help="stop after this much training time (0: no limit, the run is then deterministic)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()

    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    torch.set_num_threads(args.threads)
    k = args.crop
    train_x, train_t = (torch.from_numpy(a) for a in crop(load(args.data, "train"), k))
    eval_x, eval_t = (torch.from_numpy(a) for a in crop(load(args.data, "eval"), k))
    print(f"train {len(train_x)} samples, eval {len(eval_x)}; crop {k}x{k}", flush=True)

    model = LocalMoveNet(args.blocks, args.channels)
    params = sum(p.numel() for p in model.parameters())
    print(f"{args.blocks} blocks x {args.channels} channels: {params} parameters", flush=True)
    steps = args.epochs * (len(train_x) // args.batch)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    started = time.time()
    step = 0
    log = []
    for epoch in range(args.epochs):
        order = torch.from_numpy(rng.permutation(len(train_x)))
        for b in range(len(train_x) // args.batch):
            idx = order[b * args.batch:(b + 1) * args.batch]
            # Warm up, then cosine decay over the run: by steps, or by time when the time limit comes first.
            progress = step / steps
            if args.minutes > 0:
                progress = max(progress, (time.time() - started) / (args.minutes * 60))
            lr = args.lr * min(1.0, progress / 0.05) * 0.5 * (1 + math.cos(math.pi * min(progress, 1.0)))
            for group in opt.param_groups:
                group["lr"] = max(lr, args.lr * 1e-3)
            x, t = transform(train_x[idx], train_t[idx], k, int(rng.integers(8)))
            loss = -(t * F.log_softmax(model(x), dim=1)).sum(dim=1).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            if step % 100 == 0:
                print(f"step {step}/{steps} loss {loss.item():.3f} {time.time() - started:.0f} s", flush=True)
            if args.minutes > 0 and time.time() - started > args.minutes * 60:
                break
        ev = evaluate(model, eval_x, eval_t)
        log.append({"epoch": epoch + 1, "seconds": round(time.time() - started),
                    "eval_loss": ev[0], "move_top1": ev[1], "no_move": ev[2]})
        print(json.dumps(log[-1]), flush=True)
        if args.minutes > 0 and time.time() - started > args.minutes * 60:
            print("time limit reached", flush=True)
            break
    torch.save({"model": model.state_dict(), "blocks": args.blocks, "channels": args.channels,
                "params": params, "args": vars(args), "log": log,
                "train_seconds": round(time.time() - started), "train_samples": len(train_x),
                "steps": step},
               args.checkpoint)


if __name__ == "__main__":
    main()
