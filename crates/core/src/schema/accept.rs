//! A schema's acceptance test: for a schema that uses only keywords whose
//! meaning is plain (`type`, `enum`/`const` of scalars, the numeric and
//! length bounds, `pattern` on the linear engine, `properties`,
//! `required`, `additionalProperties`, a single-schema `items`, the
//! count bounds, annotations), a tree of qjson's own that reads the tape
//! directly. Each check is the crate's (the same numeric keywords, the
//! same equality, the same regex) or stricter, so an instance it accepts
//! is one the crate accepts; an instance it does not accept goes to the
//! crate, which finds the errors. It can only change speed, never a
//! result. Any other keyword, option or draft quirk leaves a schema to the
//! crate alone.

use serde_json::{Map, Value};

use super::node::TapeNode;
use super::numeric::Numeric;
use super::{equal, pattern};
use crate::string;

/// What a schema's acceptance test needs from its compile options.
pub(crate) struct Context {
    /// `format` asserts (the tree leaves such a schema to the crate).
    pub(crate) formats: bool,
    /// Draft 4, where a boolean is not a schema.
    pub(crate) draft4: bool,
    pub(crate) limits: pattern::Limits,
}

/// Annotation keywords: no effect on validity (`nullable` is already in
/// `type` and `enum` under the OpenAPI dialect, and an unknown keyword to
/// the crate otherwise).
const ANNOTATIONS: [&str; 11] = [
    "title",
    "description",
    "example",
    "examples",
    "default",
    "readOnly",
    "writeOnly",
    "deprecated",
    "$comment",
    "nullable",
    "$schema",
];

/// The drafts' own meta-schemas: a root `$schema` naming another leaves
/// the schema to the crate (its vocabularies decide what runs).
const DRAFT_URIS: [&str; 5] = [
    "http://json-schema.org/draft-04/schema",
    "http://json-schema.org/draft-06/schema",
    "http://json-schema.org/draft-07/schema",
    "https://json-schema.org/draft/2019-09/schema",
    "https://json-schema.org/draft/2020-12/schema",
];

const NULL: u8 = 1;
const BOOLEAN: u8 = 2;
const OBJECT: u8 = 4;
const ARRAY: u8 = 8;
const NUMBER: u8 = 16;
/// A number whose value is whole (`type: integer`).
const INTEGER: u8 = 32;
const STRING: u8 = 64;
const ANY: u8 = 127;

/// One schema's checks.
pub(crate) struct Accept {
    /// Kinds of value allowed (`INTEGER` alone: whole numbers only).
    types: u8,
    /// Each list must hold the instance (`enum`, and `const` as a list of one).
    equal_to: Vec<Vec<Value>>,
    numeric: Vec<Numeric>,
    /// Code points, inclusive.
    length: Option<(u64, u64)>,
    pattern: Option<regex::Regex>,
    /// Elements, inclusive.
    elements: (u64, u64),
    /// Members (distinct keys), inclusive.
    members: (u64, u64),
    items: Option<Box<Accept>>,
    properties: Vec<(Box<[u8]>, Accept)>,
    /// Indices into `properties` (below 64) and names not among them.
    required: u64,
    required_elsewhere: Vec<Box<[u8]>>,
    /// `None`: any value.
    additional: Option<Box<Accept>>,
}

impl Accept {
    fn anything() -> Accept {
        Accept {
            types: ANY,
            equal_to: Vec::new(),
            numeric: Vec::new(),
            length: None,
            pattern: None,
            elements: (0, u64::MAX),
            members: (0, u64::MAX),
            items: None,
            properties: Vec::new(),
            required: 0,
            required_elsewhere: Vec::new(),
            additional: None,
        }
    }

    /// The boolean schema `b`.
    fn boolean(b: bool) -> Accept {
        Accept { types: if b { ANY } else { 0 }, ..Accept::anything() }
    }

    /// The tree of `schema`, or `None` when a keyword in it (or in what it
    /// reaches) is outside the subset.
    pub(crate) fn compile(schema: &Value, cx: &Context) -> Option<Accept> {
        Self::of(schema, cx, true)
    }

    fn of(schema: &Value, cx: &Context, root: bool) -> Option<Accept> {
        match schema {
            Value::Bool(b) if !cx.draft4 => Some(Accept::boolean(*b)),
            Value::Object(map) => Self::of_object(map, cx, root),
            _ => None,
        }
    }

