//! JSON Pointers (RFC 6901) as JSON Patch uses them: `""` is the whole
//! document, `/a/0/b~1c` its tokens `a`, `0`, `b/c`.

use std::fmt;

/// A parsed pointer: its text, for messages, and its tokens unescaped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pointer {
    text: String,
    tokens: Vec<Vec<u8>>,
}

/// Why a string is not a JSON Pointer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PointerError {
    /// A non-empty pointer must start with `/`.
    NoLeadingSlash,
    /// `~` followed by something other than `0` or `1`.
    BadEscape,
}

impl fmt::Display for PointerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PointerError::NoLeadingSlash => "a JSON Pointer must be empty or start with '/'",
            PointerError::BadEscape => "'~' must be followed by '0' or '1' in a JSON Pointer",
        })
    }
}

impl Pointer {
    /// Parses `text` (UTF-8, as read from a JSON string).
    pub fn parse(text: &str) -> Result<Pointer, PointerError> {
        let mut tokens = Vec::new();
        if !text.is_empty() {
            let rest = text.strip_prefix('/').ok_or(PointerError::NoLeadingSlash)?;
            for raw in rest.split('/') {
                tokens.push(unescape(raw.as_bytes())?);
            }
        }
        Ok(Pointer { text: text.to_owned(), tokens })
    }

    pub fn as_str(&self) -> &str {
        &self.text
    }

    pub fn tokens(&self) -> &[Vec<u8>] {
        &self.tokens
    }

    /// Whether `self` names a value strictly inside the one `other` names.
    pub fn is_inside(&self, other: &Pointer) -> bool {
        self.tokens.len() > other.tokens.len() && self.tokens.starts_with(&other.tokens)
    }
}

fn unescape(raw: &[u8]) -> Result<Vec<u8>, PointerError> {
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        match raw[i] {
            b'~' => {
                out.push(match raw.get(i + 1) {
                    Some(b'0') => b'~',
                    Some(b'1') => b'/',
                    _ => return Err(PointerError::BadEscape),
                });
                i += 2;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    Ok(out)
}

/// An array index token: `0`, or digits without a leading zero, below
/// `usize::MAX`. `None` for anything else (`-` included).
pub(crate) fn index(token: &[u8]) -> Option<usize> {
    if token.is_empty() || (token.len() > 1 && token[0] == b'0') || !token.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(token).ok()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_rfc_6901_examples() {
        let tokens = |t: &str| Pointer::parse(t).unwrap().tokens().to_vec();
        assert!(tokens("").is_empty());
        assert_eq!(tokens("/"), vec![b"".to_vec()]);
        assert_eq!(tokens("/foo/0"), vec![b"foo".to_vec(), b"0".to_vec()]);
        assert_eq!(tokens("/a~1b"), vec![b"a/b".to_vec()]);
        assert_eq!(tokens("/m~0n"), vec![b"m~n".to_vec()]);
        assert_eq!(tokens("/~01"), vec![b"~1".to_vec()]);
        assert_eq!(Pointer::parse("foo"), Err(PointerError::NoLeadingSlash));
        assert_eq!(Pointer::parse("/a~2"), Err(PointerError::BadEscape));
        assert_eq!(Pointer::parse("/a~"), Err(PointerError::BadEscape));
    }

    #[test]
    fn indexes_are_canonical_decimals() {
        assert_eq!(index(b"0"), Some(0));
        assert_eq!(index(b"17"), Some(17));
        for bad in [&b""[..], b"01", b"-", b"-1", b"1e2", b" 1", b"+1", b"99999999999999999999999"] {
            assert_eq!(index(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn inside_is_strict() {
        let p = |t| Pointer::parse(t).unwrap();
        assert!(p("/a/b").is_inside(&p("/a")));
        assert!(p("/a").is_inside(&p("")));
        assert!(!p("/a").is_inside(&p("/a")));
        assert!(!p("/ab").is_inside(&p("/a")));
    }
}
