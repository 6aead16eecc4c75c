//! Compiling a spec (JSON or YAML text) into an `Api`: the version and its schema
//! dialect, the servers' base paths, and every operation of `paths` with
//! its parameters (path-level and operation-level merged) and request
//! body, each schema compiled. Any problem is an error located in the
//! spec; nothing is skipped or left for later.

use std::sync::Arc;

use serde_json::Value;

use super::body::Body;
use super::errors::SpecError;
use super::params::{In, Param};
use super::pointer::{join, resolve};
use super::router::{variables, Router};
use super::schemas::{Dialect, SchemaCompiler};
use super::{Api, ApiOptions, Operation, PathItem};

const METHODS: [&str; 8] = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

pub(crate) fn compile(text: &[u8], opts: &ApiOptions) -> Result<Api, SpecError> {
    let spec = read(text)?;
    let dialect = dialect(&spec)?;
    let mut schemas = SchemaCompiler::new(&spec, dialect, opts.formats);
    let bases = bases(&spec)?;
    let mut router = Router::default();
    let mut paths = Vec::new();
    let items = match spec.get("paths") {
        None => None,
        Some(Value::Object(items)) => Some(items),
        Some(_) => return Err(SpecError::new("/paths", "paths must be an object")),
    };
    for (template, item) in items.into_iter().flatten() {
        let at = join("/paths", template);
        let item = path_item(&spec, template, item, &at, &mut schemas)?;
        router.insert(template, paths.len(), &at)?;
        paths.push(item);
    }
    Ok(Api { router: router.finish(), paths, bases, opts: *opts })
}

/// The spec's text as a value: JSON, or YAML when it does not start with
/// `{` (and the `yaml` feature is built).
fn read(text: &[u8]) -> Result<Value, SpecError> {
    #[cfg(feature = "yaml")]
    if super::yaml::is_yaml(text) {
        return super::yaml::read(text);
    }
    // serde_json refuses nesting deeper than 128: a spec is bounded there.
    serde_json::from_slice(text).map_err(|e| SpecError::new("", format!("the spec is not JSON: {e}")))
}

fn dialect(spec: &Value) -> Result<Dialect, SpecError> {
    let version = spec.get("openapi").and_then(Value::as_str).unwrap_or_default();
    if version.starts_with("3.0.") {
        return Ok(Dialect::OpenApi30);
    }
    if !version.starts_with("3.1.") {
        return Err(SpecError::new(
            "/openapi",
            format!("OpenAPI version {version:?}: only 3.0.x and 3.1.x are supported"),
        ));
    }
    match spec.get("jsonSchemaDialect").map(Value::as_str) {
        None | Some(Some("https://spec.openapis.org/oas/3.1/dialect/base")) => Ok(Dialect::Draft202012),
        _ => Err(SpecError::new("/jsonSchemaDialect", "only OpenAPI 3.1's default schema dialect is supported")),
    }
}

/// The path of each server's URL, longest first, without a trailing '/'
/// ("" for the root); variables take their default.
fn bases(spec: &Value) -> Result<Vec<String>, SpecError> {
    let servers = match spec.get("servers") {
        None => return Ok(vec![String::new()]),
        Some(Value::Array(s)) if s.is_empty() => return Ok(vec![String::new()]),
        Some(Value::Array(s)) => s,
        Some(_) => return Err(SpecError::new("/servers", "servers must be an array")),
    };
    let mut bases = Vec::new();
    for (i, server) in servers.iter().enumerate() {
        let at = format!("/servers/{i}");
        let url =
            server.get("url").and_then(Value::as_str).ok_or_else(|| SpecError::new(&at, "a server needs a url"))?;
        let url = substitute(url, server.get("variables"), &at)?;
        let path = match url.split_once("://") {
            Some((_, rest)) => rest.find('/').map_or("", |i| &rest[i..]),
            None => url.as_str(),
        };
        let path = path.split(['?', '#']).next().unwrap_or_default().trim_end_matches('/');
        let path = if path.is_empty() || path.starts_with('/') { path.to_owned() } else { format!("/{path}") };
        if !bases.contains(&path) {
            bases.push(path);
        }
    }
    bases.sort_by_key(|b| std::cmp::Reverse(b.len()));
    Ok(bases)
}

