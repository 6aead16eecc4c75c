//! `application/x-www-form-urlencoded` request bodies: the body split as
//! a query string is (`query::Query`, one mechanism), each property of the
//! body's object schema read as a query parameter of `form` style (or the
//! style its `encoding` entry gives) and coerced to its schema's types,
//! into the JSON text of an object that the body's schema then validates.
//! A property whose encoding `contentType` is JSON is JSON text, and so is
//! an object property with no encoding (the Encoding Object's default
//! contentType for objects is application/json).

use serde_json::Value;

use super::body::{essence, is_json};
use super::coerce::coerce;
use super::errors::SpecError;
use super::params::{style, In, Reader};
use super::pointer::{escape, join, resolve};
use super::query::{only, Query};
use super::shape::{scalar, type_names, Types};

pub(crate) struct Form {
    /// Each declared property's reader.
    properties: Vec<Reader>,
    /// The types of the properties not declared (`additionalProperties`).
    others: Types,
}

/// A problem reading a form body: the instance location (a property's
/// pointer, or empty) and what is wrong.
pub(crate) type FormError = (String, String);

impl Form {
    /// The form reading of `schema` (at `at`), with the media type's
    /// `encoding` object (at `encoding_at`), if any.
    pub(crate) fn compile(
        spec: &Value,
        schema: &Value,
        at: &str,
        encoding: Option<&Value>,
        encoding_at: &str,
    ) -> Result<Form, SpecError> {
        let (schema, at) = resolve(spec, schema, at)?;
        if type_names(schema, &at)? != ["object"] {
            return Err(SpecError::new(&at, "the schema of a form body must be of type object"));
        }
        let encoding = match encoding {
            None => None,
            Some(Value::Object(e)) => Some(e),
            Some(_) => return Err(SpecError::new(encoding_at, "encoding must be an object")),
        };
        let declared = match schema.get("properties") {
            None => None,
            Some(Value::Object(p)) => Some(p),
            Some(_) => return Err(SpecError::new(&join(&at, "properties"), "properties must be an object")),
        };
        for name in encoding.into_iter().flat_map(|e| e.keys()) {
            if !declared.is_some_and(|d| d.contains_key(name)) {
                return Err(SpecError::new(
                    &join(encoding_at, name),
                    format!("encoding names {name:?}, which is not a property of the schema"),
                ));
            }
        }
        let mut properties = Vec::new();
        for (name, property) in declared.into_iter().flatten() {
            let property_at = join(&join(&at, "properties"), name);
            let entry_at = join(encoding_at, name);
            let entry = encoding.and_then(|e| e.get(name));
            let text = |key: &str| -> Result<Option<&str>, SpecError> {
                match entry.and_then(|e| e.get(key)) {
                    None => Ok(None),
                    Some(Value::String(s)) => Ok(Some(s)),
                    Some(_) => Err(SpecError::new(&join(&entry_at, key), format!("{key} must be a string"))),
                }
            };
            let styled = entry.is_some_and(|e| e.get("style").is_some() || e.get("explode").is_some());
            let reader = match text("contentType")? {
                Some(_) if styled => {
                    return Err(SpecError::new(
                        &entry_at,
                        "give a form property contentType or style/explode, not both",
                    ))
                }
                Some(t) if is_json(&essence(t)) => Reader::whole_json(name),
                Some(t) => {
                    return Err(SpecError::new(
                        &join(&entry_at, "contentType"),
                        format!("form properties of contentType {t:?} cannot be validated (JSON media types only)"),
                    ))
                }
                None => {
                    let style = style(text("style")?, In::Query, &join(&entry_at, "style"))?;
                    let explode = match entry.and_then(|e| e.get("explode")) {
                        None => None,
                        Some(Value::Bool(b)) => Some(*b),
                        Some(_) => {
                            return Err(SpecError::new(&join(&entry_at, "explode"), "explode must be a boolean"))
                        }
                    };
                    let reader =
                        Reader::new(spec, name, (style, explode, &join(&entry_at, "style")), property, &property_at)?;
                    match (reader.spreads_object(), styled) {
                        (false, _) => reader,
                        // The Encoding Object's default contentType of an object.
                        (true, false) => Reader::whole_json(name),
                        (true, true) => {
                            return Err(SpecError::new(
                                &entry_at,
                                "an object property of a form body cannot be exploded in form style: its members \
                                 would be the body's own (use explode: false, deepObject or contentType application/json)",
                            ))
                        }
                    }
                }
            };
            properties.push(reader);
        }
        let others = match schema.get("additionalProperties") {
            Some(s @ Value::Object(_)) => scalar(spec, s, &join(&at, "additionalProperties"))?,
            _ => Types::ANY,
        };
        Ok(Form { properties, others })
    }

    /// The JSON text of the object `body` holds, or its problems (at most
    /// `cap`).
    pub(crate) fn read(&self, body: &[u8], cap: usize) -> Result<String, Vec<FormError>> {
        let whole = |why: String| vec![(String::new(), why)];
        let text = std::str::from_utf8(body).map_err(|_| whole("the form body is not UTF-8".into()))?;
        let list = Query::parse(text).map_err(whole)?;
        let mut members = Vec::new();
        let mut errors = Vec::new();
        for reader in &self.properties {
            match reader.read_query(&list) {
                // JSON text goes into the object as it is: it must be one
                // JSON value, or `1,"b":2` would add members of its own.
                Ok(Some(json)) if reader.takes_json() => match one_json_value(&json) {
                    Ok(()) => members.push((reader.name.as_str(), json)),
                    Err(why) => errors.push((format!("/{}", escape(&reader.name)), why)),
                },
                Ok(Some(json)) => members.push((reader.name.as_str(), json)),
                Ok(None) => {}
                Err(why) => errors.push((format!("/{}", escape(&reader.name)), why)),
            }
        }
        // Undeclared names, in order (`names` is sorted): one value each,
        // coerced to the types `additionalProperties` allows.
        let others = list.names().filter(|(n, _)| !self.properties.iter().any(|r| r.reads(n)));
        for (name, values) in others {
            if errors.len() >= cap {
                break;
            }
            // (A name listed has a value.)
            let value = only(values, name)
                .and_then(|v| (list.decode)(v.unwrap_or_default()))
                .and_then(|v| coerce(&v, self.others));
            match value {
                Ok(json) => members.push((name, json)),
                Err(why) => errors.push((format!("/{}", escape(name)), why)),
            }
        }
        if !errors.is_empty() {
            errors.truncate(cap);
            return Err(errors);
        }
        let members: Vec<String> = members
            .iter()
            .map(|(name, json)| format!("{}:{json}", serde_json::to_string(name).expect("a string")))
            .collect();
        Ok(format!("{{{}}}", members.join(",")))
    }
}

/// Whether `text` is one JSON value, by qjson's strict parse.
fn one_json_value(text: &str) -> Result<(), String> {
    crate::Document::parse_then(text.as_bytes(), &crate::Options::default(), |_| ())
        .map_err(|e| format!("is not JSON: {} at byte {}", e.kind, e.offset))
}
