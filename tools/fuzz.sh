#!/usr/bin/env bash
# Runs every cargo-fuzz target for SECONDS each (default 60), seeding the
# corpora from ../shared/data when it is there (the seeds stay outside
# git: fuzz/corpus is ignored). Stops at the first crash, leaving the
# input in fuzz/artifacts/<target>/.
#   tools/fuzz.sh [SECONDS]
# QJSON_FUZZ_OPT_LEVEL (default 3): the targets' optimization level; make
# fuzz-smoke builds them at 1, much faster to compile for its 5 s a target.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
export CARGO_PROFILE_RELEASE_OPT_LEVEL=${QJSON_FUZZ_OPT_LEVEL:-3}
export PATH="$HOME/.cargo/bin:$PATH"
# cargo-fuzz needs a nightly compiler (sanitizer flags).
if ! rustup run nightly rustc --version >/dev/null 2>&1 && ! rustup toolchain install nightly --profile minimal; then
  exec tools/skip.sh fuzz "no nightly toolchain (rustup toolchain install nightly failed)"
fi
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked

shared=../shared/data
targets=(parse_differential ffi_sequence path_syntax stream_chunks stream_feeder select_paths schema_differential schema_hostile decode_events)
for t in "${targets[@]}"; do mkdir -p "fuzz/corpus/$t"; done
if [ -d "$shared" ]; then
  cp -n "$shared"/JSONTestSuite/test_parsing/*.json "$shared"/corpus/*.json fuzz/corpus/parse_differential/
  for f in "$shared"/JSONTestSuite/test_parsing/y_*.json; do
    # ffi_sequence: a split byte, the document, then a call script.
    { printf '\200'; cat "$f"; printf '\000\000a\001\000\000[0]\010\001\000\000'; } > "fuzz/corpus/ffi_sequence/$(basename "$f")"
  done
else
  echo "fuzz: ../shared/data not found; starting from empty corpora" >&2
fi
printf 'a.b[0].c\n' > fuzz/corpus/path_syntax/dotted
printf '/a~1b/0/~0\n' > fuzz/corpus/path_syntax/pointer

# A seed of a target that reads two texts: a control byte whose bit 0 is
# `bit` and whose other bits cut the input after `first` (the targets cut
# at (ctl >> 1) * len / 128), then `first` and `second`. Padding (spaces
# after `first`, `pad` after `second`) makes such a cut exist.
two_part_seed() {
  local file=$1 bit=$2 first=$3 second=$4 pad=$5 k n
  while :; do
    n=$(( ${#first} + ${#second} ))
    for ((k = 0; k < 128; k++)); do
      if (( k * n / 128 == ${#first} )); then
        { printf "\\$(printf '%03o' $(( k << 1 | bit )))"; printf '%s%s' "$first" "$second"; } > "$file"
        return
      fi
    done
    if (( ${#first} * 128 >= 127 * n )); then second+=$pad; else first+=' '; fi
  done
}
# stream_chunks: the format (ctl % 3), a small max_size when bit 7 is set,
# a seed for the chunk lengths, the stream.
stream_seed() { { printf "\\$(printf '%03o' "$2")\\$(printf '%03o' "$3")"; printf '%b' "$4"; } > "fuzz/corpus/stream_chunks/$1"; }
stream_seed ndjson 0 7 '{"a":1}\n{"b":"x\\ny"}\r\n\n  [1,2]  \n3\n"s"\n{"last":true}'
stream_seed concat 1 9 '{"a":[1,{"b":"}]\\""}]} [] 12 "x\\\\" true{"c":null}\n"q"-4.5e3 '
stream_seed sse 2 3 ': hi\n\nevent: delta\ndata: {"id":1,"choices":[{"delta":{"content":"He"}}]}\n\nid: 7\r\ndata:{"id":2}\r\n\r\ndata: {"m":\r\ndata: [1,\rdata: 2]}\r\rretry: 10\ndata\n\ndata: [DONE]\n\ndata: {"after":1}\n\n'
stream_seed sse-small-max 206 5 'data: {"x":1}\n\ndata: {"y":"a much longer value than the limit"}\n\ndata: {"z":3}'
# stream_feeder: the format (ctl % 3; bit 2 max_depth 2, bit 3 repeated
# keys rejected), a seed for the chunk lengths and the untaken feeds, a
# stream with a bad value or a split error.
feeder_seed() { { printf "\\$(printf '%03o' "$2")\\$(printf '%03o' "$3")"; printf '%b' "$4"; } > "fuzz/corpus/stream_feeder/$1"; }
feeder_seed ndjson-bad 0 11 '1\n{"x":\n2\n3\n'
feeder_seed concat-split 1 29 '[1] {"a":2} ] [3]'
feeder_seed sse-bom-deep 6 77 '\357\273\277data: {"a":1}\n\ndata: {"a":[[1]]}\n\ndata: 3\n\n'
feeder_seed ndjson-dup 8 5 '{"r":1}\n{"r":1,"r":2}\n{"r":3}\n'
# select_paths: bit 0 the mode (lazy), then a document and paths a line.
two_part_seed fuzz/corpus/select_paths/tiny 0 '{"id":1234567,"user":"ada@example.com","scope":["read","write"],"active":true,"quota":{"limit":1000,"used":371,"ratio":0.371},"region":"eu-west-1","note":"caf\u00e9 \"ok\"","expires":1767225600}' $'id\nuser\nscope[*]\nactive\nquota.limit\nquota.used:number\nquota.ratio\nregion\nnote:str\nexpires:int' $'\n'
two_part_seed fuzz/corpus/select_paths/chunk 1 '{"id":"c1","choices":[{"index":0,"delta":{"content":"Hel"},"finish_reason":null}],"a":{"b":1,"b":2}}' $'choices[0].delta.content\nchoices[*].finish_reason\nchoices[*]./x\nid:object\nchoices:raw\na.b\na.c' $'\n'
two_part_seed fuzz/corpus/select_paths/nested 0 '[[1,2],[3,[4]],{"a":"\u00e9","k:v":true}]' $'[*][*]\n[2].a\n[1][1][0]\n[0]:raw\n[*]\n[2].k:v:any' $'\n'
# decode_events: the options (bit 0 invalid numbers, bit 1 lua-cjson's
# integers, bit 2 max_depth 3), then texts separated by 0xFF.
decode_seed() { { printf "\\$(printf '%03o' "$2")"; printf '%s\377' "${@:3}"; } > "fuzz/corpus/decode_events/$1"; }
decode_seed shapes 0 '[{"a":1,"b":[true,false,null]},{"a":2,"b":[]},{"b":{},"a":-0}]' '{"a":3,"b":[1]}' '{"k":"\u00e9\n","k":1,"":[1e400,12345678901234567890]}'
decode_seed numbers 3 '[NaN,Infinity,-Infinity,0x1F,+1,01,1.,+99999999999999999999,-0]' '[-99999999999999999999,9223372036854775807]'
decode_seed deep 4 '{"x":{"y":{"z":{"w":1}}}}' '[[[]]]' '"s"'
# schema_differential: bit 0 checks formats, then a schema and an instance.
two_part_seed fuzz/corpus/schema_differential/object 0 '{"type":"object","properties":{"model":{"type":"string","maxLength":8},"n":{"type":"integer","minimum":1}},"required":["model"],"additionalProperties":false}' '{"model":"gpt-4o","n":2.0}' ' '
two_part_seed fuzz/corpus/schema_differential/unique 0 '{"items":{"enum":[1,"a",null,{"x":[1]}]},"uniqueItems":true,"maxItems":4}' '[1.0,"a",{"x":[1e0]},null]' ' '
two_part_seed fuzz/corpus/schema_differential/patterns 1 '{"patternProperties":{"^x-":{"format":"email"}},"propertyNames":{"pattern":"^[a-z-]+$"},"minProperties":1}' '{"x-a":"a@b.c","\u00e9":1,"x-a":"not"}' ' '
# schema_hostile: the kind (byte % 4: ref chains, values, patterns, any),
# then its input: two little-endian u16s (links, body depth) and a byte
# (link kind, bit 2 an array innermost); a value; a pattern line then
# subjects a line; a cut byte, a schema and an instance.
printf '\000\040\116\040\116\005' > fuzz/corpus/schema_hostile/refs-20000
printf '\000\310\000\000\001\002' > fuzz/corpus/schema_hostile/cycle-200
printf '\001[1e400,-0.0,{"a":[1,{"b":18446744073709551617}]},"\\u0061",1e-400]' > fuzz/corpus/schema_hostile/values
printf '\002^(a|aa)*\\1$\naaaaaaaaaaaaaaaaaaaaaaaaaaaaab\naa\naaaa' > fuzz/corpus/schema_hostile/backref
printf '\002(?<=a)b(?!c)\nab\nabc\nb' > fuzz/corpus/schema_hostile/lookaround
printf '\003\267{"items":{"$ref":"#"},"uniqueItems":true,"maximum":1e400}[[[[1e999]],[[1e999]]]]' > fuzz/corpus/schema_hostile/any

(cd fuzz && cargo +nightly fuzz build -O)
total=0
for t in "${targets[@]}"; do
  log=$(mktemp)
  if ! (cd fuzz && cargo +nightly fuzz run -O "$t" "corpus/$t" -- -max_total_time="$seconds" -print_final_stats=1) >"$log" 2>&1; then
    grep -v '^"' "$log" | tail -40
    echo "fuzz: $t FAILED; the crashing input is in fuzz/artifacts/$t/" >&2
    exit 1
  fi
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
  total=$((total + runs))
  echo "fuzz: $t: $runs executions in ${seconds}s, no crash"
  rm -f "$log"
done
echo "fuzz: ${#targets[@]} passed, 0 failed ($total executions)"
