//! RFC 9457 problem details (`application/problem+json`) for a failed
//! validation's errors: the one renderer both Lua bindings call
//! (`api:problem(errors)`), so that they write the same text.
//!
//! The document, keys in this order: `type` ("about:blank"), `title`
//! (from the status), `status`, `detail` (a sentence with the count) and
//! `errors`, each `in`, `name`, `pointer`, `keyword_location`, `detail`,
//! then `line`, `column` and `byte` when known.

use std::fmt::Write;

/// One error to render, as a binding read it from Lua (the fields of a
/// [`super::RequestError`] under the names the Lua errors table gives them).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ProblemItem<'a> {
    /// `route`, `path`, `query`, `header`, `cookie` or `body` (`in`).
    pub r#where: &'a str,
    pub name: &'a str,
    /// JSON Pointer into the value (`pointer`).
    pub instance_location: &'a str,
    pub keyword_location: &'a str,
    /// Why (`detail`).
    pub message: &'a str,
    /// Where in the body, each when known.
    pub line: Option<u64>,
    pub column: Option<u64>,
    pub byte: Option<u64>,
}

/// The title of a failed validation's status; `None` for a status
/// validation never gives.
pub fn problem_title(status: u16) -> Option<&'static str> {
    Some(match status {
        400 => "Bad Request",
        404 => "Not Found",
        405 => "Method Not Allowed",
        415 => "Unsupported Media Type",
        _ => return None,
    })
}

