#!/usr/bin/env bash
# `make test`: every leg of the gate, two at a time. Most legs are one
# busted, qemu or fuzzer process, so on a 2-core machine two of them side
# by side take little longer than one; the shared builds (the library,
# the test binaries) are made first, once. Each leg's output goes to
# target/test-logs/<leg>.log; a line says when each starts and ends, a
# failed leg's log tail is printed, and a table of times closes the run.
# Every leg runs even when one fails; the run fails if any failed.
#   tools/test.sh [LEG...]   (default: all, longest first)
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
MAKE=${MAKE:-make}
jobs=${QJSON_TEST_JOBS:-2}
logs=target/test-logs

# Longest first, so that the short legs fill the other lane at the end.
# test-gc-on and test-gc-off are make test-gc's two halves.
all=(test-aarch64 test-gc-off test-gc-on fuzz-smoke test-backends test-rust test-puc test-lua bench-smoke test-cjson-suite test-install)
legs=("$@")
[ ${#legs[@]} -gt 0 ] || legs=("${all[@]}")

start=$(date +%s)
stamp() { printf '[%3d:%02d]' $(( ($(date +%s) - start) / 60 )) $(( ($(date +%s) - start) % 60 )); }

# Shared set-up, in the foreground: the Debian packages, the profile-guided
# library, and the release-tests test binaries that test-rust and
# test-backends run (built here so that the two legs do not wait on
# cargo's lock for one another's build).
echo "$(stamp) make test: set-up (tools/deps.sh, make build, cargo test --no-run)"
$MAKE --no-print-directory build || exit 1
cargo test --profile release-tests --workspace --no-run -q || exit 1
mkdir -p "$logs"

target_of() { # leg -> make arguments
  case $1 in
    test-gc-on) echo "test-gc GC_JIT=on" ;;
    test-gc-off) echo "test-gc GC_JIT=off" ;;
    *) echo "$1" ;;
  esac
}

declare -A pid_leg began took status
run_leg() {
  local leg=$1
  echo "$(stamp) $leg: started (log: $logs/$leg.log)"
  began[$leg]=$(date +%s)
  # shellcheck disable=SC2046
  $MAKE --no-print-directory $(target_of "$leg") >"$logs/$leg.log" 2>&1 &
  pid_leg[$!]=$leg
}
finish_one() {
  local pid rc leg
  wait -n -p pid; rc=$?
  leg=${pid_leg[$pid]}; unset "pid_leg[$pid]"
  took[$leg]=$(( $(date +%s) - ${began[$leg]} ))
  if [ "$rc" = 0 ]; then
    status[$leg]=passed
    echo "$(stamp) $leg: passed in ${took[$leg]} s"
  else
    status[$leg]=FAILED
    echo "$(stamp) $leg: FAILED (exit $rc) after ${took[$leg]} s; the end of $logs/$leg.log:"
    tail -n 60 "$logs/$leg.log" | sed 's/^/  | /'
  fi
}

for leg in "${legs[@]}"; do
  while [ ${#pid_leg[@]} -ge "$jobs" ]; do finish_one; done
  run_leg "$leg"
done
while [ ${#pid_leg[@]} -gt 0 ]; do finish_one; done

failed=0
echo "make test: each leg's time (two ran at a time)"
for leg in "${legs[@]}"; do
  printf '  %-18s %-7s %5d s\n' "$leg" "${status[$leg]}" "${took[$leg]}"
  [ "${status[$leg]}" = passed ] || failed=$((failed + 1))
done
echo "make test: $(( ${#legs[@]} - failed )) legs passed, $failed failed, in $(( ($(date +%s) - start) / 60 )) min $(( ($(date +%s) - start) % 60 )) s"
[ "$failed" = 0 ]
