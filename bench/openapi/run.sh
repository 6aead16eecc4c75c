#!/usr/bin/env bash
# Starts Debian's nginx (one worker, lua-nginx-module) on 127.0.0.1 with
# bench/openapi/nginx.conf in a temporary prefix, api7's
# lua-resty-openapi-validator built beside it (tools/api7-openapi.sh),
# runs SCRIPT against it, and always stops it:
#
#   bench/openapi/run.sh SCRIPT [ARG...]
#
# SCRIPT is run with LuaJIT as `SCRIPT --port=P --prefix=DIR ARG...`:
# bench/openapi/run.lua (the loop: make bench, make bench-smoke with
# --smoke), bench/openapi/gateway.lua (wrk: make bench-gateway-openapi),
# spec/openapi_api7_diff.lua (the differential test).
#
# Without ../shared (api7's sources are vendored there): a message and
# exit status 2, which the Makefile's targets turn into a visible skip.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
luajit=${LUAJIT:-luajit}
script=$1
shift

. "$root/tools/lib.sh"
nginx_require openapi-bench wrk curl

rc=0
built=$("$root/tools/api7-openapi.sh") || rc=$?
if [ "$rc" = 2 ]; then
  echo "openapi-bench: SKIPPED: api7's lua-resty-openapi-validator is vendored in ../shared, which is absent" >&2
  exit 2
fi
[ "$rc" = 0 ] || exit "$rc"
{ read -r radixtree; read -r cjson_dir; read -r vendor; } <<<"$built"

tmp=$(mktemp -d /tmp/qjson-openapi.XXXXXX)
trap 'nginx_stop "$tmp"' EXIT
trap 'exit 130' INT TERM
nginx_start "$tmp" "$here/nginx.conf" "$root" "s|@VENDOR@|$vendor|g" "s|@RADIXTREE@|$radixtree|g" \
  "s|@CJSON_DIR@|$cjson_dir|g"
echo "nginx $(nginx -v 2>&1 | sed 's|.*/||') on 127.0.0.1:$port, prefix $tmp, master pid $master"

LUA_CPATH="$cjson_dir/?.so;;" "$luajit" "$script" --port="$port" --prefix="$tmp" "$@"
