//! Hostile schemas and instances (issue 39): long chains and cycles of
//! `$ref`s (and of `allOf`, `anyOf`, `not`) over bodies nested up to
//! 20,000 deep, with the nesting limits raised; enums, consts and
//! `uniqueItems` over any value; patterns that backtrack; any schema over
//! any instance. Whatever the input: no crash, `is_valid` agrees with
//! `validate`, and, where the answer is known by construction or from an
//! oracle, it is that answer, unless a bound (stack, backtracking)
//! stopped the validation with its error.
#![no_main]

use libfuzzer_sys::fuzz_target;
use qjson_core::schema::{Schema, SchemaOptions, SCHEMA_MAX_DEPTH};
use qjson_core::{Document, Options, ROOT};

mod common;

/// The verdict, checked against the errors; `None` when a bound stopped
/// the validation (its error says so).
fn verdict(s: &Schema, doc: &Document<'_>) -> Option<bool> {
    let quick = s.is_valid(doc, ROOT).unwrap();
    let errors = s.validate(doc, ROOT).unwrap();
    assert_eq!(quick, errors.is_empty(), "is_valid and validate disagree: {errors:?}");
    let bounded = errors.iter().any(|e| e.message.starts_with("instance nested") || e.message.contains("backtrack_"));
    (!bounded).then_some(quick)
}

fn parse(text: &[u8]) -> Option<Document<'_>> {
    Document::parse(text, &Options { max_depth: 1 << 20, ..Default::default() }).ok()
}

fn raised() -> SchemaOptions {
    SchemaOptions { max_depth: SCHEMA_MAX_DEPTH, ..Default::default() }
}

fn u16_at(b: &[u8], i: usize) -> usize {
    usize::from(u16::from_le_bytes([b.get(i).copied().unwrap_or(0), b.get(i + 1).copied().unwrap_or(0)]))
}

