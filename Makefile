# qjson: `make bench` runs the comparison, `make test` runs every test.
# Both install what they need first (tools/deps.sh, idempotent).

SHELL := /bin/bash
export PATH := $(HOME)/.cargo/bin:$(PATH)
LUAJIT ?= luajit
# The Lua specs run on two LuaJIT builds: LUAJIT, Debian's (LUAJIT_BUILD says
# which kind it is: plain, or lua52compat for an OpenResty-like one), and
# LUAJIT52, one built with LUAJIT_ENABLE_LUA52COMPAT (empty: the one
# tools/luajit52.sh builds into .deps/ from Debian's source).
LUAJIT_BUILD ?= plain
LUAJIT52 ?=
LIB := target/release/libqjson.so
LUA_PATH_PREFIX := lua/?.lua;lua/?/init.lua;spec/?.lua;

.PHONY: all deps build check check-rust check-lua header puc test-puc test test-rust test-lua test-lua52 test-gc test-install test-cjson-suite test-backends test-openapi-api7 test-aarch64 cjson-diff fuzz fuzz-smoke fuzz-lua test-memory soak bench bench-core bench-quick bench-schema bench-openapi bench-smoke bench-gateway bench-gateway-openapi bench-gateway-schema bench-haproxy lint clean

all: build

deps:
	@tools/deps.sh

# target/release/libqjson.so, built with profile-guided optimisation
# (tools/build.sh; QJSON_PGO=0 for a plain cargo build).
build: deps
	LUAJIT=$(LUAJIT) tools/build.sh

# The inner loop (a couple of minutes from a warm tree): the library in the
# release-tests profile (no LTO, incremental) at target/release-tests/,
# every cargo test, and the busted suite on Debian's LuaJIT against that
# library, the Rust and Lua halves side by side. make test is the gate.
check: deps
	cargo build --profile release-tests -p qjson-luajit
	@$(MAKE) --no-print-directory -j2 check-rust check-lua

check-rust:
	cargo test --profile release-tests --workspace -q

check-lua:
	QJSON_LIB=$(CURDIR)/target/release-tests/libqjson.so QJSON_LUAJIT_BUILD=$(LUAJIT_BUILD) \
	  LUA_PATH='$(LUA_PATH_PREFIX);' tools/busted.sh --lua=$(LUAJIT)

# Regenerates the C header from the Rust exports and the Lua cdef from it.
header:
	QJSON_BLESS=1 cargo test --profile release-tests -p qjson-luajit --test header
	$(LUAJIT) tools/gen-cdef.lua crates/luajit/include/qjson.h > lua/qjson/cdef.lua

# Every leg below, two at a time, each into target/test-logs/<leg>.log,
# with a table of times at the end (tools/test.sh; LEGS to run some).
LEGS ?=
test:
	tools/test.sh $(LEGS)

# qjson for PUC Lua (crates/puc): target/lua/5.X/qjson.so for every lua5.X
# found (tools/puc.sh), and its tests on each (tools/test-puc.sh: the specs
# that apply, forced GC, lua-cjson's suite, the failing-allocator host under
# valgrind, the HAProxy smoke test), each leg timed.
puc: deps
	tools/puc.sh

test-puc: deps
	tools/test-puc.sh

test-rust:
	cargo test --profile release-tests --workspace

test-lua: build test-lua52
	QJSON_LUAJIT_BUILD=$(LUAJIT_BUILD) LUA_PATH='$(LUA_PATH_PREFIX);' tools/busted.sh --lua=$(LUAJIT)

# spec/luajit_build_spec.lua checks that QJSON_LUAJIT_BUILD is what runs.
test-lua52: build
	@luajit52='$(LUAJIT52)'; [ -n "$$luajit52" ] || luajit52=$$(tools/luajit52.sh) || exit 1; \
	echo "busted --lua=$$luajit52 (LUAJIT_ENABLE_LUA52COMPAT)"; \
	QJSON_LUAJIT_BUILD=lua52compat LUA_PATH='$(LUA_PATH_PREFIX);' tools/busted.sh --lua="$$luajit52"

# The whole Lua suite in forced-GC mode (spec/gc_stress.lua): the collector
# never paused and finalizers that call qjson pending at every cycle, with
# the JIT on, then off (docs/security.md, guarantee 11); GC_JIT=on or off
# for one of them (make test runs the two side by side).
# A run that hangs fails after GC_TIMEOUT seconds instead of taking the
# CI budget with it.
GC_TIMEOUT ?= 1200
GC_JIT ?= on off
test-gc: build
	@for jit in $(GC_JIT); do \
	  echo "test-gc: the busted suite in forced-GC mode, JIT $$jit"; start=$$(date +%s); \
	  QJSON_GC_STRESS=1 QJSON_GC_STRESS_JIT=$$jit QJSON_LUAJIT_BUILD=$(LUAJIT_BUILD) LUA_PATH='$(LUA_PATH_PREFIX);' \
	    timeout $(GC_TIMEOUT) tools/busted.sh --lua=$(LUAJIT) --helper=spec/gc_stress.lua; rc=$$?; \
	  [ $$rc = 124 ] && echo "test-gc: JIT $$jit: no result after $(GC_TIMEOUT) s (a hang)"; \
	  [ $$rc = 0 ] || exit 1; \
	  echo "test-gc: JIT $$jit passed in $$(($$(date +%s) - start)) s"; \
	done

