package = "qjson"
version = "scm-1"
source = {
  url = "git+file:///dev/null", -- built from a checkout with `luarocks make`
}
description = {
  summary = "Fast, strict JSON for LuaJIT, OpenResty and PUC Lua 5.1-5.4, backed by a SIMD parser in Rust",
  license = "MIT",
}
dependencies = {
  "lua >= 5.1, < 5.5", -- LuaJIT (the FFI binding) or PUC Lua 5.1-5.4 (the native module)
}
build = {
  type = "command",
  -- tools/rock.sh builds and installs what the Lua running luarocks loads:
  -- on LuaJIT the profile-guided libqjson.so and lua/qjson/, on PUC Lua 5.X
  -- the native module qjson.so for that version. Without luarocks' CC
  -- (meant for C modules): cargo's build scripts that compile C rerun
  -- when CC changes, which would rebuild a checkout's library each time.
  build_command = "env -u CC tools/rock.sh build $(LUA)",
  install_command = "tools/rock.sh install $(LUA) $(LUADIR) $(LIBDIR)",
}
