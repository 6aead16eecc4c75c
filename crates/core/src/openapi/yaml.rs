//! A spec written in YAML, read into the `serde_json::Value` a JSON spec
//! gives (yaml-rust2's event parser; plain scalars resolved by YAML 1.2's
//! core schema), then compiled the same way.
//!
//! Bounded as the JSON reader is: nesting at most [`OPENAPI_MAX_YAML_DEPTH`]
//! deep, and the copies that anchors and aliases make (an alias is a copy
//! of its anchor's value) at most [`OPENAPI_MAX_YAML_COPIED`] values and
//! string bytes in all, so that a few lines cannot expand to gigabytes.
//! What JSON cannot hold is an error, never dropped: `.inf` and `.nan`,
//! keys that are not scalars, repeated keys, merge keys (`<<`), tags other
//! than the core schema's, a second document.

use std::collections::HashMap;

use serde_json::{Map, Number, Value};
use yaml_rust2::parser::{Event, Parser, Tag};
use yaml_rust2::scanner::{Marker, TScalarStyle};

use super::errors::SpecError;
use super::pointer::join;

/// Deepest nesting of a YAML spec (serde_json's limit for a JSON one).
pub const OPENAPI_MAX_YAML_DEPTH: usize = 128;

/// Most values and string bytes that anchors and aliases may copy while
/// a YAML spec is read.
pub const OPENAPI_MAX_YAML_COPIED: usize = 1 << 20;

/// The handle `!!` stands for.
const CORE: &str = "tag:yaml.org,2002:";

/// Whether `text` is read as YAML: its first byte other than white space
/// is not `{` (a JSON spec is an object).
pub(crate) fn is_yaml(text: &[u8]) -> bool {
    text.iter().find(|b| !b.is_ascii_whitespace()).is_some_and(|&b| b != b'{')
}

/// The spec in `text` as a value.
pub(crate) fn read(text: &[u8]) -> Result<Value, SpecError> {
    let text = std::str::from_utf8(text)
        .map_err(|e| SpecError::new("", format!("the spec is not UTF-8 (byte {})", e.valid_up_to())))?;
    let mut reader = Reader { open: Vec::new(), root: None, anchors: HashMap::new(), copied: 0, documents: 0 };
    let mut parser = Parser::new_from_str(text);
    loop {
        let (event, mark) = parser.next_token().map_err(|e| {
            let m = e.marker();
            SpecError::new(&reader.pointer(), format!("the spec is not YAML: {} {}", e.info(), at(m)))
        })?;
        if matches!(event, Event::StreamEnd) {
            break;
        }
        reader.event(event).map_err(|message| SpecError::new(&reader.pointer(), format!("{message} {}", at(&mark))))?;
    }
    Ok(reader.root.unwrap_or(Value::Null))
}

fn at(m: &Marker) -> String {
    format!("at line {} column {}", m.line(), m.col() + 1)
}

/// A sequence or mapping being read.
struct Open {
    value: Collection,
    anchor: usize,
}

enum Collection {
    Sequence(Vec<Value>),
    /// The members so far, and the key read whose value comes next.
    Mapping(Map<String, Value>, Option<String>),
}

struct Reader {
    open: Vec<Open>,
    root: Option<Value>,
    /// Each anchor's value, and its weight (values and string bytes).
    anchors: HashMap<usize, (Value, usize)>,
    copied: usize,
    documents: usize,
}

