//! A selector reads what each of its paths reads alone: whatever the
//! order of the paths, the prefixes they share (which a read does not
//! resolve twice) and the keys that are missing.

use proptest::prelude::*;
use qjson_core::select::{Item, ItemTag, ItemValue, Output, Selector};
use qjson_core::{Document, Kind, Options, ROOT};

const DOC: &[u8] = br#"{"a":{"b":{"c":1,"d":"x"},"e":[10,{"f":true}],"g":null},
  "q":[{"r":"r0","s":0},{"r":"r1","s":1}],"k":"v","dup":1,"dup":2,
  "z":{"a":{"b":{"c":"deep"}}},"esc\u0061pe":"e"}"#;

const POOL: &[&str] = &[
    "a",
    "a.b",
    "a.b.c",
    "a.b.d",
    "a.b.c.x",
    "a.e",
    "a.e[0]",
    "a.e[1].f",
    "a.e[2]",
    "a.g",
    "a.g.h",
    "a.nope.c",
    "q",
    "q[0].r",
    "q[0].s",
    "q[1].r",
    "q[1].s",
    "q[2].r",
    "k",
    "k.x",
    "dup",
    "z.a.b.c",
    "z.a.b",
    "z.a",
    "escape",
    "missing",
    "missing.a.b",
];

/// What the document API finds at `path`, as the selector would write it
/// (containers: their kind only).
fn alone(d: &mut Document<'_>, path: &str) -> String {
    let Some(node) = d.find(ROOT, path.as_bytes()).expect("a valid path") else { return "missing".into() };
    match d.kind(node).unwrap() {
        Kind::Null => "null".into(),
        Kind::Boolean => format!("bool {}", d.bool(node).unwrap()),
        Kind::Number => format!("number {}", d.number(node).unwrap().0),
        Kind::String => format!("string {}", String::from_utf8_lossy(d.str(node).unwrap())),
        Kind::Array => "array".into(),
        Kind::Object => "object".into(),
    }
}

fn item_text(it: &Item) -> String {
    // SAFETY: each tag says which field of the union it wrote; strings
    // point into DOC or the byte area, both alive here.
    unsafe {
        match it.tag {
            ItemTag::Missing => "missing".into(),
            ItemTag::Null => "null".into(),
            ItemTag::True => "bool true".into(),
            ItemTag::False => "bool false".into(),
            ItemTag::Number => format!("number {}", it.v.num),
            ItemTag::String => {
                let s = std::slice::from_raw_parts(it.v.ptr.cast::<u8>(), it.len as usize);
                format!("string {}", String::from_utf8_lossy(s))
            }
            ItemTag::Array => "array".into(),
            ItemTag::Object => "object".into(),
            other => format!("{other:?}"),
        }
    }
}

fn check(paths: &[&str]) {
    let mut sel = Selector::new();
    for p in paths {
        sel.push(p.as_bytes(), None).unwrap();
    }
    let opts = Options::default();
    let mut items = vec![Item { tag: ItemTag::Missing, len: 0, v: ItemValue { num: 0.0 } }; paths.len()];
    let mut bytes = vec![0u8; 256];
    let mut d = Document::parse(DOC, &opts).unwrap();
    let mut out = Output { items: &mut items, bytes: &mut bytes, count: 0, used: 0 };
    sel.read(&d, ROOT, &mut out).unwrap();
    assert_eq!(out.count, paths.len());
    let got: Vec<String> = items.iter().map(item_text).collect();
    let want: Vec<String> = paths.iter().map(|p| alone(&mut d, p)).collect();
    assert_eq!(got, want, "{paths:?}");
}

#[test]
fn shared_prefixes_in_every_order() {
    check(&["a.b.c", "a.b.d", "a.e[1].f", "a.e[0]", "a.g"]);
    check(&["a.b.d", "a.b.c", "a.b", "a"]);
    check(&["missing.a.b", "missing", "a.nope.c", "a.b.c"]);
    check(&["z.a.b.c", "a.b.c", "z.a.b", "z.a"]);
    check(&["q[0].r", "q[0].s", "q[1].r", "q[1].s", "q[2].r", "q[0].r"]);
    check(&["dup", "escape", "dup", "k", "k.x"]);
}

proptest! {
    #[test]
    fn any_list_of_paths(picks in prop::collection::vec(0..POOL.len(), 1..24)) {
        let paths: Vec<&str> = picks.iter().map(|&i| POOL[i]).collect();
        check(&paths);
    }
}
