#!/usr/bin/env bash
# Checks the ways a user loads qjson: from a built checkout with no
# environment variable (README), and after `luarocks make` into a fresh
# tree, by LuaJIT (the FFI binding) and by PUC Lua 5.4 (the native module).
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

tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
# LuaJIT: luarocks run by LuaJIT (as OpenResty's is), through a config of
# its own (Debian's luarocks for 5.1 runs lua5.1).
printf 'lua_interpreter = "luajit"\nvariables = { LUA_BINDIR = "%s" }\n' "$(dirname "$(command -v "$LUAJIT")")" >"$tree/luajit.lua"
check "luarocks make installs the rock (LuaJIT)" env LUAROCKS_CONFIG="$tree/luajit.lua" \
  luarocks --lua-version 5.1 make --tree "$tree/jit" qjson-scm-1.rockspec
missing=$(cd lua && find qjson -name '*.lua' | while read -r f; do [ -f "$tree/jit/share/lua/5.1/$f" ] || echo "$f"; done)
check "the rock installs every Lua module" test -z "$missing"
[ -z "$missing" ] || echo "  not installed: $missing"
check "require from the installed rock (library found on package.cpath)" bash -c "cd / && env -u QJSON_LIB \
  LUA_PATH='$tree/jit/share/lua/5.1/?.lua;$tree/jit/share/lua/5.1/?/init.lua;;' \
  LUA_CPATH='$tree/jit/lib/lua/5.1/?.so;;' \
  $LUAJIT -e 'local q = require(\"qjson\"); assert(q.parse(\"[true]\"):get_bool(\"[0]\") == true)'"

# PUC Lua 5.4: the native module, alone (no Lua file to shadow it). In the
# release-tests profile, which make test-puc builds: the install path is
# what is tested here, not the build profile.
if command -v lua5.4 >/dev/null; then
  check "luarocks make installs the rock (Lua 5.4)" env PUC_PROFILE=release-tests \
    luarocks --lua-version 5.4 make --tree "$tree/puc" qjson-scm-1.rockspec
  check "the Lua 5.4 rock is the native module alone" bash -c \
    "[ -f '$tree/puc/lib/lua/5.4/qjson.so' ] && [ ! -e '$tree/puc/share/lua/5.4/qjson' ]"
  check "require from the installed rock (Lua 5.4)" bash -c "cd / && LUA_PATH=';;' \
    LUA_CPATH='$tree/puc/lib/lua/5.4/?.so;;' lua5.4 -e 'local q = require(\"qjson\")
      assert(q.parse(\"[7]\"):get_num(\"[0]\") == 7 and math.type(q.decode(\"[7]\")[1]) == \"integer\")
      assert(require(\"qjson.cjson\").encode({1}) == \"[1]\")'"
else
  check "lua5.4 is installed (for the Lua 5.4 rock)" tools/skip.sh test-install "lua5.4 is not installed"
fi
check "QJSON_LIB overrides the search and names itself when wrong" bash -c \
  "QJSON_LIB=/nonexistent/libqjson.so $LUAJIT -e 'package.path=\"lua/?.lua;lua/?/init.lua;\"..package.path
   local ok, err = pcall(require, \"qjson\"); assert(not ok and err:find(\"/nonexistent/libqjson.so\", 1, true), err)'"

echo "install: $passed passed, $failed failed"
[ "$failed" = 0 ]
