/* The C API's part of a decode and of an encode, with no JSON in it: the
 * least any library that decodes to plain tables, or encodes them, through
 * Lua's C API must spend (bench/puc/run.lua's "C API floor" row).
 *
 * decode(text): builds the tables of a document recorded before with
 * record(text, value), with exact sizes, every key and string pushed with
 * lua_pushlstring, members set with lua_rawset and elements with
 * lua_rawseti; nothing is parsed.
 * encode(value): walks the tables as an encoder must (lua_next, lua_type,
 * lua_tolstring, lua_tonumber) and writes nothing.
 *
 * Built by run.lua against the running Lua's headers. */
#include <lua.h>
#include <lauxlib.h>
#include <stdlib.h>
#include <string.h>

#if LUA_VERSION_NUM == 501
#define rawlen(L, i) lua_objlen(L, i)
#else
#define rawlen(L, i) lua_rawlen(L, i)
#endif

enum op { OBJ, ARR, STR, INT, NUM, TRUE_, FALSE_, NUL };

/* One recorded value: for OBJ/ARR `n` members follow (an object's as key,
 * value pairs, the key a STR); for STR `s`/`n` are a copy of its bytes. */
typedef struct {
  enum op op;
  size_t n;
  const char *s;
  lua_Number num;
  long long i;
} item;

typedef struct {
  const char *text; /* the recorded document's bytes (kept referenced), its identity */
  item *items;
  size_t len, cap;
} script;

#define MAX_SCRIPTS 16
static script scripts[MAX_SCRIPTS];
static int nscripts;

static item *add(lua_State *L, script *s) {
  if (s->len == s->cap) {
    size_t cap = s->cap ? s->cap * 2 : 1024;
    item *p = realloc(s->items, cap * sizeof(item));
    if (!p) luaL_error(L, "floor: out of memory");
    s->items = p;
    s->cap = cap;
  }
  return &s->items[s->len++];
}

/* Recorded strings are copied out of Lua's heap, so that a recording
 * leaves no garbage for the collector to traverse in the rows timed. */
static const char *keep(lua_State *L, int idx, size_t *n) {
  size_t len;
  const char *p = lua_tolstring(L, idx, &len);
  char *copy = malloc(len ? len : 1);
  if (!copy) luaL_error(L, "floor: out of memory");
  memcpy(copy, p, len);
  if (n) *n = len;
  return copy;
}

static void record_value(lua_State *L, script *s, int depth);

static void record_table(lua_State *L, script *s, int depth) {
  size_t len = rawlen(L, -1), count = 0, at;
  if (depth > 1000) luaL_error(L, "floor: too deep");
  lua_pushnil(L);
  while (lua_next(L, -2)) {
    count++;
    lua_pop(L, 1);
  }
  at = s->len;
  add(L, s)->op = (len > 0 && len == count) ? ARR : OBJ;
  s->items[at].n = count;
  if (s->items[at].op == ARR) {
    size_t k;
    for (k = 1; k <= len; k++) {
      lua_rawgeti(L, -1, (int)k);
      record_value(L, s, depth + 1);
      lua_pop(L, 1);
    }
    return;
  }
  lua_pushnil(L);
  while (lua_next(L, -2)) {
    item *key;
    size_t n;
    const char *p;
    if (lua_type(L, -2) != LUA_TSTRING) luaL_error(L, "floor: keys must be strings");
    p = keep(L, -2, &n);
    key = add(L, s);
    key->op = STR;
    key->s = p;
    key->n = n;
    record_value(L, s, depth + 1);
    lua_pop(L, 1);
  }
}

