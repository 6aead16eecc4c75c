#!/usr/bin/env bash
# The HAProxy smoke test: Debian's haproxy (Lua 5.3) started on 127.0.0.1
# with qjson (target/lua/5.3/qjson.so, make puc) through lua-prepend-path
# and tools/haproxy/smoke.lua through lua-load; curl checks that a request
# is routed on its body's model, that the service's re-encoded body has
# the edited temperature, and that a bad body gets a 400 with qjson's
# positioned message. haproxy is stopped by its pid. Without haproxy or
# lua5.3's module: a failure, or a visible skip with QJSON_ALLOW_SKIP=1.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
if ! command -v haproxy >/dev/null 2>&1; then
  tools/skip.sh test-haproxy "haproxy is not installed (tools/deps.sh installs it)"
  exit $?
fi
lua_version=$(haproxy -vv 2>/dev/null | sed -n 's/^Built with Lua version : Lua \([0-9]\.[0-9]\).*/\1/p')
module=$root/target/lua/$lua_version/qjson.so
if [ ! -f "$module" ]; then
  echo "test-haproxy: $module not built (make puc)" >&2
  exit 1
fi
tmp=$(mktemp -d)
pid=
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT
# A free port on 127.0.0.1 (nothing answers a connection to it).
port=$((20000 + $$ % 20000))
while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
cat >"$tmp/haproxy.cfg" <<CFG
global
  lua-prepend-path $root/target/lua/$lua_version/?.so cpath
  lua-load $root/tools/haproxy/smoke.lua
defaults
  mode http
  timeout connect 2s
  timeout client 5s
  timeout server 5s
frontend fe
  bind 127.0.0.1:$port
  http-request wait-for-body time 2s
  http-request lua.qjson_route
  use_backend be_gpt if { var(txn.model) -m str gpt-4o }
  default_backend be_other
backend be_gpt
  http-request set-var(txn.backend) str(gpt)
  http-request use-service lua.qjson_edit
backend be_other
  http-request set-var(txn.backend) str(other)
  http-request use-service lua.qjson_edit
CFG
haproxy -c -q -f "$tmp/haproxy.cfg"
haproxy -db -f "$tmp/haproxy.cfg" >"$tmp/haproxy.log" 2>&1 &
pid=$!
for _ in $(seq 50); do
  curl -s -o /dev/null "http://127.0.0.1:$port/" && break
  sleep 0.1
done
fail=0
check() { # name, want, got
  if [ "$2" != "$3" ]; then
    echo "test-haproxy: FAIL: $1: want [$2], got [$3]"
    fail=1
  else
    echo "test-haproxy: ok: $1"
  fi
}
post() { # body -> "status|x-backend|body"
  curl -s -m 5 -D "$tmp/h" -o "$tmp/b" -H 'content-type: application/json' --data-binary "$1" "http://127.0.0.1:$port/v1/chat"
  printf '%s|%s|%s' "$(sed -n '1s/^HTTP\/[0-9.]* \([0-9]*\).*/\1/p' "$tmp/h")" \
    "$(sed -n 's/^x-backend: \(.*\)\r$/\1/ip' "$tmp/h")" "$(cat "$tmp/b")"
}
check "gpt-4o is routed to be_gpt, temperature edited" \
  '200|gpt|{"messages":[{"content":"hé","role":"user"}],"model":"gpt-4o","temperature":0.5}' \
  "$(post '{"model":"gpt-4o","temperature":0.9,"messages":[{"role":"user","content":"h\u00e9"}]}')"
check "another model goes to be_other" \
  '200|other|{"model":"llama","temperature":0.5}' "$(post '{"model":"llama","temperature":1}')"
check "a bad body gets a 400 with qjson's positioned message" \
  "400||qjson: expected a value, found ',' at line 1, column 23 (byte 22)" \
  "$(post '{"model":"x","a":[1,2,,3]}' | tr -d '\n')"
if ! kill -0 "$pid" 2>/dev/null; then
  echo "test-haproxy: FAIL: haproxy exited"
  fail=1
fi
if ((fail)); then
  echo "--- haproxy log"
  cat "$tmp/haproxy.log"
  exit 1
fi
echo "test-haproxy: passed (haproxy $(haproxy -v | sed -n '1s/HAProxy version \([^ ]*\).*/\1/p'), Lua $lua_version)"
