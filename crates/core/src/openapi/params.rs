//! Parameters: their definition read from the spec, and their text in a
//! request parsed by `style` and `explode` (OpenAPI 3.1.1's style table,
//! which follows RFC 6570: label arrays are `.3,4,5` unexploded) into the
//! JSON text of the value, coerced strictly (`coerce`) to the schema's
//! types. The schema then validates that text.

use std::borrow::Cow;
use std::sync::Arc;

use serde_json::Value;

use super::body::{essence, is_json};
use super::coerce::coerce;
use super::errors::{shown, SpecError};
use super::pointer::{join, resolve};
use super::query::{decode_path, only, Decode, Query};
use super::schemas::SchemaCompiler;
use super::shape::{shape, Shape};
use crate::schema::Schema;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum In {
    Path,
    Query,
    Header,
    Cookie,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Style {
    Simple,
    Label,
    Matrix,
    Form,
    SpaceDelimited,
    PipeDelimited,
    DeepObject,
}

pub(crate) struct Param {
    pub(crate) name: String,
    /// The name a header parameter is asked for (lower case, made once).
    pub(crate) header_name: String,
    pub(crate) location: In,
    pub(crate) required: bool,
    /// How the parameter's text becomes its JSON value.
    pub(crate) reader: Reader,
    pub(crate) schema: Arc<Schema>,
    /// The spec pointer of the schema compiled (for keyword locations).
    pub(crate) schema_at: String,
    /// The spec pointer of the parameter object.
    pub(crate) at: String,
}

/// How a value's text becomes its JSON text: split by `style` and
/// `explode` and coerced to the shape's types, or, for a parameter with
/// `content: {"application/json": ...}`, taken whole as JSON text. Form
/// bodies read their properties with it too.
pub(crate) struct Reader {
    /// The name looked up (a parameter's, a form property's).
    pub(crate) name: String,
    style: Style,
    explode: bool,
    /// `allowEmptyValue`: an empty query value counts as absent.
    allow_empty: bool,
    shape: Shape,
    /// The value is JSON text (a `content`-encoded parameter).
    json: bool,
}

/// A JSON value of any kind (a JSON media type declared without a schema).
static ANY_JSON: Value = Value::Bool(true);

/// The value of a parameter split by its style, before coercion.
enum Raw<'a> {
    Scalar(Cow<'a, str>),
    Items(Vec<Cow<'a, str>>),
    Pairs(Vec<(Cow<'a, str>, Cow<'a, str>)>),
}

impl Param {
    /// The parameter at `at` (`$ref` followed); `None` for the header
    /// parameters OpenAPI says to ignore (Accept, Content-Type,
    /// Authorization).
    pub(crate) fn compile<'s>(
        spec: &'s Value,
        value: &'s Value,
        at: &str,
        schemas: &mut SchemaCompiler<'s>,
    ) -> Result<Option<Param>, SpecError> {
        let (p, at) = resolve(spec, value, at)?;
        let text = |key: &str| -> Result<Option<&str>, SpecError> {
            match p.get(key) {
                None => Ok(None),
                Some(Value::String(s)) => Ok(Some(s)),
                Some(_) => Err(SpecError::new(&join(&at, key), format!("{key} must be a string"))),
            }
        };
        let flag = |key: &str| -> Result<Option<bool>, SpecError> {
            match p.get(key) {
                None => Ok(None),
                Some(Value::Bool(b)) => Ok(Some(*b)),
                Some(_) => Err(SpecError::new(&join(&at, key), format!("{key} must be a boolean"))),
            }
        };
        let name = text("name")?.ok_or_else(|| SpecError::new(&at, "a parameter needs a name"))?.to_owned();
        let location = match text("in")? {
            Some("path") => In::Path,
            Some("query") => In::Query,
            Some("header") => In::Header,
            Some("cookie") => In::Cookie,
            _ => return Err(SpecError::new(&join(&at, "in"), "in must be path, query, header or cookie")),
        };
        if location == In::Header
            && ["accept", "content-type", "authorization"].contains(&name.to_ascii_lowercase().as_str())
        {
            return Ok(None);
        }
        let required = flag("required")?.unwrap_or(false);
        if location == In::Path && !required {
            return Err(SpecError::new(&join(&at, "required"), "a path parameter must be required: true"));
        }
        let allow_empty = location == In::Query && flag("allowEmptyValue")?.unwrap_or(false);
        let (reader, schema_value, schema_at) = match (p.get("schema"), p.get("content")) {
            (Some(_), Some(_)) => {
                return Err(SpecError::new(&at, "a parameter has a schema or a content, not both"));
            }
            (None, None) => return Err(SpecError::new(&at, "a parameter needs a schema or a content")),
            (Some(schema_value), None) => {
                let style = style(text("style")?, location, &join(&at, "style"))?;
                let schema_at = join(&at, "schema");
                let explode = flag("explode")?;
                let reader = Reader::new(spec, &name, (style, explode, &join(&at, "style")), schema_value, &schema_at)?;
                (Reader { allow_empty, ..reader }, schema_value, schema_at)
            }
            (None, Some(content)) => {
                for key in ["style", "explode"] {
                    if p.get(key).is_some() {
                        return Err(SpecError::new(
                            &join(&at, key),
                            format!("{key} does not apply to a parameter with a content"),
                        ));
                    }
                }
                let (media_type, media_at, media) = one_media_type(content, &join(&at, "content"))?;
                if !is_json(&essence(media_type)) {
                    return Err(SpecError::new(
                        &media_at,
                        format!("parameters encoded as {media_type:?} cannot be validated (JSON media types only)"),
                    ));
                }
                (
                    Reader { allow_empty, ..Reader::whole_json(&name) },
                    media.get("schema").unwrap_or(&ANY_JSON),
                    join(&media_at, "schema"),
                )
            }
        };
        let (schema, schema_at) = schemas.compile(schema_value, &schema_at)?;
        let header_name = if location == In::Header { name.to_ascii_lowercase() } else { String::new() };
        Ok(Some(Param { name, header_name, location, required, reader, schema, schema_at, at }))
    }
}

/// The one entry of a parameter's `content` map: its key, pointer and
/// media type object.
fn one_media_type<'s>(content: &'s Value, at: &str) -> Result<(&'s str, String, &'s Value), SpecError> {
    match content {
        Value::Object(m) if m.len() == 1 => {
            let (key, media) = m.iter().next().expect("one entry");
            Ok((key, join(at, key), media))
        }
        _ => Err(SpecError::new(at, "a parameter's content must be an object of exactly one media type")),
    }
}

