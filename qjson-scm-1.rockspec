package = "qjson"
version = "scm-1"
source = {
  url = "git+file:///dev/null", -- built from a checkout with `luarocks make`
}
description = {
  summary = "Fast, strict JSON for LuaJIT and OpenResty, backed by a SIMD parser in Rust",
  license = "MIT",
}
dependencies = {
  "lua == 5.1", -- LuaJIT
}
build = {
  type = "command",
  build_command = "tools/build.sh", -- cargo build --release, profile-guided
  install = {
    lua = {
      ["qjson.base"] = "lua/qjson/base.lua",
      ["qjson.cdef"] = "lua/qjson/cdef.lua",
      ["qjson.cjson"] = "lua/qjson/cjson.lua",
      ["qjson.cjson.args"] = "lua/qjson/cjson/args.lua",
      ["qjson.cjson.decoder"] = "lua/qjson/cjson/decoder.lua",
      ["qjson.cjson.safe"] = "lua/qjson/cjson/safe.lua",
      ["qjson.decode"] = "lua/qjson/decode.lua",
      ["qjson.decode.config"] = "lua/qjson/decode/config.lua",
      ["qjson.doc"] = "lua/qjson/doc.lua",
      ["qjson.encode"] = "lua/qjson/encode.lua",
      ["qjson.encode.config"] = "lua/qjson/encode/config.lua",
      ["qjson.encode.number"] = "lua/qjson/encode/number.lua",
      ["qjson.encode.options"] = "lua/qjson/encode/options.lua",
      ["qjson.encode.string"] = "lua/qjson/encode/string.lua",
      ["qjson.encode.text"] = "lua/qjson/encode/text.lua",
      ["qjson.encode.walk"] = "lua/qjson/encode/walk.lua",
      ["qjson"] = "lua/qjson/init.lua",
      ["qjson.lib"] = "lua/qjson/lib.lua",
      ["qjson.options"] = "lua/qjson/options.lua",
      ["qjson.parse"] = "lua/qjson/parse.lua",
      ["qjson.safe"] = "lua/qjson/safe.lua",
      ["qjson.schema"] = "lua/qjson/schema.lua",
      ["qjson.select"] = "lua/qjson/select.lua",
      ["qjson.stream"] = "lua/qjson/stream.lua",
      ["qjson.tables"] = "lua/qjson/tables.lua",
      ["qjson.view"] = "lua/qjson/view.lua",
      ["qjson.view.edit"] = "lua/qjson/view/edit.lua",
      ["qjson.view.fields"] = "lua/qjson/view/fields.lua",
      ["qjson.view.iter"] = "lua/qjson/view/iter.lua",
      ["qjson.view.materialize"] = "lua/qjson/view/materialize.lua",
      ["qjson.view.members"] = "lua/qjson/view/members.lua",
      ["qjson.view.read"] = "lua/qjson/view/read.lua",
      ["qjson.view.write"] = "lua/qjson/view/write.lua",
    },
    lib = {
      ["libqjson"] = "target/release/libqjson.so",
    },
  },
}
