//! Strict coercion of a parameter's text to the JSON value its schema
//! asks for: an integer is an integer by JSON's grammar (`0x10`, ` 10 `,
//! `1e1`, `+1` and `1.0` are not), a number is a JSON number, a boolean is
//! `true` or `false`; anything else is a string only where the schema
//! allows strings.

use super::errors::shown;
use super::shape::Types;

/// The JSON text of `text` as the first type of `types` it is (integer,
/// number, boolean, string), or a message saying what it is not.
pub(crate) fn coerce(text: &str, types: Types) -> Result<String, String> {
    if types.has(Types::INTEGER) && is_integer(text) {
        return Ok(text.to_owned());
    }
    if types.has(Types::NUMBER) && is_number(text) {
        return Ok(text.to_owned());
    }
    if types.has(Types::BOOLEAN) && (text == "true" || text == "false") {
        return Ok(text.to_owned());
    }
    if types.has(Types::STRING) {
        return Ok(serde_json::to_string(text).expect("a string serializes"));
    }
    Err(format!("{} is not {}", shown(text), expected(types)))
}

/// Whether `json`, a text `coerce` made, is a scalar that qjson's strict
/// parse takes as it is: a string (serialized by serde_json), a boolean,
/// or a number too short to leave f64's range (no exponent, at most 18
/// bytes). Others (long numbers, which the parse may refuse) are parsed.
pub(crate) fn parses_as_is(json: &str) -> bool {
    match json.as_bytes() {
        [b'"', ..] => true,
        b"true" | b"false" => true,
        n @ [b'-' | b'0'..=b'9', ..] => n.len() <= 18 && !n.iter().any(|&c| c == b'e' || c == b'E'),
        _ => false,
    }
}

fn expected(types: Types) -> String {
    let mut names = Vec::new();
    for (bit, name) in
        [(Types::INTEGER, "an integer"), (Types::NUMBER, "a number"), (Types::BOOLEAN, "a boolean (true or false)")]
    {
        if types.has(bit) {
            names.push(name);
        }
    }
    if names.is_empty() {
        return "of a type a parameter can hold".to_owned();
    }
    names.join(" or ")
}

/// `-?(0|[1-9][0-9]*)`
pub(crate) fn is_integer(s: &str) -> bool {
    let digits = s.strip_prefix('-').unwrap_or(s).as_bytes();
    match digits {
        [b'0'] => true,
        [b'1'..=b'9', rest @ ..] => rest.iter().all(u8::is_ascii_digit),
        _ => false,
    }
}

/// JSON's number grammar: an integer, then `.digits`, then `e[+-]digits`.
pub(crate) fn is_number(s: &str) -> bool {
    let b = s.as_bytes();
    let int_end = b.iter().position(|&c| c == b'.' || c == b'e' || c == b'E').unwrap_or(b.len());
    if !is_integer(&s[..int_end]) {
        return false;
    }
    let mut rest = &b[int_end..];
    if let Some(r) = rest.strip_prefix(b".") {
        let n = r.iter().take_while(|c| c.is_ascii_digit()).count();
        if n == 0 {
            return false;
        }
        rest = &r[n..];
    }
    if let Some(r) = rest.strip_prefix(b"e").or_else(|| rest.strip_prefix(b"E")) {
        let r = r.strip_prefix(b"+").or_else(|| r.strip_prefix(b"-")).unwrap_or(r);
        return !r.is_empty() && r.iter().all(u8::is_ascii_digit);
    }
    rest.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_by_json_grammar() {
        for ok in ["0", "-0", "10", "-123", "99999999999999999999999"] {
            assert!(is_integer(ok), "{ok}");
        }
        for bad in ["0x10", " 10 ", "10 ", "1e1", "+1", "1.0", "01", "", "-", "１"] {
            assert!(!is_integer(bad), "{bad:?}");
        }
    }

    #[test]
    fn numbers_by_json_grammar() {
        for ok in ["0", "1.5", "-0.0", "1e1", "1E+2", "2.5e-3"] {
            assert!(is_number(ok), "{ok}");
        }
        for bad in ["1.", ".5", "1e", "+1", "0x1", "NaN", "Infinity", "1e+", " 1", "01.5", ""] {
            assert!(!is_number(bad), "{bad:?}");
        }
    }

    #[test]
    fn coercion_takes_the_first_type_that_fits() {
        let int_or_string = Types(Types::INTEGER | Types::STRING);
        assert_eq!(coerce("10", int_or_string).unwrap(), "10");
        assert_eq!(coerce("1e1", int_or_string).unwrap(), "\"1e1\"");
        assert!(coerce("1e1", Types(Types::INTEGER)).is_err());
        assert_eq!(coerce("1e1", Types(Types::NUMBER)).unwrap(), "1e1");
        assert!(coerce("True", Types(Types::BOOLEAN)).is_err());
        assert!(coerce("1", Types(Types::BOOLEAN)).is_err());
        assert_eq!(coerce("true", Types(Types::BOOLEAN)).unwrap(), "true");
    }
}
