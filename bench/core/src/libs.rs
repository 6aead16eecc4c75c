//! The rows of the core benchmark: each library's parse, as its authors
//! recommend calling it, with or without reading the document's three
//! fields. A row's `run` does one operation and returns a checksum so
//! that nothing is optimized away.

use crate::docs::{qjson_path, Doc, Read, Seg};
use std::ffi::{c_char, c_void};
use std::hint::black_box;
use yyjson_sys as yy;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Task {
    /// A full validating parse.
    Full,
    /// Structure only: values are checked when read (or never).
    Structure,
    /// Parse + read the document's three fields.
    Reads,
    /// qjson's stage 1 alone (its share of a parse).
    Stage1,
    /// One memchr pass over every byte.
    Floor,
}

impl Task {
    pub fn title(self) -> &'static str {
        match self {
            Task::Full => "full validating parse",
            Task::Structure => "structure-only parse",
            Task::Reads => "parse + three field reads",
            Task::Stage1 => "stage 1 alone",
            Task::Floor => "floor",
        }
    }
}

pub trait Row {
    fn lib(&self) -> &'static str;
    fn task(&self) -> Task;
    /// Untimed work before a batch of `k` operations.
    fn prepare(&mut self, _k: usize) {}
    /// The `i`th operation of the batch.
    fn run(&mut self, i: usize) -> u64;
}

/// Every row for `doc`.
pub fn rows(doc: &Doc) -> Vec<Box<dyn Row + '_>> {
    let d = doc;
    vec![
        Box::new(Qjson::new(d, qjson_core::Options::default(), false, "qjson strict")),
        Box::new(Yyjson::new(d, false)),
        Box::new(SonicDom(d)),
        Box::new(SimdTape::new(d)),
        Box::new(SerdeValue(d)),
        Box::new(Qjson::new(d, qjson_core::Options::lazy(), false, "qjson lazy")),
        Box::new(SonicLazy(d)),
        Box::new(Qjson::new(d, qjson_core::Options::default(), true, "qjson strict")),
        Box::new(Qjson::new(d, qjson_core::Options::lazy(), true, "qjson lazy")),
        Box::new(SonicGet::new(d)),
        Box::new(SonicGetMany::new(d)),
        Box::new(Yyjson::new(d, true)),
        Box::new(Stage1 { doc: d, strict: true, index: Vec::new() }),
        Box::new(Stage1 { doc: d, strict: false, index: Vec::new() }),
        Box::new(Memchr(d)),
    ]
}

struct Qjson<'a> {
    doc: &'a Doc,
    opts: qjson_core::Options,
    reads: Option<Vec<(qjson_core::Path, Read)>>,
    lib: &'static str,
}

impl<'a> Qjson<'a> {
    fn new(doc: &'a Doc, opts: qjson_core::Options, reads: bool, lib: &'static str) -> Self {
        let reads = reads.then(|| {
            doc.fields
                .iter()
                .map(|f| (qjson_core::Path::compile(qjson_path(f.path).as_bytes()).expect("a valid path"), f.read))
                .collect()
        });
        Qjson { doc, opts, reads, lib }
    }
}

impl Row for Qjson<'_> {
    fn lib(&self) -> &'static str {
        self.lib
    }
    fn task(&self) -> Task {
        if self.reads.is_some() {
            Task::Reads
        } else if self.opts == qjson_core::Options::default() {
            Task::Full
        } else {
            Task::Structure
        }
    }
    fn run(&mut self, _: usize) -> u64 {
        let mut doc = qjson_core::Document::parse(&self.doc.bytes, &self.opts).expect("qjson parses the document");
        let mut sum = doc.tape_len() as u64;
        for (path, read) in self.reads.iter().flatten() {
            let node = doc.find_compiled(qjson_core::ROOT, path).expect("the field is there");
            sum += match read {
                Read::Str => doc.str(node).expect("a string").len() as u64,
                Read::Num => doc.f64(node).expect("a number") as u64,
            };
        }
        sum
    }
}

/// yyjson's immutable DOM (every number converted, every string
/// unescaped), its memory from a pool allocator sized once by
/// `yyjson_read_max_memory_usage`, so that no page fault is timed.
struct Yyjson<'a> {
    doc: &'a Doc,
    reads: bool,
    alc: Box<yy::yyjson_alc>,
    _pool: Vec<u64>,
}

