//! Paths into a document: dotted (`messages[0].content`) or RFC 6901 JSON
//! Pointer (`/messages/0/content`). Uncompiled paths are walked segment by
//! segment straight from the string, without allocating.

use std::borrow::Cow;

/// One step of a path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Segment<'a> {
    /// An object key (dotted path).
    Key(Cow<'a, [u8]>),
    /// An array index (dotted path).
    Index(usize),
    /// A pointer token: a key for an object, an index for an array when it
    /// is a valid array index.
    Token(Cow<'a, [u8]>, Option<usize>),
}

/// A malformed path; `offset` is the byte of the path where it went wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PathError {
    pub offset: usize,
    pub what: &'static str,
}

impl std::fmt::Display for PathError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "invalid path: {} at byte {}", self.what, self.offset)
    }
}

/// Iterates over the segments of a path string.
pub struct Segments<'a> {
    path: &'a [u8],
    at: usize,
    pointer: bool,
}

pub fn segments(path: &[u8]) -> Segments<'_> {
    let pointer = path.first() == Some(&b'/');
    Segments { path, at: 0, pointer }
}

/// The segments of `path` read as a dotted path, even when it starts with
/// a '/' (a key that starts with one: the part of a selector path after a
/// `[*].`).
fn dotted_segments(path: &[u8]) -> Segments<'_> {
    Segments { path, at: 0, pointer: false }
}

/// An array index by RFC 6901: `0` or digits without a leading zero.
fn array_index(t: &[u8]) -> Option<usize> {
    if t.is_empty() || (t.len() > 1 && t[0] == b'0') || !t.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(t).ok()?.parse().ok()
}

impl<'a> Segments<'a> {
    fn err(&mut self, offset: usize, what: &'static str) -> Option<Result<Segment<'a>, PathError>> {
        self.at = self.path.len();
        Some(Err(PathError { offset, what }))
    }

    fn next_pointer(&mut self) -> Option<Result<Segment<'a>, PathError>> {
        // `at` is at a '/'.
        let start = self.at + 1;
        let end = memchr::memchr(b'/', &self.path[start..]).map_or(self.path.len(), |k| start + k);
        self.at = end;
        let raw = &self.path[start..end];
        let token: Cow<'a, [u8]> = if memchr::memchr(b'~', raw).is_none() {
            Cow::Borrowed(raw)
        } else {
            let mut t = Vec::with_capacity(raw.len());
            let mut k = 0;
            while k < raw.len() {
                if raw[k] == b'~' {
                    match raw.get(k + 1) {
                        Some(b'0') => t.push(b'~'),
                        Some(b'1') => t.push(b'/'),
                        _ => return self.err(start + k, "'~' must be followed by '0' or '1'"),
                    }
                    k += 2;
                } else {
                    t.push(raw[k]);
                    k += 1;
                }
            }
            Cow::Owned(t)
        };
        let index = array_index(&token);
        Some(Ok(Segment::Token(token, index)))
    }

    fn next_dotted(&mut self) -> Option<Result<Segment<'a>, PathError>> {
        let p = self.path;
        let mut at = self.at;
        if p[at] == b'[' {
            let close = match memchr::memchr(b']', &p[at..]) {
                Some(k) => at + k,
                None => return self.err(at, "'[' without ']'"),
            };
            let Some(index) = array_index(&p[at + 1..close]) else {
                return self.err(at + 1, "expected an array index in '[]'");
            };
            at = close + 1;
            // After ']' comes the end, '.', or another '['.
            match p.get(at) {
                None | Some(b'[') => {}
                Some(b'.') if at + 1 < p.len() => at += 1,
                Some(_) => return self.err(at, "expected '.' or '[' after ']'"),
            }
            self.at = at;
            return Some(Ok(Segment::Index(index)));
        }
        let end = p[at..].iter().position(|&c| c == b'.' || c == b'[' || c == b']').map_or(p.len(), |k| at + k);
        if end == at {
            return self.err(at, "empty key");
        }
        let key = &p[at..end];
        at = end;
        match p.get(at) {
            None | Some(b'[') => {}
            Some(b'.') if at + 1 < p.len() => at += 1,
            Some(b'.') => return self.err(at, "path ends with '.'"),
            Some(_) => return self.err(at, "']' without '['"),
        }
        self.at = at;
        Some(Ok(Segment::Key(Cow::Borrowed(key))))
    }
}

impl<'a> Iterator for Segments<'a> {
    type Item = Result<Segment<'a>, PathError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.at >= self.path.len() {
            return None;
        }
        if self.pointer {
            self.next_pointer()
        } else {
            self.next_dotted()
        }
    }
}

/// A path checked and split once, for reuse (`qjson.path` in Lua).
#[derive(Debug, Clone)]
pub struct Path {
    segments: Vec<Segment<'static>>,
}

impl Path {
    pub fn compile(path: &[u8]) -> Result<Path, PathError> {
        Path::from_segments(segments(path))
    }

    /// Compiles `path` as a dotted path, whatever its first byte.
    pub fn compile_dotted(path: &[u8]) -> Result<Path, PathError> {
        Path::from_segments(dotted_segments(path))
    }

    fn from_segments(segments: Segments<'_>) -> Result<Path, PathError> {
        let segments = segments
            .map(|s| {
                s.map(|s| match s {
                    Segment::Key(k) => Segment::Key(Cow::Owned(k.into_owned())),
                    Segment::Index(i) => Segment::Index(i),
                    Segment::Token(t, i) => Segment::Token(Cow::Owned(t.into_owned()), i),
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(Path { segments })
    }

    pub fn segments(&self) -> &[Segment<'static>] {
        &self.segments
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(p: &str) -> Result<Vec<Segment<'_>>, PathError> {
        segments(p.as_bytes()).collect()
    }

    #[test]
    fn dotted() {
        use Segment::*;
        assert_eq!(keys("").unwrap(), vec![]);
        assert_eq!(
            keys("messages[0].content").unwrap(),
            vec![Key(b"messages"[..].into()), Index(0), Key(b"content"[..].into())]
        );
        assert_eq!(keys("[2].id").unwrap(), vec![Index(2), Key(b"id"[..].into())]);
        assert_eq!(keys("a[1][2]").unwrap(), vec![Key(b"a"[..].into()), Index(1), Index(2)]);
        for bad in ["a.", ".a", "a..b", "a[", "a[x]", "a[01]", "a]", "a[1]b", "[-1]"] {
            assert!(keys(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn pointer() {
        use Segment::*;
        assert_eq!(
            keys("/a~1b/0/~0").unwrap(),
            vec![Token(b"a/b"[..].into(), None), Token(b"0"[..].into(), Some(0)), Token(b"~"[..].into(), None)]
        );
        assert_eq!(keys("/").unwrap(), vec![Token(b""[..].into(), None)]);
        assert_eq!(keys("/01").unwrap(), vec![Token(b"01"[..].into(), None)]);
        assert!(keys("/a~2").is_err());
    }
}
