//! JSON Pointers into the spec, and OpenAPI's `$ref` between its objects
//! (parameters, request bodies, path items), followed with a bound and a
//! cycle guard.

use serde_json::Value;

use super::errors::SpecError;

/// Most `$ref` hops from one object to what it finally names: a chain
/// longer than this is refused (a hostile spec could make it as long as
/// the spec).
pub const OPENAPI_MAX_REF_CHAIN: usize = 32;

/// `token` escaped for a JSON Pointer.
pub(crate) fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// `base` extended by `token`.
pub(crate) fn join(base: &str, token: &str) -> String {
    format!("{base}/{}", escape(token))
}

/// The JSON Pointer of a local `$ref` (`#/...`), or an error for anything
/// else: qjson never fetches, and resolves no anchors.
pub(crate) fn local_ref<'r>(target: &'r str, at: &str) -> Result<&'r str, SpecError> {
    match target.strip_prefix('#') {
        Some(p) if p.is_empty() || p.starts_with('/') => Ok(p),
        _ => Err(SpecError::new(
            at,
            format!("$ref {target:?}: only local references (#/...) are resolved (qjson never fetches)"),
        )),
    }
}

/// The value a pointer names (percent-encoding of URI fragments decoded
/// first).
pub(crate) fn lookup<'s>(spec: &'s Value, pointer: &str) -> Option<&'s Value> {
    let decoded = percent_encoding::percent_decode_str(pointer).decode_utf8().ok()?;
    spec.pointer(&decoded)
}

/// `value` (at `at`) with its `$ref` chain followed: the object finally
/// named and its pointer.
pub(crate) fn resolve<'s>(spec: &'s Value, value: &'s Value, at: &str) -> Result<(&'s Value, String), SpecError> {
    let mut value = value;
    let mut at = at.to_owned();
    let mut seen = Vec::new();
    while let Some(target) = value.get("$ref") {
        let Some(target) = target.as_str() else {
            return Err(SpecError::new(&join(&at, "$ref"), "$ref must be a string"));
        };
        let pointer = local_ref(target, &join(&at, "$ref"))?.to_owned();
        if seen.contains(&pointer) {
            return Err(SpecError::new(&join(&at, "$ref"), format!("$ref cycle through {target:?}")));
        }
        if seen.len() == OPENAPI_MAX_REF_CHAIN {
            return Err(SpecError::new(
                &join(&at, "$ref"),
                format!("$ref chain longer than {OPENAPI_MAX_REF_CHAIN} hops"),
            ));
        }
        value = lookup(spec, &pointer)
            .ok_or_else(|| SpecError::new(&join(&at, "$ref"), format!("$ref {target:?} names nothing in the spec")))?;
        seen.push(pointer.clone());
        at = pointer;
    }
    Ok((value, at))
}
