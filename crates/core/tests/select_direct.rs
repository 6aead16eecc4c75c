//! The selector's one pass over a text (`Selector::read_direct`, which
//! `qjson_select` tries first on a text) takes a text only when the
//! document read accepts it, and then gives its items, item for item.
//! Every text and selector it should take, it takes.

mod common;

use proptest::prelude::*;
use qjson_core::select::{Item, ItemTag, ItemValue, Output, Selector};
use qjson_core::{Document, Options, ROOT};

/// An item as text: strings and raw texts by their bytes, numbers by
/// their bits, lists by their length.
fn shown(it: &Item) -> String {
    // SAFETY: each tag says which field of the union was written; strings
    // point into the text or the byte area, both alive while this runs.
    unsafe {
        match it.tag {
            ItemTag::Number => format!("number {:#x}", it.v.num.to_bits()),
            ItemTag::Integer => format!("integer {}", it.v.integer),
            ItemTag::String | ItemTag::Raw => {
                let s = std::slice::from_raw_parts(it.v.ptr.cast::<u8>(), it.len as usize);
                format!("{:?} {:?}", it.tag, String::from_utf8_lossy(s))
            }
            ItemTag::List => format!("list {}", it.len),
            ItemTag::Array | ItemTag::Object => format!("{:?} node {}", it.tag, it.v.node),
            tag => format!("{tag:?}"),
        }
    }
}

const CAP: usize = 4096;

fn blank() -> Vec<Item> {
    vec![Item { tag: ItemTag::Missing, len: 0, v: ItemValue { num: 0.0 } }; CAP]
}

/// What a read gives: every item, or `None` when it was not taken
/// (`read_direct`) or failed (the document read).
fn read(text: &[u8], sel: &Selector, opts: &Options, direct: bool) -> Option<Vec<String>> {
    let (mut items, mut bytes) = (blank(), vec![0u8; 1 << 16]);
    let mut out = Output { items: &mut items, bytes: &mut bytes, count: 0, used: 0 };
    if direct {
        sel.read_direct(text, opts, &mut out)?;
    } else {
        Document::parse_then(text, opts, |d| sel.read(d, ROOT, &mut out)).ok()?.ok()?;
    }
    assert!(out.fits(), "{} items", out.count);
    let n = out.count;
    Some(items[..n].iter().map(shown).collect())
}

/// Reads `text` both ways: when the pass takes it, the document read
/// accepts it and gives the same items. Returns whether it was taken.
fn check(text: &[u8], sel: &Selector, opts: &Options) -> bool {
    let direct = read(text, sel, opts, true);
    if let Some(items) = &direct {
        assert_eq!(Some(items), read(text, sel, opts, false).as_ref(), "{}", common::show(text));
    }
    direct.is_some()
}

/// Whether the pass must take `text`: no path asks for a container or
/// raw text, and the document read gives only scalars, missing values and
/// lists (no container, whose node the pass cannot give).
fn must_take(text: &[u8], sel: &Selector, paths: &[String], opts: &Options) -> bool {
    !paths.iter().any(|p| [":array", ":object", ":raw"].iter().any(|t| p.ends_with(t)))
        && read(text, sel, opts, false)
            .is_some_and(|items| !items.iter().any(|i| i.starts_with("Array") || i.starts_with("Object")))
}

fn selector(paths: &[String]) -> Selector {
    selector_with(paths, false)
}

/// `integers`: integer numbers as `Integer` items (the PUC binding's on
/// Lua 5.3 and 5.4).
fn selector_with(paths: &[String], integers: bool) -> Selector {
    let mut sel = Selector::new();
    if integers {
        sel.read_integers();
    }
    for p in paths {
        sel.push(p.as_bytes(), None).unwrap();
    }
    sel
}

const KEYS: [&str; 5] = ["a", "b", "id", "caf\u{e9}", "long_key_name"];

/// A key as the text writes it: plain or with an escape.
fn key_text(k: &str, escaped: bool) -> String {
    match (k, escaped) {
        ("a", true) => "\\u0061".into(),
        ("caf\u{e9}", true) => "caf\\u00e9".into(),
        ("long_key_name", true) => "long_key\\u005fname".into(),
        _ => k.into(),
    }
}

/// An object of `keys` and `values` (as many as there are keys), bit `i`
/// of `escapes` saying whether key `i` is written with an escape.
fn object(keys: Vec<&str>, values: Vec<String>, escapes: u8) -> String {
    let members: Vec<String> = keys
        .iter()
        .zip(values)
        .enumerate()
        .map(|(i, (k, v))| format!("\"{}\" : {}", key_text(k, escapes >> i & 1 == 1), v))
        .collect();
    format!("{{{}}}", members.join(","))
}

