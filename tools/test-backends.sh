#!/usr/bin/env bash
# Runs the cargo tests that parse documents and the busted specs that parse
# from Lua with each stage 1 backend this CPU has, except the one detected
# by default (which `make test-rust` / `make test-lua` already run), each
# forced with QJSON_BACKEND; checks that the forced backend is the one
# that ran.
# Left out here, as they run with the default backend in test-rust: the
# timing test and the four slowest hostile tests (reparsing a document
# thousands of times, 100 MB and a million keys), which cost minutes per
# backend; what they exercise of stage 1 (long strings, real documents at
# every block offset) crates/core/tests/scan_agreement.rs checks for every backend.
set -uo pipefail
export PATH="$HOME/.cargo/bin:$PATH"
cd "$(dirname "$0")/.."
LUAJIT=${LUAJIT:-luajit}
lua_path='lua/?.lua;lua/?/init.lua;spec/?.lua;;'
. tools/lib.sh

# The specs whose inputs go through the parser from Lua (documents,
# JSONTestSuite, errors and their positions, views against lua-cjson,
# selectors, streams); the rest of the suite tests the Lua layer above a
# parse that the cargo tests above compare, backend by backend, with the
# scalar oracle.
specs=(spec/conformance_spec.lua spec/document_spec.lua spec/errors_spec.lua spec/parse_entry_spec.lua
       spec/parse_file_spec.lua spec/view_differential_spec.lua spec/select_spec.lua spec/stream_spec.lua)
default=$(qjson_backend) || exit 1
all=$(cargo test --profile release-tests -p qjson-core --test scan_agreement backends_are_detected -- --nocapture 2>&1 |
  sed -n 's/^comparing backends \[\(.*\)\] with scalar$/\1/p' | tr -d '",')
[ -n "$all" ] || { echo "test-backends: cannot list the backends"; exit 1; }
echo "test-backends: backends on this CPU: $all (default $default)"
for b in $all; do
  [ "$b" = "$default" ] && continue
  start=$(date +%s)
  got=$(qjson_backend "$b") || exit 1
  [ "$got" = "$b" ] || { echo "test-backends: QJSON_BACKEND=$b ran $got"; exit 1; }
  echo "test-backends: $b: cargo tests"
  QJSON_BACKEND=$b cargo test --profile release-tests -q -p qjson-core --test conformance --test differential \
    --test errors --test hostile --test paths -- --skip work_is_linear_in_the_input \
    --skip every_prefix_of_real_documents --skip ten_thousand_random_byte_flips_of_a_real_document \
    --skip an_object_of_a_million_keys --skip a_100mb_string || exit 1
  # (--workspace, not -p qjson-luajit: the features resolve as for make
  # test's test executables, whose compiled core this reuses; alone, the
  # binding turns the core's default features off and the core is compiled
  # again.)
  QJSON_BACKEND=$b cargo test --profile release-tests -q --workspace --test placed --test events || exit 1
  echo "test-backends: $b: cargo tests passed in $(($(date +%s) - start)) s; busted (${specs[*]})"
  QJSON_BACKEND=$b QJSON_LUAJIT_BUILD=${LUAJIT_BUILD:-plain} LUA_PATH="$lua_path" busted --lua="$LUAJIT" "${specs[@]}" || exit 1
  echo "test-backends: $b passed in $(($(date +%s) - start)) s"
done