    fn of_object(map: &Map<String, Value>, cx: &Context, root: bool) -> Option<Accept> {
        let mut a = Accept::anything();
        let mut required = Vec::new();
        for (key, value) in map {
            match key.as_str() {
                "type" => a.types = types(value)?,
                "enum" => a.equal_to.push(scalars(value)?),
                "const" if is_scalar(value) => a.equal_to.push(vec![value.clone()]),
                "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" | "multipleOf" => {
                    a.numeric.push(Numeric::new(key, map, value).ok()?)
                }
                "minLength" => a.length = Some((value.as_u64()?, a.length.map_or(u64::MAX, |l| l.1))),
                "maxLength" => a.length = Some((a.length.map_or(0, |l| l.0), value.as_u64()?)),
                "pattern" => {
                    let translated = jsonschema_regex::to_rust_regex(value.as_str()?).ok()?;
                    a.pattern = Some(cx.limits.regex(&translated)?);
                }
                "minItems" => a.elements.0 = value.as_u64()?,
                "maxItems" => a.elements.1 = value.as_u64()?,
                "minProperties" => a.members.0 = value.as_u64()?,
                "maxProperties" => a.members.1 = value.as_u64()?,
                "items" => a.items = Some(Box::new(Self::of(value, cx, false)?)),
                "properties" => {
                    for (name, s) in value.as_object()? {
                        a.properties.push((name.as_bytes().into(), Self::of(s, cx, false)?));
                    }
                }
                "required" => {
                    for name in value.as_array()? {
                        required.push(name.as_str()?.as_bytes());
                    }
                }
                "additionalProperties" => {
                    // (A boolean here is the keyword's own form in every draft.)
                    a.additional = Some(Box::new(match value {
                        Value::Bool(b) => Accept::boolean(*b),
                        other => Self::of(other, cx, false)?,
                    }))
                }
                "format" if !cx.formats => {}
                "$schema" if !root || !DRAFT_URIS.contains(&value.as_str()?.trim_end_matches('#')) => return None,
                k if ANNOTATIONS.contains(&k) => {}
                _ => return None,
            }
        }
        for name in required {
            match a.properties.iter().position(|p| *p.0 == *name) {
                Some(i) if i < 64 => a.required |= 1 << i,
                _ => a.required_elsewhere.push(name.into()),
            }
        }
        Some(a)
    }

    /// Whether `node` is valid by these checks (false: perhaps not).
    /// Recursion follows the schema tree, which serde_json read 128
    /// levels deep at most.
    pub(crate) fn accepts(&self, node: TapeNode<'_>) -> bool {
        let first = node.first();
        let kind = match first {
            b'"' => STRING,
            b'{' => OBJECT,
            b'[' => ARRAY,
            b't' | b'f' => BOOLEAN,
            b'n' => NULL,
            _ => NUMBER,
        };
        if self.types & kind == 0 && !(kind == NUMBER && self.types & INTEGER != 0 && is_whole(node.number_text())) {
            return false;
        }
        if kind == STRING {
            return self.accepts_string(node);
        }
        if !self.equal_to.iter().all(|list| list.iter().any(|v| equal::to_value(node, v))) {
            return false;
        }
        match kind {
            NUMBER => {
                let text = node.number_text();
                self.numeric.iter().all(|n| n.admits(text))
            }
            ARRAY => {
                let n = node.count_of() as u64;
                (self.elements.0..=self.elements.1).contains(&n)
                    && self.items.as_ref().is_none_or(|items| node.elements_of().all(|e| items.accepts(e)))
            }
            OBJECT => self.accepts_object(node),
            _ => true,
        }
    }

    /// A string's checks, on its text decoded once.
    fn accepts_string(&self, node: TapeNode<'_>) -> bool {
        if self.equal_to.is_empty() && self.length.is_none() && self.pattern.is_none() {
            return true;
        }
        let text = node.text();
        let equal = |v: &Value| matches!(v, Value::String(s) if *s == *text);
        self.equal_to.iter().all(|list| list.iter().any(equal))
            && self.length.is_none_or(|(min, max)| (min..=max).contains(&(text.chars().count() as u64)))
            && self.pattern.as_ref().is_none_or(|p| p.is_match(&text))
    }

