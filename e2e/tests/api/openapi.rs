//! The OpenAPI document (issue 7, item 7): served at `GET /api/openapi.json` without a
//! session, OpenAPI 3.x. It is collected from the routes' own registration, so there is
//! no list to keep in step: these tests read the operations from the document itself and
//! check that the running server answers each one under its own route pattern.

use crate::support::TestApp;
use reqwest::{Method, StatusCode};
use std::collections::BTreeSet;

/// Every (method, path) the document lists.
fn operations(doc: &serde_json::Value) -> BTreeSet<(String, String)> {
    let mut found = BTreeSet::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for method in item.as_object().unwrap().keys() {
            found.insert((method.to_uppercase(), path.clone()));
        }
    }
    found
}

#[tokio::test]
async fn the_document_is_served_publicly_as_openapi_3_with_every_audience() {
    let app = TestApp::spawn().await;

    let r = app.get("/api/openapi.json", None).await;
    r.assert(200);
    assert!(r.header("content-type").unwrap().starts_with("application/json"));
    let doc = r.json();
    assert!(doc["openapi"].as_str().unwrap().starts_with("3."), "{}", doc["openapi"]);

    let ops = operations(&doc);
    for (method, path) in [
        ("GET", "/healthz"),
        ("GET", "/api/openapi.json"),
        ("POST", "/api/public/programs/{slug}/signups"),
        ("POST", "/api/me/invitations/redeem"),
        ("POST", "/api/owner/invitations/{id}/revoke"),
    ] {
        assert!(ops.contains(&(method.to_owned(), path.to_owned())), "{method} {path} is not documented");
    }
    assert!(ops.len() >= 36, "only {} operations documented", ops.len());
}

#[tokio::test]
async fn the_document_names_the_security_schemes_csrf_header_and_error_body() {
    let app = TestApp::spawn().await;
    let doc = app.get("/api/openapi.json", None).await.json();

    let schemes = &doc["components"]["securitySchemes"];
    assert_eq!(schemes["bearer"]["scheme"], "bearer");
    assert_eq!(schemes["session_cookie"]["in"], "cookie");
    assert_eq!(schemes["session_cookie"]["name"], "__session");
    assert!(doc["components"]["schemas"]["ErrorBody"].is_object());
    assert!(doc["info"]["description"].as_str().unwrap().contains("Origin"));

    for (method, path) in operations(&doc) {
        let op = &doc["paths"][&path][method.to_lowercase()];
        let signed_in = path.starts_with("/api/me") || path.starts_with("/api/owner");
        let params: Vec<&str> =
            op["parameters"].as_array().into_iter().flatten().filter_map(|p| p["name"].as_str()).collect();
        let keyed = path.starts_with("/api/v1/");
        assert_eq!(op["security"].is_array(), signed_in || keyed, "{method} {path}: security");
        assert_eq!(params.contains(&"X-CSRF-Token"), signed_in && method != "GET", "{method} {path}: CSRF header");
        if signed_in {
            assert!(op["responses"]["401"].is_object(), "{method} {path}: 401");
        }
        if method != "GET" {
            assert!(op["responses"]["403"].is_object(), "{method} {path}: 403 for a foreign Origin");
        }
        if path.starts_with("/api/owner") {
            assert!(op["responses"]["404"].is_object(), "{method} {path}: the uniform 404");
        }
    }
    let v1 = &doc["paths"]["/api/v1/programs/{slug}/access"]["get"];
    assert_eq!(v1["security"][0]["api_key"], serde_json::json!([]), "{v1}");
    for status in ["401", "403", "404", "429", "503"] {
        assert!(v1["responses"][status].is_object(), "access check: {status}");
    }
    let webhooks = doc["webhooks"].as_object().expect("top-level webhooks");
    assert_eq!(webhooks.len(), 10, "nine subscribable types and webhook.test");
    // Each type has its own schema and an example that fits it (issue 30 item 8).
    for (name, hook) in webhooks {
        let body = &hook["post"]["requestBody"]["content"]["application/json"];
        let (schema, example) = (&body["schema"], &body["example"]);
        assert_eq!(schema["properties"]["type"]["const"], name.as_str(), "{name}");
        assert_eq!(example["type"], name.as_str(), "{name}");
        let data = &schema["properties"]["data"];
        assert_eq!(data["additionalProperties"], false, "{name}");
        let properties = data["properties"].as_object().unwrap();
        let given = example["data"].as_object().unwrap();
        assert!(given.keys().all(|k| properties.contains_key(k)), "{name}: the example has fields the schema lacks");
        for required in data["required"].as_array().unwrap() {
            assert!(given.contains_key(required.as_str().unwrap()), "{name}: the example lacks {required}");
        }
    }
    let created = &webhooks["grant.created"]["post"]["requestBody"]["content"]["application/json"]["schema"];
    assert!(created["properties"]["data"]["required"].as_array().unwrap().contains(&serde_json::json!("grantId")));
    assert!(doc["components"]["schemas"]["WebhookData"]["properties"]["grantId"].is_object());
    let csv = &doc["paths"]["/api/owner/programs/{id}/entries.csv"]["get"]["responses"]["200"]["content"];
    assert!(csv["text/csv"].is_object(), "{csv}");
    let bulk = &doc["paths"]["/api/owner/programs/{id}/invitations/bulk"]["post"]["responses"]["201"]["content"];
    assert!(bulk["text/csv"].is_object(), "{bulk}");
}

