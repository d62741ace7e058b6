"""Exports a checkpoint of train.py to ONNX (the head of docs/local-move-network.md), checks that ONNX
Runtime reproduces torch, writes the fixture of the Rust parity test, and measures the exported head on
held-out examples. The held-out games (every tenth) are split in two: one half sets the offset of the
"no move" logit (`calibrate`), the other is measured.

Usage: export.py CHECKPOINT DATA_DIR HEAD.onnx METRICS.json FIXTURE.json
"""

import json
import os
import sys
import time

import numpy as np
import onnx
import onnxruntime as ort
import torch

from model import AREA, NO_MOVE, LocalMoveHead, held_out, info, load_all

OPSET = 17


def export(model, path, trunk):
    features, mask = torch.zeros(1, 96, 19, 19), torch.zeros(1, 1, 19, 19)
    torch.onnx.export(
        model, (features, mask), path, dynamo=False, opset_version=OPSET,
        input_names=["features", "mask"], output_names=["logits"],
        dynamic_axes={"features": {0: "batch", 2: "height", 3: "width"},
                      "mask": {0: "batch", 2: "height", 3: "width"},
                      "logits": {0: "batch", 1: "moves"}},
    )
    proto = onnx.load(path)
    entry = proto.metadata_props.add()
    entry.key, entry.value = "trunk", trunk
    onnx.checker.check_model(proto)
    onnx.save(proto, path)


def fixture(model, session, data, index, path, side=7):
    """A window of one held-out example (the head is convolutional, so any window is an input): the
    features as float16 values, the mask, and torch's logits, for the Rust parity test."""
    mask = data["mask"][index]
    ys, xs = np.nonzero(mask)
    y0 = int(np.clip(ys.min(), 0, 19 - side))
    x0 = int(np.clip(xs.min(), 0, 19 - side))
    f = data["features"][index, :, y0:y0 + side, x0:x0 + side].astype(np.float32)[None]
    m = mask[y0:y0 + side, x0:x0 + side].astype(np.float32)[None, None]
    with torch.no_grad():
        want = model(torch.from_numpy(f), torch.from_numpy(m)).numpy()[0]
    got = session.run(["logits"], {"features": f, "mask": m})[0][0]
    err = np.abs(got - want)[np.concatenate([m.ravel(), m.ravel(), [1.0]]) > 0].max()
    print(f"{side}x{side} window: max |onnxruntime - torch| = {err:.2e}")
    assert err < 1e-3, err
    with open(path, "w") as out:
        json.dump({"channels": 96, "height": side, "width": side,
                   "features": [float(v) for v in f.ravel()],
                   "mask": [float(v) for v in m.ravel()],
                   "logits": [float(v) for v in want.ravel()]}, out)


def head_logits(model, data, idx, batch=256):
    with torch.no_grad():
        return np.concatenate([model(
            torch.from_numpy(data["features"][idx[i:i + batch]].astype(np.float32)),
            torch.from_numpy(data["mask"][idx[i:i + batch]].astype(np.float32)[:, None])).numpy()
            for i in range(0, len(idx), batch)])


def calibrate(model, data, idx, threshold=0.3):
    """The offset to the "no move" logit that best separates, at the tree builder's leaf threshold (30%),
    examples whose target is "no move" from those where a move followed (the largest true-leaf rate minus
    false-leaf rate), on the calibration half of the held-out games. Baked into the head's bias."""
    logits = head_logits(model, data, idx)
    none = data["meta"][idx, 1] == NO_MOVE
    best, best_score = 0.0, -1.0
    for offset in np.arange(-4.0, 4.01, 0.1):
        z = logits.copy()
        z[:, NO_MOVE] += offset
        z -= z.max(axis=1, keepdims=True)
        p = np.exp(z[:, NO_MOVE]) / np.exp(z).sum(axis=1)
        leaf = p > threshold
        score = leaf[none].mean() - leaf[~none].mean()
        if score > best_score + 1e-9:
            best, best_score = float(offset), float(score)
    with torch.no_grad():
        model.no_move_out.bias += best
    print(f'"no move" offset {best:+.1f} (true leaves minus false leaves at 30%: {best_score:.3f})')
    return best


