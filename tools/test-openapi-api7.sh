#!/usr/bin/env bash
# make test-openapi-api7: the differential test of qjson.openapi against
# api7's lua-resty-openapi-validator (spec/openapi_api7_diff.lua), inside
# nginx (bench/openapi/run.sh starts it and builds api7's validator from
# ../shared/vendor). Without ../shared, tools/skip.sh decides: a failure,
# or a visible skip with QJSON_ALLOW_SKIP=1.
set -uo pipefail
cd "$(dirname "$0")/.."
LUAJIT=${LUAJIT:-luajit} bench/openapi/run.sh spec/openapi_api7_diff.lua
rc=$?
if [ "$rc" = 2 ]; then
  exec tools/skip.sh test-openapi-api7 "api7's validator is vendored in ../shared, which is absent"
fi
exit "$rc"