impl<'a> Yyjson<'a> {
    fn new(doc: &'a Doc, reads: bool) -> Self {
        // SAFETY: plain C calls on memory this struct owns for its life.
        unsafe {
            let size = yy::yyjson_read_max_memory_usage(doc.bytes.len(), 0);
            let mut pool = vec![0u64; size / 8 + 1];
            let mut alc: Box<yy::yyjson_alc> = Box::new(std::mem::zeroed());
            assert!(yy::yyjson_alc_pool_init(&mut *alc, pool.as_mut_ptr().cast::<c_void>(), pool.len() * 8));
            Yyjson { doc, reads, alc, _pool: pool }
        }
    }
}

impl Row for Yyjson<'_> {
    fn lib(&self) -> &'static str {
        "yyjson"
    }
    fn task(&self) -> Task {
        if self.reads {
            Task::Reads
        } else {
            Task::Full
        }
    }
    fn run(&mut self, _: usize) -> u64 {
        let b = &self.doc.bytes;
        // SAFETY: yyjson does not write to the input without READ_INSITU.
        unsafe {
            let doc = yy::yyjson_read_opts(b.as_ptr() as *mut c_char, b.len(), 0, &*self.alc, std::ptr::null_mut());
            assert!(!doc.is_null(), "yyjson parses the document");
            let mut sum = yy::yyjson_doc_get_val_count(doc) as u64;
            if self.reads {
                for f in self.doc.fields {
                    let mut v = yy::yyjson_doc_get_root(doc);
                    for seg in f.path {
                        v = match *seg {
                            Seg::Key(k) => yy::yyjson_obj_getn(v, k.as_ptr().cast(), k.len()),
                            Seg::Idx(i) => yy::yyjson_arr_get(v, i),
                        };
                    }
                    assert!(!v.is_null(), "the field is there");
                    sum += match f.read {
                        Read::Str => yy::yyjson_get_len(v) as u64,
                        Read::Num => yy::yyjson_get_num(v) as u64,
                    };
                }
            }
            yy::yyjson_doc_free(doc);
            sum
        }
    }
}

struct SonicDom<'a>(&'a Doc);

impl Row for SonicDom<'_> {
    fn lib(&self) -> &'static str {
        "sonic-rs Value"
    }
    fn task(&self) -> Task {
        Task::Full
    }
    fn run(&mut self, _: usize) -> u64 {
        let v: sonic_rs::Value = sonic_rs::from_slice(&self.0.bytes).expect("sonic-rs parses the document");
        black_box(&v);
        1
    }
}

/// The whole document as one `LazyValue`: sonic-rs skips it (checking
/// its structure) without building anything.
struct SonicLazy<'a>(&'a Doc);

impl Row for SonicLazy<'_> {
    fn lib(&self) -> &'static str {
        "sonic-rs LazyValue"
    }
    fn task(&self) -> Task {
        Task::Structure
    }
    fn run(&mut self, _: usize) -> u64 {
        let v: sonic_rs::LazyValue = sonic_rs::from_slice(&self.0.bytes).expect("sonic-rs skips the document");
        v.as_raw_str().len() as u64
    }
}

fn pointer(path: &[Seg]) -> Vec<sonic_rs::PointerNode> {
    path.iter()
        .map(|s| match *s {
            Seg::Key(k) => sonic_rs::PointerNode::Key(k.into()),
            Seg::Idx(i) => sonic_rs::PointerNode::Index(i),
        })
        .collect()
}

fn sonic_read(v: &sonic_rs::LazyValue, read: Read) -> u64 {
    use sonic_rs::JsonValueTrait;
    match read {
        Read::Str => v.as_str().expect("a string").len() as u64,
        Read::Num => v.as_f64().expect("a number") as u64,
    }
}

/// `get_from_slice` once per field: each call skips from the start.
struct SonicGet<'a> {
    doc: &'a Doc,
    pointers: Vec<(Vec<sonic_rs::PointerNode>, Read)>,
}

impl<'a> SonicGet<'a> {
    fn new(doc: &'a Doc) -> Self {
        SonicGet { doc, pointers: doc.fields.iter().map(|f| (pointer(f.path), f.read)).collect() }
    }
}