/// JSON texts over a few keys, compact or with whitespace, with every
/// kind of scalar. Keys are distinct in most objects; the top one, half
/// the time an object, often repeats one.
fn arb_text() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just("null".to_string()),
        Just("true".to_string()),
        Just("false".to_string()),
        any::<i32>().prop_map(|i| i.to_string()),
        Just("12345678901234567890".to_string()),
        Just("-0".to_string()),
        Just("1.5e3".to_string()),
        Just("0.371".to_string()),
        Just("9007199254740993".to_string()),
        Just("\"plain\"".to_string()),
        Just("\"caf\\u00e9 \\\"ok\\\"\"".to_string()),
        Just("\"\"".to_string()),
        Just("\"\u{4f60}\u{597d}\"".to_string()),
    ];
    let inner = leaf.prop_recursive(5, 64, 6, |inner| {
        prop_oneof![
            (prop::collection::vec(inner.clone(), 0..6), any::<bool>()).prop_map(|(v, ws)| if ws {
                format!("[ {} ]", v.join(" ,\n "))
            } else {
                format!("[{}]", v.join(","))
            }),
            (prop::sample::subsequence(KEYS.to_vec(), 0..=KEYS.len()), prop::collection::vec(inner, 6), any::<u8>())
                .prop_map(|(keys, values, escapes)| object(keys, values, escapes)),
        ]
    });
    let repeating = prop::collection::vec(prop::sample::select(KEYS.to_vec()), 1..7);
    prop_oneof![
        inner.clone(),
        (repeating, prop::collection::vec(inner, 6), any::<u8>())
            .prop_map(|(keys, values, escapes)| object(keys, values, escapes)),
    ]
}

/// Selector paths over the same keys, with indexes, wildcards and types.
fn arb_paths() -> impl Strategy<Value = Vec<String>> {
    let step = prop_oneof![
        prop::sample::select(KEYS.to_vec()).prop_map(|k| format!(".{k}")),
        Just("[0]".to_string()),
        Just("[1]".to_string()),
        Just("[*]".to_string()),
    ];
    let ty = prop::sample::select(vec![
        "", "", "", ":string", ":number", ":integer", ":boolean", ":any", ":array", ":object", ":raw",
    ]);
    let path = (prop::collection::vec(step, 0..4), ty).prop_map(|(steps, ty)| {
        let p = steps.concat();
        format!("{}{}", p.strip_prefix('.').unwrap_or(&p), ty)
    });
    prop::collection::vec(path, 1..7)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(512)))]

    /// Taken exactly when it should be, and then as the document read
    /// gives it; cut short or with a byte changed, taken only when valid.
    #[test]
    fn one_pass_gives_the_document_reads_items(
        text in arb_text(),
        paths in arb_paths(),
        at in any::<prop::sample::Index>(),
        byte in any::<u8>(),
        integers in any::<bool>(),
    ) {
        let sel = selector_with(&paths, integers);
        let opts = Options::default();
        let bytes = text.as_bytes();
        let must = must_take(bytes, &sel, &paths, &opts);
        let taken = check(bytes, &sel, &opts);
        // (Where a key repeats, a path through it is left to the document
        // read, whose last member wins.)
        let unique = Document::parse(bytes, &Options { duplicate_keys: 1, ..opts }).is_ok();
        if unique {
            prop_assert_eq!(taken, must, "{} {:?}", text, paths);
        }
        // (Fresh selectors: one that met a container no longer tries.)
        let cut = at.index(bytes.len() + 1);
        check(&bytes[..cut], &selector_with(&paths, integers), &opts);
        let mut changed = bytes.to_vec();
        if cut < changed.len() {
            changed[cut] = byte;
            check(&changed, &selector_with(&paths, integers), &opts);
        }
    }
}

