//! Random sequences of C ABI calls, as LuaJIT could make them: parse,
//! resolve paths, read every kind, iterate, compile and free paths. No
//! call may panic (the boundary would hide it, so each is checked) and
//! every status is one the header documents.
#![no_main]

use libfuzzer_sys::fuzz_target;
use qjson::doc::*;
use qjson::parse::*;
use qjson::path::*;
use qjson::read::*;
use qjson::read_error::*;
use qjson::{take_panic, ErrorInfo};
use std::ffi::c_char;
use std::ptr::{null, null_mut};

fn no_panic(what: &str) {
    if let Some(p) = take_panic() {
        panic!("{what} panicked: {p}");
    }
}

fuzz_target!(|data: &[u8]| {
    // SAFETY: the C ABI's contracts hold for every call here: pointers are null or
    // point to locals, slices or statics of the right size that outlive the call;
    // handles and slots come from this code's own parse/new calls and are freed once,
    // after their last use; inputs outlive the documents parsed from them.
    unsafe {
        // The first byte splits the input into a document and a call script.
        let Some((&split, rest)) = data.split_first() else { return };
        let cut = (split as usize * rest.len()) / 256;
        let (json, script) = rest.split_at(cut);
        let mut err = ErrorInfo { offset: 0, line: 0, column: 0, message: [0; 256] };
        let opts = qjson_core::Options { mode: (split & 1) as u32, ..Default::default() };
        // Every other input is placed in caller memory, as the Lua binding
        // does with small documents (the escape room must hold every string).
        let placed = split & 2 != 0;
        let mut mem: Vec<u64> = Vec::new();
        let doc = if placed {
            let size = qjson_parse_size(json.as_ptr() as *const c_char, json.len(), &opts, &mut err);
            no_panic("qjson_parse_size");
            if size <= 0 {
                assert!(err.message[0] != 0, "a failed parse explains itself");
                return;
            }
            mem.resize((size as usize).div_ceil(8), 0);
            let m = mem.as_mut_ptr().cast();
            let ok = qjson_parse_in(json.as_ptr() as *const c_char, json.len(), &opts, m, size as usize, &mut err);
            no_panic("qjson_parse_in");
            assert_eq!(ok, 1, "a measured document is placed");
            m.cast()
        } else {
            qjson_parse(json.as_ptr() as *const c_char, json.len(), &opts, &mut err)
        };
        no_panic("qjson_parse");
        if doc.is_null() {
            assert!(err.message[0] != 0, "a failed parse explains itself");
            return;
        }
        let mut nodes: Vec<u32> = vec![0];
        let mut paths = Vec::new();
        for chunk in script.chunks(4) {
            let op = chunk[0];
            let node = nodes[chunk.get(1).copied().unwrap_or(0) as usize % nodes.len()];
            let path = &chunk[2.min(chunk.len())..];
            let (p, n) = (path.as_ptr() as *const c_char, path.len());
            let mut out = 0u32;
            let mut ptr: *const c_char = null();
            let mut len = 0usize;
            let status = match op % 12 {
                0 => qjson_find(doc, node, p, n, null(), &mut out),
                1 => qjson_get_str(doc, node, p, n, null(), &mut ptr, &mut len),
                2 => qjson_get_num(doc, node, p, n, null(), &mut 0.0),
                3 => qjson_get_i64(doc, node, p, n, null(), &mut 0),
                4 => qjson_get_u64(doc, node, p, n, null(), &mut 0),
                5 => qjson_get_bool(doc, node, p, n, null(), &mut 0),
                6 => qjson_get_len(doc, node, p, n, null(), &mut len),
                7 => qjson_get_raw(doc, node, p, n, null(), &mut ptr, &mut len),
                8 => qjson_next(doc, node, out, &mut out),
                9 => {
                    let mut compiled = null_mut();
                    if qjson_path_compile_in(p, n, &mut compiled, &mut err) == 1 {
                        paths.push(compiled);
                    }
                    0
                }
                10 => match paths.last() {
                    Some(c) => qjson_find(doc, node, null(), 0, c, &mut out),
                    None => 0,
                },
                _ => {
                    qjson_unique_members(doc, node, null_mut(), 0);
                    0
                }
            };
            no_panic("a read");
            assert!((-1..=6).contains(&status), "undocumented status {status}");
            if status > 0 && out != 0 {
                nodes.push(out);
            }
            if status == -1 {
                qjson_last_error(doc, &mut err);
                assert!(err.message[0] != 0, "a failed read explains itself");
            }
        }
        for mut p in paths {
            qjson_path_release(&mut p);
        }
        if placed {
            // The caller just releases the memory (nothing native to free).
            drop(mem);
        } else {
            qjson_free(doc);
        }
        no_panic("freeing");
    }
});
