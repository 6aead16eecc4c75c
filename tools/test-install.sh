#!/usr/bin/env bash
# Checks the two ways a user loads qjson: from a built checkout with no
# environment variable (README), and after `luarocks make` into a fresh tree.
set -euo pipefail
cd "$(dirname "$0")/.."
LUAJIT=${LUAJIT:-luajit}
passed=0 failed=0
check() { # name, command...
  local name=$1; shift
  if out=$("$@" 2>&1); then passed=$((passed + 1)); echo "ok: $name"
  else failed=$((failed + 1)); echo "FAILED: $name"; echo "$out" | sed 's/^/  /'; fi
}

check "require from the checkout (README command)" env -u QJSON_LIB "$LUAJIT" -e \
  'package.path="lua/?.lua;lua/?/init.lua;"..package.path
   local q = require("qjson"); assert(q.parse([[{"a":[1]}]]):get_num("a[0]") == 1)'

# make build (tools/build.sh) must not fall back to a plain build unasked,
# nor leave the instrumented library (which writes profiles) in place.
check "make build was profile-guided (target/release/libqjson.build)" bash -c \
  "[ \"\${QJSON_PGO:-1}\" = 0 ] || grep -q '^profile-guided: ' target/release/libqjson.build"
check "the library is not the instrumented one" bash -c "! nm target/release/libqjson.so | grep -q __llvm_profile"

unlisted=$(find lua -name '*.lua' | while read -r f; do grep -q "\"$f\"" qjson-scm-1.rockspec || echo "$f"; done)
check "the rockspec installs every Lua module" test -z "$unlisted"
[ -z "$unlisted" ] || echo "  not in qjson-scm-1.rockspec: $unlisted"

tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
check "luarocks make installs the rock" luarocks make --tree "$tree" qjson-scm-1.rockspec
check "require from the installed rock (library found on package.cpath)" bash -c "cd / && env -u QJSON_LIB \
  LUA_PATH='$tree/share/lua/5.1/?.lua;$tree/share/lua/5.1/?/init.lua;;' \
  LUA_CPATH='$tree/lib/lua/5.1/?.so;;' \
  $LUAJIT -e 'local q = require(\"qjson\"); assert(q.parse(\"[true]\"):get_bool(\"[0]\") == true)'"
check "QJSON_LIB overrides the search and names itself when wrong" bash -c \
  "QJSON_LIB=/nonexistent/libqjson.so $LUAJIT -e 'package.path=\"lua/?.lua;lua/?/init.lua;\"..package.path
   local ok, err = pcall(require, \"qjson\"); assert(not ok and err:find(\"/nonexistent/libqjson.so\", 1, true), err)'"

echo "install: $passed passed, $failed failed"
[ "$failed" = 0 ]