    /// Every member, a repeated key's every value included (so also the
    /// last, the one the crate reads).
    fn accepts_object(&self, node: TapeNode<'_>) -> bool {
        let (min, max) = self.members;
        let n = node.count_of() as u64;
        // The count is of distinct keys: a repeated key may count less.
        if n > max || n < min || (min > 1 && node.keys_repeat()) {
            return false;
        }
        let mut seen = 0u64;
        let end = node.members_end();
        let mut k = node.first_member();
        while k < end {
            let key = node.at(k);
            let value = node.at(k + 1);
            let body = &key.input()[key.offset() + 1..];
            let end = body.iter().position(|&c| c == b'"' || c == b'\\').expect("strict parse: keys are terminated");
            let found = if body[end] == b'"' {
                let raw = &body[..end];
                self.properties.iter().position(|(name, _)| **name == *raw)
            } else {
                self.properties.iter().position(|(name, _)| string::key_eq(body, name))
            };
            let schema = match found {
                Some(i) => {
                    seen |= 1u64.checked_shl(i as u32).unwrap_or(0);
                    Some(&self.properties[i].1)
                }
                None => self.additional.as_deref(),
            };
            if schema.is_some_and(|s| !s.accepts(value)) {
                return false;
            }
            k = value.skip();
        }
        seen & self.required == self.required && self.required_elsewhere.iter().all(|name| has_key(node, name))
    }
}

/// The kinds `type` names (a name or a list of them).
fn types(value: &Value) -> Option<u8> {
    let one = |v: &Value| {
        Some(match v.as_str()? {
            "null" => NULL,
            "boolean" => BOOLEAN,
            "object" => OBJECT,
            "array" => ARRAY,
            "number" => NUMBER,
            "integer" => INTEGER,
            "string" => STRING,
            _ => return None,
        })
    };
    match value {
        Value::Array(names) => names.iter().try_fold(0, |t, v| Some(t | one(v)?)),
        v => one(v),
    }
}

fn is_scalar(v: &Value) -> bool {
    !matches!(v, Value::Array(_) | Value::Object(_))
}

/// An `enum` of scalars.
fn scalars(value: &Value) -> Option<Vec<Value>> {
    let list = value.as_array()?;
    list.iter().all(is_scalar).then(|| list.clone())
}

/// Whether a number is written as an integer (`type: integer`: the crate
/// also takes `1.0` and `1e2`, but for draft 4; those go to it).
fn is_whole(text: &[u8]) -> bool {
    !text.iter().any(|c| matches!(c, b'.' | b'e' | b'E'))
}

/// Whether the object `node` has the key `name`.
fn has_key(node: TapeNode<'_>, name: &[u8]) -> bool {
    let end = node.members_end();
    let mut k = node.first_member();
    while k < end {
        let key = node.at(k);
        if string::key_eq(&key.input()[key.offset() + 1..], name) {
            return true;
        }
        k = node.at(k + 1).skip();
    }
    false
}

