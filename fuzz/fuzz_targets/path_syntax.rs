//! Paths: the compiled and the on-the-fly walkers agree, and neither
//! panics, on any path over a fixed document.
#![no_main]

use libfuzzer_sys::fuzz_target;
use qjson_core::{Document, Options, Path, ROOT};

const DOC: &[u8] = br#"{"a":[1,{"b":"c","":[true,null]},"\u0061"],"a/b":{"~":2},"a.b":3,"0":[[],{}],"a":[0]}"#;

fuzz_target!(|path: &[u8]| {
    let doc = Document::parse(DOC, &Options::default()).unwrap();
    let walked = doc.find(ROOT, path);
    match Path::compile(path) {
        Ok(compiled) => {
            let found = walked.expect("a path that compiles also walks");
            assert_eq!(doc.find_compiled(ROOT, &compiled), found);
        }
        Err(e) => {
            assert!(walked.is_err(), "walked a path that does not compile: {e}");
            assert!(e.offset <= path.len());
        }
    }
});
