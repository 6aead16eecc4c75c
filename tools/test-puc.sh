#!/usr/bin/env bash
# make test-puc: every PUC Lua leg, for each lua5.X found (or PUC_VERSIONS),
# each timed:
#   specs     the busted specs that apply on PUC Lua (PUC_SPECS), cases
#             tagged #luajit excluded; the other spec files and the tagged
#             cases are counted as skipped
#   gc        the same specs in forced-GC mode (spec/gc_stress_puc.lua),
#             and on 5.4 with the generational collector too
#   cjson     lua-cjson's own suite against qjson.cjson (5.1 and 5.4)
#   oom       the failing-allocator host (crates/puc/tests/oom_host.c)
#             under valgrind: every N, nothing leaked or corrupted
#   haproxy   Debian's haproxy with qjson (tools/test-haproxy.sh)
#   bench     bench/puc/run.lua, one short round (the harness and its floor)
# Builds the modules first (tools/puc.sh, in the release-tests profile
# unless PUC_PROFILE says otherwise). A missing tool fails the leg
# (tools/skip.sh) unless QJSON_ALLOW_SKIP=1.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
versions=${PUC_VERSIONS:-5.1 5.2 5.3 5.4}
# The specs that apply on PUC Lua. The others test the LuaJIT binding
# (views, the FFI, cdata, JIT traces).
PUC_SPECS="spec/puc_spec.lua spec/puc_differential_spec.lua spec/document_spec.lua spec/options_spec.lua
  spec/parse_file_spec.lua spec/conformance_spec.lua spec/support_spec.lua spec/patch_spec.lua
  spec/stream_spec.lua spec/schema_spec.lua spec/select_spec.lua
  spec/openapi_puc_spec.lua"
GC_SPECS="spec/puc_spec.lua spec/document_spec.lua spec/options_spec.lua spec/parse_file_spec.lua spec/patch_spec.lua
  spec/stream_spec.lua spec/schema_spec.lua spec/select_spec.lua
  spec/openapi_puc_spec.lua"

PUC_PROFILE=${PUC_PROFILE:-release-tests} tools/puc.sh
found=()
for v in $versions; do
  [ -f "target/lua/$v/qjson.so" ] && command -v "lua$v" >/dev/null && found+=("$v")
done
export LUA_PATH='spec/?.lua;;'
timings=()
leg() { # name, command...
  local name=$1 start
  shift
  start=$(date +%s)
  echo "== test-puc: $name"
  "$@"
  timings+=("$name $(($(date +%s) - start)) s")
}

busted_on() { # version, busted args...
  local v=$1
  shift
  LUA_CPATH="$root/target/lua/$v/?.so;;" "lua$v" /usr/bin/busted "$@"
}

skips() { # the spec files and the tagged cases or blocks left out on PUC Lua
  local files=0 tagged
  for f in spec/*_spec.lua; do
    case " $(echo $PUC_SPECS) " in *" $f "*) ;; *) files=$((files + 1)) ;; esac
  done
  # shellcheck disable=SC2086
  tagged=$(cat $PUC_SPECS | grep -c '#luajit"' || true)
  echo "test-puc: skipped on PUC Lua: $files spec files (LuaJIT-only or not yet on PUC), $tagged cases or blocks tagged #luajit"
}

for v in "${found[@]}"; do
  # shellcheck disable=SC2086
  leg "specs, Lua $v" busted_on "$v" --exclude-tags=luajit $PUC_SPECS
  # shellcheck disable=SC2086
  leg "forced GC, Lua $v" env QJSON_GC_STRESS=1 LUA_CPATH="$root/target/lua/$v/?.so;;" \
    "lua$v" /usr/bin/busted --helper=spec/gc_stress_puc.lua --exclude-tags=luajit $GC_SPECS
  if [ "$v" = 5.4 ]; then
    # shellcheck disable=SC2086
    leg "forced GC (generational), Lua $v" env QJSON_GC_STRESS=1 QJSON_GC_MODE=generational \
      LUA_CPATH="$root/target/lua/$v/?.so;;" "lua$v" /usr/bin/busted --helper=spec/gc_stress_puc.lua \
      --exclude-tags=luajit $GC_SPECS
  fi
done

for v in 5.1 5.4; do
  case " ${found[*]} " in *" $v "*) leg "lua-cjson's suite, Lua $v" env PUC=$v tools/cjson-suite.sh ;; esac
done

oom() { # version
  local v=$1 host
  if ! command -v valgrind >/dev/null 2>&1; then
    tools/skip.sh test-puc "valgrind is not installed"
    return
  fi
  if [ ! -f "/usr/include/lua$v/lua.h" ]; then
    tools/skip.sh test-puc "liblua$v-dev (the headers and library the host links) is not installed"
    return
  fi
  host=target/lua/$v/oom_host
  cc -O1 -g -I"/usr/include/lua$v" crates/puc/tests/oom_host.c -o "$host" -l"lua$v"
  # Only the kinds that fail are shown: the schema crate's meta-schema
  # registry, built once per process and never freed, is "possibly lost".
  valgrind -q --leak-check=full --show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect \
    --error-exitcode=9 "$host" "$root/target/lua/$v/?.so" crates/puc/tests/oom_job.lua
}
for v in "${found[@]}"; do
  leg "failing allocator under valgrind, Lua $v" oom "$v"
done

leg "haproxy smoke" tools/test-haproxy.sh

# The benchmark harness (its C API floor checks its tables against the
# document's): one short round of the small object.
case " ${found[*]} " in *" 5.4 "*)
  leg "bench/puc/run.lua smoke, Lua 5.4" lua5.4 bench/puc/run.lua --quick --rounds 1 --only decode-tiny,encode-tiny ;;
esac

skips
echo "test-puc: passed on Lua ${found[*]}; each leg's time:"
printf '  %s\n' "${timings[@]}"
