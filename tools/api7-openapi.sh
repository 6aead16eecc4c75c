#!/usr/bin/env bash
# Builds what api7's lua-resty-openapi-validator (the peer of qjson's
# OpenAPI validator, ../shared/vendor/lua-resty-openapi-validator) needs
# beyond its Lua sources, out of tree as the vendor's BUILD.md says:
# lua-resty-radixtree's librestyradixtree.so with radixtree's own Makefile
# (run in .deps/api7-openapi/radixtree/ with VPATH pointing at the
# read-only vendor tree), and OpenResty's lua-cjson (tools/lua-cjson.sh,
# into .deps/lua-cjson/). The Lua sources stay in ../shared/vendor; the
# nginx paths that load them are in bench/openapi/nginx.conf.
# Prints three lines: the directory holding librestyradixtree.so, the one
# holding cjson.so, and the vendor directory. Idempotent: rebuilt only
# when a source is newer than the library.
#
# Exit status 2 (and a message on stderr) when ../shared is absent, so
# callers can skip visibly; 1 when a build fails.
set -euo pipefail
cd "$(dirname "$0")/.."
vendor=$(cd .. && pwd)/shared/vendor
src=$vendor/lua-resty-radixtree
out=$PWD/.deps/api7-openapi/radixtree
for f in "$src/src/rax.c" "$vendor/lua-resty-openapi-validator/lib/resty/openapi_validator/init.lua"; do
  if [ ! -f "$f" ]; then
    echo "api7-openapi: $f not found: api7's OpenAPI validator not built" >&2
    exit 2
  fi
done
mkdir -p "$out/src"
exec 9>"$out/.lock"
flock 9
lib=$out/librestyradixtree.so
stale=0
[ -f "$lib" ] || stale=1
for f in "$src"/src/*.c "$src"/src/*.h "$src/Makefile"; do
  [ "$f" -nt "$lib" ] && stale=1
done
if ((stale)); then
  rm -f "$lib" "$out"/src/*.o
  make -C "$out" -f "$src/Makefile" VPATH="$src" compile >"$out/build.log" 2>&1 || {
    echo "api7-openapi: building librestyradixtree.so failed (log: $out/build.log)" >&2
    tail -n 20 "$out/build.log" >&2
    exit 1
  }
fi
cjson_dir=$(tools/lua-cjson.sh)
echo "$out"
echo "$cjson_dir"
echo "$vendor"
