//! The OpenAPI document (issue 7, item 7): served at `GET /api/openapi.json` without a
//! session, OpenAPI 3.x, and listing exactly the routes the server mounts — the list
//! below, which must also equal the `.route(…)` calls in `api/src/routes` and every
//! entry of which the running server must answer under its own route pattern.

use crate::support::TestApp;
use reqwest::{Method, StatusCode};
use std::collections::BTreeSet;

/// Every route the server mounts (the SPA's static files and shell apart), as OpenAPI
/// paths. A new route goes here, into the document and into the router together.
const ROUTES: &[(&str, &str)] = &[
    ("GET", "/healthz"),
    ("GET", "/readyz"),
    ("GET", "/api/openapi.json"),
    ("GET", "/api/config"),
    ("GET", "/api/public/programs/{slug}"),
    ("POST", "/api/public/programs/{slug}/signups"),
    ("GET", "/api/me"),
    ("GET", "/api/me/entries"),
    ("GET", "/api/me/waitlist/{slug}"),
    ("POST", "/api/me/waitlist/{slug}/withdraw"),
    ("POST", "/api/me/invitations/redeem"),
    ("GET", "/api/me/early-access/{slug}"),
    ("GET", "/api/owner/workspaces"),
    ("GET", "/api/owner/workspaces/{id}/owners"),
    ("POST", "/api/owner/programs"),
    ("GET", "/api/owner/programs"),
    ("GET", "/api/owner/programs/{id}"),
    ("PATCH", "/api/owner/programs/{id}"),
    ("GET", "/api/owner/programs/{id}/stats"),
    ("POST", "/api/owner/programs/{id}/notices"),
    ("GET", "/api/owner/programs/{id}/entries"),
    ("POST", "/api/owner/programs/{id}/entries/search"),
    ("GET", "/api/owner/programs/{id}/entries/{entryId}"),
    ("GET", "/api/owner/programs/{id}/entries.csv"),
    ("POST", "/api/owner/programs/{id}/entries/select-bulk"),
    ("POST", "/api/owner/programs/{id}/entries/{entryId}/select"),
    ("POST", "/api/owner/programs/{id}/entries/{entryId}/decline"),
    ("POST", "/api/owner/programs/{id}/entries/{entryId}/withdraw"),
    ("POST", "/api/owner/programs/{id}/entries/{entryId}/invitations"),
    ("POST", "/api/owner/programs/{id}/invitations/bulk"),
    ("POST", "/api/owner/invitations/{id}/delivery-record"),
    ("POST", "/api/owner/invitations/{id}/revoke"),
    ("POST", "/api/owner/grants/{id}/revoke"),
    ("GET", "/api/owner/programs/{id}/content"),
    ("PUT", "/api/owner/programs/{id}/content"),
    ("GET", "/api/owner/programs/{id}/events"),
];

fn listed() -> BTreeSet<(String, String)> {
    ROUTES.iter().map(|(m, p)| ((*m).to_owned(), (*p).to_owned())).collect()
}

/// The `.route("PATH", web::METHOD()…)` calls of the route modules, with the `/api`
/// scope prefix for everything but the health probes (mounted at the root).
fn routes_in_source() -> BTreeSet<(String, String)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../api/src/routes");
    let mut found = BTreeSet::new();
    let mut stack = vec![dir];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let name = path.file_name().unwrap().to_str().unwrap();
            // The SPA shell and the metrics listener are not the API.
            if name == "spa.rs" || name == "metrics.rs" {
                continue;
            }
            let source = std::fs::read_to_string(&path).unwrap();
            for (at, _) in source.match_indices(".route(") {
                let rest = source[at + ".route(".len()..].trim_start();
                let Some(rest) = rest.strip_prefix('"') else { continue };
                let (route, rest) = rest.split_once('"').unwrap();
                let rest = rest.trim_start().trim_start_matches(',').trim_start();
                let method = rest.strip_prefix("web::").and_then(|r| r.split_once('(')).map(|(m, _)| m).unwrap();
                let prefix = if name == "health.rs" { "" } else { "/api" };
                found.insert((method.to_uppercase(), format!("{prefix}{route}")));
            }
        }
    }
    found
}

#[tokio::test]
async fn the_document_is_served_publicly_as_openapi_3_and_lists_every_mounted_route() {
    let app = TestApp::spawn().await;

    let r = app.get("/api/openapi.json", None).await;
    r.assert(200);
    assert!(r.header("content-type").unwrap().starts_with("application/json"));
    let doc = r.json();
    assert!(doc["openapi"].as_str().unwrap().starts_with("3."), "{}", doc["openapi"]);

    let mut documented = BTreeSet::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for method in item.as_object().unwrap().keys() {
            documented.insert((method.to_uppercase(), path.clone()));
        }
    }
    assert_eq!(documented, listed(), "the document and the route list differ");
    assert_eq!(routes_in_source(), listed(), "the router and the route list differ");
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

    for (method, path) in ROUTES {
        let op = &doc["paths"][path][method.to_lowercase()];
        let signed_in = path.starts_with("/api/me") || path.starts_with("/api/owner");
        let params: Vec<&str> =
            op["parameters"].as_array().into_iter().flatten().filter_map(|p| p["name"].as_str()).collect();
        assert_eq!(op["security"].is_array(), signed_in, "{method} {path}: security");
        assert_eq!(params.contains(&"X-CSRF-Token"), signed_in && *method != "GET", "{method} {path}: CSRF header");
        if signed_in {
            assert!(op["responses"]["401"].is_object(), "{method} {path}: 401");
        }
        if *method != "GET" {
            assert!(op["responses"]["403"].is_object(), "{method} {path}: 403 for a foreign Origin");
        }
    }
    let csv = &doc["paths"]["/api/owner/programs/{id}/entries.csv"]["get"]["responses"]["200"]["content"];
    assert!(csv["text/csv"].is_object(), "{csv}");
    let bulk = &doc["paths"]["/api/owner/programs/{id}/invitations/bulk"]["post"]["responses"]["201"]["content"];
    assert!(bulk["text/csv"].is_object(), "{bulk}");
}

/// Each listed route answers under its own pattern (the request log records the matched
/// pattern, so a route that is not mounted shows up as unmatched, not by its name).
#[tokio::test]
async fn the_server_answers_every_listed_route() {
    let app = TestApp::spawn_with(|s| s.metrics_addr = Some("127.0.0.1:0".into())).await;
    for (method, path) in ROUTES {
        let concrete = path
            .replace("{slug}", "no-such-program")
            .replace("{id}", &uuid::Uuid::new_v4().to_string())
            .replace("{entryId}", &uuid::Uuid::new_v4().to_string());
        let r = app.request(Method::from_bytes(method.as_bytes()).unwrap(), &concrete, None).send().await.unwrap();
        assert_ne!(r.status(), StatusCode::INTERNAL_SERVER_ERROR, "{method} {path}");
    }
    let metrics = format!("{}/metrics", app.metrics.as_deref().unwrap());
    let text = app.http.get(metrics).send().await.unwrap().text().await.unwrap();
    for (method, path) in ROUTES {
        let series = format!("vestibule_http_request_duration_ms_count{{method=\"{method}\",route=\"{path}\",");
        assert!(text.contains(&series), "{method} {path} was not matched by the server:\n{text}");
    }
}