test-install: build
	tools/test-install.sh

# lua-cjson's own suite against OpenResty's lua-cjson (built from
# ../shared/vendor/lua-cjson into .deps/) and against qjson.cjson (~5 s).
test-cjson-suite: build
	LUAJIT=$(LUAJIT) tools/cjson-suite.sh

# The document-parsing cargo tests and the busted specs that parse from
# Lua again with each other stage 1 backend this CPU has, forced by
# QJSON_BACKEND (test-rust and test-lua run the one detected).
test-backends: build
	LUAJIT=$(LUAJIT) LUAJIT_BUILD=$(LUAJIT_BUILD) tools/test-backends.sh

# qjson.openapi against api7's lua-resty-openapi-validator inside nginx
# (spec/openapi_api7_diff.lua): the requests both must agree on, and api7's
# listed mistakes asserted as they are (tools/test-openapi-api7.sh).
test-openapi-api7: build
	@tools/deps.sh --bench
	LUAJIT=$(LUAJIT) tools/test-openapi-api7.sh

# The crate cross-compiled for aarch64 and run under qemu (NEON against
# the scalar oracle, conformance, differential, hostile, busted on an arm64
# LuaJIT); skipped with a message when the tools cannot be installed.
test-aarch64: deps
	tools/test-aarch64.sh

# Fuzzing (cargo-fuzz, libFuzzer): FUZZ_SECONDS per target.
FUZZ_SECONDS ?= 300
fuzz: deps
	tools/fuzz.sh $(FUZZ_SECONDS)

# make test's smoke run: 5 s a target. The instrumented build is most of
# the step: at opt-level 1 it takes about a third of opt-level 3's time
# (make fuzz, the long run, keeps 3).
fuzz-smoke: deps
	QJSON_FUZZ_OPT_LEVEL=1 tools/fuzz.sh 5

# Lua-level fuzzing (spec/fuzz/), longer than the fixed seeds of make
# test-lua, or replaying a failure: SEED (default: the time), STEPS.
SEED ?=
STEPS ?= 20000
fuzz-lua: build
	$(LUAJIT) tools/fuzz-lua.lua $(SEED) $(STEPS)

# The differential between OpenResty's lua-cjson and qjson.cjson
# (spec/fuzz/cjson_diff.lua), longer than make test's fixed seeds or
# replaying a failure: SEED (default: the time), STEPS (default 20000).
cjson-diff: build
	$(LUAJIT) tools/cjson-diff.lua $(if $(SEED),$(SEED),$$(date +%s)) $(STEPS)

# The Lua suite under valgrind memcheck, on a LuaJIT built to use malloc
# (tools/test-memory.sh): zero errors, zero definite leaks.
test-memory: build
	tools/test-memory.sh

# nginx (one worker) and wrk: SOAK_REQUESTS (1,000,000) valid and invalid
# bodies through a gateway handler; every answer, the worker and its RSS
# checked (tools/soak.sh).
soak: build
	@tools/deps.sh --bench
	tools/soak.sh

# Kong's lua-resty-simdjson, a library the benchmark compares, built from
# ../shared/vendor into .deps/resty-simdjson/ (tools/resty-simdjson.sh,
# ~15 s once): a failed build fails the target; without ../shared the
# script says so and the benchmark lists it as not installed.
RESTY_SIMDJSON := tools/resty-simdjson.sh >/dev/null || [ $$? = 2 ]

bench: build
	@$(RESTY_SIMDJSON)
	$(LUAJIT) bench/run.lua
	$(MAKE) bench-core CORE_BENCH_ARGS=--quick
	$(MAKE) --no-print-directory bench-openapi

# The Rust core against yyjson, sonic-rs, simd-json and serde_json
# (bench/core, a package of its own: `cargo bench`), built for the host
# CPU as those libraries' authors recommend, in its own target directory
# so that the library's build is untouched; the results go into
# docs/benchmarks.md and docs/bench-core.png. CORE_BENCH_ARGS: --quick,
# --only=twitter,...
CORE_BENCH_ARGS ?=
bench-core: deps
	$(LUAJIT) bench/core_data.lua
	CARGO_TARGET_DIR=$(CURDIR)/target/bench-native RUSTFLAGS='-C target-cpu=native' CFLAGS='-O3 -march=native' \
		cargo bench --manifest-path bench/core/Cargo.toml --bench core -- --write $(CORE_BENCH_ARGS)

