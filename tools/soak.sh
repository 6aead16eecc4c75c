#!/usr/bin/env bash
# make soak: Debian's nginx with one worker on 127.0.0.1 (its own prefix
# and configuration in a temporary directory, always stopped), the gateway
# handler of tools/soak/handler.lua, and wrk sending the body mix of
# tools/soak/wrk.lua: valid chat requests and every kind of invalid one.
#
# SOAK_REQUESTS (default 1,000,000) requests after SOAK_WARMUP (default
# 100,000), in ten rounds, the worker's RSS sampled after the warm-up and
# after each round. Fails unless: every response is the expected one (200
# for a valid body, 400 with qjson's positioned message of the right kind
# for an invalid one), no socket errors, the worker never restarted (same
# pid, no "exited on signal" in error.log, no error logged at all), RSS
# after the last round within SOAK_RSS_SLACK_KB (default 8192) of RSS
# after the warm-up, and no document alive once the worker's Lua state has
# been collected.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
here=$root/tools/soak
requests=${SOAK_REQUESTS:-1000000}
warmup=${SOAK_WARMUP:-100000}
slack=${SOAK_RSS_SLACK_KB:-8192}
rounds=10
threads=2
say() { echo "soak: $*"; }

. "$root/tools/lib.sh"
nginx_require soak wrk curl

tmp=$(mktemp -d /tmp/qjson-soak.XXXXXX)
trap 'nginx_stop "$tmp"' EXIT
trap 'exit 130' INT TERM
nginx_start "$tmp" "$here/nginx.conf" "$root"
worker=
for _ in $(seq 50); do
  worker=$(grep -o '[0-9]*' "/proc/$master/task/$master/children" 2>/dev/null | head -n 1 || true)
  [ -n "$worker" ] && break
  sleep 0.1
done
[ -n "$worker" ] || { say "no nginx worker found" >&2; exit 1; }
url=http://127.0.0.1:$port
say "nginx $(nginx -v 2>&1 | sed 's|.*/||') on 127.0.0.1:$port, master $master, worker $worker, prefix $tmp"

rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$worker/status"; }
failed=0
total=0
# Sends $1 requests; adds them to the total, fails the run on any wrong one.
load() {
  local out wrk_pid
  rm -rf "$tmp/done" && mkdir "$tmp/done"
  SOAK_THREADS=$threads SOAK_DONE_DIR="$tmp/done" wrk -t$threads -c$threads -d1h --timeout 30s \
    -s "$here/wrk.lua" "$url" -- "$1" >"$tmp/wrk.out" 2>&1 &
  wrk_pid=$!
  # wrk waits out its -d duration even when every thread has stopped: end
  # it (SIGINT: it still reports) once each thread has sent its share.
  while kill -0 "$wrk_pid" 2>/dev/null && [ "$(ls "$tmp/done" | wc -l)" -lt "$threads" ]; do sleep 0.2; done
  kill -INT "$wrk_pid" 2>/dev/null || true
  wait "$wrk_pid" || true
  out=$(cat "$tmp/wrk.out")
  local line
  line=$(grep '^SOAK ' <<<"$out" || true)
  if [ -z "$line" ]; then
    say "wrk gave no result:"; echo "$out" >&2
    failed=1
    return
  fi
  local n wrong errors
  n=$(sed 's/.* responses=\([0-9]*\).*/\1/' <<<"$line")
  wrong=$(sed 's/.* wrong=\([0-9]*\).*/\1/' <<<"$line")
  errors=$(sed 's/.* errors=\([0-9]*\).*/\1/' <<<"$line")
  total=$((total + n))
  if [ "$wrong" != 0 ] || [ "$errors" != 0 ]; then
    say "$line"
    grep -v '^SOAK ' <<<"$out" | grep '^  ' | head -20 >&2 || true
    failed=1
  fi
  last=$line
}

start=$(date +%s)
load "$warmup"
rss_warm=$(rss_kb)
say "warm-up: $total requests ($(sed 's/^SOAK //' <<<"$last")); worker RSS ${rss_warm} kB"
warm_total=$total
samples="$rss_warm"
for round in $(seq $rounds); do
  load $((requests / rounds))
  rss=$(rss_kb)
  samples="$samples $rss"
  say "round $round/$rounds: $((total - warm_total)) requests, worker RSS ${rss} kB"
done
elapsed=$(($(date +%s) - start))
stats=$(curl -s "$url/stats")

say "worker RSS after warm-up ${rss_warm} kB, after the soak ${rss} kB (samples: $samples)"
say "$total requests in ${elapsed}s; after a full collection: $stats"
now=$(grep -o '[0-9]*' "/proc/$master/task/$master/children" 2>/dev/null | head -n 1 || true)
if [ "$now" != "$worker" ]; then
  say "FAILED: the worker changed (pid $worker, now ${now:-none})"; failed=1
fi
if grep -E 'exited on signal|\[(error|crit|alert|emerg)\]' "$tmp/error.log" >&2; then
  say "FAILED: nginx logged the errors above"; failed=1
fi
if [ $((rss - rss_warm)) -gt "$slack" ]; then
  say "FAILED: the worker's RSS grew by $((rss - rss_warm)) kB after the warm-up (allowed: $slack kB)"; failed=1
fi
if ! grep -q '^live_documents 0 ' <<<"$stats"; then
  say "FAILED: documents still alive after a full collection: $stats"; failed=1
fi
if [ "$failed" != 0 ]; then
  say "FAILED"
  exit 1
fi
say "passed: $((total - warm_total)) requests after the warm-up, every answer as expected, worker $worker never restarted"