impl Reader {
    /// A reader of values serialized by `style` (declared at `style_at`;
    /// `explode` defaults to true for form only) into the shape of
    /// `schema` at `at`; combinations the style table leaves undefined are
    /// refused.
    pub(crate) fn new(
        spec: &Value,
        name: &str,
        (style, explode, style_at): (Style, Option<bool>, &str),
        schema: &Value,
        at: &str,
    ) -> Result<Reader, SpecError> {
        let shape = shape(spec, schema, at)?;
        check_style(style, explode, &shape, style_at)?;
        let explode = explode.unwrap_or(style == Style::Form);
        Ok(Reader { name: name.to_owned(), style, explode, allow_empty: false, shape, json: false })
    }

    /// A reader of values that are JSON text, taken whole.
    pub(crate) fn whole_json(name: &str) -> Reader {
        Reader {
            name: name.to_owned(),
            style: Style::Simple,
            explode: false,
            allow_empty: false,
            shape: Shape::Scalar(super::shape::Types::ANY),
            json: true,
        }
    }

    /// Whether the values read are JSON text taken whole.
    pub(crate) fn takes_json(&self) -> bool {
        self.json
    }

    /// Whether `name`, a name in a list, is one this reads: its own, or
    /// `name[key]` for deepObject.
    pub(crate) fn reads(&self, name: &str) -> bool {
        match name.strip_prefix(self.name.as_str()) {
            Some("") => true,
            Some(rest) => self.style == Style::DeepObject && rest.starts_with('[') && rest.ends_with(']'),
            None => false,
        }
    }

    /// Whether this reads an object's members from names of their own
    /// (form style, exploded).
    pub(crate) fn spreads_object(&self) -> bool {
        self.style == Style::Form && self.explode && matches!(self.shape, Shape::Object { .. })
    }

    /// The JSON text of a path parameter from its raw (percent-encoded)
    /// text in the path.
    pub(crate) fn read_path(&self, raw: &str) -> Result<String, String> {
        if self.json {
            return Ok(decode_path(raw)?.into_owned());
        }
        let raw = match self.style {
            Style::Simple => self.simple(raw, decode_path)?,
            Style::Label => {
                let body = raw.strip_prefix('.').ok_or("a label-style value starts with '.'")?;
                let sep = if self.explode { '.' } else { ',' };
                self.split(body, sep, decode_path)?
            }
            _ => self.matrix(raw)?,
        };
        self.json(raw)
    }

    /// The JSON text of a header parameter (not percent-decoded).
    pub(crate) fn read_header(&self, raw: &[u8]) -> Result<String, String> {
        let raw = std::str::from_utf8(raw).map_err(|_| "header value is not UTF-8".to_owned())?;
        if self.json {
            return Ok(raw.to_owned());
        }
        let raw = self.simple(raw, field_item)?;
        self.json(raw)
    }

