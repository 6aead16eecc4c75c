//! Schema validation over the tape: error locations, the tape node's
//! agreement with serde_json's, options, and hostile schemas and instances
//! (bounded time, a clear error, no crash).

use std::time::{Duration, Instant};

use qjson_core::schema::{Schema, SchemaOptions};
use qjson_core::{Document, Options, ROOT};

mod common;

fn compile(schema: &str) -> Schema {
    Schema::compile(schema.as_bytes(), None, &SchemaOptions::default()).unwrap()
}

fn compile_with(schema: &str, opts: SchemaOptions) -> Schema {
    Schema::compile(schema.as_bytes(), None, &opts).unwrap()
}

#[test]
fn errors_carry_instance_and_keyword_locations_and_positions() {
    let s =
        compile(r#"{"type":"object","properties":{"a":{"type":"array","items":{"type":"integer"}}},"required":["b"]}"#);
    let body = "{\n  \"a\": [1, 2.5, 3]\n}";
    let errs = s.validate_bytes(body.as_bytes()).unwrap();
    assert_eq!(errs.len(), 2, "{errs:?}");
    let item = errs.iter().find(|e| e.instance_location == "/a/1").expect("the /a/1 error");
    assert_eq!(item.keyword_location, "/properties/a/items/type");
    assert_eq!((item.byte, item.line, item.column), (13, 2, 12));
    assert!(item.message.contains("integer"), "{}", item.message);
    let req = errs.iter().find(|e| e.keyword_location == "/required").expect("the required error");
    assert_eq!((req.instance_location.as_str(), req.byte, req.line, req.column), ("", 0, 1, 1));
    assert!(req.message.contains("\"b\""), "{}", req.message);
    assert!(!s.is_valid_bytes(body.as_bytes()).unwrap());
    assert!(s.is_valid_bytes(br#"{"a":[1],"b":0}"#).unwrap());
}

#[test]
fn arrays_are_not_objects_and_integers_are_exact() {
    let obj = compile(r#"{"type":"object"}"#);
    assert!(obj.is_valid_bytes(b"{}").unwrap());
    assert!(!obj.is_valid_bytes(b"[]").unwrap());
    let int = compile(r#"{"type":"integer"}"#);
    assert!(int.is_valid_bytes(b"1").unwrap());
    assert!(int.is_valid_bytes(b"1.0").unwrap());
    assert!(!int.is_valid_bytes(b"1.5").unwrap());
    assert!(int.is_valid_bytes(b"12345678901234567890123").unwrap());
    let d4 = compile_with(r#"{"type":"integer"}"#, SchemaOptions { draft: 4, ..Default::default() });
    assert!(!d4.is_valid_bytes(b"1.0").unwrap());
}

#[test]
fn a_node_of_a_document_and_lazy_documents() {
    let s = compile(r#"{"type":"string","maxLength":3}"#);
    let body = br#"{"a":"abc","b":"abcd","c":"\u00e9\u00e9\u00e9"}"#;
    for opts in [Options::default(), Options::lazy()] {
        let doc = Document::parse(body, &opts).unwrap();
        let a = doc.member(ROOT, b"a").unwrap();
        let b = doc.member(ROOT, b"b").unwrap();
        let c = doc.member(ROOT, b"c").unwrap();
        assert!(s.is_valid(&doc, a).unwrap());
        assert!(!s.is_valid(&doc, b).unwrap());
        assert!(s.is_valid(&doc, c).unwrap(), "escaped characters count once");
        let errs = s.validate(&doc, b).unwrap();
        assert_eq!(errs[0].byte, 15);
    }
    // A lazy document whose string is not valid is an error, not a verdict.
    let bad = b"[\"\\x\"]";
    let doc = Document::parse(bad, &Options::lazy()).unwrap();
    assert!(s.is_valid(&doc, ROOT).is_err());
}

#[test]
fn an_invalid_schema_says_where() {
    let e = Schema::compile(br#"{"properties":{"a":{"type":12}}}"#, None, &SchemaOptions::default()).err().unwrap();
    assert!(e.to_string().contains("/properties/a/type"), "{e}");
    let e = Schema::compile(b"{", None, &SchemaOptions::default()).err().unwrap();
    assert!(e.to_string().contains("not JSON"), "{e}");
}

/// A repeated key is one property whose value is the last, as for every
/// qjson read: repeats cannot meet `minProperties`, and an earlier value
/// is not validated (found by fuzz/fuzz_targets/schema_differential.rs:
/// `{"x-a":..,"é":1,"x-a":..}` met `minProperties: 3`; then, once only
/// the count was fixed, a repeated key made `unevaluatedProperties`
/// miss another one).
#[test]
fn a_repeated_key_is_one_property_with_its_last_value() {
    let valid = |schema: &str, text: &str| {
        let d = Document::parse(text.as_bytes(), &Options::default()).unwrap();
        compile(schema).is_valid(&d, ROOT).unwrap()
    };
    assert!(!valid(r#"{"minProperties":3}"#, r#"{"a":1,"a":2,"b":3}"#));
    assert!(!valid(r#"{"minProperties":3}"#, r#"{"a":1,"\u0061":2,"b":3}"#));
    assert!(valid(r#"{"minProperties":2}"#, r#"{"a":1,"a":2,"b":3}"#));
    assert!(valid(r#"{"maxProperties":2}"#, r#"{"a":1,"a":2,"b":3}"#));
    assert!(valid(r#"{"properties":{"a":{"type":"string"}}}"#, r#"{"a":1,"a":"x"}"#));
    assert!(!valid(r#"{"properties":{"a":{"type":"string"}}}"#, r#"{"a":"x","a":1}"#));
    let unevaluated = r#"{"properties":{"b":true},"unevaluatedProperties":false}"#;
    assert!(!valid(unevaluated, r#"{"c":1,"b":1,"b":2}"#));
    assert!(valid(unevaluated, r#"{"b":1,"b":2}"#));
    // Large objects (hashed, not compared pairwise).
    let wide: String = (0..40).map(|i| format!("\"k{}\":{i},", i % 20)).collect();
    assert!(!valid(r#"{"minProperties":22}"#, &format!("{{{wide}\"z\":0}}")));
    assert!(valid(r#"{"minProperties":21,"maxProperties":21}"#, &format!("{{{wide}\"z\":0}}")));
    // (The first 20 values are below 20, each superseded by a later one.)
    assert!(valid(r#"{"additionalProperties":{"minimum":20}}"#, &format!("{{{wide}\"z\":20}}")));
}

/// Draft 4's integers are the numbers written without a fraction or
/// exponent: `-0` is one and `1e+308` is not (the crate alone, over
/// serde_json's floats, says the opposite of both; found by
/// fuzz/fuzz_targets/schema_differential.rs).
#[test]
fn integers_are_decided_from_the_text_in_draft_4() {
    let s = compile(r#"{"$schema":"http://json-schema.org/draft-04/schema#","type":"integer"}"#);
    for (text, want) in [
        ("-0", true),
        ("0", true),
        ("-12", true),
        ("100000000000000000000000", true),
        ("1.0", false),
        ("-0.0", false),
        ("1e2", false),
        ("1e+308", false),
    ] {
        let d = Document::parse(text.as_bytes(), &Options::default()).unwrap();
        assert_eq!(s.is_valid(&d, ROOT).unwrap(), want, "{text}");
    }
}

/// The `jsonschema` crate (0.61.2) panics while compiling this schema (a
/// `$dynamicRef` into a resource whose `$id` another subschema repeats;
/// found by fuzz/fuzz_targets/schema_differential.rs): it is refused as a
/// schema that does not compile.
#[test]
fn a_schema_the_crate_panics_on_is_refused() {
    let text = br##"{"$id":"https://example.com/main","$ref":"s","$defs":{
        "g":{"$id":"g","items":{"$dynamicRef":"#t"},"$defs":{"d":{"$dynamicAnchor":"t"}}},
        "a":{"$id":"s","$defs":{"x":{"$dynamicAnchor":"t","type":"string"}},"$ref":"g"},
        "b":{"$id":"s","$defs":{"y":{"cAnchor":"t"}},"$ref":"g"}}}"##;
    let e = Schema::compile(text, None, &SchemaOptions::default()).err().expect("refused");
    assert!(e.to_string().contains("the jsonschema crate cannot compile this schema"), "{e}");

    assert_eq!(qjson_core::panic::take(), None, "the caught panic is not left for a binding to report");
}

#[test]
fn remote_documents_come_from_the_table_only() {
    let schema = br#"{"$ref":"http://example.com/s.json#/$defs/n"}"#;
    let remotes = br#"{"http://example.com/s.json":{"$defs":{"n":{"type":"number"}}}}"#;
    let s = Schema::compile(schema, Some(remotes), &SchemaOptions::default()).unwrap();
    assert!(s.is_valid_bytes(b"1").unwrap());
    assert!(!s.is_valid_bytes(b"\"x\"").unwrap());
    let e = Schema::compile(schema, None, &SchemaOptions::default()).err().unwrap();
    assert!(e.to_string().contains("never fetches"), "{e}");
}

#[test]
fn formats_assert_only_on_request() {
    let schema = r#"{"format":"email"}"#;
    assert!(compile(schema).is_valid_bytes(b"\"nope\"").unwrap());
    let strict = compile_with(schema, SchemaOptions { formats: 1, ..Default::default() });
    assert!(!strict.is_valid_bytes(b"\"nope\"").unwrap());
    assert!(strict.is_valid_bytes(b"\"a@b.example\"").unwrap());
}

#[test]
fn openapi_nullable() {
    let schema =
        r#"{"type":"object","properties":{"a":{"type":"string","nullable":true},"e":{"enum":["x"],"nullable":true}}}"#;
    let oa = compile_with(schema, SchemaOptions { openapi: 1, ..Default::default() });
    assert!(oa.is_valid_bytes(br#"{"a":null,"e":null}"#).unwrap());
    assert!(!oa.is_valid_bytes(br#"{"a":1}"#).unwrap());
    assert!(!compile(schema).is_valid_bytes(br#"{"a":null}"#).unwrap());
}

fn quick(what: &str, start: Instant) {
    assert!(start.elapsed() < Duration::from_secs(5), "{what} took {:?}", start.elapsed());
}

#[test]
fn deep_instances_are_refused_clearly() {
    let s = compile(r##"{"items":{"$ref":"#"},"additionalProperties":{"$ref":"#"}}"##);
    // At the bound: validated (on a test thread's 2 MB stack).
    let ok = "[".repeat(256) + &"]".repeat(256);
    assert!(s.is_valid_bytes(ok.as_bytes()).unwrap());
    let deep = "[".repeat(300) + &"]".repeat(300);
    assert!(!s.is_valid_bytes(deep.as_bytes()).unwrap());
    let errs = s.validate_bytes(deep.as_bytes()).unwrap();
    assert_eq!(errs.len(), 1);
    assert!(errs[0].message.contains("300 deep") && errs[0].message.contains("max_depth (256)"), "{}", errs[0].message);
    // A million nested arrays: the parser's own bound refuses them.
    let t = Instant::now();
    let million = "[".repeat(1_000_000) + &"]".repeat(1_000_000);
    let e = s.validate_bytes(million.as_bytes()).err().unwrap();
    assert!(e.to_string().contains("max_depth"), "{e}");
    quick("a million nested arrays", t);
    // A raised bound is honoured.
    let deeper = compile_with(r##"{"items":{"$ref":"#"}}"##, SchemaOptions { max_depth: 400, ..Default::default() });
    assert!(deeper.is_valid_bytes(deep.as_bytes()).unwrap());
}

#[test]
fn catastrophic_patterns_are_bounded() {
    // Lookaround makes the engine backtrack: (a|a)* explodes on a string
    // of a's that cannot match.
    let s = compile(r#"{"pattern":"^(a|a)*(?!x)b$"}"#);
    let body = format!("\"{}\"", "a".repeat(40));
    let t = Instant::now();
    let errs = s.validate_bytes(body.as_bytes()).unwrap();
    quick("a catastrophic pattern", t);
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert!(errs[0].message.to_lowercase().contains("backtrack"), "{}", errs[0].message);
    // A pattern too large to compile is a schema error.
    let big = r#"{"pattern":"(a{1000}){1000}"}"#;
    let e = Schema::compile(big.as_bytes(), None, &SchemaOptions::default()).err().unwrap();
    assert!(e.to_string().contains("pattern") || e.to_string().contains("size"), "{e}");
}

#[test]
fn huge_enums_and_wide_instances_stay_linear() {
    let values: Vec<String> = (0..100_000).map(|i| format!("\"v{i}\"")).collect();
    let schema = format!(r#"{{"type":"array","items":{{"enum":[{}]}}}}"#, values.join(","));
    let t = Instant::now();
    let s = compile(&schema);
    let body = format!("[{}]", values[..1000].join(","));
    assert!(s.is_valid_bytes(body.as_bytes()).unwrap());
    assert!(!s.is_valid_bytes(b"[\"nope\"]").unwrap());
    quick("a 100,000-value enum", t);
}

#[test]
fn large_instances_report_their_first_error_only() {
    // Every element fails: collecting the errors is bounded at
    // max_errors × 64 KB, about 12,500 of these.
    let s = compile(r#"{"items":{"type":"string"}}"#);
    let body = format!("[{}]", vec!["1"; 1_000_000].join(","));
    let t = Instant::now();
    let errs = s.validate_bytes(body.as_bytes()).unwrap();
    quick("a million failing elements", t);
    assert_eq!(errs.len(), 1);
    assert_eq!(errs[0].instance_location, "/0");
    let small = format!("[{}]", vec!["1"; 10_000].join(","));
    assert_eq!(s.validate_bytes(small.as_bytes()).unwrap().len(), 100);
}

#[test]
fn error_reports_are_capped() {
    let s = compile_with(r#"{"items":{"type":"string"}}"#, SchemaOptions { max_errors: 5, ..Default::default() });
    let body = format!("[{}]", vec!["1"; 10_000].join(","));
    assert_eq!(s.validate_bytes(body.as_bytes()).unwrap().len(), 5);
}

#[test]
fn property_names_and_unique_items_read_the_tape() {
    let s = compile(r#"{"propertyNames":{"maxLength":2},"properties":{"u":{"uniqueItems":true}}}"#);
    assert!(s.is_valid_bytes(br#"{"ab":1,"u":[1,"1",{"a":1},{"a":2}]}"#).unwrap());
    assert!(!s.is_valid_bytes(br#"{"abc":1}"#).unwrap());
    assert!(!s.is_valid_bytes(br#"{"u":[{"a":1,"b":[1.0]},{"b":[1],"a":1}]}"#).unwrap());
    let errs = s.validate_bytes(br#"{"ab":1, "abc":2}"#).unwrap();
    assert_eq!(errs.len(), 1, "{errs:?}");
}

#[test]
fn escaped_strings_count_and_compare_as_decoded() {
    let len = compile(r#"{"minLength":2,"maxLength":2}"#);
    for (body, ok) in [
        (r#""\u00e9\u00e9""#, true),
        (r#""é\u00e9""#, true),
        (r#""\u00e9ab""#, false),
        (r#""\ud83d\ude00x""#, true),
        (r#""\n""#, false),
        (r#""éé""#, true),
        (r#""ééé""#, false),
    ] {
        assert_eq!(len.is_valid_bytes(body.as_bytes()).unwrap(), ok, "{body}");
    }
    let e = compile(r#"{"enum":["a\"b","é"]}"#);
    for (body, ok) in [
        (r#""a\u0022b""#, true),
        (r#""a\"b""#, true),
        (r#""\u00e9""#, true),
        (r#""a\"c""#, false),
        (r#""a\"b ""#, false),
    ] {
        assert_eq!(e.is_valid_bytes(body.as_bytes()).unwrap(), ok, "{body}");
    }
}
