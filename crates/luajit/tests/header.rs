//! The C header is generated from the Rust exports; this test fails when
//! the checked-in `crates/luajit/include/qjson.h` no longer matches them.
//! Regenerate with `make header` (QJSON_BLESS=1).

use std::path::Path;

#[test]
fn header_matches_exports() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut config = cbindgen::Config::from_file(root.join("cbindgen.toml")).expect("cbindgen.toml");
    // The C ABI's types that the core defines (options, kinds) are read
    // from its sources too.
    config.parse.parse_deps = true;
    config.parse.include = Some(vec!["qjson-core".to_owned()]);
    let mut generated = Vec::new();
    cbindgen::Builder::new()
        .with_crate(root)
        .with_config(config)
        .generate()
        .expect("cbindgen generates the header")
        .write(&mut generated);
    let generated = String::from_utf8(generated).unwrap();
    let path = root.join("include/qjson.h");
    if std::env::var_os("QJSON_BLESS").is_some() {
        std::fs::write(&path, &generated).unwrap();
    }
    let current = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        current == generated,
        "crates/luajit/include/qjson.h is out of date with the Rust exports; run `make header`"
    );
}
