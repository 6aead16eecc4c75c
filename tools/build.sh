#!/usr/bin/env bash
# Builds target/release/libqjson.so with profile-guided optimisation
# (`make build`; docs/design.md, "Build"):
#   1. an instrumented build (target/pgo/gen, -Cprofile-generate);
#   2. tools/pgo-train.lua drives it through the Lua API: everything with
#      the stage 1 backend this CPU picks, then a parse-only pass with each
#      other backend it has;
#   3. llvm-profdata merges the counts into target/pgo/<hash>.profdata;
#   4. the release build uses them (-Cprofile-use).
# Steps 1-3 rerun only when the instrumented library or the training
# script changed; the profile's name carries its hash, so cargo rebuilds
# the release library exactly when the profile changes.
# QJSON_PGO=0, no LuaJIT, or no llvm-profdata (the rustup component
# llvm-tools) gives a plain `cargo build --release`, saying so.
set -euo pipefail
export PATH="$HOME/.cargo/bin:$PATH"
cd "$(dirname "$0")/.."
LUAJIT=${LUAJIT:-luajit}
. tools/lib.sh

# target/release/libqjson.build records how the library was built, for
# tools/test-install.sh.
plain() {
  echo "build: without profile-guided optimisation ($1)"
  cargo build --release -p qjson-luajit
  echo "plain: $1" >target/release/libqjson.build
  exit
}
[ "${QJSON_PGO:-1}" = 0 ] && plain "QJSON_PGO=0"
command -v "$LUAJIT" >/dev/null || plain "no $LUAJIT to run the training"
bin="$(rustc --print sysroot)/lib/rustlib/$(rustc -vV | sed -n 's/^host: //p')/bin"
if [ ! -x "$bin/llvm-profdata" ]; then
  rustup component add llvm-tools >/dev/null 2>&1 || true
  [ -x "$bin/llvm-profdata" ] || plain "no llvm-profdata: the rustup component llvm-tools cannot be added"
fi

dir=$PWD/target/pgo
lib=$dir/gen/release/libqjson.so
merged=$dir/merged.profdata
CARGO_TARGET_DIR=$dir/gen RUSTFLAGS="${RUSTFLAGS:-} -Cprofile-generate=$dir/raw" cargo build --release -p qjson-luajit
if [ ! -s "$merged" ] || [ "$lib" -nt "$merged" ] || [ tools/pgo-train.lua -nt "$merged" ]; then
  rm -rf "$dir/raw"
  default=$(QJSON_LIB=$lib qjson_backend)
  QJSON_LIB=$lib $LUAJIT tools/pgo-train.lua full
  for b in avx512vbmi avx512 avx2 neon swar; do
    [ "$b" = "$default" ] && continue
    # An unknown or unsupported QJSON_BACKEND falls back to the default.
    got=$(QJSON_LIB=$lib qjson_backend "$b")
    if [ "$got" = "$b" ]; then QJSON_BACKEND=$b QJSON_LIB=$lib $LUAJIT tools/pgo-train.lua parse; fi
  done
  "$bin/llvm-profdata" merge -o "$merged.tmp" "$dir/raw"
  mv "$merged.tmp" "$merged"
fi
profile=$dir/$(sha256sum "$merged" | cut -c1-16).profdata
[ -f "$profile" ] || { rm -f "$dir"/????????????????.profdata; cp "$merged" "$profile"; }
RUSTFLAGS="${RUSTFLAGS:-} -Cprofile-use=$profile" cargo build --release -p qjson-luajit
echo "profile-guided: $profile" >target/release/libqjson.build