def evaluate(session, data, idx, batch=256):
    started = time.time()
    logits = []
    for i in range(0, len(idx), batch):
        j = idx[i:i + batch]
        logits.append(session.run(["logits"], {
            "features": data["features"][j].astype(np.float32),
            "mask": data["mask"][j].astype(np.float32)[:, None]})[0])
    logits = np.concatenate(logits)
    seconds = time.time() - started
    target = data["meta"][idx, 1]
    z = logits - logits.max(axis=1, keepdims=True)
    p = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    order = np.argsort(-logits, axis=1)[:, :3]
    top1 = order[:, 0] == target
    top3 = (order == target[:, None]).any(axis=1)
    groups = {"white": target < AREA, "black": (target >= AREA) & (target < NO_MOVE),
              "no_move": target == NO_MOVE}
    out = {"examples": int(len(idx)), "eval_seconds": round(seconds, 1)}
    for name, sel in groups.items():
        out[f"{name}_examples"] = int(sel.sum())
        out[f"{name}_top1"] = float(top1[sel].mean())
        out[f"{name}_top3"] = float(top3[sel].mean())
    moves = target != NO_MOVE
    out["move_top1"] = float(top1[moves].mean())
    out["move_top3"] = float(top3[moves].mean())
    # The colour the network prefers (its total move mass) against the colour that played.
    white_mass = p[:, :AREA].sum(axis=1)
    black_mass = p[:, AREA:NO_MOVE].sum(axis=1)
    said_black = black_mass > white_mass
    out["colour_right"] = float((said_black == (target >= AREA))[moves].mean())
    # The tree builder's leaf rule ("no move" above a threshold) on finished and on played positions.
    for t in (0.2, 0.3, 0.4, 0.5):
        leaf = p[:, NO_MOVE] > t
        out[f"leaf_above_{int(t * 100)}_when_no_move"] = float(leaf[~moves].mean())
        out[f"leaf_above_{int(t * 100)}_when_a_move_followed"] = float(leaf[moves].mean())
    return out


def main():
    checkpoint, data_dir, out, metrics_path, fixture_path = sys.argv[1:6]
    saved = torch.load(checkpoint, weights_only=False)
    model = LocalMoveHead(saved["blocks"], saved["channels"])
    model.load_state_dict(saved["model"])
    model.eval()
    meta = info(data_dir)
    data = load_all(data_dir)
    # Held-out games: ids ending in 0 calibrate the "no move" logit, ids ending in 10 measure.
    held = np.flatnonzero(held_out(data["meta"]))
    calibration = held[data["meta"][held, 0] % 20 == 0]
    idx = held[data["meta"][held, 0] % 20 == 10]
    offset = calibrate(model, data, calibration)
    # The head being replaced, measured on the same examples before it is overwritten (its own held-out
    # games are the same rule's, so none of these trained it when the seeds are the same).
    previous = None
    if os.path.exists(out):
        old = ort.InferenceSession(out, providers=["CPUExecutionProvider"])
        previous = evaluate(old, data, idx)
    export(model, out, meta["model"])
    session = ort.InferenceSession(out, providers=["CPUExecutionProvider"])
    fixture(model, session, data, int(idx[0]), fixture_path)
    result = evaluate(session, data, idx)
    result.update({
        "no_move_offset": offset, "calibration_examples": int(len(calibration)),
        "blocks": saved["blocks"], "channels": saved["channels"], "params": saved["params"],
        "train_seconds": saved["train_seconds"], "train_examples": saved["train_examples"],
        "held_out_examples": saved["held_out_examples"], "args": saved["args"], "log": saved["log"],
        "opset": OPSET, "steps": saved["steps"], "data": meta, "previous": previous,
    })
    with open(metrics_path, "w") as f:
        json.dump(result, f, indent=2)
    print(json.dumps({k: v for k, v in result.items() if k not in ("log", "previous")}, indent=2))
    if previous:
        print("the replaced head on the same examples:", json.dumps(
            {k: v for k, v in previous.items() if "top" in k}))


if __name__ == "__main__":
    main()