impl Reader {
    fn event(&mut self, event: Event) -> Result<(), String> {
        match event {
            Event::DocumentStart => {
                self.documents += 1;
                if self.documents > 1 {
                    return Err("the spec holds more than one YAML document".into());
                }
            }
            Event::Scalar(text, style, anchor, tag) => {
                if let Some(Open { value: Collection::Mapping(members, key @ None), .. }) = self.open.last_mut() {
                    if let Some(t) = tag.filter(|t| !(t.handle == CORE && t.suffix == "str")) {
                        return Err(format!("the tag {}{} is not supported on a key", t.handle, t.suffix));
                    }
                    if style == TScalarStyle::Plain && text == "<<" {
                        return Err("merge keys (<<) are not supported".into());
                    }
                    if members.contains_key(&text) {
                        return Err(format!("the key {text:?} is repeated"));
                    }
                    *key = Some(text);
                    return Ok(());
                }
                let value = scalar(text, style, tag.as_ref())?;
                self.put(value, anchor)?;
            }
            Event::SequenceStart(anchor, tag) => self.start(Collection::Sequence(Vec::new()), anchor, tag, "seq")?,
            Event::MappingStart(anchor, tag) => {
                self.start(Collection::Mapping(Map::new(), None), anchor, tag, "map")?
            }
            Event::SequenceEnd | Event::MappingEnd => {
                let open = self.open.pop().expect("the parser pairs starts and ends");
                let value = match open.value {
                    Collection::Sequence(items) => Value::Array(items),
                    Collection::Mapping(members, _) => Value::Object(members),
                };
                self.put(value, open.anchor)?;
            }
            Event::Alias(id) => {
                self.key_expected("an alias")?;
                let (value, weight) =
                    self.anchors.get(&id).ok_or_else(|| "an alias to an unknown anchor".to_string())?;
                let value = value.clone();
                self.copy(*weight)?;
                self.put(value, 0)?;
            }
            Event::StreamStart | Event::StreamEnd | Event::DocumentEnd | Event::Nothing => {}
        }
        Ok(())
    }

    fn start(&mut self, value: Collection, anchor: usize, tag: Option<Tag>, kind: &str) -> Result<(), String> {
        if let Some(tag) = tag {
            if !(tag.handle == CORE && tag.suffix == kind) {
                return Err(format!("the tag {}{} is not supported", tag.handle, tag.suffix));
            }
        }
        self.key_expected("a sequence or mapping")?;
        if self.open.len() == OPENAPI_MAX_YAML_DEPTH {
            return Err(format!("nested deeper than {OPENAPI_MAX_YAML_DEPTH}"));
        }
        self.open.push(Open { value, anchor });
        Ok(())
    }

    /// Places a finished value: a member, an item, or the root (a value
    /// where a key is expected is refused before it comes here).
    fn put(&mut self, value: Value, anchor: usize) -> Result<(), String> {
        if anchor != 0 {
            let weight = weight(&value);
            self.copy(weight)?;
            self.anchors.insert(anchor, (value.clone(), weight));
        }
        match self.open.last_mut() {
            None => self.root = Some(value),
            Some(Open { value: Collection::Sequence(items), .. }) => items.push(value),
            Some(Open { value: Collection::Mapping(members, key), .. }) => {
                let key = key.take().expect("a key comes first");
                members.insert(key, value);
            }
        }
        Ok(())
    }

    /// Refuses `what` where a mapping's key is expected (keys are scalars).
    fn key_expected(&self, what: &str) -> Result<(), String> {
        match self.open.last() {
            Some(Open { value: Collection::Mapping(_, None), .. }) => {
                Err(format!("a mapping key must be a scalar, not {what}"))
            }
            _ => Ok(()),
        }
    }

    fn copy(&mut self, weight: usize) -> Result<(), String> {
        self.copied += weight;
        if self.copied > OPENAPI_MAX_YAML_COPIED {
            return Err(format!(
                "anchors and aliases copy more than {OPENAPI_MAX_YAML_COPIED} values and string bytes"
            ));
        }
        Ok(())
    }

    /// Where the reader is, as a JSON Pointer into the spec.
    fn pointer(&self) -> String {
        let mut at = String::new();
        for open in &self.open {
            at = match &open.value {
                Collection::Sequence(items) => format!("{at}/{}", items.len()),
                Collection::Mapping(_, Some(key)) => join(&at, key),
                Collection::Mapping(_, None) => at,
            };
        }
        at
    }
}

