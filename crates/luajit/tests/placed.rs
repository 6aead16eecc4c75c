//! Documents placed in caller memory (`qjson_parse_size`, then
//! `qjson_parse_in`), as the Lua binding places small ones in the Lua
//! heap: they read like boxed ones, and own no native memory, since the
//! caller releases them without telling the library.

use qjson::doc::{qjson_close, qjson_free};
use qjson::parse::{qjson_parse, qjson_parse_in, qjson_parse_measured, qjson_parse_size};
use qjson::read::{qjson_get_num, qjson_get_str};
use qjson::read_error::qjson_last_error;
use qjson::{Handle, Status};
use qjson_core::{Document, Kind, Node, Options, ROOT};
use std::cell::Cell;
use std::ffi::c_void;
use std::ptr::null;

mod common;
use common::{error_info, message, Counting, LIVE};

#[global_allocator]
static GLOBAL: Counting = Counting;

/// The caller's memory for one placed document (8-byte aligned).
struct Placed {
    mem: Vec<u64>,
    size: usize,
}

impl Placed {
    fn handle(&mut self) -> *mut Handle {
        self.mem.as_mut_ptr().cast()
    }
}

fn measure(text: &[u8], opts: &Options) -> Result<usize, String> {
    // SAFETY: the C ABI's contracts hold for every call here: pointers are null or
    // point to locals, slices or statics of the right size that outlive the call;
    // handles and slots come from this code's own parse/new calls and are freed once,
    // after their last use; inputs outlive the documents parsed from them.
    unsafe {
        let mut err = error_info();
        match qjson_parse_size(text.as_ptr().cast(), text.len(), opts, &mut err) {
            0 => Err(message(&err)),
            n => Ok(n as usize),
        }
    }
}

fn place_measured(text: &[u8], opts: &Options, size: usize) -> Result<Placed, String> {
    // SAFETY: the C ABI's contracts hold for every call here: pointers are null or
    // point to locals, slices or statics of the right size that outlive the call;
    // handles and slots come from this code's own parse/new calls and are freed once,
    // after their last use; inputs outlive the documents parsed from them.
    unsafe {
        let mut p = Placed { mem: vec![0; size.div_ceil(8)], size };
        let mut err = error_info();
        let mem = p.mem.as_mut_ptr().cast::<c_void>();
        match qjson_parse_in(text.as_ptr().cast(), text.len(), opts, mem, size, &mut err) {
            1 => Ok(p),
            _ => Err(message(&err)),
        }
    }
}

fn place(text: &[u8], opts: &Options) -> Result<Placed, String> {
    place_measured(text, opts, measure(text, opts)?)
}

fn get_str(doc: *mut Handle, path: &str) -> Result<String, (i32, String)> {
    // SAFETY: the C ABI's contracts hold for every call here: pointers are null or
    // point to locals, slices or statics of the right size that outlive the call;
    // handles and slots come from this code's own parse/new calls and are freed once,
    // after their last use; inputs outlive the documents parsed from them.
    unsafe {
        let (mut ptr, mut len) = (null(), 0);
        let k = qjson_get_str(doc, 0, path.as_ptr().cast(), path.len(), null(), &mut ptr, &mut len);
        if k != Kind::String as i32 {
            return Err((k, last_error(doc)));
        }
        // Sound: the read just returned `len` bytes at `ptr`.
        Ok(String::from_utf8(std::slice::from_raw_parts(ptr.cast::<u8>(), len).to_vec()).unwrap())
    }
}

fn get_num(doc: *mut Handle, path: &str) -> Option<f64> {
    // SAFETY: the C ABI's contracts hold for every call here: pointers are null or
    // point to locals, slices or statics of the right size that outlive the call;
    // handles and slots come from this code's own parse/new calls and are freed once,
    // after their last use; inputs outlive the documents parsed from them.
    unsafe {
        let mut v = 0.0;
        let k = qjson_get_num(doc, 0, path.as_ptr().cast(), path.len(), null(), &mut v);
        (k == Kind::Number as i32).then_some(v)
    }
}

fn last_error(doc: *const Handle) -> String {
    // SAFETY: the C ABI's contracts hold for every call here: pointers are null or
    // point to locals, slices or statics of the right size that outlive the call;
    // handles and slots come from this code's own parse/new calls and are freed once,
    // after their last use; inputs outlive the documents parsed from them.
    unsafe {
        let mut err = error_info();
        qjson_last_error(doc, &mut err);
        message(&err)
    }
}

const DOC: &[u8] = br#"{"id":1234567,"note":"caf\u00e9 \"ok\"","long":"\\n\u00e9\ud83d\ude00 and more text after the escapes","k":[1.5,"x"]}"#;

