#!/usr/bin/env bash
# make bench-gateway: starts Debian's nginx (one worker, lua-nginx-module)
# on 127.0.0.1 with its own prefix and configuration in a temporary
# directory, runs bench/gateway/run.lua against it, and always stops it.
# Arguments are passed to run.lua (e.g. --quick).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
luajit=${LUAJIT:-luajit}

for tool in nginx wrk; do
  command -v "$tool" >/dev/null || { echo "bench-gateway: $tool not found (tools/deps.sh --bench installs it)" >&2; exit 1; }
done
[ -f /usr/share/nginx/modules/ngx_http_lua_module.so ] ||
  { echo "bench-gateway: libnginx-mod-http-lua is not installed (tools/deps.sh --bench)" >&2; exit 1; }

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
stop() {
  if [ -s "$tmp/nginx.pid" ]; then
    pid=$(cat "$tmp/nginx.pid")
    kill -QUIT "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -rf "$tmp"
}
trap stop EXIT
trap 'exit 130' INT TERM

# A free port: nginx refuses to start on a taken one, so try a few.
mkdir -p "$tmp/body"
started=
for try in 1 2 3 4 5 6 7 8; do
  port=$((20000 + (RANDOM % 20000)))
  sed -e "s|@PREFIX@|$tmp|g" -e "s|@ROOT@|$root|g" -e "s|@PORT@|$port|g" -e "s|@CJSON_DIR@|$cjson_dir|g" \
    "$here/nginx.conf" > "$tmp/nginx.conf"
  if nginx -p "$tmp" -c "$tmp/nginx.conf" -e "$tmp/error.log" 2>"$tmp/start.log"; then
    started=1
    break
  fi
  grep -q "in use" "$tmp/start.log" || { cat "$tmp/start.log" >&2; exit 1; }
done
[ -n "$started" ] || { echo "bench-gateway: no free port found" >&2; exit 1; }
for _ in $(seq 50); do [ -s "$tmp/nginx.pid" ] && break; sleep 0.1; done
echo "nginx $(nginx -v 2>&1 | sed 's|.*/||') on 127.0.0.1:$port, prefix $tmp, master pid $(cat "$tmp/nginx.pid")"

# QJSON_GATEWAY_SCRIPT: another runner (make bench-gateway-schema).
QJSON_CJSON_DIR=$cjson_dir "$luajit" "${QJSON_GATEWAY_SCRIPT:-$here/run.lua}" --port="$port" --master="$(cat "$tmp/nginx.pid")" \
  --prefix="$tmp" --cjson="$cjson_which" "$@"