/// The acceptance test against the crate: whatever it accepts, the crate
/// must (the other way it may be stricter, which only costs speed).
#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use proptest::prelude::*;
    use serde_json::{json, Value};

    use crate::schema::{report, Schema, SchemaOptions};
    use crate::{Document, Options, ROOT};

    /// (accepted by the test, valid by the crate) for `instance`.
    fn both(schema: &Schema, instance: &[u8]) -> (bool, bool) {
        Document::parse_then(instance, &Options::default(), |doc| {
            (
                report::accepted(schema, doc.input(), doc.tape(), ROOT),
                report::crate_is_valid(schema, doc.input(), doc.tape(), ROOT),
            )
        })
        .expect("instance parses")
    }

    fn schema(v: &Value, opts: &SchemaOptions) -> Schema {
        let s = Schema::compile(v.to_string().as_bytes(), None, opts).expect("schema compiles");
        assert!(s.accept.is_some(), "in the subset: {v}");
        s
    }

    /// The founding OpenAPI scenario's schemas (bench/openapi), under the
    /// OpenAPI dialect as the spec compiler gives them.
    fn founding() -> Vec<Schema> {
        let opts = SchemaOptions { openapi: 1, ..SchemaOptions::default() };
        let body = json!({"type": "object", "required": ["name", "email"], "properties": {
            "name": {"type": "string", "minLength": 1, "maxLength": 100},
            "email": {"type": "string", "format": "email"},
            "age": {"type": "integer", "minimum": 0, "maximum": 150},
            "role": {"type": "string", "enum": ["admin", "user", "guest"]},
            "active": {"type": "boolean"},
            "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 10},
            "address": {"type": "object", "properties": {"street": {"type": "string"}, "city": {"type": "string"},
                "zip": {"type": "string", "pattern": "^[0-9]{5}$"}}},
            "metadata": {"type": "object", "additionalProperties": {"type": "string"}},
            "score": {"type": "number", "minimum": 0, "maximum": 100},
            "notes": {"type": "string", "maxLength": 1000}}});
        let others = [
            body,
            json!({"type": "integer", "minimum": 1}),
            json!({"type": "integer", "minimum": 1, "maximum": 100}),
            json!({"type": "string", "minLength": 1}),
            json!({"type": "number", "exclusiveMinimum": true, "minimum": 0, "multipleOf": 0.5, "nullable": true}),
            json!({"type": ["array", "object"], "items": {"enum": [1, "a", null, true]}, "minItems": 1,
                "maxItems": 3, "minProperties": 2, "maxProperties": 3, "additionalProperties": false,
                "properties": {"a": {"const": 1.0}, "b": {"type": "string", "pattern": "^(ab)+$"}, "c": {}}}),
        ];
        others.iter().map(|v| schema(v, &opts)).collect()
    }

    /// JSON text of values shaped like the schemas' instances.
    fn instance() -> impl Strategy<Value = String> {
        let scalar = prop_oneof![
            Just("null".to_owned()),
            Just("true".to_owned()),
            Just("false".to_owned()),
            prop::sample::select(vec![
                "0",
                "1",
                "-1",
                "30",
                "150",
                "151",
                "95.5",
                "100",
                "100.0",
                "1e2",
                "1.5",
                "0.5",
                "-0",
                "2E0",
                "1e400",
                "1e-400",
                "123456789012345678901234567890"
            ])
            .prop_map(str::to_owned),
            prop::sample::select(vec![
                "", "a", "ab", "abab", "aba", "admin", "user", "root", "94105", "9410x", "Ã©", "\\u00e9", "a\\\"b",
                "\\u0061"
            ])
            .prop_map(|s| format!("\"{s}\"")),
        ];
        let keys = prop::sample::select(vec![
            "name",
            "email",
            "age",
            "role",
            "active",
            "tags",
            "address",
            "metadata",
            "score",
            "notes",
            "zip",
            "city",
            "a",
            "b",
            "c",
            "n\\u0061me",
            "x",
        ]);
        scalar.prop_recursive(4, 48, 8, move |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(|v| format!("[{}]", v.join(","))),
                prop::collection::vec((keys.clone(), inner), 0..12).prop_map(|m| {
                    let members: Vec<String> = m.iter().map(|(k, v)| format!("\"{k}\":{v}")).collect();
                    format!("{{{}}}", members.join(","))
                }),
            ]
        })
    }

    thread_local! {
        /// `founding()` compiled once for all the cases below.
        static FOUNDING: Vec<Schema> = founding();
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]
        #[test]
        fn accepts_only_what_the_crate_accepts(text in instance()) {
            FOUNDING.with(|schemas| {
                for s in schemas {
                    let (fast, valid) = both(s, text.as_bytes());
                    prop_assert!(!fast || valid, "accepted, the crate refuses: {}", text);
                }
                Ok(())
            })?;
        }
    }

    /// The founding request's body takes the test, and each of its
    /// invalid kinds goes to the crate.
    #[test]
    fn founding_body() {
        let body = founding().swap_remove(0);
        let valid = br#"{"name":"Alice Johnson","email":"alice@example.com","age":30,"role":"admin","active":true,"tags":["vip","enterprise"],"address":{"street":"123 Main St","city":"San Francisco","zip":"94105"},"metadata":{"department":"Engineering","level":"senior"},"score":95.5,"notes":"Premium customer with extended support plan."}"#;
        assert_eq!(both(&body, valid), (true, true));
        let text = std::str::from_utf8(valid).unwrap();
        for (from, to) in [
            ("30", "\"30\""),
            ("\"admin\"", "\"root\""),
            ("94105", "9410x"),
            ("\"email\":\"alice@example.com\",", ""),
            ("\"senior\"", "3"),
            ("95.5", "100.5"),
        ] {
            let bad = text.replacen(from, to, 1);
            assert_eq!(both(&body, bad.as_bytes()), (false, false), "{bad}");
        }
    }

    /// Outside the subset: the crate alone.
    #[test]
    fn ineligible() {
        for v in [
            json!({"anyOf": [{"type": "string"}]}),
            json!({"$ref": "#/definitions/a", "definitions": {"a": {}}}),
            json!({"items": [{"type": "string"}]}),
            json!({"enum": [[1]]}),
            json!({"properties": {"a": {"uniqueItems": true}}}),
            json!({"$schema": "http://localhost:1234/meta.json"}),
        ] {
            let s = Schema::compile(v.to_string().as_bytes(), None, &SchemaOptions { draft: 7, ..Default::default() });
            match s {
                Ok(s) => assert!(s.accept.is_none(), "{v}"),
                Err(e) => panic!("{v}: {e}"),
            }
        }
        let formats = SchemaOptions { formats: 1, ..SchemaOptions::default() };
        assert!(Schema::compile(br#"{"format": "email"}"#, None, &formats).unwrap().accept.is_none());
    }

    /// Deep, long and big instances: the same depth bound as the crate,
    /// and answers (the errors come from the crate, unchanged).
    #[test]
    fn hostile() {
        let s = schema(&json!({"type": "array", "items": {"type": "array"}}), &SchemaOptions::default());
        let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        let max = SchemaOptions::default().max_depth();
        assert_eq!(both(&s, deep(max).as_bytes()), (true, true));
        assert_eq!(both(&s, deep(max + 1).as_bytes()), (false, false));
        let errors = s.validate_bytes(deep(max + 1).as_bytes()).unwrap();
        assert!(errors[0].message.contains("deeper than the schema's max_depth"), "{errors:?}");

        let s = schema(&json!({"type": "string", "maxLength": 1000000, "pattern": "^a*$"}), &SchemaOptions::default());
        let long = format!("\"{}\"", "a".repeat(1_000_000));
        assert_eq!(both(&s, long.as_bytes()), (true, true));
        let over = format!("\"{}\"", "a".repeat(1_000_001));
        assert_eq!(both(&s, over.as_bytes()), (false, false));

        let s = schema(
            &json!({"items": {"type": "integer", "maximum": 5}, "maxItems": 1000000}),
            &SchemaOptions::default(),
        );
        let big = format!("[{}]", vec!["5"; 1_000_000].join(","));
        assert_eq!(both(&s, big.as_bytes()), (true, true));
        let s = schema(&json!({"additionalProperties": {"type": "integer"}}), &SchemaOptions::default());
        let members: Vec<String> = (0..200_000).map(|i| format!("\"k{i}\":{i}")).collect();
        assert_eq!(both(&s, format!("{{{}}}", members.join(",")).as_bytes()), (true, true));
    }

    /// Every test of the JSON-Schema-Test-Suite whose schema is in the
    /// subset: the test accepts only what the crate accepts. Prints how
    /// many schemas and tests are in the subset.
    #[test]
    fn json_schema_test_suite() {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
        let suite = root.join("../shared/data/JSON-Schema-Test-Suite/tests");
        if !suite.is_dir() {
            assert!(!root.join("../shared").is_dir(), "{} is missing", suite.display());
            eprintln!("SKIPPED: ../shared is absent");
            return;
        }
        let (mut schemas, mut eligible, mut tests, mut eligible_tests, mut accepted, mut valid) = (0, 0, 0, 0, 0, 0);
        for (dir, draft) in
            [("draft4", 4), ("draft6", 6), ("draft7", 7), ("draft2019-09", 2019), ("draft2020-12", 2020)]
        {
            let mut files: Vec<PathBuf> =
                std::fs::read_dir(suite.join(dir)).unwrap().map(|e| e.unwrap().path()).collect();
            files.retain(|p| p.extension().is_some_and(|e| e == "json"));
            files.sort();
            for file in files {
                let groups: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
                for group in groups.as_array().unwrap() {
                    schemas += 1;
                    let cases = group["tests"].as_array().unwrap();
                    tests += cases.len();
                    let opts = SchemaOptions { draft, ..SchemaOptions::default() };
                    let Ok(s) = Schema::compile(group["schema"].to_string().as_bytes(), None, &opts) else { continue };
                    if s.accept.is_none() {
                        continue;
                    }
                    eligible += 1;
                    for case in cases {
                        eligible_tests += 1;
                        let (fast, valid_by_crate) = both(&s, case["data"].to_string().as_bytes());
                        assert!(
                            !fast || valid_by_crate,
                            "{}: {}: {}",
                            file.display(),
                            group["description"],
                            case["description"]
                        );
                        accepted += usize::from(fast);
                        valid += usize::from(valid_by_crate);
                    }
                }
            }
        }
        println!("JSON-Schema-Test-Suite: {eligible}/{schemas} schemas ({eligible_tests}/{tests} tests) in the acceptance test's subset; it accepted {accepted} of the {valid} valid ones");
        assert!(eligible > 100 && accepted > 100);
    }
}
