#!/usr/bin/env bash
# tools/busted.sh [BUSTED ARGS...]: the busted suite (spec/) as two
# processes side by side: the specs that run full collections at every
# step (the Lua-level fuzzer, random view traces, the error specs'
# collections between every two operations), whose cost grows with
# whatever the rest of the suite left alive (several times longer in the
# same process), and all the others. Fails when either does.
set -uo pipefail
cd "$(dirname "$0")/.."
heavy=(spec/fuzz_lua_spec.lua spec/view_property_spec.lua spec/errors_spec.lua)
rest=()
for f in spec/*_spec.lua; do
  case " ${heavy[*]} " in *" $f "*) ;; *) rest+=("$f") ;; esac
done
heavy_log=$(mktemp)
busted "$@" "${heavy[@]}" >"$heavy_log" 2>&1 &
pid=$!
busted "$@" "${rest[@]}"
rest_rc=$?
wait $pid
heavy_rc=$?
echo "busted: ${heavy[*]}, in a process of their own:"
cat "$heavy_log"
rm -f "$heavy_log"
[ $rest_rc = 0 ] && [ $heavy_rc = 0 ]
