//! OpenAPI request validation: the founding scenario of issue 42, routing,
//! every parameter style with the OpenAPI 3.1.1 style table's examples,
//! strict coercion, and specs refused.
#![cfg(feature = "openapi")]

use qjson_core::openapi::{Api, ApiOptions, Matched, Request, RequestError, Where};
use serde_json::json;

fn api(spec: serde_json::Value) -> Api {
    Api::compile(spec.to_string().as_bytes(), &ApiOptions::default()).unwrap_or_else(|e| panic!("{e}"))
}

fn no_headers<'a>(_: &str) -> Option<&'a [u8]> {
    None
}

fn get<'a>(api: &'a Api, path: &'a str, query: &'a str) -> Result<Matched<'a>, Vec<RequestError>> {
    api.validate_request(&Request {
        method: "GET",
        path,
        query: Some(query),
        headers: &no_headers,
        body: None,
        content_type: None,
    })
}

// --- The founding scenario ---------------------------------------------

fn users_spec() -> serde_json::Value {
    json!({
        "openapi": "3.0.3",
        "info": {"title": "users", "version": "1"},
        "paths": {"/users/{userId}": {"post": {
            "operationId": "updateUser",
            "parameters": [
                {"name": "userId", "in": "path", "required": true, "schema": {"type": "integer", "minimum": 1}},
                {"name": "limit", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": 100}},
                {"name": "X-Request-Id", "in": "header", "required": true, "schema": {"type": "string"}}
            ],
            "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/User"}}}}
        }}},
        "components": {"schemas": {"User": {
            "type": "object",
            "required": ["name", "age"],
            "properties": {
                "name": {"type": "string", "minLength": 1},
                "age": {"type": "integer", "minimum": 0},
                "score": {"type": "number"},
                "active": {"type": "boolean"},
                "tags": {"type": "array", "items": {"type": "string"}},
                "address": {"type": "object", "properties": {"city": {"type": "string"}, "zip": {"type": "string"}}, "required": ["city"]},
                "meta": {"type": "object", "additionalProperties": {"type": "string"}},
                "role": {"type": "string", "enum": ["admin", "user", "guest"]},
                "email": {"type": "string", "pattern": "^[^@]+@[^@]+$"},
                "nickname": {"type": "string", "nullable": true}
            }
        }}}
    })
}

const BODY: &str = r#"{"name":"Alice Example-Longname","age":30,"score":97.5,"active":true,"tags":["alpha","beta","gamma","delta"],"address":{"city":"Paris","zip":"75001","street":"10 rue de Rivoli"},"meta":{"source":"web","campaign":"spring-sale"},"role":"admin","email":"alice@example.com","nickname":null}"#;

fn post_user<'a>(
    api: &'a Api,
    path: &'a str,
    query: &'a str,
    request_id: Option<&'static [u8]>,
    body: Option<&'a str>,
    content_type: &'a str,
) -> Result<Matched<'a>, Vec<RequestError>> {
    let headers = move |name: &str| if name == "x-request-id" { request_id } else { None };
    api.validate_request(&Request {
        method: "POST",
        path,
        query: Some(query),
        headers: &headers,
        body: body.map(str::as_bytes),
        content_type: Some(content_type),
    })
}

fn one_error(r: Result<Matched<'_>, Vec<RequestError>>) -> RequestError {
    let errors = r.expect_err("the request is invalid");
    assert_eq!(errors.len(), 1, "{errors:?}");
    errors.into_iter().next().unwrap()
}

#[test]
fn founding_scenario_valid() {
    let api = api(users_spec());
    assert!(BODY.len() >= 250 && BODY.len() <= 350, "{}", BODY.len());
    let m = post_user(&api, "/users/42", "limit=10", Some(b"req-1"), Some(BODY), "application/json").unwrap();
    assert_eq!(m.operation_id, Some("updateUser"));
    assert_eq!(m.template, "/users/{userId}");
    assert_eq!(m.path_params, vec![("userId", "42".to_owned())]);
    // A +json media type with parameters is the same media type's body.
    let e = one_error(post_user(&api, "/users/42", "limit=10", Some(b"r"), Some(BODY), "text/plain"));
    assert_eq!(e.status, 415);
}

