#!/usr/bin/env bash
# Creates training/.venv with the pinned packages of training/requirements.txt.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
python3 -m venv "$here/.venv"
"$here/.venv/bin/pip" install --quiet --upgrade pip==25.3
"$here/.venv/bin/pip" install --quiet -r "$here/requirements.txt"
"$here/.venv/bin/python" -c 'import torch, onnx, onnxruntime as ort
print("torch", torch.__version__, "onnx", onnx.__version__, "onnxruntime", ort.__version__)'
