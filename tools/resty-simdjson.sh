#!/usr/bin/env bash
# Builds Kong's lua-resty-simdjson (simdjson's On-Demand parser behind a
# C++ FFI shim) from ../shared/vendor/lua-resty-simdjson into
# .deps/resty-simdjson/libsimdjson_ffi.so, as the vendor's BUILD.md says
# (Kong's Makefile's flags without -ggdb; the vendor tree is read-only, so
# the objects go to .deps/). The Lua part stays in the vendor's lib/.
# Prints two lines: the directory holding libsimdjson_ffi.so, then the
# vendor's lib/ (for LUA_CPATH and LUA_PATH). Idempotent: rebuilt only when
# a source is newer than the library.
#
# Exit status 2 (and a message on stderr) when ../shared is absent, so
# callers can skip visibly; 1 when there is no C++ compiler or the build
# fails.
set -euo pipefail
cd "$(dirname "$0")/.."
src=$(cd .. && pwd)/shared/vendor/lua-resty-simdjson
out=$PWD/.deps/resty-simdjson
if [ ! -f "$src/src/simdjson_ffi.cpp" ]; then
  echo "resty-simdjson: $src not found: lua-resty-simdjson not built" >&2
  exit 2
fi
cxx=${CXX:-c++}
if ! command -v "$cxx" >/dev/null 2>&1; then
  echo "resty-simdjson: no C++ compiler ($cxx; Debian: apt-get install g++, which tools/deps.sh installs)" >&2
  exit 1
fi
mkdir -p "$out"
exec 9>"$out/.lock"
flock 9
lib=$out/libsimdjson_ffi.so
stale=0
[ -f "$lib" ] || stale=1
for f in "$src"/src/*.cpp "$src"/src/*.h; do
  [ "$f" -nt "$lib" ] && stale=1
done
if ((stale)); then
  flags=(-O3 -DNDEBUG -fPIC)
  rm -f "$out/simdjson.o" "$out/simdjson_ffi.o"
  # The two objects side by side (about 15 s for simdjson.cpp alone).
  # (Every step's status is checked: set -e does not apply left of ||.)
  {
    "$cxx" "${flags[@]}" -c "$src/src/simdjson.cpp" -o "$out/simdjson.o" &
    pid=$!
    "$cxx" "${flags[@]}" -c "$src/src/simdjson_ffi.cpp" -o "$out/simdjson_ffi.o" &&
      wait "$pid" &&
      "$cxx" "${flags[@]}" -shared -o "$lib.tmp" "$out/simdjson.o" "$out/simdjson_ffi.o" &&
      mv "$lib.tmp" "$lib"
  } >"$out/build.log" 2>&1 || {
    wait
    echo "resty-simdjson: build failed (log: $out/build.log)" >&2
    tail -n 20 "$out/build.log" >&2
    exit 1
  }
fi
echo "$out"
echo "$src/lib"