/// Values and string bytes in `value` (nesting is bounded: the recursion
/// is too).
fn weight(value: &Value) -> usize {
    1 + match value {
        Value::String(s) => s.len(),
        Value::Array(items) => items.iter().map(weight).sum(),
        Value::Object(members) => members.iter().map(|(k, v)| k.len() + weight(v)).sum(),
        _ => 0,
    }
}

/// A scalar's value: quoted and block scalars are strings; a plain one is
/// null, a boolean, a number or a string by the core schema; a core tag
/// asks for its type.
fn scalar(text: String, style: TScalarStyle, tag: Option<&Tag>) -> Result<Value, String> {
    let kind = match tag {
        None => None,
        Some(t) if t.handle == CORE && ["str", "null", "bool", "int", "float"].contains(&t.suffix.as_str()) => {
            Some(t.suffix.as_str())
        }
        Some(t) => return Err(format!("the tag {}{} is not supported", t.handle, t.suffix)),
    };
    if kind == Some("str") || (kind.is_none() && style != TScalarStyle::Plain) {
        return Ok(Value::String(text));
    }
    let literal = match text.as_str() {
        "" | "~" | "null" | "Null" | "NULL" => Some((Value::Null, "null")),
        "true" | "True" | "TRUE" => Some((Value::Bool(true), "bool")),
        "false" | "False" | "FALSE" => Some((Value::Bool(false), "bool")),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" | "-.inf" | "-.Inf" | "-.INF" | ".nan" | ".NaN"
        | ".NAN" => return Err(format!("{text} is not a JSON number")),
        _ => None,
    };
    // (None: a string.)
    let resolved = match literal {
        Some(literal) => Some(literal),
        None => number(&text)?.map(|(n, float)| (Value::Number(n), if float { "float" } else { "int" })),
    };
    let is = resolved.as_ref().map_or("str", |r| r.1);
    if let Some(k) = kind.filter(|&k| k != is && !(k == "float" && is == "int")) {
        return Err(format!("{text:?} is not a !!{k}"));
    }
    Ok(resolved.map_or(Value::String(text), |r| r.0))
}

