//! The raw query string, split once per request: every `name=value` pair
//! (no cap on their number), names percent-decoded, values kept raw until
//! a parameter's style has split them.

use std::borrow::Cow;
use std::collections::HashMap;

/// The query's pairs by decoded name, values raw, in the order given.
pub(crate) struct Query<'q> {
    by_name: HashMap<Cow<'q, str>, Vec<&'q str>>,
}

impl<'q> Query<'q> {
    /// Splits `raw` at `&` (empty pieces skipped); a piece without `=` is
    /// a name with an empty value.
    pub(crate) fn parse(raw: &'q str) -> Result<Query<'q>, String> {
        let mut by_name: HashMap<Cow<'q, str>, Vec<&'q str>> = HashMap::new();
        for piece in raw.split('&').filter(|p| !p.is_empty()) {
            let (name, value) = piece.split_once('=').unwrap_or((piece, ""));
            by_name.entry(decode(name)?).or_default().push(value);
        }
        Ok(Query { by_name })
    }

    /// The raw values given for `name`.
    pub(crate) fn values(&self, name: &str) -> &[&'q str] {
        self.by_name.get(name).map_or(&[], Vec::as_slice)
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
        .map_err(|_| format!("{raw:?} is not UTF-8 once percent-decoded"))?;
    Ok(Cow::Owned(decoded.into_owned()))
}

/// Percent-decodes a path segment's piece (`+` is itself there).
pub(crate) fn decode_path(raw: &str) -> Result<Cow<'_, str>, String> {
    percent_encoding::percent_decode_str(raw)
        .decode_utf8()
        .map_err(|_| format!("{raw:?} is not UTF-8 once percent-decoded"))
}