/// `url` with each `{variable}` replaced by its default.
fn substitute(url: &str, variables: Option<&Value>, at: &str) -> Result<String, SpecError> {
    let mut out = String::new();
    let mut rest = url;
    while let Some(open) = rest.find('{') {
        let close = rest[open..].find('}').ok_or_else(|| SpecError::new(&join(at, "url"), "'{' without '}'"))? + open;
        let name = &rest[open + 1..close];
        let default =
            variables.and_then(|v| v.get(name)).and_then(|v| v.get("default")).and_then(Value::as_str).ok_or_else(
                || SpecError::new(&join(at, "variables"), format!("server variable {name:?} needs a default")),
            )?;
        out.push_str(&rest[..open]);
        out.push_str(default);
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

fn path_item<'s>(
    spec: &'s Value,
    template: &str,
    item: &'s Value,
    at: &str,
    schemas: &mut SchemaCompiler<'s>,
) -> Result<PathItem, SpecError> {
    let (item, at) = resolve(spec, item, at)?;
    let shared = parameters(spec, item, &at, schemas)?;
    let mut operations = Vec::new();
    for method in METHODS {
        let Some(op) = item.get(method) else { continue };
        let op_at = join(&at, method);
        let mut params = parameters(spec, op, &op_at, schemas)?;
        // Path-level parameters apply unless the operation redefines them.
        for p in &shared {
            if !params.iter().any(|q| q.name == p.name && q.location == p.location) {
                params.push(p.clone());
            }
        }
        check_path_params(template, &params, &op_at)?;
        let body = match op.get("requestBody") {
            Some(b) => Some(Body::compile(spec, b, &join(&op_at, "requestBody"), schemas)?),
            None => None,
        };
        let id = match op.get("operationId") {
            None => None,
            Some(Value::String(id)) => Some(id.clone()),
            Some(_) => return Err(SpecError::new(&join(&op_at, "operationId"), "operationId must be a string")),
        };
        let headers = header_names(&params);
        operations.push((method.to_owned(), Operation { id, template: template.to_owned(), params, body, headers }));
    }
    Ok(PathItem { operations, variables: variables(template) })
}

/// The lower-case names of the headers the operation's parameters read,
/// each once: what a binding asks its caller for (`cookie` when a
/// parameter is a cookie).
fn header_names(params: &[Arc<Param>]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for p in params {
        let name = match p.location {
            In::Header => p.header_name.clone(),
            In::Cookie => "cookie".to_owned(),
            _ => continue,
        };
        if !names.contains(&name) {
            names.push(name);
        }
    }
    names
}

fn parameters<'s>(
    spec: &'s Value,
    owner: &'s Value,
    at: &str,
    schemas: &mut SchemaCompiler<'s>,
) -> Result<Vec<std::sync::Arc<Param>>, SpecError> {
    let list = match owner.get("parameters") {
        None => return Ok(Vec::new()),
        Some(Value::Array(list)) => list,
        Some(_) => return Err(SpecError::new(&join(at, "parameters"), "parameters must be an array")),
    };
    let mut params: Vec<std::sync::Arc<Param>> = Vec::new();
    for (i, p) in list.iter().enumerate() {
        let p_at = format!("{}/{i}", join(at, "parameters"));
        let Some(param) = Param::compile(spec, p, &p_at, schemas)? else { continue };
        if params.iter().any(|q| q.name == param.name && q.location == param.location) {
            return Err(SpecError::new(&p_at, format!("parameter {:?} is defined twice", param.name)));
        }
        params.push(std::sync::Arc::new(param));
    }
    Ok(params)
}

/// Each template variable has its path parameter, and each path parameter
/// its variable.
fn check_path_params(template: &str, params: &[std::sync::Arc<Param>], at: &str) -> Result<(), SpecError> {
    let vars = variables(template);
    for v in &vars {
        if !params.iter().any(|p| p.location == In::Path && &p.name == v) {
            return Err(SpecError::new(at, format!("path variable {{{v}}} has no path parameter")));
        }
    }
    for p in params.iter().filter(|p| p.location == In::Path) {
        if !vars.contains(&p.name) {
            return Err(SpecError::new(&p.at, format!("path parameter {:?} is not in the path {template:?}", p.name)));
        }
    }
    Ok(())
}
