#!/usr/bin/env bash
# make bench-gateway: starts Debian's nginx (one worker, lua-nginx-module)
# on 127.0.0.1 with its own prefix and configuration in a temporary
# directory, runs bench/gateway/run.lua against it, and always stops it.
# Arguments are passed to run.lua (e.g. --quick).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
luajit=${LUAJIT:-luajit}

. "$root/tools/lib.sh"
nginx_require bench-gateway wrk

# The lua-cjson of the cjson handler, the baseline: OpenResty's 2.1.0.17
# built from ../shared/vendor/lua-cjson (tools/lua-cjson.sh), else an
# installed OpenResty's, else Debian's 2.1.0. Debian's also has a handler
# of its own (cjson_debian) when it is not the baseline.
debian_dir=/usr/lib/x86_64-linux-gnu/lua/5.1
if cjson_dir=$("$root/tools/lua-cjson.sh" 2>/dev/null); then
  cjson_which="OpenResty's lua-cjson 2.1.0.17, built from ../shared/vendor/lua-cjson"
elif [ -f /usr/local/openresty/lualib/cjson.so ]; then
  cjson_dir=/usr/local/openresty/lualib
  cjson_which="OpenResty's lua-cjson, installed (/usr/local/openresty/lualib/cjson.so)"
else
  cjson_dir=$debian_dir
  cjson_which="Debian's lua-cjson 2.1.0 (no OpenResty lua-cjson found)"
fi
echo "lua-cjson (the baseline): $cjson_which"

tmp=$(mktemp -d /tmp/qjson-gateway.XXXXXX)
trap 'nginx_stop "$tmp"' EXIT
trap 'exit 130' INT TERM
nginx_start "$tmp" "$here/nginx.conf" "$root" "s|@CJSON_DIR@|$cjson_dir|g"
echo "nginx $(nginx -v 2>&1 | sed 's|.*/||') on 127.0.0.1:$port, prefix $tmp, master pid $master"

# QJSON_GATEWAY_SCRIPT: another runner (make bench-gateway-schema).
QJSON_CJSON_DIR=$cjson_dir "$luajit" "${QJSON_GATEWAY_SCRIPT:-$here/run.lua}" --port="$port" --master="$master" \
  --prefix="$tmp" --cjson="$cjson_which" "$@"
