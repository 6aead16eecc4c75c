#!/usr/bin/env bash
# lua-cjson's own test suite (../shared/vendor/lua-cjson/tests/test.lua,
# 129 tests) run against OpenResty's lua-cjson built by tools/lua-cjson.sh
# and against qjson.cjson (loaded as cjson and cjson.safe; cjson.util is
# the vendor's). Prints both counts and the tests qjson.cjson fails. Fails
# when lua-cjson itself does not pass all, when qjson.cjson passes fewer
# than MIN_PASS, or when a test qjson.cjson fails is not named in
# docs/migrating-from-cjson.md. Skipped, with a message, without ../shared.
# LUAJIT: the interpreter (default luajit). With PUC=5.X: on lua5.X, against
# OpenResty's lua-cjson built for it and qjson.cjson from
# target/lua/5.X/qjson.so (make puc).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
LUAJIT=${LUAJIT:-luajit}
MIN_PASS=127
vendor=$(cd .. && pwd)/shared/vendor/lua-cjson
rc=0
PUC=${PUC:-}
cjson_dir=$(tools/lua-cjson.sh $PUC) || rc=$?
if ((rc == 2)); then
  echo "cjson-suite: SKIPPED (../shared/vendor/lua-cjson absent)"
  exit 0
elif ((rc)); then
  exit "$rc"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -z "${CJSON_SUITE_KEEP:-}" ] || trap - EXIT
cd "$tmp"
# genutf8.pl writes utf8.dat into the current directory; the suite reads
# its data files from there too.
perl "$vendor/tests/genutf8.pl"
for f in "$vendor"/tests/*.json "$vendor"/tests/*.dat; do ln -s "$f" .; done

export LUA_PATH="$vendor/lua/?.lua;$root/lua/?.lua;$root/lua/?/init.lua;;"
export QJSON_LIB=${QJSON_LIB:-$root/target/release/libqjson.so}
qjson_cpath=
if [ -n "$PUC" ]; then
  LUAJIT=lua$PUC
  export LUA_PATH="$vendor/lua/?.lua;;"
  qjson_cpath="$root/target/lua/$PUC/?.so;"
  MIN_PASS=${PUC_MIN_PASS:-127}
fi
# run NAME [-e PRELUDE]: the suite's output in NAME.out, "pass total" printed.
run() {
  local name=$1
  shift
  LUA_CPATH="$qjson_cpath$cjson_dir/?.so;;" "$LUAJIT" "$@" "$vendor/tests/test.lua" >"$name.out" 2>&1 || true
  local total pass
  total=$(grep -ac '^==> Test \[' "$name.out" || true)
  pass=$(grep -ac '^==> Test \[.*: PASS$' "$name.out" || true)
  echo "$pass $total"
}
read -r cpass ctotal < <(run lua-cjson)
prelude='package.loaded.cjson = require("qjson.cjson"); package.loaded["cjson.safe"] = require("qjson.cjson.safe")'
# Lua 5.4 names a C function in an argument error by its key in
# package.loaded: loaded as cjson only, as a drop-in is (docs/puc-lua.md).
[ -z "$PUC" ] || prelude="$prelude; package.loaded['qjson.cjson'], package.loaded['qjson.cjson.safe'] = nil, nil"
read -r qpass qtotal < <(run qjson -e "$prelude")
echo "lua-cjson's suite${PUC:+ on Lua $PUC}: OpenResty's lua-cjson $cpass/$ctotal passed, qjson.cjson $qpass/$qtotal passed"
status=0
if ((ctotal == 0 || cpass != ctotal)); then
  echo "cjson-suite: FAIL: lua-cjson itself does not pass its suite:"
  tail -n 20 lua-cjson.out
  status=1
fi
if ((qtotal != ctotal)); then
  echo "cjson-suite: FAIL: qjson.cjson ran $qtotal tests, lua-cjson $ctotal:"
  tail -n 20 qjson.out
  status=1
fi
doc=$root/docs/migrating-from-cjson.md
[ -z "$PUC" ] || doc=$root/docs/puc-lua.md
while IFS= read -r line; do
  name=${line#==> Test \[*\] }
  name=${name%: FAIL}
  echo "  qjson.cjson fails: $name"
  if ! grep -qF -- "$name" "$doc"; then
    echo "cjson-suite: FAIL: \"$name\" is not named in docs/migrating-from-cjson.md"
    grep -a -A 4 -F -- "$line" qjson.out
    status=1
  fi
done < <(grep -a '^==> Test \[.*: FAIL$' qjson.out || true)
if ((qpass < MIN_PASS)); then
  echo "cjson-suite: FAIL: qjson.cjson passes $qpass, fewer than $MIN_PASS"
  status=1
fi
exit $status