/// A plain scalar's number by the core schema (decimal, `0o` octal and
/// `0x` hexadecimal integers, decimal floats), as JSON writes it; None for
/// text that is no number; and whether it is a float.
fn number(text: &str) -> Result<Option<(Number, bool)>, String> {
    let radix = |digits: &str, radix: u32| {
        u64::from_str_radix(digits, radix)
            .map(|n| Some((Number::from(n), false)))
            .map_err(|_| format!("{text} is out of range"))
    };
    if let Some(d) = text.strip_prefix("0o").filter(|d| !d.is_empty() && d.bytes().all(|b| matches!(b, b'0'..=b'7'))) {
        return radix(d, 8);
    }
    if let Some(d) = text.strip_prefix("0x").filter(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_hexdigit())) {
        return radix(d, 16);
    }
    // [-+]? ( \. [0-9]+ | [0-9]+ ( \. [0-9]* )? ) ( [eE] [-+]? [0-9]+ )?
    let (negative, body) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let (mantissa, exponent) = match body.find(['e', 'E']) {
        Some(i) => (&body[..i], Some(&body[i + 1..])),
        None => (body, None),
    };
    let (int, frac) = match mantissa.find('.') {
        Some(i) => (&mantissa[..i], Some(&mantissa[i + 1..])),
        None => (mantissa, None),
    };
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    let exponent_ok = exponent.is_none_or(|e| {
        let e = e.strip_prefix(['-', '+']).unwrap_or(e);
        !e.is_empty() && digits(e)
    });
    let mantissa_ok =
        digits(int) && frac.is_none_or(digits) && (!int.is_empty() || frac.is_some_and(|f| !f.is_empty()));
    if !(mantissa_ok && exponent_ok) {
        return Ok(None);
    }
    // As JSON: no leading zeros, digits on both sides of the point.
    let int = int.trim_start_matches('0');
    let mut json = String::with_capacity(text.len() + 2);
    if negative {
        json.push('-');
    }
    json.push_str(if int.is_empty() { "0" } else { int });
    if let Some(f) = frac {
        json.push('.');
        json.push_str(if f.is_empty() { "0" } else { f });
    }
    if let Some(e) = exponent {
        json.push('e');
        json.push_str(e);
    }
    let float = frac.is_some() || exponent.is_some();
    json.parse::<Number>().map(|n| Some((n, float))).map_err(|e| format!("{text}: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn yaml(text: &str) -> Result<Value, SpecError> {
        read(text.as_bytes())
    }

    fn json(text: &str) -> Value {
        serde_json::from_str(text).unwrap()
    }

    fn error(text: &str) -> SpecError {
        yaml(text).expect_err(text)
    }

    #[test]
    fn block_and_flow_collections_read_as_json() {
        let v =
            yaml("openapi: 3.0.3\npaths:\n  /users/{id}:\n    get:\n      tags: [a, 'b']\n      x: {k: v}\n").unwrap();
        assert_eq!(v, json(r#"{"openapi":"3.0.3","paths":{"/users/{id}":{"get":{"tags":["a","b"],"x":{"k":"v"}}}}}"#));
    }

    #[test]
    fn plain_scalars_by_the_core_schema() {
        let v = yaml(
            "a: ~\nb: null\nc:\nd: true\ne: False\nf: 10\ng: -007\nh: 0x1F\ni: 0o17\nj: 1.5\nk: .5\nl: 1.\nm: +2e3\n\
             n: 1e400\no: yes\np: '10'\nq: \"true\"\nr: 12abc\ns: !!str 12\nt: !!float 3\nu: |\n  text\n",
        )
        .unwrap();
        let expected = json(
            r#"{"a":null,"b":null,"c":null,"d":true,"e":false,"f":10,"g":-7,"h":31,"i":15,"j":1.5,"k":0.5,"l":1.0,
                "m":2e3,"n":1e400,"o":"yes","p":"10","q":"true","r":"12abc","s":"12","t":3,"u":"text\n"}"#,
        );
        assert_eq!(v, expected);
        // Numbers keep their text (the schema compiler compares exactly).
        assert_eq!(v["g"].to_string(), "-7");
    }

    #[test]
    fn keys_are_the_text_written() {
        let v = yaml("responses:\n  200: ok\n  true: t\n  1.0: f\n").unwrap();
        assert_eq!(v, json(r#"{"responses":{"200":"ok","true":"t","1.0":"f"}}"#));
    }

    #[test]
    fn anchors_and_aliases_copy_values() {
        let v = yaml("a: &s {type: integer, minimum: 1}\nb: *s\nc: [*s, &n 5, *n]\n").unwrap();
        let s = json(r#"{"type":"integer","minimum":1}"#);
        assert_eq!(v, json(&format!(r#"{{"a":{s},"b":{s},"c":[{s},5,5]}}"#)));
    }

    #[test]
    fn what_json_cannot_hold_is_an_error_located() {
        let cases = [
            ("a: .inf\n", "/a", ".inf is not a JSON number at line 1 column 4"),
            ("a:\n  b: .nan\n", "/a/b", ".nan is not a JSON number at line 2 column 6"),
            ("a: 1\na: 2\n", "", "the key \"a\" is repeated at line 2 column 1"),
            ("a:\n  <<: {b: 1}\n", "/a", "merge keys (<<) are not supported at line 2 column 3"),
            ("? [a]\n: 1\n", "", "a mapping key must be a scalar, not a sequence or mapping at line 1 column 3"),
            ("a: !!binary aGk=\n", "/a", "the tag tag:yaml.org,2002:binary is not supported at line 1 column 13"),
            ("a: !custom 1\n", "/a", "the tag !custom is not supported at line 1 column 12"),
            ("a: !!int 1.5\n", "/a", "\"1.5\" is not a !!int at line 1 column 10"),
            ("a: 0x1ffffffffffffffff\n", "/a", "0x1ffffffffffffffff is out of range at line 1 column 4"),
            ("a: 1\n---\nb: 2\n", "", "the spec holds more than one YAML document at line 2 column 1"),
        ];
        let got: Vec<_> = cases.iter().map(|(text, _, _)| error(text)).collect();
        for ((text, location, message), e) in cases.iter().zip(&got) {
            assert_eq!((e.location.as_str(), e.message.as_str()), (*location, *message), "{text:?}");
        }
        let e = error("a: [1, 2\n");
        assert!(e.message.starts_with("the spec is not YAML: "), "{e}");
        assert!(e.message.contains("line 2"), "{e}");
        let e = error("a:\n  b: 'x\n");
        assert_eq!(e.location, "/a/b", "{e}");
        assert_eq!(read(b"a: \xff\n").unwrap_err().message, "the spec is not UTF-8 (byte 3)");
    }

    #[test]
    fn nesting_is_bounded() {
        let ok = format!("{}1{}", "[".repeat(OPENAPI_MAX_YAML_DEPTH), "]".repeat(OPENAPI_MAX_YAML_DEPTH));
        assert!(yaml(&ok).is_ok());
        let deep = format!("{}1{}", "[".repeat(OPENAPI_MAX_YAML_DEPTH + 1), "]".repeat(OPENAPI_MAX_YAML_DEPTH + 1));
        assert!(error(&deep).message.starts_with("nested deeper than 128"));
        // Block nesting too, and far deeper input fails as fast.
        let block: String = (0..100_000).map(|i| format!("{}- \n", "  ".repeat(i % 200))).collect();
        let _ = yaml(&block);
        let flow = "[".repeat(1_000_000);
        assert!(yaml(&flow).is_err());
    }

    #[test]
    fn alias_expansion_is_bounded() {
        // Nine levels of ten aliases each: 10^9 copies of "lol" if expanded.
        let mut text = String::from("a0: &a0 [\"lol\"]\n");
        for i in 1..10 {
            let prev = format!("*a{}", i - 1);
            text.push_str(&format!("a{i}: &a{i} [{}]\n", vec![prev; 10].join(", ")));
        }
        let start = std::time::Instant::now();
        let e = error(&text);
        assert!(e.message.starts_with("anchors and aliases copy more than 1048576 values and string bytes"), "{e}");
        assert!(start.elapsed() < std::time::Duration::from_secs(10));
        // A reasonable use stays within it.
        assert!(yaml("s: &s {type: string}\nt: [*s, *s, *s]\n").is_ok());
    }

    #[test]
    fn json_specs_are_told_apart() {
        assert!(!is_yaml(b"  \n{\"openapi\": \"3.0.3\"}"));
        assert!(is_yaml(b"openapi: 3.0.3\n"));
        assert!(is_yaml(b"# comment\n{a: 1}"));
    }

    fn json_value() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(Value::from),
            "\\PC{0,12}".prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 48, 6, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                proptest::collection::btree_map("\\PC{0,8}", inner, 0..6)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest::proptest! {
        /// JSON is YAML: any JSON text read as YAML is the value serde_json
        /// reads.
        #[test]
        fn json_text_read_as_yaml_is_the_same_value(v in json_value()) {
            let text = format!("# YAML\n{}", serde_json::to_string(&v).unwrap());
            let read_back = read(text.as_bytes()).unwrap_or_else(|e| panic!("{text}: {e}"));
            let expected: Value = serde_json::from_str(&text[7..]).unwrap();
            proptest::prop_assert_eq!(read_back, expected);
        }

        /// Any text gives a value or an error, never a panic.
        #[test]
        fn any_text_reads_or_fails(text in "[-\\[\\]{}:,&*!|>'\"#? a-z0-9.\n]{0,64}") {
            let _ = read(text.as_bytes());
        }
    }
}