    /// The JSON text of a query or cookie parameter or of a form body's
    /// property, `None` when absent.
    pub(crate) fn read_query(&self, query: &Query<'_>) -> Result<Option<String>, String> {
        let decode = query.decode;
        if self.json {
            return Ok(self.single(query, &self.name)?.map(decode).transpose()?.map(Cow::into_owned));
        }
        let raw = match (self.style, self.explode, &self.shape) {
            (Style::DeepObject, ..) => self.deep_object(query)?,
            (_, true, Shape::Array(_)) => {
                let items = query.values(&self.name).map(decode).collect::<Result<Vec<_>, _>>()?;
                (!items.is_empty()).then_some(Raw::Items(items))
            }
            (Style::Form, true, Shape::Object { properties, .. }) => {
                let mut pairs = Vec::new();
                for (p, _) in properties {
                    if let Some(v) = self.single(query, p)? {
                        pairs.push((Cow::Owned(p.clone()), decode(v)?));
                    }
                }
                (!pairs.is_empty()).then_some(Raw::Pairs(pairs))
            }
            (style, ..) => match self.single(query, &self.name)? {
                None => None,
                Some(v) => Some(match style {
                    Style::SpaceDelimited => self.delimited(v, &["%20", "+", " "], decode)?,
                    Style::PipeDelimited => self.delimited(v, &["|", "%7C", "%7c"], decode)?,
                    _ => self.split(v, ',', decode)?,
                }),
            },
        };
        raw.map(|r| self.json(r)).transpose()
    }

    /// The one value of `name` (`only`), `None` when absent or empty where
    /// `allowEmptyValue` says so.
    fn single<'q>(&self, query: &Query<'q>, name: &str) -> Result<Option<&'q str>, String> {
        match only(query.values(name), name)? {
            Some("") if self.allow_empty => Ok(None),
            v => Ok(v),
        }
    }

    fn simple<'a>(&self, raw: &'a str, decode: Decode) -> Result<Raw<'a>, String> {
        match (&self.shape, self.explode) {
            (Shape::Object { .. }, true) => pairs_of(raw.split(','), decode),
            _ => self.split(raw, ',', decode),
        }
    }

    /// `raw` as the shape asks: whole, items at `sep`, or alternating keys
    /// and values at `sep` (or `key=value` items when exploded).
    fn split<'a>(&self, raw: &'a str, sep: char, decode: Decode) -> Result<Raw<'a>, String> {
        match (&self.shape, self.explode && sep != ',') {
            (Shape::Scalar(_), _) => Ok(Raw::Scalar(decode(raw)?)),
            (Shape::Array(_), _) => Ok(Raw::Items(pieces(raw, sep).map(decode).collect::<Result<_, _>>()?)),
            (Shape::Object { .. }, true) => pairs_of(pieces(raw, sep), decode),
            (Shape::Object { .. }, false) => alternating(pieces(raw, sep).collect(), decode),
        }
    }

    /// Space- and pipe-delimited values: the delimiter in any of its forms
    /// (a value cannot hold it, encoded or not).
    fn delimited<'a>(&self, raw: &'a str, forms: &[&str], decode: Decode) -> Result<Raw<'a>, String> {
        let mut items = vec![raw];
        for form in forms {
            items = items.into_iter().flat_map(|i| i.split(form)).collect();
        }
        match &self.shape {
            Shape::Object { .. } => alternating(items, decode),
            _ => Ok(Raw::Items(items.into_iter().map(decode).collect::<Result<_, _>>()?)),
        }
    }

    fn matrix<'a>(&self, raw: &'a str) -> Result<Raw<'a>, String> {
        let body = raw.strip_prefix(';').ok_or("a matrix-style value starts with ';'")?;
        let named = |piece: &'a str| -> Result<&'a str, String> {
            let (n, v) = piece.split_once('=').unwrap_or((piece, ""));
            if decode_path(n)? != self.name {
                return Err(format!("matrix-style value names {}, not {:?}", shown(n), self.name));
            }
            Ok(v)
        };
        match (&self.shape, self.explode) {
            (Shape::Array(_), true) => {
                Ok(Raw::Items(body.split(';').map(|p| decode_path(named(p)?)).collect::<Result<_, _>>()?))
            }
            (Shape::Object { .. }, true) => pairs_of(body.split(';'), decode_path),
            _ => self.split(named(body)?, ',', decode_path),
        }
    }

    fn deep_object<'q>(&self, query: &'q Query<'_>) -> Result<Option<Raw<'q>>, String> {
        let mut pairs = Vec::new();
        for (key, values) in query.bracketed(&self.name) {
            if key.contains('[') || key.contains(']') {
                return Err(format!("{}[{key}]: nested deepObject keys are not defined by OpenAPI", self.name));
            }
            // (A key listed has a value.)
            if let Some(v) = only(values, format_args!("{}[{key}]", self.name))? {
                pairs.push((Cow::Borrowed(key), (query.decode)(v)?));
            }
        }
        Ok((!pairs.is_empty()).then_some(Raw::Pairs(pairs)))
    }

    /// The JSON text of a split value, each scalar coerced to its types.
    fn json(&self, raw: Raw<'_>) -> Result<String, String> {
        match (raw, &self.shape) {
            (Raw::Scalar(s), Shape::Scalar(t)) => coerce(&s, *t),
            (Raw::Items(items), Shape::Array(t)) => {
                let items = items.iter().map(|i| coerce(i, *t)).collect::<Result<Vec<_>, _>>()?;
                Ok(format!("[{}]", items.join(",")))
            }
            (Raw::Pairs(pairs), Shape::Object { properties, others }) => {
                let mut members = Vec::with_capacity(pairs.len());
                let mut keys = std::collections::HashSet::new();
                for (k, v) in &pairs {
                    if !keys.insert(k.as_ref()) {
                        return Err(format!("property {} is given twice", shown(k)));
                    }
                    let types = properties.iter().find(|(p, _)| p == k).map_or(*others, |(_, t)| *t);
                    members.push(format!(
                        "{}:{}",
                        serde_json::to_string(k.as_ref()).expect("a string"),
                        coerce(v, types)?
                    ));
                }
                Ok(format!("{{{}}}", members.join(",")))
            }
            _ => unreachable!("values are split by their shape"),
        }
    }
}