#[test]
fn a_placed_document_reads_like_a_boxed_one() {
    // SAFETY: the C ABI's contracts hold for every call here: pointers are null or
    // point to locals, slices or statics of the right size that outlive the call;
    // handles and slots come from this code's own parse/new calls and are freed once,
    // after their last use; inputs outlive the documents parsed from them.
    unsafe {
        let opts = Options::default();
        let mut placed = place(DOC, &opts).unwrap();
        let mut err = error_info();
        let boxed = qjson_parse(DOC.as_ptr().cast(), DOC.len(), &opts, &mut err);
        assert!(!boxed.is_null());
        for doc in [placed.handle(), boxed] {
            assert_eq!(get_num(doc, "id"), Some(1234567.0));
            assert_eq!(get_str(doc, "note").unwrap(), "café \"ok\"");
            assert_eq!(get_str(doc, "long").unwrap(), "\\n\u{e9}\u{1F600} and more text after the escapes");
            assert_eq!(get_str(doc, "note").unwrap(), "café \"ok\"");
            assert_eq!(get_num(doc, "k[0]"), Some(1.5));
            assert_eq!(get_str(doc, "k[1]").unwrap(), "x");
            // A failed read keeps its message on the handle.
            let (k, msg) = get_str(doc, "k[").unwrap_err();
            assert_eq!(k, Status::Error as i32);
            assert!(msg.starts_with("invalid path"), "{msg}");
        }
        qjson_free(boxed);
        qjson_close(placed.handle());
        assert_eq!(get_str(placed.handle(), "note").unwrap_err().1, "document is closed");
        assert!(placed.size >= std::mem::size_of::<Handle>());
    }
}

#[test]
fn a_placed_document_owns_no_native_memory() {
    // SAFETY: the C ABI's contracts hold for every call here: pointers are null or
    // point to locals, slices or statics of the right size that outlive the call;
    // handles and slots come from this code's own parse/new calls and are freed once,
    // after their last use; inputs outlive the documents parsed from them.
    unsafe {
        // Lazy mode too: its strings are checked, and unescaped, when read.
        // Reads that succeed, fail (a bad path: the message is kept per
        // thread) and miss.
        let reads = |doc: *mut Handle| {
            for _ in 0..3 {
                let (mut ptr, mut len) = (null(), 0);
                for path in ["note", "long", "k[1]", "k[", "nope", "id"] {
                    qjson_get_str(doc, 0, path.as_ptr().cast(), path.len(), null(), &mut ptr, &mut len);
                }
            }
        };
        for opts in [Options::default(), Options::lazy()] {
            // Warm the thread's buffers, then count from here.
            let mut warm = place(DOC, &opts).unwrap();
            reads(warm.handle());
            drop(warm);
            let size = measure(DOC, &opts).unwrap();
            let mut p = Placed { mem: vec![0; size.div_ceil(8)], size };
            let before = LIVE.with(Cell::get);
            let mut err = error_info();
            let mem = p.mem.as_mut_ptr().cast::<c_void>();
            assert_eq!(qjson_parse_in(DOC.as_ptr().cast(), DOC.len(), &opts, mem, size, &mut err), 1);
            let doc = p.handle();
            reads(doc);
            qjson_close(doc);
            assert_eq!(LIVE.with(Cell::get), before, "a placed document left native allocations behind");
        }
    }
}

#[test]
fn placing_parses_again_when_another_parse_ran_in_between() {
    // SAFETY: the C ABI's contracts hold for every call here: pointers are null or
    // point to locals, slices or statics of the right size that outlive the call;
    // handles and slots come from this code's own parse/new calls and are freed once,
    // after their last use; inputs outlive the documents parsed from them.
    unsafe {
        // As when a finalizer run by the caller's allocation parses another
        // document between the two calls.
        let opts = Options::default();
        let other = br#"{"note":"other","id":1}"#;
        let size = measure(DOC, &opts).unwrap();
        measure(other, &opts).unwrap();
        let mut err = error_info();
        let boxed = qjson_parse(other.as_ptr().cast(), other.len(), &opts, &mut err);
        qjson_free(boxed);
        let mut p = place_measured(DOC, &opts, size).unwrap();
        assert_eq!(get_str(p.handle(), "note").unwrap(), "café \"ok\"");
        assert_eq!(get_num(p.handle(), "id"), Some(1234567.0));
    }
}

