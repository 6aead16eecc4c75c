//! Request bodies: the declared media types, matched against the
//! request's Content-Type (exact, then `type/*`, then `*/*`), and JSON
//! bodies validated by the schema over qjson's own parse of the body;
//! form bodies are first read into the JSON text of an object (`form`).

use std::borrow::Cow;
use std::sync::Arc;

use serde_json::Value;

use super::errors::{shown, BodyPosition, RequestError, SpecError, Where};
use super::form::Form;
use super::pointer::{join, resolve};
use super::schemas::{request_failure, SchemaCompiler};
use crate::schema::Schema;

pub(crate) struct Body {
    pub(crate) required: bool,
    /// The spec pointer of the request body object.
    at: String,
    media: Vec<Media>,
}

struct Media {
    /// Lower-case `type/subtype` or range, parameters dropped.
    range: String,
    /// The compiled schema and its spec pointer; `None` when the media
    /// type declares no schema (any body of the type passes).
    schema: Option<(Arc<Schema>, String)>,
    /// How a form body (`application/x-www-form-urlencoded`) becomes the
    /// JSON the schema checks; `None` for JSON bodies.
    form: Option<Form>,
}

impl Body {
    pub(crate) fn compile<'s>(
        spec: &'s Value,
        value: &'s Value,
        at: &str,
        schemas: &mut SchemaCompiler<'s>,
    ) -> Result<Body, SpecError> {
        let (b, at) = resolve(spec, value, at)?;
        let required = match b.get("required") {
            None => false,
            Some(Value::Bool(r)) => *r,
            Some(_) => return Err(SpecError::new(&join(&at, "required"), "required must be a boolean")),
        };
        let content_at = join(&at, "content");
        let Some(Value::Object(content)) = b.get("content") else {
            return Err(SpecError::new(&content_at, "a request body needs a content object"));
        };
        let mut media = Vec::new();
        for (key, m) in content {
            let m_at = join(&content_at, key);
            let range = essence(key).into_owned();
            let schema_at = join(&m_at, "schema");
            let (schema, form) = match m.get("schema") {
                // An empty schema checks nothing: bodies of any media type pass.
                None => (None, None),
                Some(Value::Object(o)) if o.is_empty() => (None, None),
                Some(s) if is_json(&range) => (Some(schemas.compile(s, &schema_at)?), None),
                Some(s) if range == FORM => {
                    let form = Form::compile(spec, s, &schema_at, m.get("encoding"), &join(&m_at, "encoding"))?;
                    (Some(schemas.compile(s, &schema_at)?), Some(form))
                }
                Some(_) => {
                    return Err(SpecError::new(
                        &schema_at,
                        format!("bodies of {key:?} cannot be validated yet (JSON and form bodies only)"),
                    ))
                }
            };
            media.push(Media { range, schema, form });
        }
        Ok(Body { required, at, media })
    }

    /// The errors of `body` sent as `content_type`, at most `cap`.
    pub(crate) fn check(&self, body: Option<&[u8]>, content_type: Option<&str>, cap: usize) -> Vec<RequestError> {
        let Some(body) = body else {
            return if self.required { vec![self.error("the request body is required", 400)] } else { Vec::new() };
        };
        let Some(content_type) = content_type else {
            return vec![self.error("the request has a body but no Content-Type", 415)];
        };
        let Some(media) = self.media_for(&essence(content_type)) else {
            return vec![self.error(
                &format!("Content-Type {} is not among the request body's media types", shown(content_type)),
                415,
            )];
        };
        let Some((schema, schema_at)) = &media.schema else { return Vec::new() };
        let form_json;
        let body = match &media.form {
            None => body,
            Some(form) => match form.read(body, cap) {
                Ok(json) => {
                    form_json = json;
                    form_json.as_bytes()
                }
                Err(errors) => {
                    return errors
                        .into_iter()
                        .map(|(instance_location, why)| RequestError { instance_location, ..self.error(&why, 400) })
                        .collect()
                }
            },
        };
        // Positions are in the body only when the body is the JSON checked.
        let located = media.form.is_none();
        match schema.validate_bytes_up_to(body, cap) {
            Ok(failures) => failures
                .into_iter()
                .map(|f| {
                    let (keyword_location, message) = request_failure(schema_at, &f.keyword_location, f.message);
                    RequestError {
                        location: Where::Body,
                        name: String::new(),
                        instance_location: f.instance_location,
                        keyword_location,
                        message,
                        status: 400,
                        position: located.then_some(BodyPosition { byte: f.byte, line: f.line, column: f.column }),
                    }
                })
                .collect(),
            Err(e) if located => vec![RequestError {
                position: Some(BodyPosition { byte: e.offset, line: e.line, column: e.column }),
                ..self.error(&format!("the body is not JSON: {}", e.kind), 400)
            }],
            // Built as JSON; qjson's parser may still refuse a number (out of range).
            Err(e) => vec![self.error(&format!("a form value cannot be read: {}", e.kind), 400)],
        }
    }

    fn media_for(&self, essence: &str) -> Option<&Media> {
        let find = |range: &str| self.media.iter().find(|m| m.range == range);
        find(essence)
            .or_else(|| essence.split_once('/').and_then(|(t, _)| find(&format!("{t}/*"))))
            .or_else(|| find("*/*"))
    }

    fn error(&self, message: &str, status: u16) -> RequestError {
        RequestError {
            location: Where::Body,
            name: String::new(),
            instance_location: String::new(),
            keyword_location: self.at.clone(),
            message: message.to_owned(),
            status,
            position: None,
        }
    }
}

const FORM: &str = "application/x-www-form-urlencoded";

/// `type/subtype` of a media type, lower case, parameters dropped
/// (borrowed when it already is one: most requests' Content-Type).
pub(crate) fn essence(media_type: &str) -> Cow<'_, str> {
    let essence = media_type.split(';').next().unwrap_or_default().trim();
    match essence.bytes().any(|b| b.is_ascii_uppercase()) {
        true => Cow::Owned(essence.to_ascii_lowercase()),
        false => Cow::Borrowed(essence),
    }
}

/// Whether bodies of `range` are JSON: `application/json` or a `+json`
/// structured syntax suffix.
pub(crate) fn is_json(range: &str) -> bool {
    range == "application/json" || range.ends_with("+json")
}
