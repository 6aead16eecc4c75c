//! The C ABI as LuaJIT calls it, from Rust: null pointers, node numbers
//! out of range and other nonsense give an error status (negative) or a
//! null handle with a message, never a crash or an unwind into the caller.

use qjson::doc::qjson_free;
use qjson::parse::{qjson_parse, qjson_parse_file};
use qjson::path::{qjson_path_compile_in, qjson_path_release};
use qjson::read::{
    qjson_child_holding, qjson_find, qjson_get_bool, qjson_get_i64, qjson_get_len, qjson_get_num, qjson_get_raw,
    qjson_get_str, qjson_get_u64, qjson_index_bytes, qjson_next, qjson_unique_members,
};
use qjson::read_error::qjson_last_error;
use qjson::{ErrorInfo, Handle, Status};
use qjson_core::{Kind, Options};
use std::ffi::c_char;

mod common;
use common::{error_info, message};
use std::ptr::{null, null_mut};

/// A failed parse's error details (printable for `unwrap`).
struct Failure(Box<ErrorInfo>);

impl std::fmt::Debug for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&message(&self.0))
    }
}

fn parse(text: &'static [u8], opts: Option<&Options>) -> Result<*mut Handle, Failure> {
    // SAFETY: the C ABI's contracts hold for every call here: pointers are null or
    // point to locals, slices or statics of the right size that outlive the call;
    // handles and slots come from this code's own parse/new calls and are freed once,
    // after their last use; inputs outlive the documents parsed from them.
    unsafe {
        let mut err = error_info();
        let opts = opts.map_or(null(), |o| o as *const Options);
        let doc = qjson_parse(text.as_ptr().cast(), text.len(), opts, &mut err);
        if doc.is_null() {
            Err(Failure(Box::new(err)))
        } else {
            Ok(doc)
        }
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

const ERROR: i32 = Status::Error as i32;
const PANIC: i32 = Status::Panic as i32;
const MISSING: i32 = Status::Missing as i32;

#[test]
fn null_pointers() {
    // SAFETY: the C ABI's contracts hold for every call here: pointers are null or
    // point to locals, slices or statics of the right size that outlive the call;
    // handles and slots come from this code's own parse/new calls and are freed once,
    // after their last use; inputs outlive the documents parsed from them.
    unsafe {
        common::print_test_panics();
        let mut err = error_info();
        assert!(qjson_parse(null(), 0, null(), null_mut()).is_null());
        assert!(qjson_parse(null(), 10, null(), &mut err).is_null());
        assert_eq!(message(&err), "empty input at line 1, column 1 (byte 0)");
        assert_eq!((err.offset, err.line, err.column), (0, 1, 1));
        assert!(qjson_parse_file(null(), 0, u64::MAX, null(), &mut err).is_null());
        assert!(message(&err).starts_with("cannot read file ''"), "{}", message(&err));
        assert!(qjson_parse_file(null(), 0, u64::MAX, null(), null_mut()).is_null());
        qjson_free(null_mut());
        qjson_path_release(null_mut());
        let mut empty = null_mut();
        qjson_path_release(&mut empty);
        qjson_last_error(null(), null_mut());
        qjson_last_error(null(), &mut err);
        assert_eq!(qjson_index_bytes(null()), 0);

        let (p, n, c) = (null::<c_char>(), 0usize, null());
        let d = null_mut::<Handle>();
        assert_eq!(qjson_find(d, 0, p, n, c, null_mut()), ERROR);
        assert_eq!(qjson_get_str(d, 0, p, n, c, null_mut(), null_mut()), ERROR);
        assert_eq!(qjson_get_num(d, 0, p, n, c, null_mut()), ERROR);
        assert_eq!(qjson_get_i64(d, 0, p, n, c, null_mut()), ERROR);
        assert_eq!(qjson_get_u64(d, 0, p, n, c, null_mut()), ERROR);
        assert_eq!(qjson_get_bool(d, 0, p, n, c, null_mut()), ERROR);
        assert_eq!(qjson_get_len(d, 0, p, n, c, null_mut()), ERROR);
        assert_eq!(qjson_get_raw(d, 0, p, n, c, null_mut(), null_mut()), ERROR);
        assert_eq!(qjson_next(d, 0, 0, null_mut()), ERROR);
        assert_eq!(qjson_child_holding(d, 0, 1, null_mut(), null_mut()), ERROR);
        assert_eq!(qjson_unique_members(d, 0, null_mut(), 0), -1);

        // A live document with null out-parameters and a null path: the read
        // happens (root), nothing is written.
        let doc = parse(br#"{"a":[1,"x",true]}"#, None).unwrap();
        assert_eq!(qjson_find(doc, 0, p, 5, c, null_mut()), Kind::Object as i32);
        assert_eq!(qjson_get_len(doc, 0, p, n, c, null_mut()), Kind::Object as i32);
        assert_eq!(qjson_get_raw(doc, 0, p, n, c, null_mut(), null_mut()), Kind::Object as i32);
        assert_eq!(qjson_next(doc, 0, 0, null_mut()), Kind::Array as i32);
        qjson_free(doc);
    }
}

#[test]
fn out_of_range_nodes() {
    // SAFETY: the C ABI's contracts hold for every call here: pointers are null or
    // point to locals, slices or statics of the right size that outlive the call;
    // handles and slots come from this code's own parse/new calls and are freed once,
    // after their last use; inputs outlive the documents parsed from them.
    unsafe {
        common::print_test_panics();
        let doc = parse(br#"{"a":[1,"x",true],"a":{"b":null}}"#, None).unwrap();
        let (p, n, c) = (null::<c_char>(), 0usize, null());
        let mut node = 0u32;
        let (mut s, mut len) = (null::<c_char>(), 0usize);
        for base in [u32::MAX, u32::MAX - 1, 1 << 31, 1 << 20, 100] {
            assert!(qjson_find(doc, base, p, n, c, &mut node) < 0, "find at {base}");
            assert!(qjson_find(doc, base, b"a".as_ptr().cast(), 1, c, &mut node) < 0, "find 'a' at {base}");
            assert!(qjson_get_str(doc, base, p, n, c, &mut s, &mut len) < 0);
            assert!(qjson_get_num(doc, base, p, n, c, null_mut()) < 0);
            assert!(qjson_get_i64(doc, base, p, n, c, null_mut()) < 0);
            assert!(qjson_get_len(doc, base, p, n, c, null_mut()) < 0);
            assert!(qjson_get_raw(doc, base, p, n, c, &mut s, &mut len) < 0);
            assert!(qjson_next(doc, base, 0, &mut node) < 0, "next in {base}");
            assert_eq!(qjson_unique_members(doc, base, null_mut(), 0), -1);
            // A caught panic is reported as such, with its detail.
            assert_eq!(qjson_get_bool(doc, base, p, n, c, null_mut()), PANIC);
            let msg = last_error(doc);
            assert!(msg.starts_with("internal error (") && msg.ends_with("please report it as a qjson bug"), "{msg}");
        }
        // A child number that is not a member of the parent ends the walk.
        for prev in [u32::MAX, u32::MAX - 1, 1, 1000] {
            let r = qjson_next(doc, 0, prev, &mut node);
            assert!(r <= MISSING, "next after {prev}: {r}");
        }
        // In-range numbers that are not nodes (a container header's second
        // slot) and parents that are not containers: any status, no crash.
        for base in 0..12 {
            qjson_find(doc, base, p, n, c, &mut node);
            qjson_get_raw(doc, base, p, n, c, &mut s, &mut len);
            qjson_get_str(doc, base, p, n, c, &mut s, &mut len);
            for prev in 0..12 {
                qjson_next(doc, base, prev, &mut node);
            }
            qjson_unique_members(doc, base, null_mut(), 0);
        }
        // The document still works afterwards.
        let mut out = 0usize;
        assert_eq!(qjson_get_len(doc, 0, b"/a/b".as_ptr().cast(), 0, c, &mut out), Kind::Object as i32);
        assert_eq!(qjson_get_len(doc, 0, b"a".as_ptr().cast(), 1, c, &mut out), Kind::Object as i32);
        assert_eq!(out, 1);
        let _ = qjson::take_panic();
        qjson_free(doc);
    }
}

#[test]
fn reads_and_errors_through_the_abi() {
    // SAFETY: the C ABI's contracts hold for every call here: pointers are null or
    // point to locals, slices or statics of the right size that outlive the call;
    // handles and slots come from this code's own parse/new calls and are freed once,
    // after their last use; inputs outlive the documents parsed from them.
    unsafe {
        common::print_test_panics();
        let doc = parse(br#"{"a": [1, 2.5, "x\n"], "b": true, "n": 18446744073709551615}"#, None).unwrap();
        let c = null();
        let path = |s: &'static str| (s.as_ptr().cast::<c_char>(), s.len());

        let mut f = 0.0;
        let (pp, pn) = path("a[1]");
        assert_eq!(qjson_get_num(doc, 0, pp, pn, c, &mut f), Kind::Number as i32);
        assert_eq!(f, 2.5);
        let (mut s, mut len) = (null::<c_char>(), 0usize);
        let (pp, pn) = path("/a/2");
        assert_eq!(qjson_get_str(doc, 0, pp, pn, c, &mut s, &mut len), Kind::String as i32);
        // Sound: the bytes are valid until the next read.
        assert_eq!(std::slice::from_raw_parts(s.cast::<u8>(), len), b"x\n");
        let mut u = 0u64;
        let (pp, pn) = path("n");
        assert_eq!(qjson_get_u64(doc, 0, pp, pn, c, &mut u), Kind::Number as i32);
        assert_eq!(u, u64::MAX);
        let mut i = 0i64;
        assert_eq!(qjson_get_i64(doc, 0, pp, pn, c, &mut i), ERROR);
        assert_eq!(last_error(doc), "number is not an integer within int64 range at line 1, column 40 (byte 39)");
        let mut b = 0u8;
        let (pp, pn) = path("b");
        assert_eq!(qjson_get_bool(doc, 0, pp, pn, c, &mut b), Kind::Boolean as i32);
        assert_eq!(b, 1);
        // A type mismatch reports the kind found and writes nothing.
        f = -1.0;
        assert_eq!(qjson_get_num(doc, 0, pp, pn, c, &mut f), Kind::Boolean as i32);
        assert_eq!(f, -1.0);
        let (pp, pn) = path("missing.x");
        assert_eq!(qjson_get_num(doc, 0, pp, pn, c, &mut f), MISSING);
        let (pp, pn) = path("a..b");
        assert_eq!(qjson_get_num(doc, 0, pp, pn, c, &mut f), ERROR);
        assert_eq!(last_error(doc), "invalid path: empty key at byte 2");
        // The message is kept per thread with the handle it failed on: a
        // successful read elsewhere leaves it, and another handle has none.
        let other = qjson_parse(b"[1]".as_ptr().cast(), 3, null(), null_mut());
        assert_eq!(qjson_get_num(other, 0, null(), 0, c, &mut f), Kind::Array as i32);
        assert_eq!(last_error(doc), "invalid path: empty key at byte 2");
        assert_eq!(last_error(other), "");
        qjson_free(other);

        // Compiled paths.
        let mut err = error_info();
        let (pp, pn) = path("a[1]");
        let mut compiled = null_mut();
        assert_eq!(qjson_path_compile_in(pp, pn, &mut compiled, &mut err), 1);
        assert!(!compiled.is_null());
        f = 0.0;
        assert_eq!(qjson_get_num(doc, 0, null(), 0, &compiled, &mut f), Kind::Number as i32);
        assert_eq!(f, 2.5);
        // Released: the slot is emptied (a read with it fails, reading no
        // freed memory), and a second release does nothing.
        qjson_path_release(&mut compiled);
        assert!(compiled.is_null());
        assert_eq!(qjson_get_num(doc, 0, null(), 0, &compiled, &mut f), ERROR);
        assert_eq!(last_error(doc), "compiled path is freed");
        qjson_path_release(&mut compiled);
        let (pp, pn) = path("/a~2");
        assert_eq!(qjson_path_compile_in(pp, pn, &mut compiled, &mut err), 0);
        assert!(compiled.is_null());
        assert_eq!(message(&err), "invalid path: '~' must be followed by '0' or '1' at byte 2");
        assert_eq!(err.offset, 2);
        assert_eq!(qjson_path_compile_in(pp, pn, null_mut(), &mut err), 0);
        assert_eq!(message(&err), "no slot for the result");

        // Iteration.
        let mut kinds = Vec::new();
        let mut prev = 0;
        let mut node = 0u32;
        loop {
            let k = qjson_next(doc, 0, prev, &mut node);
            if k == MISSING {
                break;
            }
            kinds.push(k);
            prev = node;
        }
        assert_eq!(kinds, [Kind::Array as i32, Kind::Boolean as i32, Kind::Number as i32]);
        assert!(qjson_index_bytes(doc) > 0);
        qjson_free(doc);

        // Repeated keys.
        let doc = parse(br#"{"a":1,"b":2,"a":3}"#, None).unwrap();
        let mut pairs = [0u32; 4];
        assert_eq!(qjson_unique_members(doc, 0, pairs.as_mut_ptr(), 2), 2);
        assert_eq!(qjson_unique_members(doc, 0, pairs.as_mut_ptr(), 1), 2, "the count, even beyond cap");
        assert_eq!(qjson_unique_members(doc, 0, null_mut(), 0), 2);
        qjson_free(doc);
    }
}

#[test]
fn parse_errors_and_options_through_the_abi() {
    // SAFETY: the C ABI's contracts hold for every call here: pointers are null or
    // point to locals, slices or statics of the right size that outlive the call;
    // handles and slots come from this code's own parse/new calls and are freed once,
    // after their last use; inputs outlive the documents parsed from them.
    unsafe {
        common::print_test_panics();
        let err = parse(b"{\"a\": [1, 2,, 3]}", None).unwrap_err().0;
        assert_eq!(message(&err), "expected a value, found ',' at line 1, column 13 (byte 12)");
        assert_eq!((err.offset, err.line, err.column), (12, 1, 13));
        let shallow = Options { max_depth: 1, ..Options::default() };
        let err = parse(b"[[1]]", Some(&shallow)).unwrap_err().0;
        assert_eq!(message(&err), "nesting deeper than max_depth (1) at line 1, column 2 (byte 1)");
        let lazy = Options::lazy();
        let doc = parse(b"[tru]", Some(&lazy)).unwrap();
        let (p, c) = (b"[0]".as_ptr().cast::<c_char>(), null());
        assert_eq!(qjson_get_bool(doc, 0, p, 3, c, null_mut()), ERROR);
        assert_eq!(last_error(doc), "invalid literal at line 1, column 2 (byte 1)");
        qjson_free(doc);
        // Messages are cut to the buffer on a character boundary.
        let long = "é".repeat(300);
        let mut err = error_info();
        assert!(qjson_parse_file(long.as_ptr().cast(), long.len(), u64::MAX, null(), &mut err).is_null());
        let m = message(&err);
        assert!(m.starts_with("cannot read file 'éé") && m.len() <= 255, "{m}");
    }
}

/// The `jsonschema` crate (0.61.2) panics while compiling this schema;
/// through the C ABI it is refused as a schema that does not compile, and
/// no panic reaches the boundary.
#[test]
fn a_schema_the_crate_panics_on_is_refused() {
    // SAFETY: the C ABI's contracts hold for every call here: pointers are null or
    // point to locals, slices or statics of the right size that outlive the call;
    // handles and slots come from this code's own parse/new calls and are freed once,
    // after their last use; inputs outlive the documents parsed from them.
    unsafe {
        common::print_test_panics();
        let text = br##"{"$id":"https://example.com/main","$ref":"s","$defs":{
        "g":{"$id":"g","items":{"$dynamicRef":"#t"},"$defs":{"d":{"$dynamicAnchor":"t"}}},
        "a":{"$id":"s","$defs":{"x":{"$dynamicAnchor":"t","type":"string"}},"$ref":"g"},
        "b":{"$id":"s","$defs":{"y":{"cAnchor":"t"}},"$ref":"g"}}}"##;
        let mut err = error_info();
        let mut s = std::ptr::null_mut();
        let made = qjson::schema::qjson_schema_new_in(
            text.as_ptr().cast(),
            text.len(),
            std::ptr::null(),
            0,
            std::ptr::null(),
            &mut s,
            &mut err,
        );
        assert_eq!(made, 0);
        assert!(s.is_null());
        let msg = message(&err);
        assert!(msg.contains("cannot compile") && !msg.contains("internal error"), "{msg}");
        assert_eq!(qjson::take_panic(), None, "no panic reached the boundary");
    }
}

/// Issue 39, item 16: finding the child that holds a node reads no value
/// on the way, so a lazy document's invalid sibling is not reported; the
/// value read is checked (and `qjson_next`, which gives kinds, checks each
/// child it gives).
#[test]
fn the_child_holding_a_node_reads_no_sibling() {
    // SAFETY: the C ABI's contracts hold for every call here: pointers are null or
    // point to locals, slices or statics of the right size that outlive the call;
    // handles and slots come from this code's own parse/new calls and are freed once,
    // after their last use; inputs outlive the documents parsed from them.
    unsafe {
        common::print_test_panics();
        let text = b"{\"a\":01,\"b\":[1],\"c\":tru}";
        let lazy = Options::lazy();
        // The members' key nodes, from the document API (which checks no
        // value either), and the node of `1` inside b.
        let d = qjson_core::Document::parse(text, &lazy).unwrap();
        let keys: Vec<u32> = std::iter::successors(d.first_child(0), |&k| d.next_child(0, k)).collect();
        assert_eq!(keys.len(), 3);
        let one = d.first_child(keys[1] + 1).unwrap();
        drop(d);
        let doc = parse(text, Some(&lazy)).unwrap();
        let (mut node, mut index) = (0u32, 0u32);
        let mut find = |parent, target| {
            let r = qjson_child_holding(doc, parent, target, &mut node, &mut index);
            (r, node, index)
        };
        for (i, &k) in keys.iter().enumerate() {
            assert_eq!(find(0, k), (1, k, i as u32), "the key of member {i}");
            assert_eq!(find(0, k + 1), (1, k, i as u32), "the value of member {i}");
        }
        assert_eq!(find(0, one), (1, keys[1], 1));
        assert_eq!(find(keys[1] + 1, one), (1, one, 0));
        assert_eq!(find(0, 0).0, MISSING);
        assert_eq!(find(0, keys[2] + 2).0, MISSING);
        assert_eq!(find(one, one).0, MISSING);
        assert_eq!(find(1000, 5).0, MISSING);
        // qjson_next checks each child's value as it gives its kind.
        assert_eq!(qjson_next(doc, 0, 0, &mut node), ERROR);
        assert_eq!(last_error(doc), "invalid number at line 1, column 7 (byte 6)");
        qjson_free(doc);
        // The same on the document API, with an array.
        let d = qjson_core::Document::parse(b"[01,[3],1.]", &lazy).unwrap();
        let elems: Vec<u32> = std::iter::successors(d.first_child(0), |&k| d.next_child(0, k)).collect();
        let three = d.first_child(elems[1]).unwrap();
        assert_eq!(d.child_holding(0, three), Some((elems[1], 1)));
        assert_eq!(d.child_holding(0, elems[2]), Some((elems[2], 2)));
        assert_eq!(d.child_holding(0, 0), None);
    }
}