/// `n` subschemas linked in a chain (through `$ref`, `allOf`, `anyOf`
/// beside a `false`, or a double `not`), the last one an array whose
/// items go back to the first: valid exactly when the innermost value of
/// the nested arrays is an array too.
fn refs(b: &[u8]) {
    let n = 1 + u16_at(b, 0) % 20_000;
    let depth = 1 + u16_at(b, 2) % 20_000;
    let kind = b.get(4).copied().unwrap_or(0);
    let link = |next: usize| match kind % 4 {
        0 => format!(r##"{{"$ref":"#/$defs/d{next}"}}"##),
        1 => format!(r##"{{"allOf":[{{"$ref":"#/$defs/d{next}"}}]}}"##),
        2 => format!(r##"{{"anyOf":[false,{{"$ref":"#/$defs/d{next}"}}]}}"##),
        _ => format!(r##"{{"not":{{"not":{{"$ref":"#/$defs/d{next}"}}}}}}"##),
    };
    let mut defs: Vec<String> = (0..n - 1).map(|i| format!(r#""d{i}":{}"#, link(i + 1))).collect();
    defs.push(format!(r##""d{}":{{"type":"array","items":{{"$ref":"#/$defs/d0"}}}}"##, n - 1));
    let schema = format!(r##"{{"$ref":"#/$defs/d0","$defs":{{{}}}}}"##, defs.join(","));
    let inner_array = kind & 4 != 0;
    let body = format!("{}{}{}", "[".repeat(depth), if inner_array { "" } else { "1" }, "]".repeat(depth));
    let Ok(s) = Schema::compile(schema.as_bytes(), None, &raised()) else { return };
    let doc = parse(body.as_bytes()).expect("nested arrays parse");
    if let Some(valid) = verdict(&s, &doc) {
        assert_eq!(valid, inner_array, "chain of {n} ({kind}), body {depth} deep");
    }
}

/// Any value against `enum`, `const` and `uniqueItems` built from its own
/// text: equal to itself, not to itself inside an array, and never unique
/// twice.
fn values(b: &[u8]) {
    let Some(doc) = parse(b) else { return };
    let text = std::str::from_utf8(doc.raw(ROOT).unwrap()).unwrap().to_owned();
    let check = |schema: String, body: String, want: bool| {
        // (A value nested past serde_json's 128 levels cannot be a schema's.)
        let Ok(s) = Schema::compile(schema.as_bytes(), None, &raised()) else { return };
        let doc = parse(body.as_bytes()).expect("built from a parsed value");
        if let Some(valid) = verdict(&s, &doc) {
            assert_eq!(valid, want, "{schema} against {body}");
        }
    };
    check(format!(r#"{{"enum":[{text}]}}"#), text.clone(), true);
    check(format!(r#"{{"enum":[0,"",[],{{}},{text}]}}"#), format!("[{text}]"), false);
    check(format!(r#"{{"const":{text}}}"#), text.clone(), true);
    check(format!(r#"{{"const":[{text}]}}"#), text.clone(), false);
    check(r#"{"uniqueItems":true}"#.to_owned(), format!("[{text},{text}]"), false);
    check(r#"{"uniqueItems":true}"#.to_owned(), format!("[{text},[{text}]]"), true);
}

/// A pattern (the first line) over the other lines as strings, with a
/// small budget: the verdict of a validation no bound stopped is
/// `fancy-regex`'s with a generous limit, when that one finishes.
fn patterns(b: &[u8]) {
    let Ok(text) = std::str::from_utf8(b) else { return };
    let mut lines = text.split('\n');
    let pattern = lines.next().unwrap_or_default();
    let subjects: Vec<&str> = lines.collect();
    let schema = serde_json::json!({ "items": { "pattern": pattern } }).to_string();
    let opts = SchemaOptions { backtrack_limit: 10_000, backtrack_budget: 200_000, ..Default::default() };
    let Ok(s) = Schema::compile(schema.as_bytes(), None, &opts) else { return };
    let body = serde_json::to_string(&subjects).unwrap();
    let doc = parse(body.as_bytes()).expect("serde_json's output parses");
    let Some(valid) = verdict(&s, &doc) else { return };
    let Ok(translated) = jsonschema_regex::to_rust_regex(pattern) else { return };
    let Ok(oracle) = fancy_regex::RegexBuilder::new(&translated).backtrack_limit(10_000_000).build() else { return };
    let mut want = true;
    for subject in &subjects {
        match oracle.is_match(subject) {
            Ok(m) => want &= m,
            Err(_) => return,
        }
    }
    assert_eq!(valid, want, "{pattern:?} over {subjects:?}");
}

/// Any schema over any instance, the nesting limits raised.
fn any(b: &[u8]) {
    let Some((&ctl, rest)) = b.split_first() else { return };
    let cut = usize::from(ctl) * rest.len() / 256;
    let (schema, instance) = rest.split_at(cut.min(rest.len()));
    let Ok(s) = Schema::compile(schema, None, &SchemaOptions { formats: u32::from(ctl & 1), ..raised() }) else {
        return;
    };
    if let Some(doc) = parse(instance) {
        verdict(&s, &doc);
    }
}

fuzz_target!(|data: &[u8]| {
    common::printing_panics();
    let Some((&kind, rest)) = data.split_first() else { return };
    let rest = rest.to_vec();
    // On a thread whose stack holds any validation's (qjson then never
    // switches to a stack of its own, which AddressSanitizer cannot follow
    // through the unwinding of a stopped validation, and its own larger
    // frames have room).
    let run = std::thread::Builder::new().stack_size(1 << 30).spawn(move || match kind % 4 {
        0 => refs(&rest),
        1 => values(&rest),
        2 => patterns(&rest),
        _ => any(&rest),
    });
    if let Err(panic) = run.expect("a thread").join() {
        std::panic::resume_unwind(panic);
    }
});
