//! One request against the compiled spec: route, then path, query and
//! header parameters, then the body, collecting errors up to the cap.

use super::coerce::parses_as_is;
use super::errors::{shown, RequestError, Where};
use super::params::{In, Param};
use super::query::Query;
use super::schemas::request_failure;
use super::{Api, Matched, Operation, PathItem, Request};

pub(crate) fn request<'a>(api: &'a Api, req: &Request<'_>) -> Result<Matched<'a>, Vec<RequestError>> {
    let (item, op, values) = route(api, req.method, req.path)?;
    let cap = api.opts.max_errors;
    let mut errors = Vec::new();
    let mut path_params = Vec::new();
    for (name, raw) in item.variables.iter().zip(&values) {
        let param = op.params.iter().find(|p| p.location == In::Path && &p.name == name).expect("checked at compile");
        match param.reader.read_path(raw) {
            Ok(json) => {
                check(param, Where::Path, &json, &mut errors, cap);
                path_params.push((name.as_str(), json));
            }
            Err(why) => errors.push(param_error(param, Where::Path, why)),
        }
        if errors.len() >= cap {
            return Err(capped(errors, cap));
        }
    }
    let query = match Query::parse(req.query.unwrap_or_default()) {
        Ok(q) => q,
        Err(why) => {
            errors.push(list_error(Where::Query, why));
            return Err(capped(errors, cap));
        }
    };
    // The Cookie header is read only by an operation with cookie
    // parameters (the one header name it then lists in `header_names`).
    let cookie_header = match op.params.iter().any(|p| p.location == In::Cookie) {
        true => (req.headers)("cookie"),
        false => None,
    };
    let cookies = match std::str::from_utf8(cookie_header.unwrap_or_default())
        .map_err(|_| "the Cookie header is not UTF-8".to_owned())
        .and_then(Query::cookies)
    {
        Ok(c) => c,
        Err(why) => {
            errors.push(list_error(Where::Cookie, why));
            return Err(capped(errors, cap));
        }
    };
    for param in op.params.iter().filter(|p| p.location != In::Path) {
        let (location, value) = match param.location {
            In::Query => (Where::Query, param.reader.read_query(&query)),
            In::Cookie => (Where::Cookie, param.reader.read_query(&cookies)),
            _ => (Where::Header, (req.headers)(&param.header_name).map(|v| param.reader.read_header(v)).transpose()),
        };
        match value {
            Ok(Some(json)) => check(param, location, &json, &mut errors, cap),
            Ok(None) if param.required => errors.push(param_error(param, location, "is required".into())),
            Ok(None) => {}
            Err(why) => errors.push(param_error(param, location, why)),
        }
        if errors.len() >= cap {
            return Err(capped(errors, cap));
        }
    }
    if let Some(body) = &op.body {
        errors.extend(body.check(req.body, req.content_type, cap - errors.len()));
    }
    if !errors.is_empty() {
        return Err(capped(errors, cap));
    }
    Ok(Matched { operation_id: op.id.as_deref(), template: &op.template, path_params })
}

/// The path item and operation of the request and its template's raw
/// variable values; 404 when no path matches, 405 when a path does but
/// not with this method. A route with the method is preferred over one
/// without (`/pets/mine` GET only and `/pets/{id}` DELETE: DELETE
/// /pets/mine is the second).
pub(crate) fn route<'a, 'p>(
    api: &'a Api,
    method: &str,
    path: &'p str,
) -> Result<(&'a PathItem, &'a Operation, Vec<&'p str>), Vec<RequestError>> {
    let mut found = None;
    let mut any_path = false;
    for base in &api.bases {
        let Some(rest) = path.strip_prefix(base.as_str()) else { continue };
        let rest = match rest {
            "" => "/",
            r if r.starts_with('/') => r,
            _ => continue,
        };
        any_path |= api.router.find(rest, &mut |route| {
            let item = &api.paths[route.target];
            // (The spec's methods are lower case.)
            match item.operations.iter().find(|(m, _)| m.eq_ignore_ascii_case(method)) {
                Some((_, op)) => {
                    found = Some((item, op, route.values.to_vec()));
                    true
                }
                None => false,
            }
        });
        if found.is_some() {
            break;
        }
    }
    match found {
        Some(f) => Ok(f),
        None => {
            let (status, message) = if any_path {
                (405, format!("method {method} is not allowed on this path"))
            } else {
                (404, format!("no path of the spec matches {}", shown(path)))
            };
            Err(vec![RequestError {
                location: Where::Route,
                name: String::new(),
                instance_location: String::new(),
                keyword_location: String::new(),
                message,
                status,
                position: None,
            }])
        }
    }
}

/// Validates a parameter's JSON text with its schema. The text is parsed
/// again by the validator (one mechanism for every value), unless it is a
/// scalar coerced here, which the parse would take as it is.
fn check(param: &Param, location: Where, json: &str, errors: &mut Vec<RequestError>, cap: usize) {
    let cap = cap - errors.len();
    // A scalar coerced here needs no parse (most parameters are one).
    let checked = if !param.reader.takes_json() && parses_as_is(json) {
        Ok(param.schema.validate_scalar_up_to(json.as_bytes(), cap))
    } else {
        param.schema.validate_bytes_up_to(json.as_bytes(), cap)
    };
    match checked {
        Ok(failures) => errors.extend(failures.into_iter().map(|f| {
            let (keyword_location, message) = request_failure(&param.schema_at, &f.keyword_location, f.message);
            RequestError {
                location,
                name: param.name.clone(),
                instance_location: f.instance_location,
                keyword_location,
                message,
                status: 400,
                position: None,
            }
        })),
        // A content-encoded value that is not JSON, or a coerced one qjson's
        // parser still refuses (a number out of range).
        Err(e) => errors.push(param_error(param, location, format!("is not JSON: {} at byte {}", e.kind, e.offset))),
    }
}

/// An error about a whole list (the query, the Cookie header).
fn list_error(location: Where, why: String) -> RequestError {
    RequestError {
        location,
        name: String::new(),
        instance_location: String::new(),
        keyword_location: String::new(),
        message: why,
        status: 400,
        position: None,
    }
}

fn param_error(param: &Param, location: Where, why: String) -> RequestError {
    RequestError {
        location,
        name: param.name.clone(),
        instance_location: String::new(),
        keyword_location: param.at.clone(),
        message: why,
        status: 400,
        position: None,
    }
}

fn capped(mut errors: Vec<RequestError>, cap: usize) -> Vec<RequestError> {
    errors.truncate(cap);
    errors
}
