"""Exports a checkpoint of train.py to ONNX (the contract of docs/local-move-network.md), checks that
ONNX Runtime reproduces torch on 19x19 and 9x9 inputs, and measures the exported model on the held-out
split at full 19x19 size.

Usage: export.py CHECKPOINT DATA_DIR MODEL.onnx METRICS.json
"""

import json
import sys
import time

import numpy as np
import onnx
import onnxruntime as ort
import torch

from model import LocalMoveNet, planes

OPSET = 17


def export(model, path):
    dummy = torch.zeros(1, 19, 19, 19)
    torch.onnx.export(
        model, (dummy,), path, dynamo=False, opset_version=OPSET,
        input_names=["input"], output_names=["logits"],
        dynamic_axes={"input": {0: "batch", 2: "height", 3: "width"}, "logits": {0: "batch", 1: "moves"}},
    )
    onnx.checker.check_model(onnx.load(path))


def check_parity(model, session):
    rng = np.random.default_rng(0)
    for n in (19, 9):
        stones = rng.integers(0, 3, size=(3, 8, n, n)).astype(np.uint8)
        mask = (rng.random((3, n, n)) < 0.2).astype(np.uint8)
        x = planes(stones, mask, np.array([0, 1, 0], dtype=np.uint8))
        with torch.no_grad():
            want = model(torch.from_numpy(x)).numpy()
        got = session.run(["logits"], {"input": x})[0]
        assert got.shape == (3, 2 * n * n + 1), got.shape
        # Compare inside the region and the "no move" logit (outside, both are about -1e4).
        inside = np.concatenate([mask.reshape(3, -1)] * 2 + [np.ones((3, 1), np.uint8)], axis=1) > 0
        err = np.abs(got - want)[inside].max()
        print(f"{n}x{n}: max |onnxruntime - torch| = {err:.2e}")
        assert err < 1e-3, err


def evaluate(session, data_dir, batch=512):
    part = lambda what: np.load(f"{data_dir}/eval-{what}.npy")
    boards, mask, to_move = part("boards"), part("mask"), part("to-move")
    index, prob = part("target-index"), part("target-prob")
    n = len(mask)
    started = time.time()
    logits = np.concatenate([
        session.run(["logits"], {"input": planes(boards[i:i + batch], mask[i:i + batch], to_move[i:i + batch])})[0]
        for i in range(0, n, batch)
    ])
    seconds = time.time() - started
    z = logits - logits.max(axis=1, keepdims=True)
    p = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    best = logits.argmax(axis=1)
    no_move = index[:, 0] == 2 * 361
    hit = np.array([best[i] in index[i][prob[i] > 0] for i in range(n)])
    # The tree builder's rule: "no move" above 30% makes a leaf.
    leaf = p[:, -1] > 0.3
    return {
        "samples": int(n),
        "move_samples": int((~no_move).sum()),
        "no_move_samples": int(no_move.sum()),
        "move_top1": float(hit[~no_move].mean()),
        "no_move_top1": float(hit[no_move].mean()),
        "no_move_above_30_percent_when_settled": float(leaf[no_move].mean()),
        "no_move_above_30_percent_when_hot": float(leaf[~no_move].mean()),
        "eval_seconds_19x19": round(seconds, 1),
    }


def main():
    checkpoint, data_dir, out, metrics_path = sys.argv[1:5]
    saved = torch.load(checkpoint, weights_only=False)
    model = LocalMoveNet(saved["blocks"], saved["channels"])
    model.load_state_dict(saved["model"])
    model.eval()
    export(model, out)
    session = ort.InferenceSession(out, providers=["CPUExecutionProvider"])
    check_parity(model, session)
    result = evaluate(session, data_dir)
    result.update({
        "blocks": saved["blocks"], "channels": saved["channels"], "params": saved["params"],
        "train_seconds": saved["train_seconds"], "train_samples": saved["train_samples"],
        "args": saved["args"], "log": saved["log"], "opset": OPSET, "steps": saved.get("steps"),
    })
    with open(metrics_path, "w") as f:
        json.dump(result, f, indent=2)
    print(json.dumps({k: v for k, v in result.items() if k != "log"}, indent=2))


if __name__ == "__main__":
    main()