bench-quick: build
	@$(RESTY_SIMDJSON)
	$(LUAJIT) bench/run.lua --quick

# JSON Schema validation alone (also run at the end of `make bench`).
bench-schema: build
	$(LUAJIT) bench/schema/run.lua

# Every benchmark job of every library once, answers compared, the
# gateway job's step timer once, and the OpenAPI loop a few calls per kind
# (both validators' verdicts checked), so that they keep working (< 1 min).
bench-smoke: build
	@$(RESTY_SIMDJSON)
	$(LUAJIT) bench/run.lua --smoke
	$(LUAJIT) bench/gateway/parts.lua chat-2k 1
	$(MAKE) --no-print-directory bench-openapi BENCH_OPENAPI_ARGS=--smoke

# OpenAPI request validation, qjson.openapi against api7's
# lua-resty-openapi-validator (built from ../shared/vendor by
# tools/api7-openapi.sh), in api7's single-thread loop inside one nginx
# worker (bench/openapi/run.lua; also run at the end of `make bench`).
# Without ../shared: skipped with a message. BENCH_OPENAPI_ARGS: --quick,
# --smoke, --no-docs.
BENCH_OPENAPI_ARGS ?=
bench-openapi: build
	@tools/deps.sh --bench
	@LUAJIT=$(LUAJIT) bench/openapi/run.sh bench/openapi/run.lua $(BENCH_OPENAPI_ARGS) || [ $$? = 2 ]

# nginx (one worker, 127.0.0.1) + wrk: qjson, lua-cjson and
# lua-resty-simdjson gateway handlers, and an SSE stream relayed through
# qjson's and lua-cjson's body filters.
bench-gateway: build
	@tools/deps.sh --bench
	@$(RESTY_SIMDJSON)
	LUAJIT=$(LUAJIT) bench/gateway/run.sh
	$(MAKE) --no-print-directory bench-gateway-openapi

# nginx (one worker) + wrk: floor, api7's and qjson's OpenAPI validation
# locations on api7's founding request and a 100 KB chat-completions body
# (bench/openapi/gateway.lua; also run by `make bench-gateway`). Without
# ../shared: skipped with a message. BENCH_OPENAPI_ARGS: --quick, --no-docs.
bench-gateway-openapi: build
	@tools/deps.sh --bench
	@LUAJIT=$(LUAJIT) bench/openapi/run.sh bench/openapi/gateway.lua $(BENCH_OPENAPI_ARGS) || [ $$? = 2 ]

# The validation handler (bench/schema/gateway.lua) in the same nginx
# (whose handlers load lua-resty-simdjson, hence its build first).
bench-gateway-schema: build
	@$(RESTY_SIMDJSON)
	QJSON_GATEWAY_SCRIPT=bench/schema/gateway.lua LUAJIT=$(LUAJIT) bench/gateway/run.sh

# HAProxy (Lua 5.3, one thread) and wrk: qjson's action (read the body's
# model, route) and service (decode, set temperature, re-encode) against
# OpenResty's lua-cjson 2.1.0.17 for Lua 5.3 (tools/lua-cjson.sh), dkjson
# and a no-JSON floor, at 2 KB, 100 KB and 1 MB; then the seed blog's
# encode + decode loop and the corpus on lua5.3 and lua5.4
# (bench/haproxy/run.sh; BENCH_HAPROXY_ARGS=--quick for a smoke run).
BENCH_HAPROXY_ARGS ?=
bench-haproxy: puc
	@tools/deps.sh --bench
	bench/haproxy/run.sh $(BENCH_HAPROXY_ARGS)

lint: deps
	cargo fmt --all --check
	cargo fmt --manifest-path bench/core/Cargo.toml --check
	cargo clippy --release --workspace --all-targets -- -D warnings
	CARGO_TARGET_DIR=$(CURDIR)/target/bench-lint cargo clippy --release --manifest-path bench/core/Cargo.toml --all-targets -- -D warnings
	@# The aarch64 code (NEON) too, with the rustup target. unnecessary_cast
	@# is allowed there alone: c_char is u8 on aarch64, so the FFI's
	@# `as *const u8` casts, needed on x86, are no-ops.
	@if rustup target list --installed | grep -qx aarch64-unknown-linux-gnu || rustup target add aarch64-unknown-linux-gnu; then \
	  cargo clippy --target aarch64-unknown-linux-gnu --workspace --all-targets -- -D warnings -A clippy::unnecessary_cast; \
	else tools/skip.sh lint "aarch64 clippy: the rustup target aarch64-unknown-linux-gnu cannot be added"; fi
	luacheck lua spec bench tools

clean:
	cargo clean
	rm -rf bench/data bench/results/tmp
