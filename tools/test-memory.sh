#!/usr/bin/env bash
# make test-memory: the whole Lua suite (busted, spec/) under valgrind
# memcheck; fails on any memory error or definite leak.
#
# The LuaJIT used is Debian's luajit2 source rebuilt with
# LUAJIT_USE_SYSMALLOC and LUAJIT_USE_VALGRIND (built once into
# .deps/luajit-valgrind): every Lua object, the strings whose bytes the
# native documents borrow included, is then a malloc block memcheck
# tracks, so a read of a collected string from Rust is reported. Debian's
# own build allocates the Lua heap in its own arenas, where such a read
# would go unseen. The JIT is off (-joff): the interpreter makes the same
# FFI calls, and valgrind need not follow machine code written at run time.
#
# The source and build tools come as for tools/luajit52.sh (which is run
# to set them up when missing). If that build fails, so does this run,
# unless QJSON_MEMCHECK_PLAIN=1 asks for /usr/bin/luajit instead (then the
# Lua heap is not checked, and the run says so). No suppressions are used.
#   tools/test-memory.sh [busted arguments, default: spec]
set -euo pipefail
cd "$(dirname "$0")/.."
dir=$PWD/.deps/luajit-valgrind
bin=$dir/root/usr/bin/luajit
log=$dir/build.log
say() { echo "test-memory: $*" >&2; }

. tools/lib.sh
command -v valgrind >/dev/null || apt_ensure test-memory valgrind

build() {
  mkdir -p "$dir"
  exec 9>"$dir/.lock"
  flock 9 # the checkout is shared: one build at a time
  [ -f "$dir/.built" ] && [ -x "$bin" ] && return 0
  : >"$log"
  # The source package and the build tools: tools/luajit52.sh (the
  # LUAJIT_ENABLE_LUA52COMPAT build make test-lua uses) sets both up.
  local ready=yes
  apt-cache showsrc luajit2 2>/dev/null | grep -q '^Package: luajit2$' || ready=no
  for p in build-essential dpkg-dev; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || ready=no
  done
  if [ "$ready" = no ]; then
    tools/luajit52.sh >/dev/null || return 1
  fi
  say "fetching and building luajit2 with LUAJIT_USE_SYSMALLOC LUAJIT_USE_VALGRIND (about a minute)"
  luajit2_build "$dir" "$log" CCDEBUG=-g XCFLAGS="-DLUAJIT_USE_SYSMALLOC -DLUAJIT_USE_VALGRIND" || return 1
  touch "$dir/.built"
}

checked_heap=yes
if ! build; then
  say "could not build the valgrind-aware LuaJIT (log: $log; it needs a deb-src entry for luajit2"
  say "and build-essential, dpkg-dev)"
  if [ -z "${QJSON_MEMCHECK_PLAIN:-}" ]; then
    say "FAILED (QJSON_MEMCHECK_PLAIN=1 runs on /usr/bin/luajit instead, where the Lua heap is not checked)"
    exit 1
  fi
  say "running on /usr/bin/luajit: the Lua heap is NOT checked"
  bin=/usr/bin/luajit
  checked_heap=no
fi

# First a deliberate use after free (tools/test-memory-canary.lua): unless
# valgrind reports it, this run could not see such a bug in qjson either.
if [ "$checked_heap" = yes ]; then
  if LUA_PATH='lua/?.lua;lua/?/init.lua;;' valgrind --tool=memcheck "$bin" -joff tools/test-memory-canary.lua 2>&1 |
    grep -q 'Invalid read'; then
    say "canary: valgrind reports a read of a collected Lua string, as it must"
  else
    say "FAILED: valgrind did not report the canary's use after free; this run would not catch one"
    exit 1
  fi
fi

args=("$@")
((${#args[@]})) || args=(spec)
out=$(mktemp)
trap 'rm -f "$out"' EXIT
start=$(date +%s)
set +e
QJSON_MEMCHECK=1 LUA_PATH='lua/?.lua;lua/?/init.lua;spec/?.lua;;' valgrind --tool=memcheck --error-exitcode=99 \
  --leak-check=full --show-leak-kinds=definite --errors-for-leak-kinds=definite \
  --log-file="$out" "$bin" -joff "$(command -v busted)" "${args[@]}"
rc=$?
set -e
elapsed=$(($(date +%s) - start))
grep -E 'ERROR SUMMARY|definitely lost|in use at exit' "$out" | sed 's/^==[0-9]*== */valgrind: /'
if [ "$rc" = 99 ]; then
  cat "$out" >&2
  say "FAILED: valgrind found errors or definite leaks (${elapsed}s)"
  exit 1
elif [ "$rc" != 0 ]; then
  say "FAILED: the suite itself failed under valgrind (exit $rc, ${elapsed}s)"
  exit 1
fi
say "passed in ${elapsed}s: 0 memory errors, 0 definite leaks (Lua heap checked: $checked_heap)"
