#!/usr/bin/env bash
# Builds OpenResty's lua-cjson 2.1.0.17 from ../shared/vendor/lua-cjson
# (the cjson OpenResty, Kong and APISIX ship) with its own Makefile and
# flags, against the LuaJIT headers in use, into .deps/lua-cjson/ (the
# vendor tree is read-only: make runs there with VPATH pointing at it).
# With an argument 5.1 .. 5.4: for that PUC Lua instead (Debian's
# /usr/include/lua5.X headers), into .deps/lua-cjson-5.X/.
# Prints the directory holding cjson.so. Idempotent: rebuilt only when a
# source is newer than the library.
#
# Exit status 2 (and a message on stderr) when ../shared is absent, so
# callers can skip visibly.
set -euo pipefail
cd "$(dirname "$0")/.."
src=$(cd .. && pwd)/shared/vendor/lua-cjson
out=$PWD/.deps/lua-cjson
puc=${1:-}
if [ -n "$puc" ]; then
  out=$PWD/.deps/lua-cjson-$puc
  LUA_INCLUDE_DIR=/usr/include/lua$puc
fi
if [ ! -f "$src/lua_cjson.c" ]; then
  echo "lua-cjson: $src not found: OpenResty's lua-cjson not built" >&2
  exit 2
fi
inc=${LUA_INCLUDE_DIR:-$(pkg-config --variable=includedir luajit 2>/dev/null)/luajit-2.1}
[ -f "$inc/lua.h" ] || inc=/usr/include/luajit-2.1
mkdir -p "$out"
exec 9>"$out/.lock"
flock 9
stale=0
[ -f "$out/cjson.so" ] || stale=1
for f in "$src"/*.c "$src"/*.h "$src/Makefile"; do
  [ "$f" -nt "$out/cjson.so" ] && stale=1
done
if ((stale)); then
  make -s -C "$out" -f "$src/Makefile" VPATH="$src" LUA_INCLUDE_DIR="$inc" >"$out/build.log" 2>&1 || {
    echo "lua-cjson: build failed (log: $out/build.log)" >&2
    tail -n 20 "$out/build.log" >&2
    exit 1
  }
fi
echo "$out"
