#!/usr/bin/env bash
# Installs, idempotently, what `make test-aarch64` needs: the Rust target,
# a cross linker and libc, qemu user-mode emulation, and an arm64 LuaJIT
# unpacked into .deps/arm64 (never installed: luajit2:arm64 would replace
# the machine's own luajit). Prints what is missing and exits 1 when it
# cannot install something; the caller then skips the leg.
set -uo pipefail
export PATH="$HOME/.cargo/bin:$PATH"
root=$(cd "$(dirname "$0")/.." && pwd)
sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
fail() { echo "aarch64-deps: $*" >&2; exit 1; }

if ! rustup target list --installed 2>/dev/null | grep -qx aarch64-unknown-linux-gnu; then
  echo "aarch64-deps: rustup target add aarch64-unknown-linux-gnu"
  rustup target add aarch64-unknown-linux-gnu >/dev/null 2>&1 || fail "cannot add the Rust target aarch64-unknown-linux-gnu (no rustup?)"
fi

packages=(gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user-static)
. "$root/tools/lib.sh"
apt_ensure aarch64-deps "${packages[@]}" 2>/dev/null || fail "cannot install ${packages[*]}"

# The arm64 LuaJIT and busted's native modules (lfs, system, term) and
# lua-cjson for the busted leg, unpacked into .deps/arm64 (--luajit).
if [ "${1:-}" = --luajit ]; then
  lj="$root/.deps/arm64/usr/bin/luajit"
  if ! dpkg-query -W -f='${Status}' libluajit2-5.1-2:arm64 2>/dev/null | grep -q "install ok installed"; then
    dpkg --print-foreign-architectures | grep -qx arm64 || $sudo dpkg --add-architecture arm64
    $sudo apt-get update -qq >/dev/null 2>&1
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq libluajit2-5.1-2:arm64 >/dev/null 2>&1 ||
      fail "cannot install libluajit2-5.1-2:arm64"
  fi
  if [ ! -x "$lj" ]; then
    tmp=$(mktemp -d)
    (cd "$tmp" && apt-get download luajit2:arm64 >/dev/null 2>&1) || { rm -rf "$tmp"; fail "cannot download luajit2:arm64"; }
    mkdir -p "$root/.deps/arm64"
    dpkg -x "$tmp"/luajit2_*.deb "$root/.deps/arm64" || { rm -rf "$tmp"; fail "cannot unpack luajit2:arm64"; }
    rm -rf "$tmp"
  fi
  for p in lua-filesystem lua-system lua-term lua-cjson; do
    stamp="$root/.deps/arm64/.$p"
    [ -e "$stamp" ] && continue
    tmp=$(mktemp -d)
    (cd "$tmp" && apt-get download "$p:arm64" >/dev/null 2>&1) || { rm -rf "$tmp"; fail "cannot download $p:arm64"; }
    dpkg -x "$tmp"/*.deb "$root/.deps/arm64" || { rm -rf "$tmp"; fail "cannot unpack $p:arm64"; }
    rm -rf "$tmp"
    touch "$stamp"
  done
fi
exit 0
