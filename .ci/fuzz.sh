#!/usr/bin/env bash
# Runs every fuzz target for SECONDS (default 600) with seed corpora from ../shared/data.
# Needs cargo-fuzz (`cargo install cargo-fuzz`); on a stable toolchain RUSTC_BOOTSTRAP=1 lets it pass
# libFuzzer's flags. Findings land in .ci/fuzz/artifacts/<target>/. Usage: .ci/fuzz.sh [SECONDS] [TARGET...]
# (targets: .ci/fuzz/Cargo.toml; properties: .ci/fuzz/checks.rs; figures: docs/reliability.md)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(sgf records_text book_store book_log book_header katabook model problem session config katago_json gtp engine_lines)
shared=../shared/data
seed() { # seed <target> <files...>
  local dir=.ci/fuzz/corpus/$1; shift
  mkdir -p "$dir"
  for f in "$@"; do [ -f "$f" ] && cp -n "$f" "$dir/$(basename "$f")" 2>/dev/null || true; done
}
# Small files kept beside the targets (.ci/fuzz/seeds/TARGET), then the shared data for each format.
for d in .ci/fuzz/seeds/*/; do seed "$(basename "$d")" "$d"*; done
seed sgf "$shared"/games/9x9/*.sgf "$shared"/games/other_small/*.sgf
seed problem "$shared"/endgame-dev/*/*.sgf
seed katabook "$shared"/katabook/*.katabook
mkdir -p .ci/fuzz/corpus/records_text
printf '{ 0 1.5 3 { +E5 1.5 3 { -C3 0.5 2 } } }' > .ci/fuzz/corpus/records_text/mcst
printf '{"size":"9x9","moves":"E5 C5","winrates":{"4.5":0.8,"5.5":0.35}}' > .ci/fuzz/corpus/records_text/posdb
export RUSTC_BOOTSTRAP=1
# FUZZ_FLAGS adds libFuzzer flags, e.g. `-fork=1 -ignore_crashes=1` to keep going past findings.
# The whole output of each run is kept in .ci/fuzz/artifacts/TARGET.log.
for t in "${targets[@]}"; do
  echo "== $t for ${seconds}s"
  mkdir -p .ci/fuzz/artifacts
  run=(cargo fuzz run --fuzz-dir .ci/fuzz -s none "$t" ".ci/fuzz/corpus/$t" --)
  # FUZZ_NO_BUILD=1 runs the binary `cargo fuzz build` made last, so that editing the sources while
  # fuzzers run does not rebuild (and, on a small machine, stall) the next one.
  if [ "${FUZZ_NO_BUILD:-0}" = 1 ]; then
    mkdir -p ".ci/fuzz/artifacts/$t"
    run=(".ci/fuzz/target/x86_64-unknown-linux-gnu/release/$t" ".ci/fuzz/corpus/$t"
      -artifact_prefix=".ci/fuzz/artifacts/$t/")
  fi
  # shellcheck disable=SC2086
  "${run[@]}" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
    ${FUZZ_FLAGS:-} 2>&1 | tee ".ci/fuzz/artifacts/$t.log" | tail -n 15
done
