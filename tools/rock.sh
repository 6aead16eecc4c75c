#!/usr/bin/env bash
# luarocks' build and install steps for qjson-scm-1.rockspec, for the Lua
# that runs luarocks (its interpreter, $(LUA)):
#   LuaJIT         the FFI binding: target/release/libqjson.so (make build,
#                  profile-guided) into LIBDIR and lua/qjson/ into LUADIR
#   PUC Lua 5.X    the native module for that version: target/lua/5.X/qjson.so
#                  (tools/puc.sh) into LIBDIR as qjson.so; no Lua files (the
#                  FFI binding's would shadow the module on package.path)
#   tools/rock.sh build LUA
#   tools/rock.sh install LUA LUADIR LIBDIR
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
[ $# -ge 2 ] || { echo "usage: tools/rock.sh build LUA | install LUA LUADIR LIBDIR" >&2; exit 2; }
step=$1 lua=$2
kind=$("$lua" -e 'io.write(jit and "luajit" or (_VERSION:match("5%.[1-4]") or "?"))')
case $kind in
  luajit | 5.[1-4]) ;;
  *) echo "rock: $lua is neither LuaJIT nor PUC Lua 5.1-5.4 ($kind)" >&2; exit 1 ;;
esac
case $step in
  build)
    if [ "$kind" = luajit ]; then
      LUAJIT=$lua tools/build.sh
    else
      PUC_VERSIONS=$kind tools/puc.sh
    fi
    ;;
  install)
    [ $# -eq 4 ] || { echo "usage: tools/rock.sh install LUA LUADIR LIBDIR" >&2; exit 2; }
    luadir=$3 libdir=$4
    if [ "$kind" = luajit ]; then
      (cd lua && find qjson -name '*.lua') | while read -r f; do
        install -D -m 644 "lua/$f" "$luadir/$f"
      done
      install -D -m 755 target/release/libqjson.so "$libdir/libqjson.so"
    else
      install -D -m 755 "target/lua/$kind/qjson.so" "$libdir/qjson.so"
    fi
    echo "rock: installed qjson for $kind"
    ;;
  *) echo "rock: unknown step '$step' (build or install)" >&2; exit 2 ;;
esac
