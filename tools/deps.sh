#!/usr/bin/env bash
# Installs what building, testing and benchmarking qjson need on Debian,
# idempotently: a second run installs nothing and takes a second.
set -euo pipefail

# g++: lua-resty-simdjson's C++ part, built for the benchmark (tools/resty-simdjson.sh).
packages=(luajit2 libluajit2-5.1-dev lua-cjson lua-dkjson lua-busted lua-check luarocks gnuplot-nox lua-rex-pcre2 g++)
# PUC Lua (make puc, make test-puc): the interpreters, the headers and
# libraries the failing-allocator host links, valgrind, haproxy (Lua 5.3).
packages+=(lua5.1 lua5.2 lua5.3 lua5.4 liblua5.1-0-dev liblua5.2-dev liblua5.3-dev liblua5.4-dev valgrind haproxy curl)
case "${1:-}" in
  --bench) packages+=(nginx libnginx-mod-http-lua lua-resty-core lua-resty-lrucache wrk) ;;
esac

. "$(dirname "$0")/lib.sh"
apt_ensure deps "${packages[@]}"

# Rust comes from rustup, which installs the toolchain rust-toolchain.toml
# names on first use (Debian's cargo is too old for the AVX-512
# intrinsics, and has no rustup to read that file).
if ! command -v rustup >/dev/null 2>&1 && [ ! -x "$HOME/.cargo/bin/rustup" ]; then
  echo "deps: qjson needs Rust from rustup (https://rustup.rs): curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh" >&2
  exit 1
fi
