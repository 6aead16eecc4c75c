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
  -- cargo build --release, profile-guided. Without luarocks' CC (meant for
  -- C modules): cargo's build scripts that compile C rerun when CC changes,
  -- which would rebuild a checkout's library with a new profile each time.
  build_command = "env -u CC tools/build.sh",
  install = {
    lua = {
      ["qjson"] = "lua/qjson/init.lua",
      ["qjson.args"] = "lua/qjson/args.lua",
      ["qjson.base"] = "lua/qjson/base.lua",
      ["qjson.cdef"] = "lua/qjson/cdef.lua",
      ["qjson.cjson"] = "lua/qjson/cjson.lua",
      ["qjson.cjson.decoder"] = "lua/qjson/cjson/decoder.lua",
      ["qjson.cjson.safe"] = "lua/qjson/cjson/safe.lua",
      ["qjson.collector"] = "lua/qjson/collector.lua",
      ["qjson.decode"] = "lua/qjson/decode.lua",
      ["qjson.decode.settings"] = "lua/qjson/decode/settings.lua",
      ["qjson.doc"] = "lua/qjson/doc.lua",
      ["qjson.encode"] = "lua/qjson/encode.lua",
      ["qjson.encode.copied_text"] = "lua/qjson/encode/copied_text.lua",
      ["qjson.encode.number"] = "lua/qjson/encode/number.lua",
      ["qjson.encode.options"] = "lua/qjson/encode/options.lua",
      ["qjson.encode.settings"] = "lua/qjson/encode/settings.lua",
      ["qjson.encode.string"] = "lua/qjson/encode/string.lua",
      ["qjson.encode.walk"] = "lua/qjson/encode/walk.lua",
      ["qjson.lib"] = "lua/qjson/lib.lua",
      ["qjson.markers"] = "lua/qjson/markers.lua",
      ["qjson.parse"] = "lua/qjson/parse.lua",
      ["qjson.parse.options"] = "lua/qjson/parse/options.lua",
      ["qjson.patch"] = "lua/qjson/patch.lua",
      ["qjson.plain_tables"] = "lua/qjson/plain_tables.lua",
      ["qjson.safe"] = "lua/qjson/safe.lua",
      ["qjson.schema"] = "lua/qjson/schema.lua",
      ["qjson.select"] = "lua/qjson/select.lua",
      ["qjson.stream"] = "lua/qjson/stream.lua",
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
