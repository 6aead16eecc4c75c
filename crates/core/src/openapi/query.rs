//! Name=value lists, split once per request: the query string and an
//! `application/x-www-form-urlencoded` body (pairs at `&`), and the
//! Cookie header (RFC 6265: pairs at `;`). Every pair is kept (no cap on
//! their number), names decoded, values kept raw until a parameter's
//! style has split them, then decoded by the list's own rule.

use std::borrow::Cow;
use std::collections::HashMap;

use super::errors::shown;

/// How a piece of a list is decoded.
pub(crate) type Decode = fn(&str) -> Result<Cow<'_, str>, String>;

/// A list's pairs by decoded name, values raw, in the order given.
pub(crate) struct Query<'q> {
    by_name: HashMap<Cow<'q, str>, Vec<&'q str>>,
    /// How this list's values are decoded once split.
    pub(crate) decode: Decode,
}

impl<'q> Query<'q> {
    /// A query string or a form body: pieces at `&` (empty ones
    /// skipped); a piece without `=` is a name with an empty value.
    pub(crate) fn parse(raw: &'q str) -> Result<Query<'q>, String> {
        Query::split(raw.split('&'), decode, decode)
    }

    /// A Cookie header, `a=1; b=2` (RFC 6265 section 4.2.1; blanks around
    /// each pair are dropped, as servers do). Names are RFC 6265 tokens,
    /// taken as they are, so that no other application's cookie can make
    /// the header unreadable. OpenAPI 3.1.1's `form` style percent-encodes
    /// cookie values (RFC 6570): they are percent-decoded, `+` staying
    /// itself.
    pub(crate) fn cookies(raw: &'q str) -> Result<Query<'q>, String> {
        Query::split(raw.split(';').map(|p| p.trim_matches([' ', '\t'])), verbatim, decode_path)
    }

    fn split(pieces: impl Iterator<Item = &'q str>, name: Decode, value: Decode) -> Result<Query<'q>, String> {
        let mut by_name: HashMap<Cow<'q, str>, Vec<&'q str>> = HashMap::new();
        for piece in pieces.filter(|p| !p.is_empty()) {
            let (n, v) = piece.split_once('=').unwrap_or((piece, ""));
            by_name.entry(name(n)?).or_default().push(v);
        }
        Ok(Query { by_name, decode: value })
    }

    /// The raw values given for `name`.
    pub(crate) fn values(&self, name: &str) -> &[&'q str] {
        self.by_name.get(name).map_or(&[], Vec::as_slice)
    }

    /// Every decoded name and its raw values, in no particular order.
    pub(crate) fn names(&self) -> impl Iterator<Item = (&str, &[&'q str])> {
        self.by_name.iter().map(|(n, v)| (n.as_ref(), v.as_slice()))
    }

    /// `(key, raw values)` of every `name[key]` pair (deepObject).
    pub(crate) fn bracketed(&self, name: &str) -> Vec<(&str, &[&'q str])> {
        let mut found: Vec<(&str, &[&'q str])> = self
            .by_name
            .iter()
            .filter_map(|(n, v)| n.strip_prefix(name)?.strip_prefix('[')?.strip_suffix(']').map(|k| (k, v.as_slice())))
            .collect();
        found.sort_by(|a, b| a.0.cmp(b.0));
        found
    }
}

/// A piece as it is.
pub(crate) fn verbatim(raw: &str) -> Result<Cow<'_, str>, String> {
    Ok(Cow::Borrowed(raw))
}

/// Percent-decodes a query component, `+` as a space (the HTML form
/// convention nginx's argument parser also follows). A `%` not followed by
/// two hex digits stays as it is (the WHATWG URL rule); the result must
/// be UTF-8.
pub(crate) fn decode(raw: &str) -> Result<Cow<'_, str>, String> {
    let raw: Cow<'_, str> = if raw.contains('+') { Cow::Owned(raw.replace('+', " ")) } else { Cow::Borrowed(raw) };
    if !raw.contains('%') {
        return Ok(raw);
    }
    let decoded = percent_encoding::percent_decode_str(&raw)
        .decode_utf8()
        .map_err(|_| format!("{} is not UTF-8 once percent-decoded", shown(&raw)))?;
    Ok(Cow::Owned(decoded.into_owned()))
}

/// Percent-decodes a path segment's piece or a cookie's (`+` is itself
/// there).
pub(crate) fn decode_path(raw: &str) -> Result<Cow<'_, str>, String> {
    percent_encoding::percent_decode_str(raw)
        .decode_utf8()
        .map_err(|_| format!("{} is not UTF-8 once percent-decoded", shown(raw)))
}
