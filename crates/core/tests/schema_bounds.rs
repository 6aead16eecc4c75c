//! JSON Schema validation's exactness and bounds (issue 39): equality and
//! numbers on the document's own text, a clear error (never a crash) for a
//! validation deeper than its stack, a budget on the backtracking of a
//! whole validation, the drafts' meta-schemas under every draft.
//!
//! The cases that crashed the process run in a child process (this test
//! binary again, with `QJSON_CHILD` naming the case), so that a crash
//! fails the test instead of taking the runner down.

use std::process::Command;

use qjson_core::schema::{Schema, SchemaOptions};

fn compile_with(schema: &str, opts: SchemaOptions) -> Schema {
    Schema::compile(schema.as_bytes(), None, &opts).unwrap_or_else(|e| panic!("{schema}: {e}"))
}

fn compile(schema: &str) -> Schema {
    compile_with(schema, SchemaOptions::default())
}

/// `is_valid` and `validate`, which must agree.
fn valid(s: &Schema, body: &str) -> bool {
    let quick = s.is_valid_bytes(body.as_bytes()).unwrap();
    let errors = s.validate_bytes(body.as_bytes()).unwrap();
    assert_eq!(quick, errors.is_empty(), "is_valid and validate disagree on {body}: {errors:?}");
    quick
}

fn nested(depth: usize, inner: &str) -> String {
    format!("{}{inner}{}", "[".repeat(depth), "]".repeat(depth))
}

