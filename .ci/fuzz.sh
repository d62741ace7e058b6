#!/usr/bin/env bash
# Runs every fuzz target for SECONDS (default 600) with seed corpora from ../shared/data.
# Needs cargo-fuzz (`cargo install cargo-fuzz`); on a stable toolchain RUSTC_BOOTSTRAP=1 lets it pass
# libFuzzer's flags. Findings land in .ci/fuzz/artifacts/<target>/. Usage: .ci/fuzz.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(sgf records_text)
shared=../shared/data
seed() { # seed <target> <files...>
  local dir=.ci/fuzz/corpus/$1; shift
  mkdir -p "$dir"
  for f in "$@"; do cp -n "$f" "$dir/$(basename "$f")" 2>/dev/null || true; done
}
seed sgf "$shared"/games/9x9/*.sgf "$shared"/games/other_small/*.sgf
mkdir -p .ci/fuzz/corpus/records_text
printf '{ 0 1.5 3 { +E5 1.5 3 { -C3 0.5 2 } } }' > .ci/fuzz/corpus/records_text/mcst
printf '{"size":"9x9","moves":"E5 C5","winrates":{"4.5":0.8,"5.5":0.35}}' > .ci/fuzz/corpus/records_text/posdb
export RUSTC_BOOTSTRAP=1
for t in "${targets[@]}"; do
  echo "== $t for ${seconds}s"
  cargo fuzz run --fuzz-dir .ci/fuzz -s none "$t" ".ci/fuzz/corpus/$t" -- \
    -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 2>&1 | tail -n 15
done
