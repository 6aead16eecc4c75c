//! JSON Schema validation on qjson's tape against the same validator on
//! serde_json values: for any schema both compile and any instance both
//! parse, `Schema::is_valid` (the document's tape walked in place) and
//! `Schema::validate_bytes` give the verdict the `jsonschema` crate gives
//! on a `serde_json::Value`, so a gateway's check is never skipped nor
//! made up by the way qjson presents the instance.
#![no_main]

use jsonschema::PatternOptions;
use libfuzzer_sys::fuzz_target;
use qjson_core::schema::{Schema, SchemaOptions, SCHEMA_DEFAULT_BACKTRACK_LIMIT, SCHEMA_DEFAULT_REGEX_SIZE_LIMIT};
use qjson_core::{Document, Options, ROOT};
use serde_json::Value;

mod common;

/// Nesting of a value (a scalar is 1).
fn depth(v: &Value) -> usize {
    match v {
        Value::Array(a) => 1 + a.iter().map(depth).max().unwrap_or(0),
        Value::Object(o) => 1 + o.values().map(depth).max().unwrap_or(0),
        _ => 1,
    }
}

/// Whether a number of the value is one whose text decides draft 4's
/// `integer` (no fraction, no exponent) and serde_json's float does not
/// keep: -0 (an integer to qjson, a float to serde_json), and a float of
/// 2^63 or more (`1e300` is not an integer to qjson; the crate counts
/// every such float as one, since it cannot tell it from an integer
/// literal). docs/design.md says so.
fn has_unwritten_integer(v: &Value) -> bool {
    match v {
        Value::Number(n) => {
            n.is_f64()
                && n.as_f64().is_some_and(|f| (f == 0.0 && f.is_sign_negative()) || f.abs() >= 9.223372036854775808e18)
        }
        Value::Array(a) => a.iter().any(has_unwritten_integer),
        Value::Object(o) => o.values().any(has_unwritten_integer),
        _ => false,
    }
}

/// Whether every number of the value is one the reference's doubles tell
/// apart from every other: at most 15 significant digits, a magnitude
/// well within binary64. qjson compares the decimals written
/// (src/schema/decimal.rs), the crate without its `arbitrary-precision`
/// feature compares doubles: they differ on `1e-400` against `0`.
fn doubles_suffice(v: &Value) -> bool {
    match v {
        Value::Number(n) => {
            let t = n.as_str();
            let (mantissa, exp) = t.split_once(['e', 'E']).unwrap_or((t, "0"));
            let digits = mantissa.trim_start_matches(['-', '0', '.']).replace('.', "");
            let digits = digits.trim_end_matches('0');
            digits.len() <= 15 && exp.parse::<i32>().is_ok_and(|e| e.abs() < 250) && mantissa.len() < 250
        }
        Value::Array(a) => a.iter().all(doubles_suffice),
        Value::Object(o) => o.values().all(doubles_suffice),
        _ => true,
    }
}

fuzz_target!(|data: &[u8]| {
    // The first byte: whether formats are checked, and where the schema
    // ends and the instance begins.
    let Some((&ctl, rest)) = data.split_first() else { return };
    let cut = (ctl as usize >> 1) * rest.len() / 128;
    let (schema_text, instance) = rest.split_at(cut.min(rest.len()));
    let formats = ctl & 1 != 0;
    let Ok(schema) = serde_json::from_slice::<Value>(schema_text) else { return };
    let Ok(value) = serde_json::from_slice::<Value>(instance) else { return };
    let Ok(doc) = Document::parse(instance, &Options::default()) else {
        panic!("serde_json accepts what qjson's strict parse rejects");
    };
    if depth(&value) > 200 || has_unwritten_integer(&value) || !doubles_suffice(&value) || !doubles_suffice(&schema) {
        // (qjson's max_depth, which the reference does not have; and the
        // numbers whose text serde_json does not keep)
        return;
    }

    let opts = SchemaOptions { formats: u32::from(formats), ..Default::default() };
    // The crate panics on some schemas (which qjson refuses, see
    // `schema::compile`): the reference then has no verdict to compare.
    common::printing_panics();
    let reference = std::panic::catch_unwind(|| {
        jsonschema::options()
            .with_pattern_options(
                PatternOptions::fancy_regex()
                    .backtrack_limit(SCHEMA_DEFAULT_BACKTRACK_LIMIT as usize)
                    .size_limit(SCHEMA_DEFAULT_REGEX_SIZE_LIMIT as usize)
                    .dfa_size_limit(SCHEMA_DEFAULT_REGEX_SIZE_LIMIT as usize),
            )
            .should_validate_formats(formats)
            .build(&schema)
    });
    let ours = Schema::compile(schema_text, None, &opts);
    let (Ok(Ok(reference)), Ok(ours)) = (reference, ours) else { return };

    let errors = ours.validate_bytes(instance).unwrap();
    if errors.iter().any(|e| e.message.contains("backtrack_") || e.message.starts_with("instance nested too deep")) {
        // A bound of qjson's stopped the validation (an error, which the
        // reference, unbounded, has no counterpart of).
        return;
    }
    let want = reference.is_valid(&value);
    let got = ours.is_valid(&doc, ROOT).unwrap();
    assert_eq!(got, want, "verdict on the tape differs from serde_json's");
    assert_eq!(ours.is_valid_bytes(instance).unwrap(), got, "verdict from the bytes differs");
    assert_eq!(ours.validate_bytes(instance).unwrap().is_empty(), got, "errors and verdict disagree");
});
