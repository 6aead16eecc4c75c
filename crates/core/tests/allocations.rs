//! A parse makes at most two native allocations (the document and its
//! tape) once the thread's scratch buffers are warm, and reads of strings
//! without escapes, numbers and paths allocate nothing.

use qjson_core::{Document, Options, ROOT};
use std::cell::Cell;

mod common;
use common::{Counting, ALLOCATIONS};

#[global_allocator]
static GLOBAL: Counting = Counting;

fn count<R>(f: impl FnOnce() -> R) -> (R, usize) {
    let before = ALLOCATIONS.with(Cell::get);
    let r = f();
    (r, ALLOCATIONS.with(Cell::get) - before)
}

fn chat(images: usize) -> Vec<u8> {
    let image = "QUJD".repeat(50_000);
    let messages: Vec<String> = (0..images)
        .map(|i| {
            format!(
                r#"{{"role":"user","content":[{{"type":"text","text":"hello {i}"}},{{"type":"image_url","image_url":{{"url":"data:image/png;base64,{image}"}}}}]}}"#
            )
        })
        .collect();
    format!(r#"{{"model":"gpt-4o","temperature":0.7,"messages":[{}]}}"#, messages.join(",")).into_bytes()
}

#[test]
fn parse_allocates_document_and_tape_only() {
    let opts = Options::default();
    for doc in [chat(1), chat(5), br#"{"a":[1,2,{"b":null}],"c":"d"}"#.to_vec()] {
        // Warm the thread's scratch buffers.
        drop(Document::parse(&doc, &opts).unwrap());
        let (parsed, n) = count(|| Box::new(Document::parse(&doc, &opts).unwrap()));
        assert_eq!(n, 2, "a parse should make two allocations (document, tape), made {n}");
        let (_, n) = count(|| {
            let d = &*parsed;
            let model = d.find(ROOT, b"model").unwrap();
            let temp = d.find(ROOT, b"/temperature").unwrap();
            let text = d.find(ROOT, b"messages[0].content[0].text").unwrap();
            if let (Some(t), Some(x)) = (temp, text) {
                d.f64(t).unwrap();
                d.raw(x).unwrap();
            }
            model
        });
        assert_eq!(n, 0, "reads allocated");
    }
}
