#!/usr/bin/env bash
# `make test`: every leg of the gate, two at a time. Most legs are one
# busted, qemu or fuzzer process and the builds have long one-core phases
# (fat LTO, the PGO training), so two side by side keep both cores of the
# development machine busy. The shared builds are steps of their own that
# the legs needing them wait for: `build` (the profile-guided library) and
# `test-binaries` (the release-tests cargo test executables, whose
# compiled core the PUC modules' build reuses too). Each step's
# output goes to target/test-logs/<step>.log; a line says when each starts
# and ends, a failed step's log tail is printed, and a table of times
# closes the run. Every leg runs unless a step it needs failed; the run
# fails if anything failed.
#   tools/test.sh [LEG...]   (default: all, in the order below)
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
MAKE=${MAKE:-make}
jobs=${QJSON_TEST_JOBS:-2}
logs=target/test-logs

# Start order: the longest first among those ready, so that the short legs
# fill the other lane at the end. test-gc-on and test-gc-off are make
# test-gc's two halves.
all=(build test-aarch64 test-binaries fuzz-smoke test-puc test-gc-off test-gc-on test-lua test-backends test-rust
     bench-smoke test-openapi-api7 test-cjson-suite test-install)
declare -A needs=(
  [test-gc-off]=build [test-gc-on]=build [test-lua]=build [bench-smoke]=build [test-openapi-api7]=build
  [test-cjson-suite]=build [test-install]=build
  [test-backends]="build test-binaries" [test-rust]=test-binaries
  [test-puc]=test-binaries # (its modules' build reuses the compiled core)
)
# Order only: a step starts after these have ended, when they are among
# the steps run. cargo holds the target directory's lock while a run's
# tests run, so test-rust beside test-backends' cargo tests only waited.
declare -A after=([test-rust]=test-backends)
command_of() { # step -> its command
  case $1 in
    build) echo "$MAKE --no-print-directory build" ;;
    test-binaries) echo "cargo test --profile release-tests --workspace --no-run" ;;
    test-gc-on | test-gc-off) echo "$MAKE --no-print-directory test-gc GC_JIT=${1#test-gc-}" ;;
    *) echo "$MAKE --no-print-directory $1" ;;
  esac
}

steps=("$@")
if [ ${#steps[@]} -eq 0 ]; then
  steps=("${all[@]}")
else # the steps the named legs need come first
  for leg in "$@"; do
    for need in ${needs[$leg]:-}; do
      [[ " ${steps[*]} " == *" $need "* ]] || steps=("$need" "${steps[@]}")
    done
  done
fi

start=$(date +%s)
stamp() { local t=$(($(date +%s) - start)); printf '[%3d:%02d]' $((t / 60)) $((t % 60)); }
# The Debian packages first, alone (apt allows one installer at a time).
echo "$(stamp) make test: tools/deps.sh --bench, then ${#steps[@]} steps, $jobs at a time, logs in $logs/"
tools/deps.sh --bench || exit 1  # (--bench: nginx and wrk, which test-openapi-api7 needs)
mkdir -p "$logs"

declare -A pid_step=() began=() took=() status=()
pending=("${steps[@]}")
# A step is ready when every step it needs passed (each is among the
# steps: added above) and every step it comes after, if run, ended;
# "blocked" when one it needs failed.
readiness() {
  local need
  for need in ${needs[$1]:-}; do
    case ${status[$need]:-} in
      passed) ;;
      FAILED | blocked) echo blocked; return ;;
      *) echo waiting; return ;;
    esac
  done
  for need in ${after[$1]:-}; do
    [[ " ${steps[*]} " == *" $need "* ]] && [ -z "${status[$need]:-}" ] && { echo waiting; return; }
  done
  echo ready
}
start_ready() {
  local i step
  for i in "${!pending[@]}"; do
    [ ${#pid_step[@]} -lt "$jobs" ] || return
    step=${pending[$i]}
    case $(readiness "$step") in
      waiting) continue ;;
      blocked)
        status[$step]=blocked took[$step]=0
        echo "$(stamp) $step: not run (a step it needs failed)" ;;
      ready)
        echo "$(stamp) $step: started"
        began[$step]=$(date +%s)
        # shellcheck disable=SC2046
        $(command_of "$step") >"$logs/$step.log" 2>&1 &
        pid_step[$!]=$step ;;
    esac
    unset "pending[$i]"
  done
}
finish_one() {
  local pid rc step
  wait -n -p pid
  rc=$?
  step=${pid_step[$pid]}
  unset "pid_step[$pid]"
  took[$step]=$(($(date +%s) - ${began[$step]}))
  if [ "$rc" = 0 ]; then
    status[$step]=passed
    echo "$(stamp) $step: passed in ${took[$step]} s"
  else
    status[$step]=FAILED
    echo "$(stamp) $step: FAILED (exit $rc) after ${took[$step]} s; the end of $logs/$step.log:"
    tail -n 60 "$logs/$step.log" | sed 's/^/  | /'
  fi
}

start_ready
while [ ${#pid_step[@]} -gt 0 ]; do
  finish_one
  start_ready
done

failed=0
echo "make test: each step's time ($jobs ran at a time)"
for step in "${steps[@]}"; do
  printf '  %-18s %-7s %5d s\n' "$step" "${status[$step]}" "${took[$step]}"
  [ "${status[$step]}" = passed ] || failed=$((failed + 1))
done
total=$(($(date +%s) - start))
echo "make test: $((${#steps[@]} - failed)) of ${#steps[@]} steps passed in $((total / 60)) min $((total % 60)) s"
[ "$failed" = 0 ]