impl Row for SonicGet<'_> {
    fn lib(&self) -> &'static str {
        "sonic-rs get_from_slice"
    }
    fn task(&self) -> Task {
        Task::Reads
    }
    fn run(&mut self, _: usize) -> u64 {
        let mut sum = 0;
        for (p, read) in &self.pointers {
            let v = sonic_rs::get_from_slice(&self.doc.bytes, p).expect("the field is there");
            sum += sonic_read(&v, *read);
        }
        sum
    }
}

/// `get_many`: the three fields in one pass.
struct SonicGetMany<'a> {
    doc: &'a Doc,
    tree: sonic_rs::PointerTree,
}

impl<'a> SonicGetMany<'a> {
    fn new(doc: &'a Doc) -> Self {
        let mut tree = sonic_rs::PointerTree::new();
        for f in doc.fields {
            tree.add_path(pointer(f.path));
        }
        SonicGetMany { doc, tree }
    }
}

impl Row for SonicGetMany<'_> {
    fn lib(&self) -> &'static str {
        "sonic-rs get_many"
    }
    fn task(&self) -> Task {
        Task::Reads
    }
    fn run(&mut self, _: usize) -> u64 {
        let got = sonic_rs::get_many(&self.doc.bytes[..], &self.tree).expect("sonic-rs reads the fields");
        got.iter().zip(self.doc.fields).map(|(v, f)| sonic_read(v.as_ref().expect("the field is there"), f.read)).sum()
    }
}

/// simd-json's tape, parsed in place: each operation gets its own copy of
/// the input, made before the batch (untimed); its buffers are reused.
struct SimdTape<'a> {
    doc: &'a Doc,
    copies: Vec<Vec<u8>>,
    buffers: simd_json::Buffers,
}

impl<'a> SimdTape<'a> {
    fn new(doc: &'a Doc) -> Self {
        SimdTape { doc, copies: Vec::new(), buffers: simd_json::Buffers::new(doc.bytes.len()) }
    }
}

impl Row for SimdTape<'_> {
    fn lib(&self) -> &'static str {
        "simd-json tape"
    }
    fn task(&self) -> Task {
        Task::Full
    }
    fn prepare(&mut self, k: usize) {
        self.copies.resize_with(k.max(self.copies.len()), Vec::new);
        for c in &mut self.copies[..k] {
            c.clear();
            c.extend_from_slice(&self.doc.bytes);
        }
    }
    fn run(&mut self, i: usize) -> u64 {
        let tape = simd_json::to_tape_with_buffers(&mut self.copies[i], &mut self.buffers)
            .expect("simd-json parses the document");
        tape.0.len() as u64
    }
}

struct SerdeValue<'a>(&'a Doc);

impl Row for SerdeValue<'_> {
    fn lib(&self) -> &'static str {
        "serde_json Value"
    }
    fn task(&self) -> Task {
        Task::Full
    }
    fn run(&mut self, _: usize) -> u64 {
        let v: serde_json::Value = serde_json::from_slice(&self.0.bytes).expect("serde_json parses the document");
        black_box(&v);
        1
    }
}

/// qjson's stage 1 into a reused index: a parse less this is stage 2 and
/// the tape's copy.
struct Stage1<'a> {
    doc: &'a Doc,
    strict: bool,
    index: Vec<u32>,
}

impl Row for Stage1<'_> {
    fn lib(&self) -> &'static str {
        if self.strict {
            "qjson stage 1 strict"
        } else {
            "qjson stage 1 lazy"
        }
    }
    fn task(&self) -> Task {
        Task::Stage1
    }
    fn run(&mut self, _: usize) -> u64 {
        qjson_core::stage1::scan(&self.doc.bytes, self.strict, false, &mut self.index);
        self.index.len() as u64
    }
}

extern "C" {
    fn memchr(s: *const c_void, c: i32, n: usize) -> *mut c_void;
}

/// C's memchr over every byte for a byte no document holds: the floor
/// bench/run.lua holds the chat ladder to.
struct Memchr<'a>(&'a Doc);

impl Row for Memchr<'_> {
    fn lib(&self) -> &'static str {
        "memchr"
    }
    fn task(&self) -> Task {
        Task::Floor
    }
    fn run(&mut self, _: usize) -> u64 {
        let b = &self.0.bytes;
        // SAFETY: reads `b.len()` bytes of `b`.
        let hit = unsafe { memchr(b.as_ptr().cast(), 1, b.len()) };
        assert!(hit.is_null(), "no document holds a 0x01 byte");
        0
    }
}