#[test]
fn founding_scenario_each_invalid_kind() {
    let api = api(users_spec());
    let e = one_error(post_user(&api, "/users/0", "limit=10", Some(b"r"), Some(BODY), "application/json"));
    assert_eq!((e.location, e.name.as_str(), e.status), (Where::Path, "userId", 400));
    assert!(e.keyword_location.ends_with("/schema/minimum"), "{}", e.keyword_location);

    let e = one_error(post_user(&api, "/users/abc", "limit=10", Some(b"r"), Some(BODY), "application/json"));
    assert_eq!((e.location, e.name.as_str()), (Where::Path, "userId"));

    let e = one_error(post_user(&api, "/users/42", "limit=101", Some(b"r"), Some(BODY), "application/json"));
    assert_eq!((e.location, e.name.as_str()), (Where::Query, "limit"));
    assert!(e.keyword_location.ends_with("/schema/maximum"), "{}", e.keyword_location);

    let e = one_error(post_user(&api, "/users/42", "limit=10", None, Some(BODY), "application/json"));
    assert_eq!((e.location, e.name.as_str(), e.message.as_str()), (Where::Header, "X-Request-Id", "is required"));

    let e = one_error(post_user(&api, "/users/42", "limit=10", Some(b"r"), None, "application/json"));
    assert_eq!((e.location, e.status), (Where::Body, 400));

    let e = one_error(post_user(&api, "/users/42", "limit=10", Some(b"r"), Some(BODY), "application/xml"));
    assert_eq!((e.location, e.status), (Where::Body, 415));

    let not_json = "{\"name\": \"a\",\n \"age\": }";
    let e = one_error(post_user(&api, "/users/42", "", Some(b"r"), Some(not_json), "application/json"));
    let p = e.position.expect("located");
    assert_eq!((p.line, p.column), (2, 9), "{e:?}");

    for (field, bad, keyword) in [
        ("name", r#""name":"""#, "minLength"),
        ("age", r#""age":30.5"#, "type"),
        ("score", r#""score":"high""#, "type"),
        ("active", r#""active":"true""#, "type"),
        ("tags", r#""tags":["a",1,"c"]"#, "type"),
        ("address", r#""address":{"zip":"75001"}"#, "required"),
        ("meta", r#""meta":{"source":1}"#, "type"),
        ("role", r#""role":"root""#, "enum"),
        ("email", r#""email":"nobody""#, "pattern"),
    ] {
        let start = BODY.find(&format!("\"{field}\":")).unwrap();
        let end = start + BODY[start..].find(&*next_member_end(&BODY[start..])).unwrap();
        let body = format!("{}{}{}", &BODY[..start], bad, &BODY[end..]);
        let e = one_error(post_user(&api, "/users/42", "limit=10", Some(b"r"), Some(&body), "application/json"));
        assert_eq!((e.location, e.status), (Where::Body, 400), "{field}");
        assert!(e.keyword_location.ends_with(keyword), "{field}: {}", e.keyword_location);
        // The body's schema is a $ref: keywords are located in the component.
        assert!(
            e.keyword_location.starts_with(&format!("/components/schemas/User/properties/{field}/")),
            "{}",
            e.keyword_location
        );
        assert!(e.instance_location.starts_with(&format!("/{field}")), "{field}: {}", e.instance_location);
        assert!(e.position.is_some());
    }
}

/// The text of the member starting `s` up to (not including) the ',' or
/// '}' that ends it at depth 0.
fn next_member_end(s: &str) -> String {
    let mut depth = 0;
    for (i, c) in s.char_indices() {
        match c {
            '{' | '[' => depth += 1,
            '}' | ']' if depth == 0 => return s[i..].to_owned(),
            '}' | ']' => depth -= 1,
            ',' if depth == 0 => return s[i..].to_owned(),
            _ => {}
        }
    }
    String::new()
}

#[test]
fn all_errors_or_the_first() {
    let spec = users_spec();
    let all = api(spec.clone());
    let errors =
        post_user(&all, "/users/0", "limit=0", None, Some(r#"{"name":"","age":-1}"#), "application/json").unwrap_err();
    let places: Vec<Where> = errors.iter().map(|e| e.location).collect();
    assert_eq!(places, [Where::Path, Where::Query, Where::Header, Where::Body, Where::Body], "{errors:?}");
    let first = Api::compile(spec.to_string().as_bytes(), &ApiOptions { max_errors: 1, ..Default::default() }).unwrap();
    let errors = post_user(&first, "/users/0", "limit=0", None, None, "application/json").unwrap_err();
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].location, Where::Path);
}

#[test]
fn the_first_error_alone_is_the_first_of_all() {
    // With max_errors 1 an invalid body is walked once (the crate's
    // `validate`), not checked and then walked for its errors.
    let spec = users_spec();
    let all = api(spec.clone());
    let first = Api::compile(spec.to_string().as_bytes(), &ApiOptions { max_errors: 1, ..Default::default() }).unwrap();
    for body in [
        r#"{"name":"","age":-1}"#,
        r#"{"name":"A","age":"thirty","score":"x"}"#,
        r#"{"name":"A","age":3,"role":"root","address":{"zip":7}}"#,
        r#"{"age":3}"#,
        "[1,2]",
    ] {
        let errors = post_user(&all, "/users/42", "limit=10", Some(b"r"), Some(body), "application/json").unwrap_err();
        let one = post_user(&first, "/users/42", "limit=10", Some(b"r"), Some(body), "application/json").unwrap_err();
        assert_eq!(one, errors[..1], "{body}");
    }
}

#[test]
fn scalar_parameters_keep_their_errors() {
    // Coerced scalars are validated without a parse; long numbers and
    // exponents are parsed first, with the same errors.
    let api = api(json!({"openapi": "3.1.0", "paths": {"/n": {"get": {"parameters": [
        {"name": "x", "in": "query", "schema": {"type": "number", "maximum": 5}},
        {"name": "s", "in": "query", "schema": {"type": "string", "maxLength": 3}}
    ]}}}}));
    assert!(get(&api, "/n", "x=4.5&s=a%22b").is_ok());
    let e = one_error(get(&api, "/n", "x=5.5"));
    assert_eq!((e.name.as_str(), e.keyword_location.as_str()), ("x", "/paths/~1n/get/parameters/0/schema/maximum"));
    let e = one_error(get(&api, "/n", &format!("x={}", "9".repeat(30))));
    assert_eq!(e.keyword_location, "/paths/~1n/get/parameters/0/schema/maximum", "{e:?}");
    let e = one_error(get(&api, "/n", "x=1e400"));
    assert_eq!(e.keyword_location, "/paths/~1n/get/parameters/0/schema/maximum", "{e:?}");
    let e = one_error(get(&api, "/n", "s=a%22bc"));
    assert_eq!(e.keyword_location, "/paths/~1n/get/parameters/1/schema/maxLength", "{e:?}");
}

#[test]
fn strict_coercion_of_integers() {
    let api = api(users_spec());
    for bad in ["0x10", "%2010%20", "1e1", "%2B1", "+1", "1.0", "010", ""] {
        let e = one_error(post_user(
            &api,
            "/users/42",
            &format!("limit={bad}"),
            Some(b"r"),
            Some(BODY),
            "application/json",
        ));
        assert_eq!((e.location, e.name.as_str()), (Where::Query, "limit"), "{bad}");
        assert!(e.message.contains("not an integer"), "{bad}: {}", e.message);
    }
    // A repeated scalar is refused, whichever value is valid.
    let e = one_error(post_user(&api, "/users/42", "limit=10&limit=20", Some(b"r"), Some(BODY), "application/json"));
    assert!(e.message.contains("2 times"), "{}", e.message);
}

#[test]
fn strict_coercion_of_booleans_and_numbers() {
    let spec = json!({"openapi": "3.1.0", "paths": {"/t": {"get": {"parameters": [
        {"name": "b", "in": "query", "schema": {"type": "boolean"}},
        {"name": "n", "in": "query", "schema": {"type": "number"}},
        {"name": "s", "in": "query", "schema": {"type": ["integer", "string"]}}
    ]}}}});
    let api = api(spec);
    for ok in ["b=true", "b=false", "n=1.5", "n=-2e3", "s=12", "s=0x10", "s=hello%20world"] {
        assert!(get(&api, "/t", ok).is_ok(), "{ok}");
    }
    for bad in ["b=True", "b=1", "b=yes", "n=.5", "n=NaN", "n=1.", "n=Infinity"] {
        assert_eq!(one_error(get(&api, "/t", bad)).location, Where::Query, "{bad}");
    }
}

// --- Routing -----------------------------------------------------------

fn op(id: &str) -> serde_json::Value {
    json!({"operationId": id})
}

fn with_path_param(id: &str, names: &[&str]) -> serde_json::Value {
    let params: Vec<_> = names
        .iter()
        .map(|n| json!({"name": n, "in": "path", "required": true, "schema": {"type": "string"}}))
        .collect();
    json!({"operationId": id, "parameters": params})
}

#[test]
fn literal_segments_before_templated_ones() {
    let api = api(json!({"openapi": "3.1.0", "paths": {
        "/pets/{petId}": {"get": with_path_param("getPet", &["petId"]), "delete": with_path_param("deletePet", &["petId"])},
        "/pets/mine": {"get": op("getMine")},
        "/pets/{petId}/toys": {"get": with_path_param("toys", &["petId"])},
        "/files/{name}.{ext}": {"get": with_path_param("file", &["name", "ext"])}
    }}));
    assert_eq!(get(&api, "/pets/mine", "").unwrap().operation_id, Some("getMine"));
    assert_eq!(get(&api, "/pets/7", "").unwrap().operation_id, Some("getPet"));
    // /pets/mine has no toys route of its own: the templated one takes it.
    assert_eq!(get(&api, "/pets/mine/toys", "").unwrap().path_params, vec![("petId", "\"mine\"".to_owned())]);
    let m = get(&api, "/files/archive.tar.gz", "").unwrap();
    assert_eq!(m.path_params, vec![("name", "\"archive\"".to_owned()), ("ext", "\"tar.gz\"".to_owned())]);
    // A method only the templated path has: that path, not 405.
    let del = Request {
        method: "DELETE",
        path: "/pets/mine",
        query: None,
        headers: &no_headers,
        body: None,
        content_type: None,
    };
    assert_eq!(api.validate_request(&del).unwrap().operation_id, Some("deletePet"));
}

#[test]
fn not_found_and_method_not_allowed_told_apart() {
    let api = api(json!({"openapi": "3.1.0", "paths": {"/pets/mine": {"get": op("getMine")}}}));
    assert_eq!(one_error(get(&api, "/cats", "")).status, 404);
    assert_eq!(one_error(get(&api, "/pets/mine/x", "")).status, 404);
    let post = Request {
        method: "POST",
        path: "/pets/mine",
        query: None,
        headers: &no_headers,
        body: None,
        content_type: None,
    };
    let e = one_error(api.validate_request(&post));
    assert_eq!((e.location, e.status), (Where::Route, 405));
}

#[test]
fn servers_base_paths() {
    let api = api(json!({"openapi": "3.0.0",
        "servers": [{"url": "https://api.example.com/v1"}, {"url": "/{version}/api", "variables": {"version": {"default": "v2"}}}],
        "paths": {"/pets": {"get": op("list")}}}));
    assert!(get(&api, "/v1/pets", "").is_ok());
    assert!(get(&api, "/v2/api/pets", "").is_ok());
    assert_eq!(one_error(get(&api, "/pets", "")).status, 404);
    assert_eq!(one_error(get(&api, "/v1x/pets", "")).status, 404);
}

#[test]
fn identical_templates_are_refused() {
    let spec = json!({"openapi": "3.1.0", "paths": {
        "/a/{x}": {"get": with_path_param("x", &["x"])},
        "/a/{y}": {"get": with_path_param("y", &["y"])}}});
    let e = Api::compile(spec.to_string().as_bytes(), &ApiOptions::default()).err().expect("refused");
    assert!(e.location.starts_with("/paths/~1a~1{"), "{e}");
}

// --- Parameter styles (OpenAPI 3.1.1's style examples) -------------------

fn style_api(location: &str, style: &str, explode: bool, schema: serde_json::Value) -> Api {
    let path = if location == "path" { "/c/{color}" } else { "/c" };
    api(json!({"openapi": "3.1.0", "paths": {path: {"get": {"parameters": [
        {"name": "color", "in": location, "required": true, "style": style, "explode": explode, "schema": schema}
    ]}}}}))
}

fn scalar() -> serde_json::Value {
    json!({"type": "integer", "const": 5})
}
fn array() -> serde_json::Value {
    json!({"type": "array", "items": {"type": "integer"}, "const": [3, 4, 5]})
}
fn object() -> serde_json::Value {
    json!({"type": "object", "properties": {"R": {"type": "integer"}, "G": {"type": "integer"}, "B": {"type": "integer"}},
           "const": {"R": 100, "G": 200, "B": 150}})
}

#[test]
fn path_styles() {
    for (style, explode, s, a, o) in [
        ("simple", false, "5", "3,4,5", "R,100,G,200,B,150"),
        ("simple", true, "5", "3,4,5", "R=100,G=200,B=150"),
        ("label", false, ".5", ".3,4,5", ".R,100,G,200,B,150"),
        ("label", true, ".5", ".3.4.5", ".R=100.G=200.B=150"),
        ("matrix", false, ";color=5", ";color=3,4,5", ";color=R,100,G,200,B,150"),
        ("matrix", true, ";color=5", ";color=3;color=4;color=5", ";R=100;G=200;B=150"),
    ] {
        for (schema, text) in [(scalar(), s), (array(), a), (object(), o)] {
            let api = style_api("path", style, explode, schema.clone());
            let path = format!("/c/{text}");
            let r = get(&api, &path, "");
            assert!(r.is_ok(), "{style} explode={explode} {text}: {r:?}");
            // The const makes a wrong parse fail: the parse is checked.
            let wrong = format!("/c/{}", text.replace('5', "6"));
            assert!(get(&api, &wrong, "").is_err(), "{style} explode={explode} {wrong}");
        }
    }
}

#[test]
fn query_styles() {
    for (style, explode, schema, text) in [
        ("form", true, scalar(), "color=5"),
        ("form", false, scalar(), "color=5"),
        ("form", true, array(), "color=3&color=4&color=5"),
        ("form", false, array(), "color=3,4,5"),
        ("form", true, object(), "R=100&G=200&B=150"),
        ("form", false, object(), "color=R,100,G,200,B,150"),
        ("spaceDelimited", false, array(), "color=3%204%205"),
        ("spaceDelimited", false, object(), "color=R%20100%20G%20200%20B%20150"),
        ("spaceDelimited", true, array(), "color=3&color=4&color=5"),
        ("pipeDelimited", false, array(), "color=3|4|5"),
        ("pipeDelimited", false, object(), "color=R|100|G|200|B|150"),
        ("pipeDelimited", true, array(), "color=3&color=4&color=5"),
        ("deepObject", true, object(), "color%5BR%5D=100&color[G]=200&color[B]=150"),
    ] {
        let api = style_api("query", style, explode, schema);
        assert!(get(&api, "/c", text).is_ok(), "{style} explode={explode} {text}: {:?}", get(&api, "/c", text));
        let wrong = text.replace('5', "6");
        assert!(get(&api, "/c", &wrong).is_err(), "{style} explode={explode} {wrong}");
    }
}

#[test]
fn header_styles() {
    for (explode, schema, text) in [
        (false, scalar(), &b"5"[..]),
        (false, array(), b"3,4,5"),
        (false, object(), b"R,100,G,200,B,150"),
        (true, object(), b"R=100,G=200,B=150"),
        // A list header sent twice and joined by the server (RFC 9110's
        // ", "), and blanks around the commas.
        (false, array(), b"3, 4,\t5"),
        (false, object(), b"R, 100, G, 200, B, 150"),
        (true, object(), b"R=100, G=200, B=150"),
    ] {
        let api = style_api("header", "simple", explode, schema);
        let headers = move |name: &str| (name == "color").then_some(text);
        let req = Request { method: "GET", path: "/c", query: None, headers: &headers, body: None, content_type: None };
        assert!(api.validate_request(&req).is_ok(), "explode={explode} {text:?}");
    }
}

#[test]
fn undefined_style_combinations_are_refused() {
    for (location, style, explode, schema) in [
        ("query", "spaceDelimited", false, scalar()),
        ("query", "deepObject", true, array()),
        ("query", "pipeDelimited", true, object()),
        ("path", "form", false, scalar()),
        ("query", "matrix", false, scalar()),
    ] {
        let path = if location == "path" { "/c/{color}" } else { "/c" };
        let spec = json!({"openapi": "3.1.0", "paths": {path: {"get": {"parameters": [
            {"name": "color", "in": location, "required": true, "style": style, "explode": explode, "schema": schema}]}}}});
        let e = Api::compile(spec.to_string().as_bytes(), &ApiOptions::default()).err().expect("refused");
        assert!(e.location.ends_with("/parameters/0/style"), "{style}: {e}");
    }
}

// --- Specs refused -------------------------------------------------------

fn refused(spec: serde_json::Value) -> qjson_core::openapi::SpecError {
    Api::compile(spec.to_string().as_bytes(), &ApiOptions::default()).err().expect("the spec is refused")
}

#[test]
fn an_uncompilable_schema_is_refused_not_skipped() {
    let mut spec = users_spec();
    spec["components"]["schemas"]["User"]["properties"]["email"]["pattern"] = json!("(unclosed");
    let e = refused(spec);
    assert_eq!(e.location, "/components/schemas/User/properties/email/pattern", "{e}");

    let mut spec = users_spec();
    spec["paths"]["/users/{userId}"]["post"]["parameters"][1]["schema"]["minimum"] = json!("one");
    let e = refused(spec);
    assert!(e.location.starts_with("/paths/~1users~1{userId}/post/parameters/1/schema"), "{e}");
}

#[test]
fn ref_cycles_and_long_chains_are_refused() {
    let mut spec = users_spec();
    spec["components"]["parameters"] =
        json!({"A": {"$ref": "#/components/parameters/B"}, "B": {"$ref": "#/components/parameters/A"}});
    spec["paths"]["/users/{userId}"]["post"]["parameters"][1] = json!({"$ref": "#/components/parameters/A"});
    assert!(refused(spec).message.contains("cycle"));

    let mut spec = users_spec();
    let mut chain = serde_json::Map::new();
    for i in 0..1000 {
        chain.insert(format!("P{i}"), json!({"$ref": format!("#/components/parameters/P{}", i + 1)}));
    }
    chain.insert("P1000".into(), json!({"name": "limit", "in": "query", "schema": {"type": "integer"}}));
    spec["components"]["parameters"] = serde_json::Value::Object(chain);
    spec["paths"]["/users/{userId}"]["post"]["parameters"][1] = json!({"$ref": "#/components/parameters/P0"});
    assert!(refused(spec).message.contains("chain longer"));

    // Schemas: a cycle of bare $refs names no schema; a recursive schema is fine.
    let mut spec = users_spec();
    spec["components"]["schemas"]["A"] = json!({"$ref": "#/components/schemas/B"});
    spec["components"]["schemas"]["B"] = json!({"$ref": "#/components/schemas/A"});
    spec["paths"]["/users/{userId}"]["post"]["requestBody"]["content"]["application/json"]["schema"] =
        json!({"$ref": "#/components/schemas/A"});
    assert!(refused(spec).message.contains("cycle"));
    let mut spec = users_spec();
    spec["components"]["schemas"]["Tree"] = json!({"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/components/schemas/Tree"}}}});
    spec["paths"]["/users/{userId}"]["post"]["requestBody"]["content"]["application/json"]["schema"] =
        json!({"$ref": "#/components/schemas/Tree"});
    let api = api(spec);
    let ok = post_user(&api, "/users/1", "", Some(b"r"), Some(r#"{"kids":[{"kids":[]}]}"#), "application/json");
    assert!(ok.is_ok(), "{ok:?}");
    let bad = post_user(&api, "/users/1", "", Some(b"r"), Some(r#"{"kids":[{"kids":1}]}"#), "application/json");
    assert_eq!(one_error(bad).instance_location, "/kids/0/kids");
}

#[test]
fn unsupported_parts_are_refused_not_ignored() {
    let multipart = json!({"openapi": "3.1.0", "paths": {"/c": {"post": {"requestBody": {"content": {
        "multipart/form-data": {"schema": {"type": "object"}}}}}}}});
    assert!(refused(multipart).message.contains("cannot be validated yet"));
    let remote = json!({"openapi": "3.1.0", "paths": {"/c": {"post": {"requestBody": {"content": {
        "application/json": {"schema": {"$ref": "other.json#/x"}}}}}}}});
    assert!(refused(remote).message.contains("never fetches"));
    assert_eq!(refused(json!({"openapi": "2.0"})).location, "/openapi");
}

#[test]
fn openapi_30_nullable_and_exclusive_minimum() {
    let mut spec = users_spec();
    spec["components"]["schemas"]["User"]["properties"]["age"] =
        json!({"type": "integer", "minimum": 0, "exclusiveMinimum": true});
    let api = api(spec);
    let zero = BODY.replace("\"age\":30", "\"age\":0");
    let e = one_error(post_user(&api, "/users/1", "", Some(b"r"), Some(&zero), "application/json"));
    assert_eq!(e.instance_location, "/age");
    // nickname is nullable: null passes (BODY has it), a number does not.
    assert!(post_user(&api, "/users/1", "", Some(b"r"), Some(BODY), "application/json").is_ok());
    let num = BODY.replace("\"nickname\":null", "\"nickname\":1");
    assert_eq!(
        one_error(post_user(&api, "/users/1", "", Some(b"r"), Some(&num), "application/json")).instance_location,
        "/nickname"
    );
}

#[test]
fn header_names_are_those_of_the_routed_operation() {
    let a = api(users_spec());
    assert_eq!(a.header_names("POST", "/users/42"), ["x-request-id"]);
    assert_eq!(a.header_names("post", "/users/abc"), ["x-request-id"], "routing does not check values");
    assert!(a.header_names("GET", "/users/42").is_empty(), "405: no operation");
    assert!(a.header_names("POST", "/nowhere").is_empty(), "404: no operation");
    assert_eq!(a.all_header_names(), ["x-request-id"]);
}

// --- Cookie parameters (form style, OpenAPI 3.1.1's style table) ---------

/// GET /c with the Cookie header `cookie` (when given).
fn with_cookie<'a>(api: &'a Api, cookie: Option<&'a str>) -> Result<Matched<'a>, Vec<RequestError>> {
    let headers = move |name: &str| if name == "cookie" { cookie.map(str::as_bytes) } else { None };
    api.validate_request(&Request {
        method: "GET",
        path: "/c",
        query: None,
        headers: &headers,
        body: None,
        content_type: None,
    })
}

#[test]
fn cookie_styles() {
    // The table's form examples; with explode, each item or property is a
    // cookie of its own (`&` of RFC 6570's form is the Cookie header's `; `).
    for (explode, schema, text) in [
        (true, scalar(), "color=5"),
        (false, scalar(), "color=5"),
        (false, array(), "color=3,4,5"),
        (true, array(), "color=3; color=4; color=5"),
        (false, object(), "color=R,100,G,200,B,150"),
        (true, object(), "R=100; G=200; B=150"),
    ] {
        let api = style_api("cookie", "form", explode, schema);
        // Other cookies around it, RFC 6265's "; " with blanks tolerated.
        let header = format!("session=abc;{text} ;theme=dark");
        let r = with_cookie(&api, Some(&header));
        assert!(r.is_ok(), "explode={explode} {header}: {r:?}");
        let wrong = header.replace('5', "6");
        let e = with_cookie(&api, Some(&wrong)).expect_err(&wrong);
        assert_eq!((e[0].location, e[0].name.as_str()), (Where::Cookie, "color"), "{wrong}");
        assert_eq!(e[0].location.as_str(), "cookie");
    }
}

#[test]
fn cookie_parameters_read_the_cookie_header() {
    let spec = json!({"openapi": "3.0.3", "paths": {"/c": {"get": {"parameters": [
        {"name": "a", "in": "cookie", "required": true, "schema": {"type": "integer"}},
        {"name": "b", "in": "cookie", "schema": {"type": "string", "maxLength": 3}},
        {"name": "X-B", "in": "header", "schema": {"type": "string"}}]}}}});
    let api = api(spec);
    assert_eq!(api.header_names("GET", "/c"), ["cookie", "x-b"]);
    assert!(with_cookie(&api, Some("a=1; b=2")).is_ok());
    // Values are percent-decoded (form style), `+` staying itself; names
    // are taken as they are: another application's cookie is no matter.
    assert!(with_cookie(&api, Some("a=1; b=%C3%A9")).is_ok());
    assert!(with_cookie(&api, Some("x%FF=%FF; a=1; %62=toolong")).is_ok());
    let e = one_error(with_cookie(&api, Some("a=1; b=a+b+c")));
    assert_eq!((e.location, e.name.as_str()), (Where::Cookie, "b"));
    let e = one_error(with_cookie(&api, None));
    assert_eq!((e.location, e.name.as_str(), e.message.as_str()), (Where::Cookie, "a", "is required"));
    let e = one_error(with_cookie(&api, Some("b=1")));
    assert_eq!((e.location, e.name.as_str()), (Where::Cookie, "a"));
    let e = one_error(with_cookie(&api, Some("a=x")));
    assert!(e.message.contains("not an integer"), "{e}");
    let e = one_error(with_cookie(&api, Some("a=1; a=2")));
    assert!(e.message.contains("2 times"), "{e}");
    // Any style but form is undefined for cookies.
    let spec = json!({"openapi": "3.1.0", "paths": {"/c": {"get": {"parameters": [
        {"name": "a", "in": "cookie", "style": "simple", "schema": {"type": "integer"}}]}}}});
    assert_eq!(refused(spec).location, "/paths/~1c/get/parameters/0/style");
}

// --- content-encoded parameters ------------------------------------------

fn content_api(location: &str) -> Api {
    let path = if location == "path" { "/c/{f}" } else { "/c" };
    api(json!({"openapi": "3.1.0", "paths": {path: {"get": {"parameters": [
        {"name": "f", "in": location, "required": true, "content": {"application/json": {"schema": {
            "type": "object", "required": ["lat"], "properties": {"lat": {"type": "number", "maximum": 90}}}}}}
    ]}}}}))
}

#[test]
fn content_encoded_parameters_are_json() {
    // The spec's example: a query parameter holding a JSON object.
    let api = content_api("query");
    assert!(get(&api, "/c", "f=%7B%22lat%22%3A45.5%2C%22long%22%3A-122.6%7D").is_ok());
    assert!(get(&api, "/c", r#"f={"lat":+45}"#).is_ok(), "+ is a space in a query");
    let e = one_error(get(&api, "/c", "f=%7B%22lat%22%3A95%7D"));
    assert_eq!((e.location, e.instance_location.as_str()), (Where::Query, "/lat"));
    assert!(e.keyword_location.ends_with("/content/application~1json/schema/properties/lat/maximum"), "{e:?}");
    let e = one_error(get(&api, "/c", "f={lat:1}"));
    assert!(e.message.starts_with("is not JSON"), "{e}");
    assert_eq!(one_error(get(&api, "/c", "")).message, "is required");

    let api = content_api("path");
    assert!(get(&api, "/c/%7B%22lat%22:1%7D", "").is_ok());
    assert_eq!(one_error(get(&api, "/c/%7B%7D", "")).location, Where::Path);

    let api = content_api("header");
    let headers = |name: &str| (name == "f").then_some(&br#"{"lat": 1}"#[..]);
    let req = Request { method: "GET", path: "/c", query: None, headers: &headers, body: None, content_type: None };
    assert!(api.validate_request(&req).is_ok());

    let api = content_api("cookie");
    assert!(with_cookie(&api, Some("f=%7B%22lat%22%3A1%7D")).is_ok());
    assert_eq!(one_error(with_cookie(&api, Some("f=%7B%7D"))).location, Where::Cookie);
}

#[test]
fn content_encoded_parameters_other_than_json_are_refused() {
    let spec = |content: serde_json::Value, extra: serde_json::Value| {
        let mut p = json!({"name": "f", "in": "query", "content": content});
        for (k, v) in extra.as_object().unwrap() {
            p[k] = v.clone();
        }
        json!({"openapi": "3.1.0", "paths": {"/c": {"get": {"parameters": [p]}}}})
    };
    let e = refused(spec(json!({"text/plain": {"schema": {"type": "string"}}}), json!({})));
    assert_eq!(e.location, "/paths/~1c/get/parameters/0/content/text~1plain", "{e}");
    assert!(e.message.contains("JSON media types only"), "{e}");
    let two = json!({"application/json": {}, "application/x+json": {}});
    assert!(refused(spec(two, json!({}))).message.contains("exactly one media type"));
    let e = refused(spec(json!({"application/json": {}}), json!({"style": "form"})));
    assert_eq!(e.location, "/paths/~1c/get/parameters/0/style");
    let e = refused(spec(json!({"application/json": {}}), json!({"schema": {}})));
    assert!(e.message.contains("not both"), "{e}");
    // A JSON media type without a schema: any JSON text (in both dialects).
    for version in ["3.1.0", "3.0.3"] {
        let mut s = spec(json!({"application/json": {}}), json!({}));
        s["openapi"] = json!(version);
        let api = api(s);
        assert!(get(&api, "/c", "f=[1,2]").is_ok(), "{version}");
        assert!(get(&api, "/c", "f=[1,").is_err(), "{version}");
    }
}

// --- application/x-www-form-urlencoded bodies ----------------------------

fn form_api(encoding: serde_json::Value) -> Api {
    api(json!({"openapi": "3.1.0", "paths": {"/f": {"post": {"requestBody": {"required": true, "content": {
    "application/x-www-form-urlencoded": {"encoding": encoding, "schema": {
        "type": "object", "required": ["name", "age"], "additionalProperties": false,
        "properties": {
            "name": {"type": "string", "minLength": 1},
            "age": {"type": "integer", "minimum": 0},
            "score": {"type": ["number", "null"]},
            "active": {"type": "boolean"},
            "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 3},
            "id": {"type": "string", "format": "uuid"},
            "address": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
        }}}}}}}}}))
}

fn post_form<'a>(api: &'a Api, body: &'a str) -> Result<Matched<'a>, Vec<RequestError>> {
    api.validate_request(&Request {
        method: "POST",
        path: "/f",
        query: None,
        headers: &no_headers,
        body: Some(body.as_bytes()),
        content_type: Some("application/x-www-form-urlencoded; charset=UTF-8"),
    })
}

#[test]
fn form_bodies_are_read_as_query_strings_and_validated() {
    let api = form_api(json!({}));
    for ok in [
        "name=Alice+Example&age=30",
        "name=Al%C3%AFce&age=0&score=2.5&active=true&tags=a&tags=b",
        // The spec's example: an object property is JSON text (the
        // Encoding Object's default contentType for objects).
        "id=f81d4fae-7dec-11d0-a765-00a0c91e6bf6&address=%7B%22city%22%3A%20%22Paris%22%7D&name=a&age=1",
    ] {
        assert!(post_form(&api, ok).is_ok(), "{ok}: {:?}", post_form(&api, ok));
    }
    for (bad, at, says) in [
        ("name=a&age=abc", "/age", "not an integer"),
        ("name=a&age=-1", "/age", "minimum"),
        ("name=a&age=1.0", "/age", "not an integer"),
        ("name=a&age=1&active=yes", "/active", "boolean"),
        ("name=a&age=1&age=2", "/age", "2 times"),
        ("name=&age=1", "/name", "minLength"),
        ("name=a&age=1&tags=a&tags=b&tags=c&tags=d", "/tags", "maxItems"),
        ("name=a&age=1&address=%7B%7D", "/address", "required"),
        ("name=a&age=1&address=city", "/address", "not JSON"),
        // JSON text is one value: it cannot add members of its own.
        ("name=a&age=1&address=%7B%22city%22:%22P%22%7D,%22admin%22:true", "/address", "not JSON"),
        ("name=a&age=1&other=1", "", "additionalProperties"),
        ("age=1", "", "required"),
    ] {
        let e = one_error(post_form(&api, bad));
        assert_eq!((e.location, e.status, e.instance_location.as_str()), (Where::Body, 400, at), "{bad}: {e:?}");
        assert!(
            e.message.contains(says) || e.keyword_location.ends_with(says),
            "{bad}: {} / {}",
            e.message,
            e.keyword_location
        );
        assert_eq!(e.position, None, "the body is not the JSON checked: no position in it");
    }
    let e = one_error(post_form(&api, "name=%FF&age=1"));
    assert!(e.message.contains("UTF-8"), "{e}");
}

#[test]
fn form_body_encoding_styles() {
    for (style, explode, text, one_more) in [
        ("form", false, "tags=a,b,c", ",d"),
        ("form", true, "tags=a&tags=b&tags=c", "&tags=d"),
        ("spaceDelimited", false, "tags=a%20b%20c", "+d"),
        ("pipeDelimited", false, "tags=a|b|c", "|d"),
    ] {
        let api = form_api(json!({"tags": {"style": style, "explode": explode}}));
        let body = format!("name=x&age=1&{text}");
        assert!(post_form(&api, &body).is_ok(), "{style} {explode}: {:?}", post_form(&api, &body));
        // Four items where three are allowed: the split is checked.
        let more = format!("{body}{one_more}");
        let e = one_error(post_form(&api, &more));
        assert_eq!(e.instance_location, "/tags", "{style} {explode} {more}");
    }
    // deepObject for an object property; JSON text by contentType.
    let api = form_api(json!({"address": {"style": "deepObject"}}));
    assert!(post_form(&api, "name=x&age=1&address[city]=Paris").is_ok());
    assert_eq!(one_error(post_form(&api, "name=x&age=1&address[zip]=1")).instance_location, "/address");
    let api = form_api(json!({"tags": {"contentType": "application/json"}}));
    assert!(post_form(&api, r#"name=x&age=1&tags=["a","b"]"#).is_ok());
    assert_eq!(one_error(post_form(&api, "name=x&age=1&tags=a")).instance_location, "/tags");
}

#[test]
fn form_body_schemas_and_encodings_that_cannot_be_read_are_refused() {
    let form = |schema: serde_json::Value, encoding: serde_json::Value| {
        json!({"openapi": "3.1.0", "paths": {"/f": {"post": {"requestBody": {"content": {
            "application/x-www-form-urlencoded": {"schema": schema, "encoding": encoding}}}}}}})
    };
    let obj = json!({"type": "object", "properties": {"a": {"type": "object"}, "n": {"type": "integer"}}});
    let at = "/paths/~1f/post/requestBody/content/application~1x-www-form-urlencoded";
    let e = refused(form(json!({"type": "array"}), json!({})));
    assert_eq!(e.location, format!("{at}/schema"), "{e}");
    let e = refused(form(obj.clone(), json!({"b": {"style": "form"}})));
    assert_eq!(e.location, format!("{at}/encoding/b"), "{e}");
    let e = refused(form(obj.clone(), json!({"a": {"style": "form", "explode": true}})));
    assert!(e.message.contains("cannot be exploded"), "{e}");
    let e = refused(form(obj.clone(), json!({"n": {"contentType": "text/plain"}})));
    assert_eq!(e.location, format!("{at}/encoding/n/contentType"), "{e}");
    let e = refused(form(obj.clone(), json!({"n": {"contentType": "application/json", "style": "form"}})));
    assert!(e.message.contains("not both"), "{e}");
    let e = refused(form(obj.clone(), json!({"n": {"style": "deepObject"}})));
    assert_eq!(e.location, format!("{at}/encoding/n/style"), "{e}");
    let e = refused(form(obj, json!({"n": {"style": "matrix"}})));
    assert_eq!(e.location, format!("{at}/encoding/n/style"), "{e}");
}

// --- readOnly in requests ----------------------------------------------

fn read_only_api(version: &str) -> Api {
    // The spec's own case: `id` is readOnly and required, so it is
    // required in responses only; `password` is writeOnly.
    api(json!({"openapi": version, "paths": {"/u": {"post": {"requestBody": {"content": {
    "application/json": {"schema": {"$ref": "#/components/schemas/User"}},
    "application/x-www-form-urlencoded": {"schema": {"$ref": "#/components/schemas/User"}}}}}}},
    "components": {"schemas": {
        "Id": {"type": "integer", "readOnly": true},
        "User": {"type": "object", "required": ["id", "name", "password", "created"], "properties": {
            "id": {"type": "integer", "format": "int64", "readOnly": true},
            "name": {"type": "string"},
            "password": {"type": "string", "writeOnly": true},
            "created": {"$ref": "#/components/schemas/Id"},
            "friend": {"type": "object", "required": ["id"], "properties": {"id": {"$ref": "#/components/schemas/Id"}}}
        }}}}}))
}

#[test]
fn read_only_properties_are_not_sent_in_requests() {
    for version in ["3.0.3", "3.1.0"] {
        let api = read_only_api(version);
        let post = |body: &'static str, content_type: &'static str| {
            api.validate_request(&Request {
                method: "POST",
                path: "/u",
                query: None,
                headers: &no_headers,
                body: Some(body.as_bytes()),
                content_type: Some(content_type),
            })
        };
        // Required but read-only: not required in a request.
        assert!(post(r#"{"name":"a","password":"p","friend":{}}"#, "application/json").is_ok(), "{version}");
        assert!(post("name=a&password=p", "application/x-www-form-urlencoded").is_ok(), "{version}");
        // writeOnly is still required (and accepted).
        let e = one_error(post(r#"{"name":"a"}"#, "application/json"));
        assert!(e.message.contains("password"), "{version}: {e}");
        for (body, at, keyword) in [
            (r#"{"id":1,"name":"a","password":"p"}"#, "/id", "/components/schemas/User/properties/id"),
            (r#"{"created":1,"name":"a","password":"p"}"#, "/created", "/components/schemas/User/properties/created"),
            (r#"{"name":"a","password":"p","friend":{"id":2}}"#, "/friend/id", "/properties/friend/properties/id"),
        ] {
            let e = one_error(post(body, "application/json"));
            assert_eq!(e.instance_location, at, "{version}: {e:?}");
            assert_eq!(e.message, "is read-only: it may not be sent in a request", "{version}");
            assert!(e.keyword_location.ends_with(keyword), "{version}: {}", e.keyword_location);
        }
        let e = one_error(post("id=1&name=a&password=p", "application/x-www-form-urlencoded"));
        assert_eq!((e.instance_location.as_str(), e.message.contains("read-only")), ("/id", true), "{version}");
    }
}

// --- Percent-encoded paths -----------------------------------------------

#[test]
fn literal_segments_match_percent_decoded() {
    let api = api(json!({"openapi": "3.1.0", "paths": {
        "/café": {"get": op("cafe")},
        "/a b/c": {"get": op("space")},
        "/files/{name}": {"get": with_path_param("file", &["name"])},
        "/files/a/b": {"get": op("ab")}
    }}));
    assert_eq!(get(&api, "/caf%C3%A9", "").unwrap().operation_id, Some("cafe"));
    assert_eq!(get(&api, "/caf%c3%a9", "").unwrap().operation_id, Some("cafe"));
    assert_eq!(get(&api, "/café", "").unwrap().operation_id, Some("cafe"));
    assert_eq!(get(&api, "/a%20b/c", "").unwrap().operation_id, Some("space"));
    assert_eq!(get(&api, "/%61%20b/%63", "").unwrap().operation_id, Some("space"));
    assert_eq!(one_error(get(&api, "/caf%C3", "")).status, 404, "not UTF-8: no literal");
    // %2F is inside a segment: never a separator.
    assert_eq!(get(&api, "/files/a/b", "").unwrap().operation_id, Some("ab"));
    let m = get(&api, "/files/a%2Fb", "").unwrap();
    assert_eq!((m.operation_id, m.path_params), (Some("file"), vec![("name", "\"a/b\"".to_owned())]));
    assert_eq!(one_error(get(&api, "/files%2Fa%2Fb", "")).status, 404);
}

// --- Hostile requests: bounded, and linear in their size ------------------

/// Fails when 4 times the input takes 10 times as long or more (linear:
/// 4), measured up to three times against a busy machine (as hostile.rs).
/// Each time is the least of three runs, so that one run stretched by the
/// scheduler does not count (a refusal at the nesting limit takes well
/// under a millisecond).
fn assert_linear(name: &str, n: usize, work: &dyn Fn(usize)) {
    let time = |n: usize| {
        let run = || {
            let start = std::time::Instant::now();
            work(n);
            start.elapsed().as_secs_f64().max(1e-6)
        };
        run().min(run()).min(run())
    };
    let mut ratios = Vec::new();
    for _ in 0..3 {
        let ratio = time(4 * n) / time(n);
        ratios.push(ratio);
        if ratio < 10.0 {
            return;
        }
    }
    panic!("{name}: 4 times the input took {ratios:.2?} times as long");
}

fn hostile_api() -> Api {
    api(json!({"openapi": "3.1.0", "paths": {"/h": {"post": {
        "parameters": [
            {"name": "list", "in": "query", "schema": {"type": "array", "items": {"type": "integer"}}},
            {"name": "deep", "in": "query", "style": "deepObject", "schema": {"type": "object", "additionalProperties": {"type": "integer"}}},
            {"name": "json", "in": "query", "content": {"application/json": {"schema": {"type": "array"}}}},
            {"name": "c", "in": "cookie", "explode": false, "schema": {"type": "array", "items": {"type": "string"}}}
        ],
        "requestBody": {"content": {"application/x-www-form-urlencoded": {"schema": {
            "type": "object", "properties": {"list": {"type": "array", "items": {"type": "integer"}}, "doc": {"type": "object"}},
            "additionalProperties": {"type": "integer"}}}}}}}}}))
}

fn hostile_request<'a>(
    api: &'a Api,
    query: &'a str,
    cookie: Option<&'a str>,
    form: Option<&'a str>,
) -> Result<Matched<'a>, Vec<RequestError>> {
    let headers = move |name: &str| if name == "cookie" { cookie.map(str::as_bytes) } else { None };
    api.validate_request(&Request {
        method: "POST",
        path: "/h",
        query: Some(query),
        headers: &headers,
        body: form.map(str::as_bytes),
        content_type: form.map(|_| "application/x-www-form-urlencoded"),
    })
}

#[test]
fn hostile_queries_cookies_and_form_bodies_are_linear() {
    let api = hostile_api();
    let numbered = |n: usize, sep: &str, pair: &dyn Fn(usize) -> String| (0..n).map(pair).collect::<Vec<_>>().join(sep);
    // 100,000 arguments at 4n: distinct names (every deepObject key is
    // looked at), one repeated name (an exploded array), and a bad one last.
    assert_linear("query of distinct names", 25_000, &|n| {
        let q = numbered(n, "&", &|i| format!("deep[k{i}]={i}"));
        assert!(hostile_request(&api, &q, None, None).is_ok());
    });
    assert_linear("query of one repeated name", 25_000, &|n| {
        let q = format!("{}&list=x", numbered(n, "&", &|i| format!("list={i}")));
        let e = one_error(hostile_request(&api, &q, None, None));
        assert_eq!((e.location, e.name.as_str()), (Where::Query, "list"));
    });
    assert_linear("form body of distinct names", 25_000, &|n| {
        let body = numbered(n, "&", &|i| format!("p{i}={i}"));
        assert!(hostile_request(&api, "", None, Some(&body)).is_ok());
        // Each undeclared name a non-integer: errors stop at the cap.
        let bad = numbered(n, "&", &|i| format!("p{i}=x"));
        let errors = hostile_request(&api, "", None, Some(&bad)).unwrap_err();
        assert_eq!(errors.len(), qjson_core::openapi::OPENAPI_DEFAULT_MAX_ERRORS);
    });
    assert_linear("form body of one repeated name", 25_000, &|n| {
        let body = numbered(n, "&", &|i| format!("list={i}"));
        assert!(hostile_request(&api, "", None, Some(&body)).is_ok());
    });
    // A Cookie header of 1 MB at 4n: one long array, and many cookies.
    assert_linear("one long cookie", 1 << 18, &|n| {
        let cookie = format!("c={}", "ab,".repeat(n / 3));
        assert!(hostile_request(&api, "", Some(&cookie), None).is_ok());
    });
    assert_linear("many cookies", 1 << 18, &|n| {
        let cookie = numbered(n / 12, "; ", &|i| format!("k{i}=v{i}"));
        assert!(hostile_request(&api, "", Some(&cookie), None).is_ok());
    });
    // Deep content-encoded JSON: refused at qjson's nesting limit.
    assert_linear("deep content-encoded JSON", 1 << 18, &|n| {
        let q = format!("json={}", "[".repeat(n));
        let e = one_error(hostile_request(&api, &q, None, None));
        assert!(e.message.contains("deep"), "{e}");
        let body = format!("list=1&doc={}", "%5B".repeat(n / 3));
        let e = one_error(hostile_request(&api, "", None, Some(&body)));
        assert_eq!(e.instance_location, "/doc");
        assert!(e.message.contains("deep"), "{e}");
    });
}

#[test]
fn long_request_values_are_not_quoted_whole() {
    let a = api(users_spec());
    let long = "9".repeat(100_000) + "x";
    let e = one_error(a.validate_request(&Request {
        method: "POST",
        path: &format!("/users/{long}"),
        query: None,
        headers: &|_| Some(b"id".as_slice()),
        body: Some(br#"{"name":"a","age":1}"#),
        content_type: Some("application/json"),
    }));
    assert_eq!(e.location, Where::Path);
    assert!(e.message.len() < 200, "message of {} bytes: {}", e.message.len(), &e.message[..200]);
    assert!(e.message.contains("(100001 bytes)"), "{}", e.message);
}

// Literal segments are found by bisection in each trie node's sorted
// list, and a query's pairs by bisection in the list sorted by name:
// siblings given out of order, names that sort around the one looked up
// and a name given twice are each found as they are.
#[test]
fn many_literal_siblings_and_query_names_around_the_declared_one() {
    let names = ["zeta", "alpha", "mid", "b%C3%A9ta", "alp", "alphabet", "m", ""];
    let mut paths = serde_json::Map::new();
    for n in names {
        paths.insert(format!("/r/{n}"), json!({"get": op(&format!("op-{n}"))}));
    }
    paths.insert(
        "/q".into(),
        json!({"get": {"operationId": "q", "parameters": [
            {"name": "limit", "in": "query", "schema": {"type": "integer", "maximum": 5}},
            {"name": "lim", "in": "query", "schema": {"type": "integer"}}
        ]}}),
    );
    let api = api(json!({"openapi": "3.1.0", "paths": paths}));
    for n in names {
        assert_eq!(get(&api, &format!("/r/{n}"), "").unwrap().operation_id, Some(format!("op-{n}").as_str()));
    }
    assert_eq!(get(&api, "/r/béta", "").unwrap().operation_id, Some("op-b%C3%A9ta"));
    assert_eq!(one_error(get(&api, "/r/alph", "")).status, 404);
    assert_eq!(one_error(get(&api, "/r/zz", "")).status, 404);
    assert!(get(&api, "/q", "a=1&limitx=9&limit=3&lim=7&l=x&limits=9").is_ok());
    let e = one_error(get(&api, "/q", "limitx=1&limit=6&lim=2"));
    assert_eq!((e.name.as_str(), e.location), ("limit", Where::Query));
    let e = one_error(get(&api, "/q", "limit=1&z=0&limit=2"));
    assert_eq!(e.message, "limit is given 2 times; it takes one value");
}

// --- Specs written in YAML ----------------------------------------------

/// users_spec() as YAML, as people write it: comments, a block scalar,
/// flow collections, an anchor and its alias, unquoted numbers and keys.
#[cfg(feature = "yaml")]
const USERS_YAML: &str = r#"
# The founding scenario's spec.
openapi: 3.0.3
info: {title: users, version: "1"}
paths:
  /users/{userId}:
    post:
      operationId: updateUser
      description: |
        Updates a user.
      parameters:
        - name: userId
          in: path
          required: true
          schema: {type: integer, minimum: 1}
        - name: limit
          in: query
          schema: {type: integer, minimum: 1, maximum: 100}
        - name: X-Request-Id
          in: header
          required: true
          schema: &string {type: string}
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: '#/components/schemas/User'}
components:
  schemas:
    User:
      type: object
      required: [name, age]
      properties:
        name: {type: string, minLength: 1}
        age: {type: integer, minimum: 0}
        score: {type: number}
        active: {type: boolean}
        tags: {type: array, items: *string}
        address:
          type: object
          properties: {city: *string, zip: *string}
          required: [city]
        meta: {type: object, additionalProperties: *string}
        role: {type: string, enum: [admin, user, guest]}
        email: {type: string, pattern: '^[^@]+@[^@]+$'}
        nickname: {type: string, nullable: true}
"#;

#[cfg(feature = "yaml")]
#[test]
fn a_yaml_spec_validates_as_its_json_twin() {
    let yaml = Api::compile(USERS_YAML.as_bytes(), &ApiOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    let json = api(users_spec());
    // (path, query, X-Request-Id, body, content type)
    type Case = (&'static str, &'static str, Option<&'static [u8]>, &'static str, &'static str);
    let requests: [Case; 7] = [
        ("/users/42", "limit=10", Some(b"r"), BODY, "application/json"),
        ("/users/0", "limit=10", Some(b"r"), BODY, "application/json"),
        ("/users/42", "limit=1000", Some(b"r"), BODY, "application/json"),
        ("/users/42", "limit=10", None, BODY, "application/json"),
        ("/users/42", "limit=10", Some(b"r"), r#"{"name":"","age":-1,"tags":[1],"role":"root"}"#, "application/json"),
        ("/users/42", "limit=10", Some(b"r"), BODY, "text/plain"),
        ("/nobody", "", None, "{}", "application/json"),
    ];
    for (path, query, id, body, ct) in requests {
        let a = post_user(&yaml, path, query, id, Some(body), ct);
        let b = post_user(&json, path, query, id, Some(body), ct);
        assert_eq!(a, b, "{path}?{query} {body}");
    }
}

#[cfg(feature = "yaml")]
#[test]
fn a_yaml_spec_error_is_located_as_in_json() {
    let bad = USERS_YAML.replace("pattern: '^[^@]+@[^@]+$'", "pattern: '('");
    let e = Api::compile(bad.as_bytes(), &ApiOptions::default()).map(|_| ()).unwrap_err();
    assert_eq!(e.location, "/components/schemas/User/properties/email/pattern", "{e}");
    // Reading errors carry the line and column, and where in the spec.
    let e =
        Api::compile(b"openapi: 3.0.3\npaths:\n  /a: {get: .inf}\n", &ApiOptions::default()).map(|_| ()).unwrap_err();
    assert_eq!(
        (e.location.as_str(), e.message.as_str()),
        ("/paths/~1a/get", ".inf is not a JSON number at line 3 column 13")
    );
    // A text not starting with `{` is YAML.
    let e = Api::compile(b"[1]", &ApiOptions::default()).map(|_| ()).unwrap_err();
    assert_eq!(e.location, "/openapi", "{e}");
}
