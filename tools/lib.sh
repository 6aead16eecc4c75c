# Shell functions shared by tools/ and bench/ scripts; source it:
#   . "$root/tools/lib.sh"
# It sets no options and runs nothing by itself.

# nginx_start PREFIX TEMPLATE ROOT [SED_EXPR...]: starts Debian's nginx with
# its own prefix (a fresh directory) and the configuration TEMPLATE, whose
# @PREFIX@, @ROOT@ and @PORT@ are filled in (plus any further sed
# expressions), on a free port of 127.0.0.1. Sets `port` and `master` (the
# master's pid). nginx refuses to start on a taken port, so a few are
# tried. Returns 1, with the reason on stderr, when it cannot start.
nginx_start() {
  local prefix=$1 template=$2 root=$3
  shift 3
  local exprs=() e started=
  for e in "$@"; do exprs+=(-e "$e"); done
  mkdir -p "$prefix/body"
  for _ in 1 2 3 4 5 6 7 8; do
    port=$((20000 + (RANDOM % 20000)))
    sed -e "s|@PREFIX@|$prefix|g" -e "s|@ROOT@|$root|g" -e "s|@PORT@|$port|g" "${exprs[@]}" \
      "$template" >"$prefix/nginx.conf"
    if nginx -p "$prefix" -c "$prefix/nginx.conf" -e "$prefix/error.log" 2>"$prefix/start.log"; then
      started=1
      break
    fi
    grep -q "in use" "$prefix/start.log" || { cat "$prefix/start.log" >&2; return 1; }
  done
  [ -n "$started" ] || { echo "nginx: no free port found" >&2; return 1; }
  for _ in $(seq 50); do [ -s "$prefix/nginx.pid" ] && break; sleep 0.1; done
  master=$(cat "$prefix/nginx.pid")
}

# nginx_stop PREFIX: stops the nginx nginx_start started there (QUIT, then
# KILL after 5 s) and removes PREFIX. Safe to call twice, or when nginx
# never started (for an EXIT trap).
nginx_stop() {
  local prefix=$1 pid
  if [ -s "$prefix/nginx.pid" ]; then
    pid=$(cat "$prefix/nginx.pid")
    kill -QUIT "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -rf "$prefix"
}

# nginx_require WHO [TOOL...]: fails (with WHO's name) unless nginx,
# lua-nginx-module and each TOOL are installed.
nginx_require() {
  local who=$1 tool
  shift
  for tool in nginx "$@"; do
    command -v "$tool" >/dev/null ||
      { echo "$who: $tool not found (tools/deps.sh --bench installs nginx and wrk)" >&2; return 1; }
  done
  [ -f /usr/share/nginx/modules/ngx_http_lua_module.so ] ||
    { echo "$who: libnginx-mod-http-lua is not installed (tools/deps.sh --bench)" >&2; return 1; }
}

# luajit2_build DIR LOG MAKE_ARG...: fetches the source of Debian's luajit2
# (the installed version when the archive still has it) into DIR/src,
# builds it with `make amalg PREFIX=/usr MULTILIB=lib/<multiarch>` and the
# given arguments (XCFLAGS, ...), and installs it with DESTDIR=DIR/root.
# PREFIX stays /usr so the binary's built-in module paths are Debian's
# (busted, lua-cjson and dkjson are found as by /usr/bin/luajit). Output
# goes to LOG; returns 1 when a step fails (the step is in LOG).
# Needs a deb-src entry for luajit2 and build-essential, dpkg-dev
# (tools/luajit52.sh sets them up).
luajit2_build() {
  local dir=$1 log=$2
  shift 2
  local version srcdir
  rm -rf "$dir/src" "$dir/root"
  mkdir -p "$dir/src"
  version=$(dpkg-query -W -f='${Version}' luajit2 2>/dev/null || true)
  (
    cd "$dir/src"
    # As root, apt downloads here as root rather than as its _apt user.
    sandbox=(); [ "$(id -u)" = 0 ] && sandbox=(-o APT::Sandbox::User=root)
    { [ -n "$version" ] && apt-get source -qq "${sandbox[@]}" "luajit2=$version"; } ||
      apt-get source -qq "${sandbox[@]}" luajit2
  ) >>"$log" 2>&1 || { echo "apt-get source luajit2 failed" >>"$log"; return 1; }
  srcdir=$(find "$dir/src" -mindepth 1 -maxdepth 1 -type d -name 'luajit2-*' | head -n 1)
  [ -n "$srcdir" ] || { echo "apt-get source left no luajit2-* directory" >>"$log"; return 1; }
  (
    cd "$srcdir"
    multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
    nice make -j"$(nproc)" amalg PREFIX=/usr MULTILIB="lib/$multiarch" "$@"
    make install PREFIX=/usr MULTILIB="lib/$multiarch" DESTDIR="$dir/root" LDCONFIG=:
  ) >>"$log" 2>&1 || { echo "building luajit2 failed" >>"$log"; return 1; }
}

# qjson_backend [BACKEND]: prints the stage 1 backend `qjson.backend()`
# reports with QJSON_BACKEND=BACKEND (unset when not given), the library
# found as usual (QJSON_LIB, if the caller sets it). Run from the
# checkout's root; $LUAJIT, default luajit.
qjson_backend() {
  local chosen=(-u QJSON_BACKEND)
  [ -n "${1:-}" ] && chosen=("QJSON_BACKEND=$1")
  env "${chosen[@]}" LUA_PATH='lua/?.lua;lua/?/init.lua;;' "${LUAJIT:-luajit}" -e 'io.write(require("qjson").backend())'
}

# apt_ensure WHO PACKAGE...: installs with apt-get those of the Debian
# PACKAGEs that are not installed yet (none: nothing is run). Returns
# apt-get's failure.
apt_ensure() {
  local who=$1 p sudo=""
  shift
  local missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  ((${#missing[@]})) || return 0
  echo "$who: installing ${missing[*]}"
  [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo apt-get update -qq || return 1
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
}