/// Each documented operation answers under its own pattern (the request log records the
/// matched pattern, so a documented route that is not mounted shows up as unmatched).
#[tokio::test]
async fn the_server_answers_every_documented_operation() {
    let app = TestApp::spawn_with(|s| s.metrics_addr = Some("127.0.0.1:0".into())).await;
    let ops = operations(&app.get("/api/openapi.json", None).await.json());
    for (method, path) in &ops {
        let concrete = path
            .replace("{slug}", "no-such-program")
            .replace("{id}", &uuid::Uuid::new_v4().to_string())
            .replace("{entryId}", &uuid::Uuid::new_v4().to_string());
        let r = app.request(Method::from_bytes(method.as_bytes()).unwrap(), &concrete, None).send().await.unwrap();
        assert_ne!(r.status(), StatusCode::INTERNAL_SERVER_ERROR, "{method} {path}");
    }
    let metrics = format!("{}/metrics", app.metrics.as_deref().unwrap());
    let text = app.http.get(metrics).send().await.unwrap().text().await.unwrap();
    for (method, path) in &ops {
        let series = format!("vestibule_http_request_duration_ms_count{{method=\"{method}\",route=\"{path}\",");
        assert!(text.contains(&series), "{method} {path} was not matched by the server:\n{text}");
    }
}

/// Every `$ref` in `value`, recursively.
fn refs<'a>(value: &'a serde_json::Value, out: &mut Vec<&'a str>) {
    match value {
        serde_json::Value::Object(map) => {
            if let Some(r) = map.get("$ref").and_then(|r| r.as_str()) {
                out.push(r);
            }
            map.values().for_each(|v| refs(v, out));
        }
        serde_json::Value::Array(items) => items.iter().for_each(|v| refs(v, out)),
        _ => {}
    }
}

/// The lottery's filter (issue 16) is documented with its grammar, and every schema the
/// document refers to (including the hand-written ones, such as the source's) is in it.
#[tokio::test]
async fn the_draw_filter_is_documented_and_every_schema_reference_resolves() {
    let app = TestApp::spawn().await;
    let doc = app.get("/api/openapi.json", None).await.json();
    let schemas = &doc["components"]["schemas"];
    assert_eq!(schemas["SourceRef"]["pattern"], "^[a-z0-9_-]{1,40}$");
    assert_eq!(
        schemas["FlagFilter"]["enum"],
        serde_json::json!(["unflagged", "disposable_domain", "possible_duplicate"])
    );
    let request = &schemas["OpenDrawRequest"]["properties"];
    assert!(request["source"].is_object() && request["flag"].is_object(), "{request}");
    assert!(schemas["DrawRecord"]["properties"]["filter"].is_object());
    assert!(schemas["DrawSummary"]["properties"]["filter"].is_object());

    let mut found = Vec::new();
    refs(&doc, &mut found);
    for r in found {
        let path = r.strip_prefix("#/components/").unwrap_or_else(|| panic!("unexpected $ref {r}"));
        let (kind, name) = path.split_once('/').unwrap();
        assert!(doc["components"][kind][name].is_object(), "{r} does not resolve");
    }
}

/// The first `enum` in a schema, however it is wrapped (`oneOf` with null, a `$ref`).
fn enum_in(doc: &serde_json::Value, schema: &serde_json::Value) -> Option<serde_json::Value> {
    if let Some(e) = schema.get("enum") {
        return Some(e.clone());
    }
    if let Some(name) =
        schema.get("$ref").and_then(|r| r.as_str()).and_then(|r| r.strip_prefix("#/components/schemas/"))
    {
        return enum_in(doc, &doc["components"]["schemas"][name]);
    }
    let nested: Vec<&serde_json::Value> = match schema {
        serde_json::Value::Object(m) => m.values().collect(),
        serde_json::Value::Array(a) => a.iter().collect(),
        _ => Vec::new(),
    };
    nested.into_iter().find_map(|v| enum_in(doc, v))
}