static void record_value(lua_State *L, script *s, int depth) {
  item *it;
  switch (lua_type(L, -1)) {
  case LUA_TTABLE:
    record_table(L, s, depth);
    return;
  case LUA_TSTRING: {
    size_t n;
    const char *p = keep(L, -1, &n);
    it = add(L, s);
    it->op = STR;
    it->s = p;
    it->n = n;
    return;
  }
  case LUA_TNUMBER:
    it = add(L, s);
#if LUA_VERSION_NUM >= 503
    if (lua_isinteger(L, -1)) {
      it->op = INT;
      it->i = lua_tointeger(L, -1);
      return;
    }
#endif
    it->op = NUM;
    it->num = lua_tonumber(L, -1);
    return;
  case LUA_TBOOLEAN:
    add(L, s)->op = lua_toboolean(L, -1) ? TRUE_ : FALSE_;
    return;
  default:
    add(L, s)->op = NUL;
  }
}

/* record(text, value): remembers the tables `value` for decode(text). */
static int record(lua_State *L) {
  script *s;
  luaL_checkstring(L, 1);
  luaL_checktype(L, 2, LUA_TTABLE);
  if (nscripts == MAX_SCRIPTS) return luaL_error(L, "floor: too many documents");
  s = &scripts[nscripts];
  s->text = lua_tostring(L, 1);
  lua_pushvalue(L, 1);
  luaL_ref(L, LUA_REGISTRYINDEX);
  lua_settop(L, 2);
  record_value(L, s, 0);
  nscripts++;
  return 0;
}

static const item *build(lua_State *L, const item *it) {
  size_t k, n = it->n;
  switch (it->op) {
  case OBJ:
    lua_createtable(L, 0, (int)n);
    it++;
    for (k = 0; k < n; k++) {
      lua_pushlstring(L, it->s, it->n);
      it = build(L, it + 1);
      lua_rawset(L, -3);
    }
    return it;
  case ARR:
    lua_createtable(L, (int)n, 0);
    it++;
    for (k = 1; k <= n; k++) {
      it = build(L, it);
      lua_rawseti(L, -2, (int)k);
    }
    return it;
  case STR:
    lua_pushlstring(L, it->s, it->n);
    break;
  case INT:
    lua_pushinteger(L, (lua_Integer)it->i);
    break;
  case NUM:
    lua_pushnumber(L, it->num);
    break;
  case TRUE_:
    lua_pushboolean(L, 1);
    break;
  case FALSE_:
    lua_pushboolean(L, 0);
    break;
  case NUL:
    lua_pushlightuserdata(L, NULL);
    break;
  }
  return it + 1;
}

static int decode(lua_State *L) {
  const char *text = luaL_checkstring(L, 1);
  int k;
  for (k = 0; k < nscripts; k++) {
    if (scripts[k].text == text) {
      build(L, scripts[k].items);
      return 1;
    }
  }
  return luaL_error(L, "floor: document not recorded");
}

static void walk(lua_State *L, int depth) {
  switch (lua_type(L, -1)) {
  case LUA_TSTRING:
    lua_tolstring(L, -1, NULL);
    return;
  case LUA_TNUMBER:
#if LUA_VERSION_NUM >= 503
    if (lua_isinteger(L, -1)) {
      lua_tointeger(L, -1);
      return;
    }
#endif
    lua_tonumber(L, -1);
    return;
  case LUA_TBOOLEAN:
    lua_toboolean(L, -1);
    return;
  case LUA_TTABLE:
    if (depth > 1000) luaL_error(L, "floor: too deep");
    lua_pushnil(L);
    while (lua_next(L, -2)) {
      if (lua_type(L, -2) == LUA_TSTRING) lua_tolstring(L, -2, NULL);
      walk(L, depth + 1);
      lua_pop(L, 1);
    }
    return;
  }
}

static int encode(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_settop(L, 1);
  walk(L, 0);
  return 0;
}

int luaopen_qjson_floor(lua_State *L) {
  lua_createtable(L, 0, 3);
  lua_pushcfunction(L, record);
  lua_setfield(L, -2, "record");
  lua_pushcfunction(L, decode);
  lua_setfield(L, -2, "decode");
  lua_pushcfunction(L, encode);
  lua_setfield(L, -2, "encode");
  return 1;
}
