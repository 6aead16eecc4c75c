//! The measurement behind crates/core/src/schema/'s design (docs/design.md): the
//! `jsonschema` crate validating qjson's tape in place, against the same
//! crate on a `serde_json::Value` built per validation (what any bridge
//! from the tape to a `Value` costs at least: the same tree allocations).
//! Ignored by default; run with
//! `cargo test --release --test schema_eval -- --ignored --nocapture`.

use std::time::Instant;

use qjson_core::schema::{Schema, SchemaOptions};

const REQUEST_SCHEMA: &str = r#"{"type":"object",
 "required":["id","name","email","price","active","tags","address","status","sku","quantity"],
 "additionalProperties":false,
 "properties":{"id":{"type":"integer","minimum":1},"name":{"type":"string","minLength":1,"maxLength":64},
  "email":{"type":"string","maxLength":128},"price":{"type":"number","minimum":0},"active":{"type":"boolean"},
  "tags":{"type":"array","items":{"type":"string"},"maxItems":10},
  "address":{"type":"object","required":["city","zip"],"additionalProperties":false,
   "properties":{"city":{"type":"string"},"zip":{"type":"string","pattern":"^[0-9]{5}$"}}},
  "status":{"enum":["new","paid","shipped"]},"sku":{"type":"string","pattern":"^[A-Z]{3}-[0-9]{4}$"},
  "quantity":{"type":"integer","minimum":1,"maximum":100}}}"#;

const REQUEST: &str = r#"{"id":12345,"name":"Wireless Ergonomic Mouse, graphite","email":"buyer.name@example.com","price":24.99,"active":true,"tags":["electronics","accessories","sale","gift"],"address":{"city":"Springfield","zip":"12345"},"status":"paid","sku":"ABC-1234","quantity":2}"#;

const CHAT_SCHEMA: &str = r#"{"type":"object","required":["model","messages"],
 "properties":{"model":{"type":"string"},"temperature":{"type":"number","minimum":0,"maximum":2},
  "max_tokens":{"type":"integer","minimum":1},"stream":{"type":"boolean"},
  "messages":{"type":"array","minItems":1,"items":{"type":"object","required":["role","content"],
   "properties":{"role":{"enum":["system","user","assistant","tool"]},
    "content":{"anyOf":[{"type":"string","maxLength":100000},{"type":"array","items":{"type":"object",
     "required":["type"],"properties":{"type":{"enum":["text","image_url"]},"text":{"type":"string","maxLength":100000},
     "image_url":{"type":"object","required":["url"],"properties":{"url":{"type":"string"}}}}}}]}}}}}}"#;

/// A chat-completions request of about `size` bytes: one message with
/// text and a base64 image per MB (as bench/workloads.lua's).
fn chat(size: usize) -> String {
    let n = (size / (1 << 20)).max(1);
    let text = "Describe this picture, please: what is in the foreground? ".repeat(6);
    let each = size / n - 200 - text.len();
    let b64: String = (0..each)
        .map(|i| b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"[i * 7 % 64] as char)
        .collect();
    let msgs: Vec<String> = (0..n)
        .map(|_| {
            format!(
                r#"{{"role":"user","content":[{{"type":"text","text":"{text}"}},{{"type":"image_url","image_url":{{"url":"data:image/png;base64,{b64}"}}}}]}}"#
            )
        })
        .collect();
    format!(
        r#"{{"model":"gpt-4o","temperature":0.7,"max_tokens":1024,"stream":false,"messages":[{}]}}"#,
        msgs.join(",")
    )
}

fn per_call(mut f: impl FnMut() -> bool, iters: usize) -> f64 {
    assert!(f());
    let t = Instant::now();
    for _ in 0..iters {
        std::hint::black_box(f());
    }
    t.elapsed().as_secs_f64() / iters as f64
}

#[test]
#[ignore]
fn tape_against_serde_value() {
    for (name, schema, body, iters) in
        [("request", REQUEST_SCHEMA, REQUEST.to_string(), 200_000), ("chat 1 MB", CHAT_SCHEMA, chat(1 << 20), 300)]
    {
        let tape = Schema::compile(schema.as_bytes(), None, &SchemaOptions::default()).unwrap();
        let value = jsonschema::validator_for(&serde_json::from_str(schema).unwrap()).unwrap();
        let mut rounds = Vec::new();
        for _ in 0..5 {
            let t = per_call(|| tape.is_valid_bytes(body.as_bytes()).unwrap(), iters);
            let v = per_call(
                || value.is_valid(&serde_json::from_slice::<serde_json::Value>(body.as_bytes()).unwrap()),
                iters,
            );
            rounds.push((t, v));
        }
        rounds.sort_by(|a, b| a.0.total_cmp(&b.0));
        let (t, v) = rounds[2];
        println!(
            "{name} ({} bytes): qjson tape parse+validate {:.2} us; serde_json Value parse+validate {:.2} us; ratio {:.2}x",
            body.len(),
            t * 1e6,
            v * 1e6,
            v / t
        );
    }
}

#[test]
#[ignore]
fn invalid_body_breakdown() {
    let tape = Schema::compile(REQUEST_SCHEMA.as_bytes(), None, &SchemaOptions::default()).unwrap();
    let bad = REQUEST.replace(r#""status":"paid""#, r#""status":"lost""#);
    let first = SchemaOptions { max_errors: 1, ..SchemaOptions::default() };
    let tape1 = Schema::compile(REQUEST_SCHEMA.as_bytes(), None, &first).unwrap();
    for _ in 0..3 {
        let v = per_call(|| !tape.is_valid_bytes(bad.as_bytes()).unwrap(), 100_000);
        let all = per_call(|| tape.validate_bytes(bad.as_bytes()).unwrap().len() == 1, 100_000);
        let one = per_call(|| tape1.validate_bytes(bad.as_bytes()).unwrap().len() == 1, 100_000);
        println!(
            "invalid enum: is_valid {:.2} us, validate {:.2} us, validate max_errors=1 {:.2} us",
            v * 1e6,
            all * 1e6,
            one * 1e6
        );
    }
}