#[test]
fn cases_the_pass_leaves_to_the_document() {
    let opts = Options::default();
    let sel = |paths: &[&str]| selector(&paths.iter().map(|p| p.to_string()).collect::<Vec<_>>());
    // Taken: scalars, missing values, lists of scalars, nulls anywhere.
    let taken: [(&str, &[&str]); 6] = [
        (r#"{"a":1,"b":[1,2,"x"],"c":null}"#, &["a", "b[*]", "c", "c.d", "c[*]", "b[5]", "a.b", "z"]),
        (r#"{"a":{"b":[{"c":1},{"d":2},3,null]}}"#, &["a.b[*].c", "a.b[1].d", "a.b[*].d:integer"]),
        (r#"[[1,2],[],[3]]"#, &["[*][*]", "[0][1]", "[2][0]:number", "[1][0]"]),
        (r#"{"a":1,"a":2}"#, &["b"]),
        (r#"  "x"  "#, &["", "a", "[0]", ":string"]),
        (r#"{"k\u00e9":"v","x":[]}"#, &["k\u{e9}", "x[*]"]),
    ];
    for (text, paths) in taken {
        assert!(check(text.as_bytes(), &sel(paths), &opts), "{text} {paths:?}");
    }
    // Left to the document read: containers, raw texts, type errors, a
    // key that repeats where a path goes, options the pass leaves out.
    let left: [(&str, &[&str]); 7] = [
        (r#"{"a":{"b":1}}"#, &["a"]),
        (r#"{"a":[1]}"#, &["a[*]", "a:array"]),
        (r#"{"a":1}"#, &["a:raw"]),
        (r#"{"a":1}"#, &["a:string"]),
        (r#"{"a":{"b":1}}"#, &["a[*]"]),
        (r#"{"a":1,"a":2}"#, &["a"]),
        (r#"{"a":[1.5]}"#, &["a[*]:integer"]),
    ];
    for (text, paths) in left {
        assert!(!check(text.as_bytes(), &sel(paths), &opts), "{text} {paths:?}");
    }
    for opts in [
        Options { duplicate_keys: 1, ..Options::default() },
        Options { ijson: 1, ..Options::default() },
        Options { invalid_numbers: 1, ..Options::default() },
        Options::lazy(),
    ] {
        assert!(!check(b"[1]", &sel(&["[0]"]), &opts));
    }
    // As deep as allowed, and no deeper.
    let depth = Options { max_depth: 2, ..Options::default() };
    assert!(check(b"[[1]]", &sel(&["[0][0]"]), &depth));
    assert!(!check(b"[[[1]]]", &sel(&["[0][0]"]), &depth));
}

/// A selector whose path asks for a container or raw text never tries the
/// pass; one whose path led to a container stops trying it.
#[test]
fn selectors_that_read_containers_stop_trying() {
    let opts = Options::default();
    for path in ["a:array", "a:object", "a:raw"] {
        assert!(!check(br#"{"b":1}"#, &selector(&[path.into()]), &opts), "{path}");
    }
    let sel = selector(&["a".into()]);
    assert!(check(br#"{"a":1}"#, &sel, &opts));
    assert!(!check(br#"{"a":[1]}"#, &sel, &opts));
    assert!(!check(br#"{"a":1}"#, &sel, &opts));
    assert_eq!(read(br#"{"a":1}"#, &sel, &opts, false), Some(vec![format!("number {:#x}", 1f64.to_bits())]));
}

/// Too little room: the counts say what a retry needs, as the document
/// read's do.
#[test]
fn counts_past_the_room_given() {
    let text = br#"{"a":[1,2,3,4],"s":"caf\u00e9 \"ok\""}"#;
    let sel = selector(&["a[*]".into(), "s".into()]);
    let mut counts = Vec::new();
    for direct in [true, false] {
        let (mut items, mut bytes) = (blank(), [0u8; 2]);
        let mut out = Output { items: &mut items[..3], bytes: &mut bytes, count: 0, used: 0 };
        if direct {
            sel.read_direct(text, &Options::default(), &mut out).unwrap();
        } else {
            Document::parse_then(text, &Options::default(), |d| sel.read(d, ROOT, &mut out)).unwrap().ok().unwrap();
        }
        assert!(!out.fits());
        counts.push((out.count, out.used));
    }
    assert_eq!(counts[0], counts[1]);
    assert_eq!(counts[0], (6, 10));
}

/// JSONTestSuite: every `y_` text taken with scalar paths, as the document
/// read gives it; every other text only when the document read accepts
/// it. Also each cut short at every byte (of the first 200).
#[test]
fn one_pass_on_the_test_suite() {
    let Some(dir) = common::data_dir() else { return };
    let opts = Options::default();
    let (mut taken, mut valid) = (0, 0);
    for entry in std::fs::read_dir(dir.join("JSONTestSuite/test_parsing")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let bytes = std::fs::read(&path).unwrap();
        // (Fresh selectors: one that met a container no longer tries.)
        let sel = selector(&["[0]".into(), "[*]".into(), "a".into(), "".into()]);
        let scalars = selector(&["[9]".into(), "missing".into()]);
        check(&bytes, &sel, &opts);
        let took = check(&bytes, &scalars, &opts);
        assert!(took || !name.starts_with("y_"), "{name} not taken");
        taken += took as usize;
        valid += name.starts_with("y_") as usize;
        for cut in 0..bytes.len().min(200) {
            check(&bytes[..cut], &selector(&["[0]".into(), "a".into()]), &opts);
        }
    }
    assert!(valid > 90 && taken >= valid, "{taken} texts taken, {valid} valid");
}