/// The queue's code filter (issue 19) is documented with its two values on the listing,
/// the search and the export, and the export names the listing's other filters.
#[tokio::test]
async fn the_queue_code_filter_is_documented_with_its_values_wherever_it_is_taken() {
    let app = TestApp::spawn().await;
    let doc = app.get("/api/openapi.json", None).await.json();
    let values = serde_json::json!(["unsent", "expiring"]);
    let param = |path: &str, name: &str| {
        let params = doc["paths"][path]["get"]["parameters"].as_array().cloned().unwrap_or_default();
        params.into_iter().find(|p| p["name"] == name).unwrap_or_else(|| panic!("{path} has no {name}"))
    };
    for path in ["/api/owner/programs/{id}/entries", "/api/owner/programs/{id}/entries.csv"] {
        assert_eq!(enum_in(&doc, &param(path, "invitation")["schema"]), Some(values.clone()), "{path}");
        for name in ["state", "ref", "flag"] {
            param(path, name);
        }
    }
    let search = &doc["components"]["schemas"]["EntrySearch"]["properties"]["invitation"];
    assert_eq!(enum_in(&doc, search), Some(values));
}

/// The path parameters of a path template, in order.
fn path_parameters(path: &str) -> Vec<&str> {
    path.split('/').filter_map(|s| s.strip_prefix('{').and_then(|s| s.strip_suffix('}'))).collect()
}

/// Creating answers carry OpenAPI `links` to the operations that act on what they created
/// (issue 30 item 3: what Schemathesis's stateful phase follows): each names a documented
/// operation and fills exactly its path parameters from the answer's body or the request's
/// path; and following one from a real create reaches the created object.
#[tokio::test]
async fn creating_answers_link_to_the_operations_on_what_they_created() {
    let app = TestApp::spawn().await;
    let doc = app.get("/api/openapi.json", None).await.json();
    let mut by_id = std::collections::HashMap::new();
    for (method, path) in operations(&doc) {
        if let Some(id) = doc["paths"][&path][method.to_lowercase()]["operationId"].as_str() {
            by_id.insert(id.to_owned(), path);
        }
    }
    let mut sources = BTreeSet::new();
    for (method, path) in operations(&doc) {
        let op = &doc["paths"][&path][method.to_lowercase()];
        for (status, response) in op["responses"].as_object().into_iter().flatten() {
            for (name, link) in response["links"].as_object().into_iter().flatten() {
                sources.insert(op["operationId"].as_str().unwrap().to_owned());
                assert!(status.starts_with('2'), "{method} {path} {status}: {name}");
                let target = link["operationId"].as_str().unwrap_or_else(|| panic!("{name}: no operationId: {link}"));
                let target_path = by_id.get(target).unwrap_or_else(|| panic!("{name}: {target} is not documented"));
                let given: BTreeSet<&str> =
                    link["parameters"].as_object().unwrap().keys().map(String::as_str).collect();
                let wanted: BTreeSet<&str> = path_parameters(target_path).into_iter().collect();
                assert_eq!(given, wanted, "{method} {path} → {target}");
                for value in link["parameters"].as_object().unwrap().values() {
                    let value = value.as_str().unwrap();
                    let from_path =
                        value.strip_prefix("$request.path.").is_some_and(|p| path_parameters(&path).contains(&p));
                    assert!(from_path || value.starts_with("$response.body#/"), "{name}: {value}");
                }
            }
        }
    }
    for source in ["createProgram", "createCohortCode", "createWebhook", "createApiKey", "issueInvitation", "openDraw"]
    {
        assert!(sources.contains(source), "{source} links nowhere");
    }

    // Follow createWebhook → listWebhookDeliveries from a real create.
    let (owner, ws) = app.owner("links@example.com").await;
    let created = owner
        .try_create_webhook(
            ws,
            &serde_json::json!({"url": "https://hooks.example.com/links", "events": ["entry.created"]}),
        )
        .await;
    created.assert(201);
    let link = &doc["paths"]["/api/owner/workspaces/{id}/webhooks"]["post"]["responses"]["201"]["links"]
        ["ListWebhookDeliveries"];
    let mut target = by_id["listWebhookDeliveries"].clone();
    for (name, value) in link["parameters"].as_object().unwrap() {
        let value = value.as_str().unwrap();
        let resolved = match value.strip_prefix("$response.body#") {
            Some(pointer) => created.json().pointer(pointer).unwrap().as_str().unwrap().to_owned(),
            None => {
                assert_eq!(value, "$request.path.id");
                ws.to_string()
            }
        };
        target = target.replace(&format!("{{{name}}}"), &resolved);
    }
    owner.get(&target).await.assert(200);
}
