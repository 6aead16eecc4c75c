//! Selectors on any document and any paths: a selector reads what each
//! of its paths reads alone (the shared prefixes it resolves once change
//! nothing), a read from the JSON text through the C ABI gives what a
//! read from the parsed document gives, a read into too small an output
//! says what a retry needs and the retry fits, and in a strict document a
//! path without a wildcard finds what the document API finds there.
#![no_main]

use libfuzzer_sys::fuzz_target;
use qjson::select::{qjson_select, SelectOut};
use qjson::take_panic;
use qjson_core::select::{Item, ItemTag, ItemValue, Output, Selector};
use qjson_core::{Document, Kind, Options, Path, ROOT};
use std::ffi::c_char;
use std::ptr::null_mut;

fn blank() -> Item {
    Item { tag: ItemTag::Missing, len: 0, v: ItemValue { num: 0.0 } }
}

/// An item as text: its tag and what it holds (the bytes a string or raw
/// item points to, a number's bits, a container's node).
fn item_text(it: &Item) -> String {
    // SAFETY: each tag says which field of the union was written; strings
    // point into the input or the output's byte area, both alive here.
    unsafe {
        match it.tag {
            ItemTag::Number => format!("number {:x}", it.v.num.to_bits()),
            ItemTag::String | ItemTag::Raw => {
                assert!(!it.v.ptr.is_null(), "a fitted string points somewhere");
                let s = std::slice::from_raw_parts(it.v.ptr.cast::<u8>(), it.len as usize);
                format!("{:?} {:?}", it.tag, s)
            }
            ItemTag::Array | ItemTag::Object => format!("{:?} {}", it.tag, it.v.node),
            ItemTag::List => format!("list {}", it.len),
            tag => format!("{tag:?}"),
        }
    }
}

/// Reads `sel` from the document: its items as text, or the failure.
fn read(sel: &Selector, d: &mut Document<'_>) -> Result<Vec<String>, String> {
    let (mut items, mut bytes) = (vec![blank(); 2], vec![0u8; 4]);
    loop {
        let mut out = Output { items: &mut items, bytes: &mut bytes, count: 0, used: 0 };
        sel.read(d, ROOT, &mut out).map_err(|f| format!("{f:?}"))?;
        let (count, used) = (out.count, out.used);
        if out.fits() {
            return Ok(items[..count].iter().map(item_text).collect());
        }
        assert!(items.len() < count || bytes.len() < used, "a read that did not fit asks for more room");
        items = vec![blank(); count];
        bytes = vec![0u8; used];
    }
}

/// Reads `sel` from the JSON text through the C ABI, as the Lua binding
/// does: items as text, or an error.
fn read_text(sel: &Selector, json: &[u8], opts: &Options) -> Result<Vec<String>, String> {
    // SAFETY: the C ABI's contracts hold for every call here: pointers are null or
    // point to locals, slices or statics of the right size that outlive the call;
    // handles and slots come from this code's own parse/new calls and are freed once,
    // after their last use; inputs outlive the documents parsed from them.
    unsafe {
        let (mut items, mut bytes) = (vec![blank(); 1], vec![0u8; 1]);
        loop {
            let mut out = SelectOut::new(&mut items, &mut bytes);
            // (A slot holding `sel`, as the binding passes it.)
            let slot = sel as *const Selector as *mut Selector;
            let status = qjson_select(&slot, null_mut(), 0, json.as_ptr() as *const c_char, json.len(), opts, &mut out);
            if let Some(p) = take_panic() {
                panic!("qjson_select panicked: {p}");
            }
            match status {
                1 => return Ok(items[..out.count as usize].iter().map(item_text).collect()),
                0 => {
                    items = vec![blank(); out.count as usize];
                    bytes = vec![0u8; out.used as usize];
                }
                -1 => {
                    assert!(out.err.message[0] != 0, "a failed select explains itself");
                    return Err(String::new());
                }
                s => panic!("undocumented status {s}"),
            }
        }
    }
}

/// What the document API finds at a dotted path without a wildcard, as a
/// selector writes it for `any`.
fn alone(d: &mut Document<'_>, path: &[u8]) -> Option<String> {
    let compiled = Path::compile_dotted(path).ok()?;
    let Some(node) = d.find_compiled(ROOT, &compiled) else { return Some("Missing".into()) };
    Some(match d.kind(node).ok()? {
        Kind::Null => "Null".into(),
        Kind::Boolean => if d.bool(node).ok()? { "True" } else { "False" }.into(),
        Kind::Number => format!("number {:x}", d.number(node).ok()?.0.to_bits()),
        Kind::String => format!("String {:?}", d.str(node).ok()?),
        Kind::Array => format!("Array {node}"),
        Kind::Object => format!("Object {node}"),
    })
}

fuzz_target!(|data: &[u8]| {
    // The first byte: the mode, and where the document ends and the
    // paths (one a line) begin.
    let Some((&ctl, rest)) = data.split_first() else { return };
    let cut = (ctl as usize >> 1) * rest.len() / 128;
    let (json, script) = rest.split_at(cut.min(rest.len()));
    let opts = Options { mode: u32::from(ctl & 1), ..Default::default() };

    let mut sel = Selector::new();
    let mut singles = Vec::new();
    for line in script.split(|&b| b == b'\n').take(16) {
        let mut one = Selector::new();
        if one.push(line, None).is_ok() {
            sel.push(line, None).expect("a path that compiles alone compiles in a list");
            singles.push((line, one));
        }
    }
    if sel.is_empty() {
        return;
    }

    let Ok(mut d) = Document::parse(json, &opts) else {
        assert!(read_text(&sel, json, &opts).is_err(), "a text that does not parse is an error");
        return;
    };
    let got = read(&sel, &mut d);
    assert_eq!(read_text(&sel, json, &opts).is_ok(), got.is_ok(), "text and document reads disagree");
    if let Ok(items) = &got {
        assert_eq!(&read_text(&sel, json, &opts).unwrap(), items, "text and document reads differ");
    }

    // The paths one by one: the same items, or the same first failure.
    let mut alone_items = Vec::new();
    let mut failure = None;
    for (line, one) in &singles {
        match read(one, &mut d) {
            Ok(items) => {
                let plain = !line.windows(3).any(|w| w == b"[*]") && !line.contains(&b':');
                if plain && opts.mode == 0 && items.len() == 1 {
                    if let Some(want) = alone(&mut d, line) {
                        assert_eq!(items[0], want, "selector and document API differ at {line:?}");
                    }
                }
                alone_items.extend(items);
            }
            Err(e) => {
                failure = Some(e);
                break;
            }
        }
    }
    match (got, failure) {
        (Ok(items), None) => assert_eq!(items, alone_items, "a list reads what its paths read alone"),
        (Err(e), Some(f)) => assert_eq!(e, f, "a list fails as its first failing path"),
        (g, f) => panic!("list {g:?}, paths alone {f:?}"),
    }
});
