#!/usr/bin/env bash
# make bench-haproxy (issue 41, item 5): qjson in HAProxy against
# OpenResty's lua-cjson 2.1.0.17 and dkjson, three parts:
#  1. Debian's haproxy (Lua 5.3) on 127.0.0.1, one thread, started with a
#     configuration written here (bench/haproxy/handlers.lua's actions and
#     services) and stopped by its pid; bench/haproxy/run.lua checks the
#     handlers' answers and times them with wrk.
#  2. The seed blog's loop (bench/haproxy/loop.lua): encode and decode of
#     bench/workloads.lua's TINY, 500,000 times, on lua5.3 and lua5.4.
#  3. Decode and encode of twitter, citm_catalog and canada on lua5.3 and
#     lua5.4 (bench/puc/run.lua --only ...).
# --quick: a smoke run of a few seconds each. Needs make puc's modules.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
luajit=${LUAJIT:-luajit}
quick=
case "${1:-}" in
  --quick) quick=--quick ;;
  "") ;;
  *) echo "usage: bench/haproxy/run.sh [--quick]" >&2; exit 2 ;;
esac

for tool in haproxy wrk curl gnuplot lua5.3 lua5.4; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "bench-haproxy: $tool is not installed (tools/deps.sh --bench installs it)" >&2
    exit 1
  fi
done
lua_version=$(haproxy -vv 2>/dev/null | sed -n 's/^Built with Lua version : Lua \([0-9]\.[0-9]\).*/\1/p')
for v in "$lua_version" 5.3 5.4; do
  if [ ! -f "$root/target/lua/$v/qjson.so" ]; then
    echo "bench-haproxy: $root/target/lua/$v/qjson.so not built (make puc)" >&2
    exit 1
  fi
  "$root/tools/lua-cjson.sh" "$v" >/dev/null
done
cjson_dir=$root/.deps/lua-cjson-$lua_version
echo "bench-haproxy: load average at the start: $(cat /proc/loadavg)"

tmp=$(mktemp -d /tmp/qjson-haproxy.XXXXXX)
pid=
stop() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  pid=
}
trap 'stop; rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

# haproxy's one thread on CPU 0, wrk on CPU 1 (bench/gateway/driver.lua's
# rule), when there are two CPUs and taskset.
cpu_map=
if [ "$(nproc)" -ge 2 ] && command -v taskset >/dev/null 2>&1; then cpu_map="cpu-map 1/1 0"; fi
port=$((20000 + $$ % 20000))
while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
libs=(qjson cjson dkjson floor)
{
  cat <<CFG
global
  nbthread 1
  $cpu_map
  # A 1 MB body (and the 1 MB answer) in one buffer.
  tune.bufsize 2097152
  tune.lua.session-timeout 60s
  tune.lua.service-timeout 60s
  lua-prepend-path $root/target/lua/$lua_version/?.so cpath
  lua-prepend-path $cjson_dir/?.so cpath
  lua-load $here/handlers.lua
defaults
  mode http
  timeout connect 5s
  timeout client 60s
  timeout server 60s
frontend fe
  bind 127.0.0.1:$port
  http-request wait-for-body time 10s at-least 2m
  http-request use-service lua.versions if { path /versions }
CFG
  for lib in "${libs[@]}"; do
    echo "  http-request lua.route_$lib if { path /route/$lib }"
    echo "  http-request use-service lua.edit_$lib if { path /edit/$lib }"
  done
  cat <<CFG
  use_backend be_gpt if { var(txn.model) -m str gpt-4o }
  default_backend be_other
backend be_gpt
  http-request return status 200 content-type text/plain string gpt
backend be_other
  http-request return status 200 content-type text/plain string other
CFG
} >"$tmp/haproxy.cfg"
haproxy -c -q -f "$tmp/haproxy.cfg"
haproxy -db -f "$tmp/haproxy.cfg" >"$tmp/haproxy.log" 2>&1 &
pid=$!
for _ in $(seq 50); do
  curl -s -o /dev/null "http://127.0.0.1:$port/versions" && break
  sleep 0.1
done
echo "haproxy $(haproxy -v | sed -n '1s/HAProxy version \([^ ]*\).*/\1/p') on 127.0.0.1:$port, pid $pid, one thread"
if ! "$luajit" "$here/run.lua" --port="$port" --prefix="$tmp" $quick; then
  echo "--- haproxy log"
  cat "$tmp/haproxy.log"
  exit 1
fi
stop

# 2 and 3: the interpreters alone (haproxy stopped).
"$luajit" -e "package.path='$root/bench/?.lua;'..package.path; io.write(require('workloads').TINY)" >"$tmp/tiny.json"
for v in 5.3 5.4; do
  echo
  "lua$v" "$here/loop.lua" "$tmp/tiny.json" $quick
done
for v in 5.3 5.4; do
  echo
  "lua$v" "$root/bench/puc/run.lua" $quick \
    --only decode-twitter,decode-citm,decode-canada,encode-twitter,encode-citm,encode-canada
done