/// Pieces of `raw` at `sep`; none for an empty `raw` (an empty list).
fn pieces(raw: &str, sep: char) -> impl Iterator<Item = &str> {
    raw.split(sep).filter(move |_| !raw.is_empty())
}

/// A header value's item without the blanks HTTP allows around a list's
/// commas (RFC 9110 5.6.1): a repeated header joined with ", " reads as
/// the one value sent as a list.
fn field_item(raw: &str) -> Result<Cow<'_, str>, String> {
    Ok(Cow::Borrowed(raw.trim_matches([' ', '\t'])))
}

fn pairs_of<'a>(items: impl Iterator<Item = &'a str>, decode: Decode) -> Result<Raw<'a>, String> {
    let mut pairs = Vec::new();
    for item in items.filter(|i| !i.is_empty()) {
        let (k, v) = item.split_once('=').ok_or_else(|| format!("{} is not key=value", shown(item)))?;
        pairs.push((decode(k)?, decode(v)?));
    }
    Ok(Raw::Pairs(pairs))
}

fn alternating<'a>(items: Vec<&'a str>, decode: Decode) -> Result<Raw<'a>, String> {
    if !items.len().is_multiple_of(2) {
        return Err("an object's keys and values come in pairs; one is missing".into());
    }
    let pairs = items.chunks(2).map(|kv| Ok((decode(kv[0])?, decode(kv[1])?))).collect::<Result<_, String>>()?;
    Ok(Raw::Pairs(pairs))
}

pub(crate) fn style(name: Option<&str>, location: In, at: &str) -> Result<Style, SpecError> {
    let style = match (name, location) {
        (None, In::Query | In::Cookie) => Style::Form,
        (None, _) => Style::Simple,
        (Some("simple"), In::Path | In::Header) => Style::Simple,
        (Some("label"), In::Path) => Style::Label,
        (Some("matrix"), In::Path) => Style::Matrix,
        (Some("form"), In::Query | In::Cookie) => Style::Form,
        (Some("spaceDelimited"), In::Query) => Style::SpaceDelimited,
        (Some("pipeDelimited"), In::Query) => Style::PipeDelimited,
        (Some("deepObject"), In::Query) => Style::DeepObject,
        (Some(s), _) => {
            return Err(SpecError::new(at, format!("style {s:?} is not defined for this parameter's location")))
        }
    };
    Ok(style)
}

/// The style/shape combinations OpenAPI's style table leaves undefined.
fn check_style(style: Style, explode: Option<bool>, shape: &Shape, at: &str) -> Result<(), SpecError> {
    let scalar = matches!(shape, Shape::Scalar(_));
    let object = matches!(shape, Shape::Object { .. });
    let why = match style {
        Style::SpaceDelimited | Style::PipeDelimited if scalar => "applies to arrays and objects",
        Style::SpaceDelimited | Style::PipeDelimited if object && explode == Some(true) => {
            "is not defined for exploded objects"
        }
        Style::DeepObject if !object => "applies to objects",
        Style::DeepObject if explode == Some(false) => "is not defined with explode: false",
        _ => return Ok(()),
    };
    Err(SpecError::new(at, format!("style {style:?} {why}")))
}
