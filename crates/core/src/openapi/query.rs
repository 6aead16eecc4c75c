//! Name=value lists, split once per request: the query string and an
//! `application/x-www-form-urlencoded` body (pairs at `&`), and the
//! Cookie header (RFC 6265: pairs at `;`). Every pair is kept (no cap on
//! their number), names decoded, values kept raw until a parameter's
//! style has split them, then decoded by the list's own rule.

use std::borrow::Cow;

use super::errors::shown;

/// How a piece of a list is decoded.
pub(crate) type Decode = fn(&str) -> Result<Cow<'_, str>, String>;

/// One pair: its decoded name and its raw value.
type Pair<'q> = (Cow<'q, str>, &'q str);

/// The raw values of one name, in the order given.
pub(crate) type Values<'a, 'q> = std::iter::Map<std::slice::Iter<'a, Pair<'q>>, fn(&Pair<'q>) -> &'q str>;

/// A list's pairs sorted by decoded name (a name's values in the order
/// given), values raw. A request declares few parameters and sends few
/// pairs: a sorted list found in by bisection takes one allocation, where
/// a map took hashing and an allocation per name.
pub(crate) struct Query<'q> {
    /// Sorted by name, stably.
    pairs: Vec<Pair<'q>>,
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
        let mut pairs = Vec::new();
        for piece in pieces.filter(|p| !p.is_empty()) {
            let (n, v) = piece.split_once('=').unwrap_or((piece, ""));
            pairs.push((name(n)?, v));
        }
        pairs.sort_by(|a: &Pair<'q>, b| a.0.cmp(&b.0));
        Ok(Query { pairs, decode: value })
    }

    /// The raw values given for `name`.
    pub(crate) fn values(&self, name: &str) -> Values<'_, 'q> {
        let start = self.pairs.partition_point(|(n, _)| n.as_ref() < name);
        let len = self.pairs[start..].partition_point(|(n, _)| n == name);
        raw_values(&self.pairs[start..start + len])
    }

    /// Every decoded name and its raw values, sorted by name.
    pub(crate) fn names(&self) -> impl Iterator<Item = (&str, Values<'_, 'q>)> {
        groups(&self.pairs)
    }

    /// `(key, raw values)` of every `name[key]` pair (deepObject), sorted
    /// by key.
    pub(crate) fn bracketed(&self, name: &str) -> Vec<(&str, Values<'_, 'q>)> {
        let prefix = format!("{name}[");
        let start = self.pairs.partition_point(|(n, _)| n.as_ref() < prefix.as_str());
        let len = self.pairs[start..].partition_point(|(n, _)| n.starts_with(prefix.as_str()));
        let mut found: Vec<(&str, Values<'_, 'q>)> = groups(&self.pairs[start..start + len])
            .filter_map(|(n, v)| n[prefix.len()..].strip_suffix(']').map(|k| (k, v)))
            .collect();
        found.sort_by(|a, b| a.0.cmp(b.0));
        found
    }
}

/// A name's one raw value (`None` when it is not given), or the message
/// that `name` is given more than once: a repeated scalar is refused,
/// which one counts would be a guess.
pub(crate) fn only<'q>(mut values: Values<'_, 'q>, name: impl std::fmt::Display) -> Result<Option<&'q str>, String> {
    match values.len() {
        0 | 1 => Ok(values.next()),
        n => Err(format!("{name} is given {n} times; it takes one value")),
    }
}

fn raw_values<'a, 'q>(pairs: &'a [Pair<'q>]) -> Values<'a, 'q> {
    pairs.iter().map(|(_, v)| *v)
}

/// The runs of one name in sorted `pairs`.
fn groups<'a, 'q>(mut pairs: &'a [Pair<'q>]) -> impl Iterator<Item = (&'a str, Values<'a, 'q>)> {
    std::iter::from_fn(move || {
        let name = pairs.first()?.0.as_ref();
        let run = pairs.iter().take_while(|(n, _)| n == name).count();
        let (group, rest) = pairs.split_at(run);
        pairs = rest;
        Some((name, raw_values(group)))
    })
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
