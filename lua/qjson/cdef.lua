-- Generated from crates/luajit/include/qjson.h by tools/gen-cdef.lua (make header); do not edit.
-- spec/cdef_spec.lua fails when this drifts from the header.
return [[
enum qjson_duplicates {
  QJSON_DUPLICATES_LAST = 0,
  QJSON_DUPLICATES_REJECT = 1,
};
typedef uint32_t qjson_duplicates;
enum qjson_escape_flag {
  QJSON_ESCAPE_FLAG_ESCAPE_SLASH = 1,
  QJSON_ESCAPE_FLAG_ASCII = 2,
  QJSON_ESCAPE_FLAG_HTML_SAFE = 4,
  QJSON_ESCAPE_FLAG_VALIDATE_UTF8 = 8,
};
typedef uint32_t qjson_escape_flag;
enum qjson_event_tag {
  QJSON_EVENT_TAG_NULL = 0,
  QJSON_EVENT_TAG_FALSE = 1,
  QJSON_EVENT_TAG_TRUE = 2,
  QJSON_EVENT_TAG_NUMBER = 3,
  QJSON_EVENT_TAG_STRING = 4,
  QJSON_EVENT_TAG_ARRAY = 5,
  QJSON_EVENT_TAG_OBJECT = 6,
  QJSON_EVENT_TAG_SCALAR_ARRAY = 7,
  QJSON_EVENT_TAG_SCALAR_OBJECT = 8,
  QJSON_EVENT_TAG_KEY = 9,
};
typedef uint32_t qjson_event_tag;
enum qjson_item_tag {
  QJSON_ITEM_TAG_MISSING = 0,
  QJSON_ITEM_TAG_NULL = 1,
  QJSON_ITEM_TAG_FALSE = 2,
  QJSON_ITEM_TAG_TRUE = 3,
  QJSON_ITEM_TAG_NUMBER = 4,
  QJSON_ITEM_TAG_STRING = 5,
  QJSON_ITEM_TAG_RAW = 6,
  QJSON_ITEM_TAG_ARRAY = 7,
  QJSON_ITEM_TAG_OBJECT = 8,
  QJSON_ITEM_TAG_LIST = 9,
  QJSON_ITEM_TAG_INTEGER = 10,
};
typedef uint32_t qjson_item_tag;
enum qjson_kind {
  QJSON_KIND_NULL = 1,
  QJSON_KIND_BOOLEAN = 2,
  QJSON_KIND_NUMBER = 3,
  QJSON_KIND_STRING = 4,
  QJSON_KIND_ARRAY = 5,
  QJSON_KIND_OBJECT = 6,
};
typedef int32_t qjson_kind;
enum qjson_limit {
  QJSON_LIMIT_DEFAULT_MAX_DEPTH = 1000,
  QJSON_LIMIT_NUMBER_MAX_LEN = 32,
  QJSON_LIMIT_ESCAPE_EXPANSION = 6,
  QJSON_LIMIT_ESCAPE_SLACK = 16,
  QJSON_LIMIT_ESCAPE_MAX_CHUNK = (256 << 20),
};
typedef uint32_t qjson_limit;
enum qjson_mode {
  QJSON_MODE_STRICT = 0,
  QJSON_MODE_LAZY = 1,
};
typedef uint32_t qjson_mode;
enum qjson_schema_draft {
  QJSON_SCHEMA_DRAFT_AUTO = 0,
  QJSON_SCHEMA_DRAFT_DRAFT4 = 4,
  QJSON_SCHEMA_DRAFT_DRAFT6 = 6,
  QJSON_SCHEMA_DRAFT_DRAFT7 = 7,
  QJSON_SCHEMA_DRAFT_DRAFT201909 = 2019,
  QJSON_SCHEMA_DRAFT_DRAFT202012 = 2020,
};
typedef uint32_t qjson_schema_draft;
enum qjson_status {
  QJSON_STATUS_MISSING = 0,
  QJSON_STATUS_ERROR = -1,
  QJSON_STATUS_PANIC = -2,
};
typedef int32_t qjson_status;
enum qjson_stream_format {
  QJSON_STREAM_FORMAT_NDJSON = 0,
  QJSON_STREAM_FORMAT_CONCAT = 1,
  QJSON_STREAM_FORMAT_SSE = 2,
};
typedef uint32_t qjson_stream_format;
typedef struct qjson_openapi qjson_openapi;
typedef struct qjson_doc qjson_doc;
typedef struct qjson_patch qjson_patch;
typedef struct qjson_path qjson_path;
typedef struct qjson_schema qjson_schema;
typedef struct qjson_selector qjson_selector;
typedef struct qjson_stream qjson_stream;
typedef union {
  double num;
  const char *ptr;
} qjson_event_value;
typedef struct {
  qjson_event_tag tag;
  uint32_t n;
  qjson_event_value v;
} qjson_event;
typedef struct {
  uint32_t mode;
  uint32_t max_depth;
  uint32_t duplicate_keys;
  uint32_t ijson;
  uint32_t invalid_numbers;
  uint32_t cjson_integers;
} qjson_options;
typedef struct {
  uint32_t count;
  uint32_t key_generation;
} qjson_events_info;
typedef struct {
  uint64_t offset;
  uint32_t line;
  uint32_t column;
  char message[256];
} qjson_error;
typedef struct {
  const char *name;
  size_t name_len;
  const char *value;
  size_t value_len;
} qjson_openapi_header;
typedef struct {
  const char *where;
  size_t where_len;
  const char *name;
  size_t name_len;
  const char *instance_location;
  size_t instance_location_len;
  const char *keyword_location;
  size_t keyword_location_len;
  const char *message;
  size_t message_len;
  double line;
  double column;
  double byte;
} qjson_openapi_problem_item;
typedef struct {
  uint8_t *data;
  size_t len;
  size_t cap;
} qjson_bytes;
typedef struct {
  uint32_t draft;
  uint32_t formats;
  uint32_t openapi;
  uint32_t max_depth;
  uint32_t max_errors;
  uint32_t backtrack_limit;
  uint32_t regex_size_limit;
  uint32_t backtrack_budget;
} qjson_schema_options;
typedef union {
  double num;
  const char *ptr;
  uint32_t node;
  int64_t integer;
} qjson_item_value;
typedef struct {
  qjson_item_tag tag;
  uint32_t len;
  qjson_item_value v;
} qjson_item;
typedef struct {
  qjson_item *items;
  uint32_t cap;
  uint32_t count;
  uint8_t *bytes;
  uint32_t bytes_cap;
  uint32_t used;
  qjson_error err;
} qjson_select_out;
typedef struct {
  uint64_t start;
  uint64_t at;
  uint32_t len;
  uint32_t joined;
} qjson_span;
typedef struct {
  const qjson_span *spans;
  uint32_t count;
  uint32_t done;
  const char *data;
  const char *joined;
  size_t joined_len;
  uint32_t unread;
  qjson_error err;
} qjson_stream_out;
typedef struct {
  uint32_t node;
  uint32_t flag;
  double num;
  const char *ptr;
  size_t len;
} qjson_value;
const char *qjson_version(void);
const char *qjson_backend(void);
void qjson_free(qjson_doc *doc);
void qjson_close(qjson_doc *doc);
int32_t qjson_pin(qjson_doc *doc);
void qjson_unpin(qjson_doc *doc);
void qjson_finalize(qjson_doc *doc);
uint64_t qjson_live_documents(void);
int32_t qjson_escape(const char *src,
                     size_t len,
                     uint8_t *dst,
                     uint32_t flags,
                     bool last,
                     size_t *consumed);
uint32_t qjson_format_number(double v, uint32_t precision, uint8_t *dst);
const qjson_event *qjson_text_events(const char *input,
                                     size_t len,
                                     const qjson_options *opts,
                                     uint32_t slot,
                                     qjson_events_info *info,
                                     qjson_error *err);
const qjson_event *qjson_doc_events(qjson_doc *doc,
                                    uint32_t node,
                                    uint32_t slot,
                                    qjson_events_info *info,
                                    qjson_error *err);
double qjson_load_f64(const double *p);
int32_t qjson_openapi_new_in(const char *spec,
                             size_t len,
                             uint32_t max_errors,
                             int32_t formats,
                             qjson_openapi **out,
                             qjson_error *err);
void qjson_openapi_release(qjson_openapi **api);
int32_t qjson_openapi_header_names(qjson_openapi *const *api,
                                   const char *method,
                                   size_t method_len,
                                   const char *path,
                                   size_t path_len,
                                   uint8_t *out,
                                   size_t cap,
                                   qjson_error *err);
int32_t qjson_openapi_all_header_names(qjson_openapi *const *api,
                                       uint8_t *out,
                                       size_t cap,
                                       qjson_error *err);
int32_t qjson_openapi_validate(qjson_openapi *const *api,
                               const char *method,
                               size_t method_len,
                               const char *path,
                               size_t path_len,
                               const char *query,
                               size_t query_len,
                               const char *body,
                               size_t body_len,
                               const char *content_type,
                               size_t content_type_len,
                               const qjson_openapi_header *headers,
                               size_t nheaders,
                               uint8_t *out,
                               size_t cap,
                               qjson_error *err);
int32_t qjson_openapi_problem(double status,
                              const qjson_openapi_problem_item *items,
                              size_t nitems,
                              uint8_t *out,
                              size_t cap,
                              qjson_error *err);
qjson_doc *qjson_parse(const char *input, size_t len, const qjson_options *opts, qjson_error *err);
int32_t qjson_parse_size(const char *input,
                         size_t len,
                         const qjson_options *opts,
                         qjson_error *err);
qjson_doc *qjson_parse_measured(const char *input,
                                size_t len,
                                const qjson_options *opts,
                                qjson_error *err);
int32_t qjson_parse_in(const char *input,
                       size_t len,
                       const qjson_options *opts,
                       void *mem,
                       size_t size,
                       qjson_error *err);
double qjson_parse_into(const char *input,
                        size_t len,
                        const qjson_options *opts,
                        void *mem,
                        size_t size,
                        qjson_error *err);
qjson_doc *qjson_parse_file(const char *path,
                            size_t path_len,
                            uint64_t max_size,
                            const qjson_options *opts,
                            qjson_error *err);
int32_t qjson_parse_file_in(const char *path,
                            size_t path_len,
                            uint64_t max_size,
                            const qjson_options *opts,
                            void *mem,
                            size_t size,
                            qjson_error *err);
int32_t qjson_parse_measured_in(const char *input,
                                size_t len,
                                const qjson_options *opts,
                                void *mem,
                                size_t size,
                                qjson_error *err);
size_t qjson_handle_size(void);
void qjson_bytes_release(qjson_bytes *out);
int32_t qjson_patch_new_in(const char *ops,
                           size_t len,
                           int32_t args,
                           qjson_patch **out,
                           qjson_error *err);
void qjson_patch_release(qjson_patch **patch);
int32_t qjson_patch_args(qjson_patch *const *patch);
int32_t qjson_patch_apply(qjson_patch *const *patch,
                          qjson_doc *doc,
                          uint32_t node,
                          const char *input,
                          size_t len,
                          const char *values,
                          const size_t *ends,
                          size_t nvalues,
                          size_t max_size,
                          qjson_bytes *out,
                          qjson_error *err);
int32_t qjson_merge_patch(qjson_doc *doc,
                          uint32_t node,
                          const char *input,
                          size_t len,
                          const char *patch,
                          size_t patch_len,
                          qjson_bytes *out,
                          qjson_error *err);
int32_t qjson_path_compile_in(const char *path, size_t len, qjson_path **out, qjson_error *err);
void qjson_path_release(qjson_path **path);
int32_t qjson_find(qjson_doc *doc,
                   uint32_t base,
                   const char *path,
                   size_t path_len,
                   qjson_path *const *compiled,
                   uint32_t *out_node);
int32_t qjson_get_str(qjson_doc *doc,
                      uint32_t base,
                      const char *path,
                      size_t path_len,
                      qjson_path *const *compiled,
                      const char **out_ptr,
                      size_t *out_len);
int64_t qjson_copy_str(qjson_doc *doc, uint32_t node, uint8_t *dst, size_t cap);
int64_t qjson_copy_raw(qjson_doc *doc, uint32_t node, uint8_t *dst, size_t cap);
int32_t qjson_get_num(qjson_doc *doc,
                      uint32_t base,
                      const char *path,
                      size_t path_len,
                      qjson_path *const *compiled,
                      double *out);
int32_t qjson_get_i64(qjson_doc *doc,
                      uint32_t base,
                      const char *path,
                      size_t path_len,
                      qjson_path *const *compiled,
                      int64_t *out);
int32_t qjson_get_u64(qjson_doc *doc,
                      uint32_t base,
                      const char *path,
                      size_t path_len,
                      qjson_path *const *compiled,
                      uint64_t *out);
int32_t qjson_get_bool(qjson_doc *doc,
                       uint32_t base,
                       const char *path,
                       size_t path_len,
                       qjson_path *const *compiled,
                       uint8_t *out);
int32_t qjson_get_len(qjson_doc *doc,
                      uint32_t base,
                      const char *path,
                      size_t path_len,
                      qjson_path *const *compiled,
                      size_t *out);
int32_t qjson_get_raw(qjson_doc *doc,
                      uint32_t base,
                      const char *path,
                      size_t path_len,
                      qjson_path *const *compiled,
                      const char **out_ptr,
                      size_t *out_len);
int32_t qjson_next(qjson_doc *doc, uint32_t parent, uint32_t prev, uint32_t *out);
int32_t qjson_child_holding(qjson_doc *doc,
                            uint32_t parent,
                            uint32_t target,
                            uint32_t *out_node,
                            uint32_t *out_index);
int64_t qjson_unique_members(qjson_doc *doc, uint32_t obj, uint32_t *out, size_t cap);
size_t qjson_index_bytes(const qjson_doc *doc);
void qjson_last_error(const qjson_doc *doc, qjson_error *err);
int32_t qjson_schema_new_in(const char *schema,
                            size_t len,
                            const char *remotes,
                            size_t remotes_len,
                            const qjson_schema_options *opts,
                            qjson_schema **out,
                            qjson_error *err);
void qjson_schema_release(qjson_schema **schema);
int32_t qjson_schema_check(qjson_schema *const *schema,
                           const char *input,
                           size_t len,
                           uint8_t *out,
                           size_t cap,
                           qjson_error *err);
int32_t qjson_schema_check_doc(qjson_schema *const *schema,
                               qjson_doc *doc,
                               uint32_t node,
                               uint8_t *out,
                               size_t cap,
                               qjson_error *err);
int32_t qjson_schema_valid(qjson_schema *const *schema,
                           const char *input,
                           size_t len,
                           qjson_error *err);
int32_t qjson_schema_valid_doc(qjson_schema *const *schema,
                               qjson_doc *doc,
                               uint32_t node,
                               qjson_error *err);
int32_t qjson_selector_new_in(qjson_selector **out, qjson_error *err);
int32_t qjson_selector_add(qjson_selector **sel,
                           const char *spec,
                           size_t spec_len,
                           const char *ty,
                           size_t ty_len,
                           qjson_error *err);
void qjson_selector_release(qjson_selector **sel);
int32_t qjson_select(qjson_selector *const *sel,
                     qjson_doc *doc,
                     uint32_t node,
                     const char *input,
                     size_t len,
                     const qjson_options *opts,
                     qjson_select_out *out);
int32_t qjson_stream_new_in(uint32_t format, size_t max_size, qjson_stream **out, qjson_error *err);
uint64_t qjson_stream_max_size(void);
void qjson_stream_release(qjson_stream **st);
void qjson_stream_trim(qjson_stream **st);
int32_t qjson_stream_split(qjson_stream **st, const char *input, size_t len, qjson_stream_out *out);
int32_t qjson_stream_feed(qjson_stream **st,
                          const char *chunk,
                          size_t len,
                          int32_t end,
                          qjson_stream_out *out);
int32_t qjson_child(qjson_doc *doc,
                    uint32_t parent,
                    const char *key,
                    size_t key_len,
                    size_t index,
                    qjson_value *out);
int32_t qjson_read(qjson_doc *doc, uint32_t node, qjson_value *out);
int32_t qjson_entry(qjson_doc *doc,
                    uint32_t parent,
                    uint32_t prev,
                    qjson_value *key,
                    qjson_value *value);
int32_t qjson_input(qjson_doc *doc, const char **out_ptr, size_t *out_len);
int32_t qjson_raw_span(qjson_doc *doc, uint32_t node, uint32_t *out);
int32_t qjson_copy_input(qjson_doc *doc, uint32_t start, uint32_t len, uint8_t *dst);
int32_t qjson_member_span(qjson_doc *doc,
                          uint32_t parent,
                          uint32_t child,
                          uint32_t parent_end,
                          uint32_t *out);
]]