/// The problem document for `errors` with HTTP `status` (400, 404, 405
/// or 415; `None` for any other).
pub fn problem_json(status: u16, errors: &[ProblemItem<'_>]) -> Option<String> {
    let title = problem_title(status)?;
    let n = errors.len();
    let text_len: usize = errors
        .iter()
        .map(|e| {
            e.r#where.len() + e.name.len() + e.instance_location.len() + e.keyword_location.len() + e.message.len()
        })
        .sum();
    let mut out = Vec::with_capacity(160 + text_len + 120 * n);
    out.extend_from_slice(b"{\"type\":\"about:blank\",\"title\":");
    string(&mut out, title);
    let _ = write!(Bytes(&mut out), ",\"status\":{status},\"detail\":");
    string(&mut out, &format!("the request does not conform to the API: {n} error{}", if n == 1 { "" } else { "s" }));
    out.extend_from_slice(b",\"errors\":[");
    for (i, e) in errors.iter().enumerate() {
        out.extend_from_slice(if i == 0 { b"{\"in\":" } else { b",{\"in\":" });
        string(&mut out, e.r#where);
        for (key, value) in [
            (",\"name\":", e.name),
            (",\"pointer\":", e.instance_location),
            (",\"keyword_location\":", e.keyword_location),
            (",\"detail\":", e.message),
        ] {
            out.extend_from_slice(key.as_bytes());
            string(&mut out, value);
        }
        for (key, n) in [("line", e.line), ("column", e.column), ("byte", e.byte)] {
            if let Some(n) = n {
                let _ = write!(Bytes(&mut out), ",\"{key}\":{n}");
            }
        }
        out.push(b'}');
    }
    out.extend_from_slice(b"]}");
    // serde_json writes valid UTF-8 for a `str`, and the rest is ASCII.
    Some(String::from_utf8(out).expect("JSON text from str is UTF-8"))
}

/// `s` as a JSON string (serde_json's escaping, as the rest of this module).
fn string(out: &mut Vec<u8>, s: &str) {
    serde_json::to_writer(out, s).expect("writing to a Vec cannot fail");
}

/// `write!` into a byte buffer.
struct Bytes<'a>(&'a mut Vec<u8>);

impl Write for Bytes<'_> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.0.extend_from_slice(s.as_bytes());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn item<'a>(r#where: &'a str, name: &'a str, message: &'a str) -> ProblemItem<'a> {
        ProblemItem { r#where, name, instance_location: "", keyword_location: "/k", message, ..Default::default() }
    }

    fn parsed(text: &str) -> Value {
        serde_json::from_str(text).expect("valid JSON")
    }

    #[test]
    fn renders_every_field_in_order() {
        let body = ProblemItem {
            r#where: "body",
            name: "",
            instance_location: "/age",
            keyword_location: "/components/schemas/User/properties/age/minimum",
            message: "-1 is less than the minimum of 0",
            line: Some(2),
            column: Some(7),
            byte: Some(19),
        };
        let text = problem_json(400, &[item("query", "limit", "too small"), body]).unwrap();
        assert_eq!(
            text,
            concat!(
                r#"{"type":"about:blank","title":"Bad Request","status":400,"#,
                r#""detail":"the request does not conform to the API: 2 errors","errors":["#,
                r#"{"in":"query","name":"limit","pointer":"","keyword_location":"/k","detail":"too small"},"#,
                r#"{"in":"body","name":"","pointer":"/age","#,
                r#""keyword_location":"/components/schemas/User/properties/age/minimum","#,
                r#""detail":"-1 is less than the minimum of 0","line":2,"column":7,"byte":19}]}"#
            )
        );
        assert_eq!(
            parsed(&text),
            json!({
                "type": "about:blank", "title": "Bad Request", "status": 400,
                "detail": "the request does not conform to the API: 2 errors",
                "errors": [
                    {"in": "query", "name": "limit", "pointer": "", "keyword_location": "/k", "detail": "too small"},
                    {"in": "body", "name": "", "pointer": "/age",
                     "keyword_location": "/components/schemas/User/properties/age/minimum",
                     "detail": "-1 is less than the minimum of 0", "line": 2, "column": 7, "byte": 19},
                ],
            })
        );
    }

    #[test]
    fn titles_and_counts() {
        for (status, title) in
            [(400, "Bad Request"), (404, "Not Found"), (405, "Method Not Allowed"), (415, "Unsupported Media Type")]
        {
            let p = parsed(&problem_json(status, &[item("route", "", "no")]).unwrap());
            assert_eq!(p["title"], title);
            assert_eq!(p["status"], status);
            assert_eq!(p["detail"], "the request does not conform to the API: 1 error");
        }
        let p = parsed(&problem_json(400, &[]).unwrap());
        assert_eq!(p["detail"], "the request does not conform to the API: 0 errors");
        assert_eq!(p["errors"], json!([]));
        for status in [0, 200, 401, 500, u16::MAX] {
            assert_eq!(problem_json(status, &[]), None, "{status}");
        }
    }

    #[test]
    fn each_position_only_when_known() {
        let e = ProblemItem { line: Some(0), byte: Some(u64::MAX), ..item("body", "", "m") };
        let p = parsed(&problem_json(400, &[e]).unwrap());
        let e = p["errors"][0].as_object().unwrap();
        assert_eq!(e["line"], 0);
        assert_eq!(e["byte"], u64::MAX);
        assert!(!e.contains_key("column"));
    }

    #[test]
    fn escapes_hostile_strings() {
        let hostile = "q\"uote\\ \u{0}\u{1}\u{1f}\n\r\t\u{7f} </script> \u{2028} é 😀 \"},{\"in\":\"x";
        let e = ProblemItem {
            r#where: hostile,
            name: hostile,
            instance_location: hostile,
            keyword_location: hostile,
            message: hostile,
            ..Default::default()
        };
        let text = problem_json(415, &[e]).unwrap();
        assert!(!text.bytes().any(|b| b < 0x20), "raw control characters in {text:?}");
        let p = parsed(&text);
        assert_eq!(p["errors"].as_array().unwrap().len(), 1);
        let e = p["errors"][0].as_object().unwrap();
        assert_eq!(e.len(), 5);
        for key in ["in", "name", "pointer", "keyword_location", "detail"] {
            assert_eq!(e[key], hostile, "{key}");
        }
    }

    #[test]
    fn a_megabyte_message_is_written_whole_in_one_pass() {
        let message = "\"\u{1}x".repeat(1 << 18);
        let text = problem_json(400, &[item("body", "", &message)]).unwrap();
        assert_eq!(parsed(&text)["errors"][0]["detail"], message.as_str());
        // Each input byte becomes at most 6 (\u0001): the text is linear in its input.
        assert!(text.len() < 6 * message.len() + 300);
    }
}
