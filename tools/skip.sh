#!/usr/bin/env bash
# tools/skip.sh WHO WHY: a test leg cannot run because a tool is missing.
# Fails (exit 1), naming what is missing, unless QJSON_ALLOW_SKIP=1 says
# that skipping is fine here (a user's clone without the tool); then it
# prints "WHO: SKIPPED: WHY" and exits 0. CI never sets it: there, a
# missing tool is a failure, not a silent pass.
who=$1
why=$2
if [ "${QJSON_ALLOW_SKIP:-0}" = 1 ]; then
  echo "$who: SKIPPED: $why (QJSON_ALLOW_SKIP=1)"
  exit 0
fi
echo "$who: FAILED: $why; set QJSON_ALLOW_SKIP=1 to skip this leg instead" >&2
exit 1
