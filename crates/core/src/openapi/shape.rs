//! What a parameter's schema says its value is, read once at compile
//! time: a scalar, an array of scalars or an object of scalars, and which
//! JSON types each scalar may take. Parsing a parameter needs this (is
//! `3,4,5` one string or three integers?); the schema then checks the
//! value built.

use serde_json::Value;

use super::errors::SpecError;
use super::pointer::{join, resolve};

/// The JSON types a scalar may be coerced to (bits).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Types(pub(crate) u8);

impl Types {
    pub(crate) const INTEGER: u8 = 1;
    pub(crate) const NUMBER: u8 = 2;
    pub(crate) const BOOLEAN: u8 = 4;
    pub(crate) const STRING: u8 = 8;
    /// A schema without `type`: every value is read as a string.
    pub(crate) const ANY: Types = Types(Types::STRING);

    pub(crate) fn has(self, bit: u8) -> bool {
        self.0 & bit != 0
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Shape {
    Scalar(Types),
    Array(Types),
    /// Declared properties with their types, and the types of others.
    Object {
        properties: Vec<(String, Types)>,
        others: Types,
    },
}

/// The shape of the schema `schema` at `at`.
pub(crate) fn shape(spec: &Value, schema: &Value, at: &str) -> Result<Shape, SpecError> {
    let (schema, at) = resolve(spec, schema, at)?;
    let names = type_names(schema, &at)?;
    let container = |n: &str| names.iter().any(|t| t == n);
    if (container("array") || container("object")) && names.len() > 1 {
        return Err(SpecError::new(
            &join(&at, "type"),
            "a parameter's type may not mix arrays or objects with other types: its text could not be parsed one way",
        ));
    }
    if container("array") {
        return Ok(Shape::Array(match schema.get("items") {
            Some(items) => scalar(spec, items, &join(&at, "items"))?,
            None => Types::ANY,
        }));
    }
    if container("object") {
        let mut properties = Vec::new();
        if let Some(Value::Object(props)) = schema.get("properties") {
            for (name, s) in props {
                properties.push((name.clone(), scalar(spec, s, &join(&join(&at, "properties"), name))?));
            }
        }
        let others = match schema.get("additionalProperties") {
            Some(s @ Value::Object(_)) => scalar(spec, s, &join(&at, "additionalProperties"))?,
            _ => Types::ANY,
        };
        return Ok(Shape::Object { properties, others });
    }
    Ok(Shape::Scalar(types(&names)))
}

/// The types of a scalar schema (an array's items, an object's property).
pub(crate) fn scalar(spec: &Value, schema: &Value, at: &str) -> Result<Types, SpecError> {
    let (schema, at) = resolve(spec, schema, at)?;
    let names = type_names(schema, &at)?;
    if names.iter().any(|t| t == "array" || t == "object") {
        return Err(SpecError::new(&join(&at, "type"), "nested arrays and objects cannot be given in a parameter"));
    }
    Ok(types(&names))
}

pub(crate) fn type_names(schema: &Value, at: &str) -> Result<Vec<String>, SpecError> {
    match schema.get("type") {
        None => Ok(Vec::new()),
        Some(Value::String(t)) => Ok(vec![t.clone()]),
        Some(Value::Array(ts)) => ts
            .iter()
            .map(|t| {
                t.as_str().map(str::to_owned).ok_or_else(|| SpecError::new(&join(at, "type"), "type must hold strings"))
            })
            .collect(),
        Some(_) => Err(SpecError::new(&join(at, "type"), "type must be a string or an array of strings")),
    }
}

fn types(names: &[String]) -> Types {
    if names.is_empty() {
        return Types::ANY;
    }
    let mut bits = 0;
    for n in names {
        bits |= match n.as_str() {
            "integer" => Types::INTEGER,
            "number" => Types::NUMBER,
            "boolean" => Types::BOOLEAN,
            "string" => Types::STRING,
            // `null` has no text of its own in a parameter; the schema
            // refuses an unknown type name.
            _ => 0,
        };
    }
    Types(bits)
}
