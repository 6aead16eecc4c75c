#!/usr/bin/env bash
# Runs every cargo-fuzz target for SECONDS each (default 60), seeding the
# corpora from ../shared/data when it is there (the seeds stay outside
# git: fuzz/corpus is ignored). Stops at the first crash, leaving the
# input in fuzz/artifacts/<target>/.
#   tools/fuzz.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
export PATH="$HOME/.cargo/bin:$PATH" RUSTC_BOOTSTRAP=1   # cargo-fuzz needs nightly flags
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked

shared=../shared/data
targets=(parse_differential ffi_sequence path_syntax)
for t in "${targets[@]}"; do mkdir -p "fuzz/corpus/$t"; done
if [ -d "$shared" ]; then
  cp -n "$shared"/JSONTestSuite/test_parsing/*.json "$shared"/corpus/*.json fuzz/corpus/parse_differential/
  for f in "$shared"/JSONTestSuite/test_parsing/y_*.json; do
    # ffi_sequence: a split byte, the document, then a call script.
    { printf '\200'; cat "$f"; printf '\000\000a\001\000\000[0]\010\001\000\000'; } > "fuzz/corpus/ffi_sequence/$(basename "$f")"
  done
else
  echo "fuzz: ../shared/data not found; starting from empty corpora" >&2
fi
printf 'a.b[0].c\n' > fuzz/corpus/path_syntax/dotted
printf '/a~1b/0/~0\n' > fuzz/corpus/path_syntax/pointer

(cd fuzz && cargo fuzz build -O)
total=0
for t in "${targets[@]}"; do
  log=$(mktemp)
  if ! (cd fuzz && cargo fuzz run -O "$t" "corpus/$t" -- -max_total_time="$seconds" -print_final_stats=1) >"$log" 2>&1; then
    grep -v '^"' "$log" | tail -40
    echo "fuzz: $t FAILED; the crashing input is in fuzz/artifacts/$t/" >&2
    exit 1
  fi
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
  total=$((total + runs))
  echo "fuzz: $t: $runs executions in ${seconds}s, no crash"
  rm -f "$log"
done
echo "fuzz: ${#targets[@]} passed, 0 failed ($total executions)"
