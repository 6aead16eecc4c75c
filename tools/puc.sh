#!/usr/bin/env bash
# Builds the PUC Lua module (crates/puc) once per Lua version found:
# target/lua/5.X/qjson.so for each lua5.X on PATH (or those named in
# PUC_VERSIONS). The core is compiled once; each version rebuilds only the
# binding (its C API differs per version), so four builds cost about one.
# PUC_PROFILE: the cargo profile (release; make test-puc uses release-tests,
# the same code without fat LTO, whose four links took minutes); a module
# built with another profile than the one asked for is rebuilt.
set -euo pipefail
cd "$(dirname "$0")/.."
versions=${PUC_VERSIONS:-5.1 5.2 5.3 5.4}
profile=${PUC_PROFILE:-release}
built=()
for v in $versions; do
  if ! command -v "lua$v" >/dev/null 2>&1; then
    echo "puc: lua$v not found, skipped" >&2
    continue
  fi
  so=target/lua/$v/qjson.so
  # Up to date when built with this profile and no source, manifest or
  # toolchain file is newer.
  if [ -f "$so" ] && [ "$(cat "$so.profile" 2>/dev/null)" = "$profile" ] &&
    [ -z "$(find crates/puc crates/core/src crates/core/Cargo.toml Cargo.toml Cargo.lock \
      rust-toolchain.toml -newer "$so" -type f -print -quit)" ]; then
    built+=("$v")
    continue
  fi
  cargo build --profile "$profile" -p qjson-puc --no-default-features --features "lua${v/./}"
  mkdir -p "target/lua/$v"
  cp "target/$profile/libqjson_puc.so" "$so.tmp"
  mv "$so.tmp" "$so"
  echo "$profile" >"$so.profile"
  built+=("$v")
done
if [ ${#built[@]} -eq 0 ]; then
  echo "puc: no PUC Lua found (lua5.1 .. lua5.4)" >&2
  exit 1
fi
echo "puc: built target/lua/{${built[*]}}/qjson.so ($profile profile)"
