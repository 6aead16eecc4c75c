#!/usr/bin/env bash
# The HAProxy smoke test: Debian's haproxy (Lua 5.3) started on 127.0.0.1
# with qjson (target/lua/5.3/qjson.so, make puc) through lua-prepend-path
# and tools/haproxy/smoke.lua through lua-load; curl checks that a request
# is routed on its body's model, that the service's re-encoded body has
# the edited temperature, and that a bad body gets a 400 with qjson's
# positioned message; and on a second port the OpenAPI action
# (lua/haproxy/qjson_openapi.lua over tools/haproxy/openapi.json): a valid
# request reaches the service, an invalid one gets 400 with its problem
# document, an unknown path 404. haproxy is stopped by its pid. Without haproxy or
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
api_port=$((port + 1))
while (exec 3<>"/dev/tcp/127.0.0.1/$api_port") 2>/dev/null; do api_port=$((api_port + 1)); done
cat >"$tmp/haproxy.cfg" <<CFG
global
  lua-prepend-path $root/target/lua/$lua_version/?.so cpath
  lua-load $root/tools/haproxy/smoke.lua
  setenv QJSON_OPENAPI_SPEC $root/tools/haproxy/openapi.json
  lua-load $root/lua/haproxy/qjson_openapi.lua
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
frontend fe_openapi
  bind 127.0.0.1:$api_port
  option http-buffer-request
  http-request lua.qjson_openapi
  http-request return status 200 content-type text/plain lf-string "passed %[var(txn.openapi_operation)]"
CFG
haproxy -c -f "$tmp/haproxy.cfg" >"$tmp/check.log" 2>&1 || { cat "$tmp/check.log"; exit 1; }
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
api() { # method, path?query, body, curl args... -> "status|content-type|body"
  local method=$1 target=$2 body=$3
  shift 3
  curl -s -m 5 -D "$tmp/h" -o "$tmp/b" -X "$method" -H 'content-type: application/json' "$@" \
    --data-binary "$body" "http://127.0.0.1:$api_port$target"
  printf '%s|%s|%s' "$(sed -n '1s/^HTTP\/[0-9.]* \([0-9]*\).*/\1/p' "$tmp/h")" \
    "$(sed -n 's/^content-type: \(.*\)\r$/\1/ip' "$tmp/h")" "$(cat "$tmp/b")"
}
check "openapi: a valid request passes" '200|text/plain|passed updateUser' \
  "$(api POST '/users/42?limit=10' '{"name":"a","age":3}' -H 'x-request-id: r1')"
check "openapi: an invalid one gets 400 and its problem document" \
  '400|application/problem+json|{"type":"about:blank","title":"Bad Request","status":400,"detail":"the request does not conform to the API: 2 errors","errors":[{"in":"query","name":"limit","pointer":"","keyword_location":"/paths/~1users~1{userId}/post/parameters/1/schema/maximum","detail":"value is greater than the maximum of 100"},{"in":"body","name":"","pointer":"/age","keyword_location":"/paths/~1users~1{userId}/post/requestBody/content/application~1json/schema/properties/age/minimum","detail":"value is less than the minimum of 0","line":1,"column":19,"byte":18}]}' \
  "$(api POST '/users/42?limit=101' '{"name":"a","age":-1}' -H 'x-request-id: r1')"
check "openapi: a repeated header is read joined" '200|text/plain|passed updateUser' \
  "$(api POST '/users/42' '{"name":"a","age":3}' -H 'x-request-id: r1' -H 'x-request-id: r2')"
check "openapi: an unknown path gets 404" '404|application/problem+json|Not Found' \
  "$(api GET '/nope' '' | sed 's/{"type":"about:blank","title":"\([^"]*\)".*/\1/')"
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
