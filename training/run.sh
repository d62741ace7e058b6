#!/usr/bin/env bash
# One command from nothing to models/local-move.onnx: the environment, the data (tengen's exact solver on
# generated regions), training, export, the held-out check. See docs/local-move-network.md.
# Usage: training/run.sh [POSITIONS] [MINUTES]   (defaults: 3000 generated positions, 30 minutes of training)
set -euo pipefail
cd "$(dirname "$0")/.."
positions="${1:-3000}"
minutes="${2:-30}"
data=training/data
[ -x training/.venv/bin/python ] || training/setup.sh
mkdir -p "$data" models
cargo run --release --example endgame_training_data -- "$data" "$positions" 1
cd training
.venv/bin/python train.py data data/model.pt --blocks 4 --channels 32 --crop 9 --epochs 8 --minutes "$minutes"
.venv/bin/python export.py data/model.pt data ../models/local-move.onnx data/metrics.json
.venv/bin/python card.py data data/metrics.json ../models/local-move.onnx ../models/local-move.md
echo "wrote models/local-move.onnx and models/local-move.md"