#[test]
fn enum_and_const_compare_the_document_not_a_conversion_of_it() {
    let deep = nested(130, "");
    let cases = [
        (r#"{"enum":[null]}"#, "1e400", false),
        (r#"{"enum":[null]}"#, "[1,2,1e400]", false),
        (r#"{"enum":[null]}"#, r#"{"x":1e999}"#, false),
        (r#"{"enum":[null]}"#, &deep, false),
        (r#"{"enum":[null]}"#, "null", true),
        (r#"{"enum":[null,{}]}"#, r#"{"role":"admin","pad":1e400}"#, false),
        (r#"{"enum":[null,{}]}"#, "{}", true),
        (r#"{"const":[null]}"#, "[1e400]", false),
        (r#"{"const":[null]}"#, "[null]", true),
        (r#"{"const":{"a":[1,{"b":2}]}}"#, r#"{"a":[1.0,{"b":2e0}]}"#, true),
        (r#"{"const":{"a":[1,{"b":2}]}}"#, r#"{"a":[1,{"b":2,"c":3}]}"#, false),
        (r#"{"const":{"a":1}}"#, r#"{"a":2,"a":1}"#, true),
        (r#"{"const":1e400}"#, "10e399", true),
        (r#"{"const":1e400}"#, "1e401", false),
        (r#"{"enum":["admin"]}"#, r#""adm\u0069n""#, true),
    ];
    for (schema, body, want) in cases {
        assert_eq!(valid(&compile(schema), body), want, "{schema} against {}", &body[..body.len().min(60)]);
    }
}

#[test]
fn unique_items_compares_values_exactly_at_any_depth() {
    let s = compile(r#"{"uniqueItems":true}"#);
    let a = nested(130, "");
    let b = nested(130, "1");
    let cases = [
        ("[1e400,-1e400]".to_owned(), true),
        (format!("[{a},{b}]"), true),
        (format!("[{b},{b}]"), false),
        ("[1e-400,0]".to_owned(), true),
        ("[1,1.0]".to_owned(), false),
        ("[18446744073709551617,18446744073709551616]".to_owned(), true),
        (r#"[{"a":1,"b":2},{"b":2.0,"a":1}]"#.to_owned(), false),
        (r#"[{"a":1},{"a":1,"b":1}]"#.to_owned(), true),
        (r#"["a","\u0061"]"#.to_owned(), false),
        ("[true,1,\"1\",null,[],{}]".to_owned(), true),
    ];
    for (body, want) in cases {
        assert_eq!(valid(&s, &body), want, "{}", &body[..body.len().min(60)]);
    }
    // Many elements, one repeat written differently at the end.
    let mut elements: Vec<String> = (0..5000).map(|i| format!("{{\"k\":[{i},\"{i}\"]}}")).collect();
    assert!(valid(&s, &format!("[{}]", elements.join(","))));
    elements.push(r#"{"k":[17.0e0,"17"]}"#.to_owned());
    assert!(!valid(&s, &format!("[{}]", elements.join(","))));
}

#[test]
fn numbers_compare_as_the_decimals_they_write() {
    let cases = [
        (r#"{"maximum":0}"#, "1e-400", false),
        (r#"{"maximum":0}"#, "-1e-400", true),
        (r#"{"minimum":0}"#, "-1e-400", false),
        (r#"{"exclusiveMinimum":0}"#, "1e-400", true),
        (r#"{"const":0}"#, "1e-400", false),
        (r#"{"const":0}"#, "-0.0", true),
        (r#"{"type":"integer"}"#, "1e400", true),
        (r#"{"type":"integer"}"#, "1.5e1", true),
        (r#"{"type":"integer"}"#, "1.25e1", false),
        (r#"{"multipleOf":2}"#, "1e400", true),
        (r#"{"multipleOf":2}"#, "18446744073709551617", false),
        (r#"{"multipleOf":2}"#, "18446744073709551618", true),
        (r#"{"multipleOf":0.01}"#, "19.99", true),
        (r#"{"multipleOf":0.01}"#, "1070468.145", false),
        (r#"{"multipleOf":3}"#, "1e1000000000000000000000", false),
        (r#"{"multipleOf":5}"#, "1e1000000000000000000000", true),
        (r#"{"multipleOf":1e-300}"#, "1", true),
        (r#"{"multipleOf":1e-300}"#, "1e-301", false),
        (r#"{"multipleOf":1e-300}"#, "7e-300", true),
        (r#"{"const":18446744073709551617}"#, "18446744073709551616", false),
        (r#"{"const":18446744073709551617}"#, "18446744073709551617.0", true),
        (r#"{"maximum":1e400}"#, "1e399", true),
        (r#"{"maximum":1e400}"#, "1.0000000000000000000001e400", false),
        (r#"{"minimum":-1e400}"#, "-1e401", false),
        (r#"{"exclusiveMaximum":972783798187987123879878123.18878137}"#, "972783798187987123879878123.18878136", true),
        (r#"{"exclusiveMaximum":972783798187987123879878123.18878137}"#, "972783798187987123879878123.18878137", false),
        (r#"{"maximum":18446744073709551615}"#, "18446744073709551616", false),
    ];
    for (schema, body, want) in cases {
        assert_eq!(valid(&compile(schema), body), want, "{schema} against {body}");
    }
    // Draft 4's boolean exclusiveMaximum makes maximum strict.
    let d4 = SchemaOptions { draft: 4, ..Default::default() };
    let s = compile_with(r#"{"maximum":5,"exclusiveMaximum":true}"#, d4);
    assert!(valid(&s, "4.999"));
    assert!(!valid(&s, "5.0"));
    let errs = s.validate_bytes(b"5").unwrap();
    assert_eq!(errs[0].message, "value is greater than or equal to the maximum of 5");
    let errs = compile(r#"{"minimum":5}"#).validate_bytes(b"4.99").unwrap();
    assert_eq!(errs[0].message, "value is less than the minimum of 5");
    assert_eq!(errs[0].keyword_location, "/minimum");
}

/// Runs this test binary's test `name` alone in a child process with
/// `QJSON_CHILD=name`; returns its standard output, having checked that
/// the child exited normally.
fn in_child(name: &str) -> String {
    in_child_within(name, None)
}

/// The same, with the child's address space and CPU time limited
/// (`ulimit -v` in KB, `ulimit -t` in seconds): a test of a bound on
/// memory or time then fails, rather than exhausts the machine, when the
/// bound is missing.
fn in_child_within(name: &str, limits: Option<(u64, u64)>) -> String {
    let exe = std::env::current_exe().unwrap();
    let mut command = match limits {
        None => Command::new(&exe),
        Some((kb, seconds)) => {
            let mut sh = Command::new("sh");
            sh.args([
                "-c",
                &format!("ulimit -v {kb} && ulimit -t {seconds} && exec \"$0\" \"$@\""),
                exe.to_str().unwrap(),
            ]);
            sh
        }
    };
    let out =
        command.args(["--exact", name, "--nocapture", "--test-threads=1"]).env("QJSON_CHILD", name).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{name} in a child process: {:?}\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

fn is_child(name: &str) -> bool {
    std::env::var("QJSON_CHILD").is_ok_and(|c| c == name)
}

#[test]
fn an_instance_too_deep_for_the_stack_is_a_clear_error() {
    const NAME: &str = "an_instance_too_deep_for_the_stack_is_a_clear_error";
    if !is_child(NAME) {
        assert!(in_child(NAME).contains("child done"));
        return;
    }
    // max_depth raised on the parse and on the schema (issue 39, item 2).
    let schema = r##"{"type":"array","items":{"$ref":"#"}}"##;
    let raised = Schema::compile(schema.as_bytes(), None, &SchemaOptions { max_depth: 1 << 30, ..Default::default() });
    assert_eq!(raised.err().unwrap().to_string(), "invalid schema at /: max_depth is at most 2000, got 1073741824");
    let s = compile_with(schema, SchemaOptions { max_depth: 2000, ..Default::default() });
    let deep = |text: String| {
        qjson_core::Document::parse_owned(
            text.into_bytes(),
            &qjson_core::Options { max_depth: 1 << 30, ..Default::default() },
        )
        .unwrap()
    };
    let doc = deep(nested(20_000, ""));
    assert!(!s.is_valid(&doc, qjson_core::ROOT).unwrap());
    let errs = s.validate(&doc, qjson_core::ROOT).unwrap();
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert_eq!(errs[0].message, "instance nested 20000 deep, deeper than the schema's max_depth (2000)");
    let doc = deep(nested(2000, ""));
    assert!(s.is_valid(&doc, qjson_core::ROOT).unwrap());
    assert!(s.validate(&doc, qjson_core::ROOT).unwrap().is_empty());
    // Past the stack: a clear error where it stopped.
    let s = compile_with(&branch_cycle(2_000), SchemaOptions { max_depth: 2000, ..Default::default() });
    let doc = deep(nested(1000, ""));
    assert!(!s.is_valid(&doc, qjson_core::ROOT).unwrap());
    let errs = s.validate(&doc, qjson_core::ROOT).unwrap();
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert!(errs[0].message.starts_with("instance nested too deep for this schema"), "{}", errs[0].message);
    assert!(errs[0].instance_location.starts_with("/0/0/0/0"), "{}", errs[0].instance_location);
    println!("child done");
}

/// A schema whose array level goes through a cycle of `n` `$ref`s.
fn ref_cycle(n: usize) -> String {
    cycle(n, r##"{"$ref":"#/$defs/dNEXT"}"##)
}

/// The same with each `$ref` an `anyOf`'s first branch: the crate goes
/// through a bare `$ref` (or an `allOf` of one) straight to its target,
/// not through an `anyOf`, so each link is a frame of its own.
fn branch_cycle(n: usize) -> String {
    cycle(n, r##"{"anyOf":[{"$ref":"#/$defs/dNEXT"},false]}"##)
}

fn cycle(n: usize, link: &str) -> String {
    let mut defs: Vec<String> =
        (0..n - 1).map(|i| format!(r#""d{i}":{}"#, link.replace("NEXT", &(i + 1).to_string()))).collect();
    defs.push(format!(r##""d{}":{{"type":"array","items":{{"$ref":"#/$defs/d0"}}}}"##, n - 1));
    format!(r##"{{"$ref":"#/$defs/d0","$defs":{{{}}}}}"##, defs.join(","))
}

#[test]
fn a_long_ref_cycle_on_a_deep_body_is_a_clear_error() {
    const NAME: &str = "a_long_ref_cycle_on_a_deep_body_is_a_clear_error";
    if !is_child(NAME) {
        assert!(in_child(NAME).contains("child done"));
        return;
    }
    // Issue 39, item 3 (a): default options, a 512-byte body 256 deep
    // (a crash before): now within the stack, validated.
    let s = compile(&ref_cycle(200));
    let body = nested(256, "");
    assert_eq!(body.len(), 512);
    assert!(valid(&s, &body));
    assert!(!valid(&s, &nested(256, "1")));
    // Ten times the cycle, each link a frame: past the stack, a clear error.
    let s = compile(&branch_cycle(2_000));
    assert!(!valid(&s, &body));
    let errs = s.validate_bytes(body.as_bytes()).unwrap();
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert!(errs[0].message.starts_with("instance nested too deep for this schema"), "{}", errs[0].message);
    assert!(valid(&s, &nested(8, "")));
    println!("child done");
}

#[test]
fn a_chain_of_40000_refs_compiles_and_validates() {
    const NAME: &str = "a_chain_of_40000_refs_compiles_and_validates";
    if !is_child(NAME) {
        assert!(in_child(NAME).contains("child done"));
        return;
    }
    // Issue 39, item 3 (b): 40,000 chained $defs.
    for link in [r##"{"$ref":"#/$defs/dNEXT"}"##, r##"{"allOf":[{"$ref":"#/$defs/dNEXT"}]}"##] {
        let n = 40_000;
        let mut defs: Vec<String> =
            (0..n - 1).map(|i| format!(r#""d{i}":{}"#, link.replace("NEXT", &(i + 1).to_string()))).collect();
        defs.push(format!(r#""d{}":{{"type":"integer"}}"#, n - 1));
        let schema = format!(r##"{{"$ref":"#/$defs/d0","$defs":{{{}}}}}"##, defs.join(","));
        let s = compile(&schema);
        assert!(!valid(&s, r#""x""#));
        assert!(valid(&s, "1"));
    }
    println!("child done");
}

#[test]
fn backtracking_is_bounded_per_validation() {
    // Issue 39, item 4: a backreference on every string of an array.
    // Distinct strings, 36 KB: 3.6 s of CPU before, most of it in the
    // crate's runs under assumed outcomes of the matches it could not
    // finish. Each needs more than backtrack_limit: the first one ends it.
    let pattern = r#"{"items":{"pattern":"^(a|aa)*\\1$"}}"#;
    let elements: Vec<String> = (0..1100).map(|i| format!("\"{}b{i}\"", "a".repeat(26))).collect();
    let body = format!("[{}]", elements.join(","));
    let s = compile(pattern);
    assert!(!s.is_valid_bytes(body.as_bytes()).unwrap());
    let errs = s.validate_bytes(body.as_bytes()).unwrap();
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert_eq!(errs[0].message, "pattern cannot be matched within backtrack_limit steps of backtracking");
    assert_eq!(errs[0].keyword_location, "/items/pattern");
    assert_eq!(errs[0].instance_location, "/0");
    // A backtrack_limit the budget cannot pay for: the budget ends it.
    let s = compile_with(pattern, SchemaOptions { backtrack_limit: 10_000_000, ..Default::default() });
    let errs = s.validate_bytes(body.as_bytes()).unwrap();
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert!(errs[0].message.contains("backtrack_budget (1000000 steps)"), "{}", errs[0].message);
    // One match past backtrack_limit is an error, never a guess: under
    // `not` a guessed "no match" would let the value through.
    let opts = SchemaOptions { backtrack_limit: 50, ..Default::default() };
    let n = compile_with(r#"{"not":{"pattern":"^(a|aa)*\\1$"}}"#, opts);
    let errs = n.validate_bytes(format!("\"{}b\"", "a".repeat(30)).as_bytes()).unwrap();
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert!(errs[0].message.contains("backtrack_limit"), "{}", errs[0].message);
    // Matches that finish validate as before, within the budget.
    let ok = compile(r#"{"items":{"pattern":"^(a+)b\\1$"}}"#);
    assert!(valid(&ok, r#"["aabaa","aba"]"#));
    assert!(!valid(&ok, r#"["aaba"]"#));
    let errs = ok.validate_bytes(br#"["aaba"]"#).unwrap();
    assert_eq!(errs[0].message, r#"value does not match "^(a+)b\1$""#);
    assert_eq!(errs[0].instance_location, "/0");
    // A budget of its own.
    let small = compile_with(
        r#"{"items":{"pattern":"^(a+)b\\1$"}}"#,
        SchemaOptions { backtrack_budget: 2500, ..Default::default() },
    );
    assert!(valid(&small, r#"["aabaa","aba"]"#));
    assert!(!valid(&small, r#"["aabaa","aba","aba"]"#));
}

#[test]
fn pattern_properties_run_the_linear_engine_only() {
    let e =
        Schema::compile(br#"{"patternProperties":{"^(a)\\1$":true}}"#, None, &SchemaOptions::default()).err().unwrap();
    assert!(e.to_string().contains("needs backtracking") || e.to_string().contains("linear-time"), "{e}");
    let s = compile(r#"{"patternProperties":{"^x-":{"type":"string"}},"additionalProperties":false}"#);
    assert!(valid(&s, r#"{"x-a":"b"}"#));
    assert!(!valid(&s, r#"{"x-a":1}"#));
    assert!(!valid(&s, r#"{"y":"b"}"#));
}

#[test]
fn the_drafts_meta_schemas_resolve_under_every_draft() {
    for draft in [0, 4, 6, 7, 2019, 2020] {
        let opts = SchemaOptions { draft, ..Default::default() };
        for uri in [
            "http://json-schema.org/draft-07/schema#",
            "http://json-schema.org/draft-04/schema#",
            "https://json-schema.org/draft/2020-12/schema",
        ] {
            let schema = format!(r#"{{"$ref":"{uri}"}}"#);
            let s = compile_with(&schema, opts);
            assert!(valid(&s, r#"{"type":"string"}"#), "{uri} under draft {draft}");
            assert!(!valid(&s, r#"{"type":12}"#), "{uri} under draft {draft}");
        }
    }
    let e =
        Schema::compile(br#"{"$ref":"https://example.com/s.json"}"#, None, &SchemaOptions::default()).err().unwrap();
    assert_eq!(
        e.to_string(),
        "invalid schema at /: https://example.com/s.json is not among the supplied documents (qjson never fetches)"
    );
}

/// `anyOf`s whose two branches lead to the same subschema, nested `n`
/// deep: each level doubles the work on a value that fails them all.
fn doubling_any_of(n: usize) -> String {
    let mut defs: Vec<String> = (0..n)
        .map(|i| format!(r##""l{i}":{{"anyOf":[{{"$ref":"#/$defs/l{}"}},{{"$ref":"#/$defs/l{}"}}]}}"##, i + 1, i + 1))
        .collect();
    defs.push(format!(r#""l{n}":{{"type":"integer"}}"#));
    format!(r##"{{"$ref":"#/$defs/l0","$defs":{{{}}}}}"##, defs.join(","))
}

/// Work that grows faster than the schema and the instance (each level
/// of these `anyOf`s doubles it) meets the validation's work budget: a
/// clear error located at the value, in bounded time, where 2^40 leaf
/// checks would never end; a small nesting still gives its verdict.
#[test]
fn work_that_doubles_per_level_meets_the_work_budget() {
    let small = compile(&doubling_any_of(8));
    assert!(!valid(&small, r#""x""#));
    assert!(valid(&small, "7"));
    let s = compile(&doubling_any_of(40));
    let start = std::time::Instant::now();
    assert!(!s.is_valid_bytes(br#""x""#).unwrap());
    let errors = s.validate_bytes(br#"{"a":["x"]}"#).unwrap();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].message.starts_with("validation needs more work than"), "{errors:?}");
    // (Generous: the budget is a million reads here; seconds would mean it did not stop.)
    assert!(start.elapsed() < std::time::Duration::from_secs(20), "{:?}", start.elapsed());
    // A valid value takes the first branch at every level.
    assert!(s.is_valid_bytes(b"7").unwrap());
}

/// `n` `$defs`, each `link` with `NEXT` the next one's number, the last
/// `{"properties":{"a":true}}`; the root refers to the first.
fn chain(n: usize, link: &str) -> String {
    let mut defs: Vec<String> =
        (0..n - 1).map(|i| format!(r#""d{i}":{}"#, link.replace("NEXT", &(i + 1).to_string()))).collect();
    defs.push(format!(r#""d{}":{{"properties":{{"a":true}}}}"#, n - 1));
    format!(r##"{{"$ref":"#/$defs/d0","$defs":{{{}}}}}"##, defs.join(","))
}

/// Links of chains through every applicator that stays on the same value
/// (and one that descends); the first three, and the last, hold an
/// `unevaluated*` keyword, for which the crate builds a tree of its own of
/// the subschemas it sees through: n²/2 for a chain, 2^n for the last.
const LINKS: [&str; 9] = [
    r##"{"$ref":"#/$defs/dNEXT","unevaluatedProperties":false}"##,
    r##"{"allOf":[{"$ref":"#/$defs/dNEXT"}],"unevaluatedItems":false}"##,
    r##"{"dependentSchemas":{"a":{"$ref":"#/$defs/dNEXT"}},"unevaluatedProperties":false}"##,
    r##"{"anyOf":[{"$ref":"#/$defs/dNEXT"},{"$ref":"#/$defs/dNEXT"}]}"##,
    r##"{"oneOf":[{"$ref":"#/$defs/dNEXT"},false]}"##,
    r##"{"not":{"not":{"$ref":"#/$defs/dNEXT"}}}"##,
    r##"{"if":{"$ref":"#/$defs/dNEXT"},"then":true,"else":{"$ref":"#/$defs/dNEXT"}}"##,
    r##"{"properties":{"a":{"$ref":"#/$defs/dNEXT"}},"additionalProperties":{"$ref":"#/$defs/dNEXT"}}"##,
    r##"{"anyOf":[{"$ref":"#/$defs/dNEXT"},{"$ref":"#/$defs/dNEXT"}],"unevaluatedProperties":false}"##,
];

/// Compiles `schema`: a validator, whose quick and full verdicts must
/// agree on a few bodies, or the unevaluated keywords' bound's error
/// (`None`).
fn compiled_or_refused(schema: &str) -> Option<Schema> {
    match Schema::compile(schema.as_bytes(), None, &SchemaOptions::default()) {
        Ok(s) => {
            for body in [r#"{"a":1,"b":2}"#, r#""x""#, "[1,2]", r#"{"a":{"a":{"a":1}}}"#] {
                let quick = s.is_valid_bytes(body.as_bytes()).unwrap();
                let errors = s.validate_bytes(body.as_bytes()).unwrap();
                assert_eq!(quick, errors.is_empty(), "{} on {body}: {errors:?}", &schema[..80]);
            }
            Some(s)
        }
        Err(e) => {
            let e = e.to_string();
            assert!(e.contains("more than 25000 subschemas to build"), "{e}");
            None
        }
    }
}

/// Chains of 5,000 links through every in-place applicator, with
/// `unevaluated*` beside them: each compiles on a stack sized from its
/// subschemas and validates within its bounds, or, when its unevaluated
/// keywords would make the crate build more than
/// `SCHEMA_MAX_UNEVALUATED_COST` subschemas (n²/2 of them along a chain,
/// 2^n through `anyOf`s of two links), is refused at compile with a
/// clear error, in a child limited to 1 GB and 60 s of CPU.
#[test]
fn chains_through_every_applicator_stay_within_their_stacks() {
    const NAME: &str = "chains_through_every_applicator_stay_within_their_stacks";
    if !is_child(NAME) {
        assert!(in_child_within(NAME, Some((1 << 20, 60))).contains("child done"));
        return;
    }
    for (i, link) in LINKS.iter().enumerate() {
        let holds_unevaluated = link.contains("unevaluated");
        let n = if i == 8 { 40 } else { 5_000 };
        let start = std::time::Instant::now();
        let s = compiled_or_refused(&chain(n, link));
        assert_eq!(s.is_none(), holds_unevaluated, "{link}");
        println!("{n} links of {link}: {:?}", start.elapsed());
    }
    // Where the budget ran out: the keyword, located.
    let e = Schema::compile(chain(5_000, LINKS[0]).as_bytes(), None, &SchemaOptions::default()).err().unwrap();
    assert!(e.to_string().starts_with("invalid schema at /$defs/d"), "{e}");
    assert!(e.to_string().contains("/unevaluatedProperties: with the unevaluated keywords before it"), "{e}");
    // Shorter chains, within the bound, compile and validate.
    for (link, n) in [(LINKS[0], 150), (LINKS[1], 80), (LINKS[2], 100), (LINKS[8], 4)] {
        let s = compiled_or_refused(&chain(n, link)).unwrap_or_else(|| panic!("{n} links of {link} refused"));
        let verdict = |body: &str| s.is_valid_bytes(body.as_bytes()).unwrap();
        assert!(verdict(r#"{"a":1}"#), "{link}");
        assert_eq!(verdict(r#"{"a":1,"b":2}"#), !link.contains("unevaluatedProperties"), "{link}");
    }
    // Accepted, the `anyOf`s of two links still double the validation's
    // work per link: the work budget ends it.
    let s = compiled_or_refused(&chain(10, LINKS[8])).unwrap();
    let errors = s.validate_bytes(br#"{"a":1}"#).unwrap();
    assert!(errors[0].message.starts_with("validation needs more work than"), "{errors:?}");
    println!("child done");
}
