#!/usr/bin/env bash
# Builds Debian's luajit2 again with LUAJIT_ENABLE_LUA52COMPAT, the flag
# OpenResty builds its LuaJIT with (__len, __pairs and __ipairs then fire
# on tables), so the Lua specs can run on both kinds of build. Prints the
# path of the binary. Idempotent: once built, it only checks the binary
# and prints its path.
#
# Same source, patches and flags as Debian's package (debian/rules runs
# `make amalg PREFIX=/usr MULTILIB=lib/<multiarch>` under dpkg-buildflags)
# plus XCFLAGS. PREFIX stays /usr so the binary's built-in module paths are
# Debian's (busted, lua-cjson and dkjson are found as by /usr/bin/luajit);
# it is installed with DESTDIR under .deps/luajit52/root.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=$PWD/.deps/luajit52
bin=$dir/root/usr/bin/luajit
log=$dir/build.log

# True when `$1` is a LuaJIT whose `#` honours __len: the 52compat build.
is_52compat() {
  [ -x "$1" ] && "$1" -e 'os.exit(#setmetatable({}, {__len = function() return 7 end}) == 7 and 0 or 1)'
}

if is_52compat "$bin"; then
  echo "$bin"
  exit 0
fi

mkdir -p "$dir"
# The checkout is shared: one build at a time; a waiting run then finds it done.
exec 9>"$dir/.lock"
flock 9
if is_52compat "$bin"; then
  echo "$bin"
  exit 0
fi

say() { echo "luajit52: $*" >&2; }
fail() {
  say "$1 (log: $log)"
  tail -n 20 "$log" >&2 || true
  exit 1
}
sudo=""
[ "$(id -u)" = 0 ] || sudo="sudo"
: >"$log"

missing=()
for p in build-essential dpkg-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  say "installing ${missing[*]}"
  $sudo apt-get update -qq >>"$log" 2>&1 || fail "apt-get update failed"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >>"$log" 2>&1 ||
    fail "cannot install ${missing[*]}"
fi

# apt-get source needs deb-src entries: one for each suite of this release
# the machine already uses (one-line .list and deb822 .sources files).
has_source() { apt-cache showsrc luajit2 2>/dev/null | grep -q '^Package: luajit2$'; }
if ! has_source; then
  codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
  [ -n "$codename" ] || fail "no VERSION_CODENAME in /etc/os-release"
  list=/etc/apt/sources.list.d/qjson-deb-src.list
  say "adding deb-src entries for $codename ($list)"
  files=()
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] && [ "$f" != "$list" ] && files+=("$f")
  done
  ((${#files[@]})) || fail "no apt sources found"
  awk -v codename="$codename" '
      function release_suite(s) { return s == codename || index(s, codename "-") == 1 }
      function emit(   nu, ns, u, s, i, j, opt) {
        nu = split(uris, u, /[ \t]+/); ns = split(suites, s, /[ \t]+/)
        opt = signed ~ /^\// ? "[signed-by=" signed "] " : ""
        for (i = 1; i <= nu; i++) for (j = 1; j <= ns; j++)
          if (u[i] != "" && release_suite(s[j])) print "deb-src " opt u[i] " " s[j] " " comps
      }
      function flush() {
        if (types ~ /(^|[ \t])deb([ \t]|$)/ && enabled != "no") emit()
        types = uris = suites = comps = signed = enabled = ""
      }
      FNR == 1 { flush(); deb822 = FILENAME ~ /\.sources$/ }
      deb822 && /^[ \t]*$/ { flush(); next }
      deb822 && /^[A-Za-z-]+:/ {
        key = tolower(substr($0, 1, index($0, ":") - 1)); val = substr($0, index($0, ":") + 1)
        gsub(/^[ \t]+|[ \t]+$/, "", val)
        if (key == "types") types = val; else if (key == "uris") uris = val
        else if (key == "suites") suites = val; else if (key == "components") comps = val
        else if (key == "signed-by") signed = val; else if (key == "enabled") enabled = tolower(val)
      }
      !deb822 && $1 == "deb" {
        line = $0; sub(/^deb[ \t]+/, "", line); opt = ""
        if (line ~ /^\[/) { opt = substr(line, 1, index(line, "]")) " "; line = substr(line, index(line, "]") + 1) }
        n = split(line, f, /[ \t]+/); k = f[1] == "" ? 2 : 1
        if (release_suite(f[k + 1])) {
          out = "deb-src " opt f[k] " " f[k + 1]
          for (i = k + 2; i <= n; i++) out = out " " f[i]
          print out
        }
      }
      END { flush() }' "${files[@]}" | $sudo tee "$list" >/dev/null
  [ -s "$list" ] || fail "no apt source for $codename found to add deb-src entries for"
  $sudo apt-get update -qq >>"$log" 2>&1 || fail "apt-get update failed"
  has_source || fail "luajit2 has no source package in the apt sources"
fi

# The source of the installed luajit2 when the archive still has it, built
# as Debian builds it (dpkg-buildflags, CROSS) plus XCFLAGS (tools/lib.sh).
say "fetching and building luajit2 with LUAJIT_ENABLE_LUA52COMPAT (about a minute)"
. tools/lib.sh
(
  eval "$(dpkg-buildflags --export=sh)"
  luajit2_build "$dir" "$log" CROSS="$(dpkg-architecture -qDEB_HOST_GNU_TYPE)-" XCFLAGS=-DLUAJIT_ENABLE_LUA52COMPAT
) || fail "$(tail -n 1 "$log")"

is_52compat "$bin" || fail "$bin was built but # does not honour __len: LUAJIT_ENABLE_LUA52COMPAT not in effect"
say "built $("$bin" -v)"
echo "$bin"
