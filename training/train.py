"""Trains the local-move head on the stored trunk features of examples/local_move_games.rs.

Usage: train.py DATA_DIR CHECKPOINT [--epochs E] [--blocks B] [--channels C] [--minutes M]

Every tenth game is held out. Each batch is turned by one of the 8 symmetries of the board: the stored
maps are KataGo's trunk features of the unturned position, turned afterwards; KataGo trained its trunk
under random symmetries, so its features are close to (not exactly) equivariant.
"""

import argparse
import json
import math
import time

import numpy as np
import torch
import torch.nn.functional as F

from model import LocalMoveHead, held_out, load_all, symmetric


def batch_tensors(data, idx):
    features = torch.from_numpy(data["features"][idx].astype(np.float32))
    mask = torch.from_numpy(data["mask"][idx].astype(np.float32))[:, None]
    target = torch.from_numpy(data["meta"][idx, 1].astype(np.int64))
    return features, mask, target


def evaluate(model, data, idx, batch=512):
    model.eval()
    losses, hits, no_move_hits, moves, no_moves = 0.0, 0, 0, 0, 0
    with torch.no_grad():
        for i in range(0, len(idx), batch):
            f, m, t = batch_tensors(data, idx[i:i + batch])
            logits = model(f, m)
            losses += F.cross_entropy(logits, t, reduction="sum").item()
            best = logits.argmax(dim=1)
            is_none = t == logits.shape[1] - 1
            hits += (best == t)[~is_none].sum().item()
            no_move_hits += (best == t)[is_none].sum().item()
            moves += (~is_none).sum().item()
            no_moves += is_none.sum().item()
    model.train()
    return losses / max(len(idx), 1), hits / max(moves, 1), no_move_hits / max(no_moves, 1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("data")
    ap.add_argument("checkpoint")
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--blocks", type=int, default=1)
    ap.add_argument("--channels", type=int, default=48)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--minutes", type=float, default=25.0,
                    help="stop after this much training time (0: no limit, the run is then deterministic)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()

    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    torch.set_num_threads(args.threads)
    data = load_all(args.data)
    held = held_out(data["meta"])
    train_idx, eval_idx = np.flatnonzero(~held), np.flatnonzero(held)
    # A fixed sample of the held-out examples for the per-epoch check (the full split is measured by export.py).
    check_idx = np.sort(rng.permutation(eval_idx)[:3000])
    print(f"train {len(train_idx)} examples, held out {len(eval_idx)}", flush=True)

    model = LocalMoveHead(args.blocks, args.channels)
    params = sum(p.numel() for p in model.parameters())
    print(f"head: {args.blocks} blocks x {args.channels} channels, {params} parameters", flush=True)
    per_epoch = len(train_idx) // args.batch
    steps = args.epochs * per_epoch
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    started = time.time()
    step = 0
    log = []
    for epoch in range(args.epochs):
        order = rng.permutation(train_idx)
        for b in range(per_epoch):
            idx = np.sort(order[b * args.batch:(b + 1) * args.batch])
            # Warm up, then cosine decay over the run: by steps, or by time when the time limit comes first.
            progress = step / steps
            if args.minutes > 0:
                progress = max(progress, (time.time() - started) / (args.minutes * 60))
            lr = args.lr * min(1.0, progress / 0.03) * 0.5 * (1 + math.cos(math.pi * min(progress, 1.0)))
            for group in opt.param_groups:
                group["lr"] = max(lr, args.lr * 1e-3)
            f, m, t = symmetric(*batch_tensors(data, idx), int(rng.integers(8)))
            loss = F.cross_entropy(model(f, m), t)
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            if step % 100 == 0:
                print(f"step {step}/{steps} loss {loss.item():.3f} {time.time() - started:.0f} s", flush=True)
            if args.minutes > 0 and time.time() - started > args.minutes * 60:
                break
        ev = evaluate(model, data, check_idx)
        log.append({"epoch": epoch + 1, "seconds": round(time.time() - started),
                    "eval_loss": ev[0], "move_top1": ev[1], "no_move_top1": ev[2]})
        print(json.dumps(log[-1]), flush=True)
        torch.save({"model": model.state_dict(), "blocks": args.blocks, "channels": args.channels,
                    "params": params, "args": vars(args), "log": log,
                    "train_seconds": round(time.time() - started), "train_examples": len(train_idx),
                    "held_out_examples": len(eval_idx), "steps": step},
                   args.checkpoint)
        if args.minutes > 0 and time.time() - started > args.minutes * 60:
            print("time limit reached", flush=True)
            break


if __name__ == "__main__":
    main()
