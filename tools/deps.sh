#!/usr/bin/env bash
# Installs what building, testing and benchmarking qjson need on Debian,
# idempotently: a second run installs nothing and takes a second.
set -euo pipefail

packages=(luajit2 libluajit2-5.1-dev lua-cjson lua-dkjson lua-busted lua-check luarocks gnuplot-nox lua-rex-pcre2)
case "${1:-}" in
  --bench) packages+=(nginx libnginx-mod-http-lua lua-resty-core wrk) ;;
esac

. "$(dirname "$0")/lib.sh"
apt_ensure deps "${packages[@]}"

if ! command -v cargo >/dev/null 2>&1 && [ ! -x "$HOME/.cargo/bin/cargo" ]; then
  echo "deps: no Rust toolchain found; installing Debian's cargo (qjson needs Rust >= 1.89 (stable AVX-512 intrinsics);" \
       "if it is older, install a current one with rustup)" >&2
  sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq cargo >/dev/null
fi