#[test]
fn a_measured_document_can_be_boxed_instead() {
    // SAFETY: the C ABI's contracts hold for every call here: pointers are null or
    // point to locals, slices or statics of the right size that outlive the call;
    // handles and slots come from this code's own parse/new calls and are freed once,
    // after their last use; inputs outlive the documents parsed from them.
    unsafe {
        let opts = Options::default();
        let mut err = error_info();
        // Right after the measure (the tape is taken), and after another
        // parse ran in between (parsed again).
        for between in [false, true] {
            measure(DOC, &opts).unwrap();
            if between {
                measure(br#"{"note":"other"}"#, &opts).unwrap();
            }
            let doc = qjson_parse_measured(DOC.as_ptr().cast(), DOC.len(), &opts, &mut err);
            assert!(!doc.is_null());
            assert_eq!(get_str(doc, "note").unwrap(), "café \"ok\"");
            assert_eq!(get_num(doc, "k[0]"), Some(1.5));
            qjson_free(doc);
        }
        let bad = br#"[1,]"#;
        let doc = qjson_parse_measured(bad.as_ptr().cast(), bad.len(), &opts, &mut err);
        assert!(doc.is_null());
        assert!(message(&err).contains("line 1, column 4"), "{}", message(&err));
    }
}

#[test]
fn bad_memory_is_refused_with_a_message() {
    // SAFETY: the C ABI's contracts hold for every call here: pointers are null or
    // point to locals, slices or statics of the right size that outlive the call;
    // handles and slots come from this code's own parse/new calls and are freed once,
    // after their last use; inputs outlive the documents parsed from them.
    unsafe {
        let opts = Options::default();
        let size = measure(DOC, &opts).unwrap();
        let err = place_measured(DOC, &opts, size - 8).err().unwrap();
        assert_eq!(err, "memory too small for the placed document");
        let mut mem = vec![0u64; size.div_ceil(8) + 1];
        let mut e = error_info();
        // Sound: 4 bytes into an allocation of more than 8.
        let odd = mem.as_mut_ptr().cast::<u8>().add(4).cast::<c_void>();
        assert_eq!(qjson_parse_in(DOC.as_ptr().cast(), DOC.len(), &opts, odd, size, &mut e), 0);
        assert_eq!(message(&e), "bad memory for a placed document");
        let mut e = error_info();
        assert_eq!(qjson_parse_in(DOC.as_ptr().cast(), DOC.len(), &opts, std::ptr::null_mut(), size, &mut e), 0);
        // Invalid JSON: the size call reports it with its position.
        let bad = measure(br#"{"a":}"#, &opts).unwrap_err();
        assert!(bad.contains("line 1, column 6"), "{bad}");
    }
}

/// Every string (keys too) and number of `doc`, in document order.
fn leaves(doc: &mut Document<'_>, node: Node, out: &mut Vec<String>) {
    match doc.kind(node) {
        Ok(Kind::String) => out.push(match doc.str(node) {
            Ok(s) => String::from_utf8_lossy(s).into_owned(),
            Err(e) => format!("error: {e}"),
        }),
        Ok(Kind::Number) => out.push(format!("{:?}", doc.f64(node))),
        Ok(Kind::Array | Kind::Object) => {
            let mut child = doc.first_child(node);
            while let Some(c) = child {
                leaves(doc, c, out);
                if doc.kind(node) == Ok(Kind::Object) {
                    leaves(doc, c + 1, out);
                }
                child = doc.next_child(node, c);
            }
        }
        Ok(k) => out.push(format!("{k:?}")),
        Err(e) => out.push(format!("error: {e}")),
    }
}

/// The leaves of `text` read from a placed document, and from a boxed one.
fn both_ways(text: &[u8], opts: &Options) -> Option<(Vec<String>, Vec<String>)> {
    let size = Document::measure(text, opts).ok()?;
    let mut mem = vec![0u32; size.div_ceil(4)];
    let mut placed = Document::place(text, opts, &mut mem).unwrap().expect("the measured size fits");
    let mut boxed = Document::parse(text, opts).unwrap();
    let (mut a, mut b) = (Vec::new(), Vec::new());
    leaves(&mut placed, ROOT, &mut a);
    leaves(&mut boxed, ROOT, &mut b);
    Some((a, b))
}

#[test]
fn the_measured_room_holds_every_unescaped_string() {
    // Escaped strings at the root, as keys, last before the end, padded
    // with whitespace, and long beside short ones.
    let mut docs: Vec<Vec<u8>> = [
        &br#""a\nb\u00e9""#[..],
        br#"  "\\"   "#,
        br#"{"k\u00e9y": "v", "x": ["\ud83d\ude00", "plain text that is longer than the escaped ones"]}"#,
        br#"["\t",     "\u0041\u0042\u0043\u0044\u0045\u0046\u0047\u0048"]"#,
        br#"{"a":"\"\"\"\"\"\"\"\"\"\"\"\"\"\"\"\"\"\"","b":1}"#,
        DOC,
    ]
    .iter()
    .map(|d| d.to_vec())
    .collect();
    if let Some(dir) = common::data_dir() {
        for entry in std::fs::read_dir(dir.join("JSONTestSuite/test_parsing")).unwrap() {
            let path = entry.unwrap().path();
            if path.file_name().unwrap().to_string_lossy().starts_with(['y', 'i']) {
                docs.push(std::fs::read(path).unwrap());
            }
        }
        for name in ["twitter.json", "citm_catalog.json"] {
            docs.push(std::fs::read(dir.join("corpus").join(name)).unwrap());
        }
    }
    let mut compared = 0;
    for text in &docs {
        for opts in [Options::default(), Options::lazy()] {
            if let Some((placed, boxed)) = both_ways(text, &opts) {
                assert_eq!(placed, boxed, "{}", String::from_utf8_lossy(text));
                compared += 1;
            }
        }
    }
    assert!(compared >= 12, "only {compared} documents compared");
}
