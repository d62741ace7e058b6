#!/usr/bin/env bash
# One command from nothing to models/local-move-head.onnx: the environment, the data (19x19 self-play by
# KataGo's b6c96 raw policy, regions from its ownership, trunk features stored; plus the exact solver's
# labelled small regions), training of the head, export, the held-out check and the model card.
# See docs/local-move-network.md.
# Usage: training/run.sh [GAMES_PER_WORKER] [SOLVER_POSITIONS] [MINUTES]
#   (defaults: 120 games in each of 2 workers, 600 solved positions, 25 minutes of training)
set -euo pipefail
cd "$(dirname "$0")/.."
games="${1:-120}"
positions="${2:-600}"
minutes="${3:-25}"
data=training/data
# A venv whose packages do not import (e.g. an interrupted setup) is made again.
training/.venv/bin/python -c 'import torch, onnx, onnxruntime' 2> /dev/null || training/setup.sh
# The examples load ONNX Runtime at run time: the training venv's own library unless one is set.
if [ -z "${ORT_DYLIB_PATH:-}" ]; then
  ORT_DYLIB_PATH="$(ls training/.venv/lib/python3*/site-packages/onnxruntime/capi/libonnxruntime.so.* | head -n1)"
  export ORT_DYLIB_PATH
fi
mkdir -p "$data" models
cargo build --release --example local_move_games --example endgame_training_data \
  --example local_move_solver_features
# A step whose output is there from an earlier run with the same arguments is kept (delete training/data
# to start over): two self-play workers with their own seeds (one ONNX Runtime thread each), then the
# exact solver's regions.
done_with() { grep -qs "\"$2\": $3," "$1/info.json"; }
for seed in 11 12; do
  done_with "$data/games-$seed" games "$games" && continue
  target/release/examples/local_move_games "$data/games-$seed" "$games" "$seed" 20 \
    2> "$data/games-$seed.log" &
done
if ! { done_with "$data/solver" positions "$positions" && [ -f "$data/games-solver/info.json" ]; }; then
  target/release/examples/endgame_training_data "$data/solver" "$positions" 1
  target/release/examples/local_move_solver_features "$data/solver" "$data/games-solver" 1
fi
wait
cd training
.venv/bin/python train.py data data/model.pt --blocks 1 --channels 48 --epochs 10 --minutes "$minutes"
.venv/bin/python export.py data/model.pt data ../models/local-move-head.onnx data/metrics.json \
  ../tests/data/local-move-head-fixture.json
.venv/bin/python card.py data/metrics.json ../models/local-move-head.onnx ../models/local-move.md
echo "wrote models/local-move-head.onnx, models/local-move.md and tests/data/local-move-head-fixture.json"
