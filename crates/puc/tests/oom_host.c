/* The failing-allocator host (make test-puc, tools/test-puc.sh): a Lua
 * state made with lua_newstate and an allocator that fails at the Nth
 * allocation, for every N through a job (a Lua function that decodes,
 * encodes and reads with qjson). Each run must end in "not enough memory"
 * (or succeed, once N passes the job's allocations); then the same state
 * runs the job again with no failure, which must give the right answers
 * (nothing corrupted), and lua_close frees it all (run under valgrind:
 * nothing leaked, no invalid access).
 *
 * Usage: oom_host <cpath> <job.lua> [first N] [step]
 * Built per Lua version: cc -I/usr/include/lua5.X oom_host.c -llua5.X */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>

static unsigned long count;   /* allocations so far */
static unsigned long fail_at; /* the first allocation that fails; 0: none */

static void *alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  (void)ud;
  if (nsize == 0) {
    free(ptr);
    return NULL;
  }
  /* Lua requires a shrink never to fail (5.1), so only growth counts. */
  if (ptr == NULL || nsize > osize) {
    count++;
    if (fail_at && count >= fail_at) /* and every one after: exhausted */
      return NULL;
  }
  return realloc(ptr, nsize);
}

/* A state with the standard libraries, package.cpath set, and the job
 * script run (it defines the global `job`). Exits on failure. */
static lua_State *new_state(const char *cpath, const char *script) {
  lua_State *L = lua_newstate(alloc, NULL);
  if (!L) {
    fprintf(stderr, "oom_host: lua_newstate failed\n");
    exit(2);
  }
  luaL_openlibs(L);
  lua_getglobal(L, "package");
  lua_pushstring(L, cpath);
  lua_setfield(L, -2, "cpath");
  lua_pop(L, 1);
  if (luaL_dofile(L, script)) {
    fprintf(stderr, "oom_host: %s\n", lua_tostring(L, -1));
    exit(2);
  }
  return L;
}

/* Calls job(); returns its status, the message (if any) copied to msg. */
static int run_job(lua_State *L, char *msg, size_t size) {
  int status;
  lua_getglobal(L, "job");
  status = lua_pcall(L, 0, 0, 0);
  msg[0] = 0;
  if (status) {
    const char *m = lua_tostring(L, -1);
    snprintf(msg, size, "%s", m ? m : "(not a string)");
    lua_pop(L, 1);
  }
  return status;
}

int main(int argc, char **argv) {
  unsigned long n, first = 1, step = 1, runs = 0, failed = 0;
  char msg[512];
  if (argc < 3) {
    fprintf(stderr, "usage: oom_host <cpath> <job.lua> [first N] [step]\n");
    return 2;
  }
  if (argc > 3)
    first = strtoul(argv[3], NULL, 10);
  if (argc > 4)
    step = strtoul(argv[4], NULL, 10);
  for (n = first;; n += step) {
    lua_State *L = new_state(argv[1], argv[2]);
    unsigned long before = count;
    int status;
    fail_at = count + n;
    status = run_job(L, msg, sizeof msg);
    fail_at = 0;
    runs++;
    if (status == 0) {
      lua_close(L);
      if (count - before < n) /* the job made fewer allocations: done */
        break;
      /* (Succeeded although an allocation failed: Lua retried it after
       * an emergency collection, 5.2+.) */
      continue;
    }
    failed++;
    if (!strstr(msg, "not enough memory")) {
      fprintf(stderr, "oom_host: allocation %lu of the job failed, and the job raised \"%s\" instead of not enough memory\n", n, msg);
      return 1;
    }
    /* The same state again, nothing failing: the right answers. */
    if (run_job(L, msg, sizeof msg)) {
      fprintf(stderr, "oom_host: after allocation %lu failed, the job failed again: %s\n", n, msg);
      return 1;
    }
    lua_close(L);
  }
  /* Once more with no failure and the collector stopped, the job's
   * garbage then collected without the module's finalizers (oom_job.lua):
   * what a call leaves behind must own no native memory, which valgrind
   * would see lost at lua_close. */
  {
    lua_State *L = new_state(argv[1], argv[2]);
    lua_getglobal(L, "job_without_finalizers");
    if (lua_pcall(L, 0, 0, 0)) {
      fprintf(stderr, "oom_host: job_without_finalizers: %s\n", lua_tostring(L, -1));
      return 1;
    }
    lua_close(L);
  }
  printf("oom_host: %lu runs, %lu ended in not enough memory, the job then ran right in the same state\n", runs, failed);
  return 0;
}
