//! HTTP method semantics (issue 30 item 1): a known API path asked with a method it does
//! not serve is 405 with `Allow` naming exactly what the registration serves there (read
//! here from the OpenAPI document, which is collected from the same registration), and
//! `HEAD` answers every API `GET` as the `GET` would, without a body.

use crate::support::TestApp;
use reqwest::Method;
use std::collections::BTreeSet;

/// The documented paths with the methods each serves (upper case).
fn documented(doc: &serde_json::Value) -> Vec<(String, BTreeSet<String>)> {
    doc["paths"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(path, item)| (path.clone(), item.as_object().unwrap().keys().map(|m| m.to_uppercase()).collect()))
        .collect()
}

/// `path` with every parameter filled: a slug for `{slug}`, a number for `{deliveryId}`,
/// a fresh UUID for any other.
fn concrete(path: &str) -> String {
    path.split('/')
        .map(|segment| match segment {
            "{slug}" => "no-such-program".to_owned(),
            "{deliveryId}" => "7".to_owned(),
            s if s.starts_with('{') => uuid::Uuid::new_v4().to_string(),
            s => s.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("/")
}

#[tokio::test]
async fn a_known_path_with_an_unserved_method_is_405_with_allow() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;

    let r = app.post("/api/config", &serde_json::json!({}), None).await;
    r.expect_error(405, "method_not_allowed");
    assert_eq!(r.header("allow"), Some("GET, HEAD"));
    assert_eq!(r.header("cache-control"), Some("private, no-store"));

    let r =
        app.send(Method::DELETE, &format!("/api/owner/workspaces/{ws}/webhooks"), None::<&()>, Some(&owner.user)).await;
    r.expect_error(405, "method_not_allowed");
    assert_eq!(r.header("allow"), Some("GET, HEAD, POST"));
    let program = uuid::Uuid::new_v4();
    let r = app.send(Method::PUT, &format!("/api/owner/programs/{program}"), None::<&()>, None).await;
    assert_eq!((r.status.as_u16(), r.header("allow")), (405, Some("GET, HEAD, PATCH")));
    // A path nothing is registered at stays the uniform 404.
    app.send(Method::DELETE, "/api/nope", None::<&()>, None).await.expect_error(404, "not_found");

    // Every documented path, asked with a method no route at that path serves: `Allow`
    // names exactly the methods of every pattern the path matches (a GET brings HEAD).
    let doc = app.get("/api/openapi.json", None).await.json();
    let routes = documented(&doc);
    for (path, _) in &routes {
        if !path.starts_with("/api/") {
            continue;
        }
        let url = concrete(path);
        let served: BTreeSet<&str> = routes
            .iter()
            .filter(|(pattern, _)| matches(pattern, &url))
            .flat_map(|(_, methods)| methods.iter().map(String::as_str))
            .collect();
        let Some(unserved) = ["GET", "POST", "PUT", "PATCH", "DELETE"].into_iter().find(|m| !served.contains(m)) else {
            continue;
        };
        let r = app.send(Method::from_bytes(unserved.as_bytes()).unwrap(), &url, None::<&()>, None).await;
        assert_eq!(r.status.as_u16(), 405, "{unserved} {path}: {}", r.text);
        let allow: BTreeSet<&str> = r.header("allow").unwrap_or_default().split(", ").collect();
        let mut expected = served.clone();
        if served.contains("GET") {
            expected.insert("HEAD");
        }
        assert_eq!(allow, expected, "{unserved} {path}");
    }
}

/// Whether the concrete `url` fits the documented `pattern`.
fn matches(pattern: &str, url: &str) -> bool {
    let (p, u): (Vec<&str>, Vec<&str>) = (pattern.split('/').collect(), url.split('/').collect());
    p.len() == u.len() && p.iter().zip(&u).all(|(p, u)| p.starts_with('{') || p == u)
}

#[tokio::test]
async fn head_answers_every_api_get_as_the_get_does_without_a_body() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    owner.open_program(ws, "heads-up").await;

    let get = app.get("/api/public/programs/heads-up", None).await;
    get.assert(200);
    let head = app.send(Method::HEAD, "/api/public/programs/heads-up", None::<&()>, None).await;
    assert_eq!(head.status.as_u16(), 200);
    assert!(head.text.is_empty(), "a HEAD answer has no body");
    assert_eq!(head.header("content-length"), Some(get.text.len().to_string().as_str()));
    assert_eq!(head.header("content-type"), get.header("content-type"));
    let head =
        app.send(Method::HEAD, &format!("/api/owner/workspaces/{ws}/webhooks"), None::<&()>, Some(&owner.user)).await;
    assert_eq!(head.status.as_u16(), 200);

    // Every documented GET: the HEAD's status is the GET's, and never a body.
    let doc = app.get("/api/openapi.json", None).await.json();
    for (path, methods) in documented(&doc) {
        if !path.starts_with("/api/") || !methods.contains("GET") {
            continue;
        }
        let url = concrete(&path);
        let get = app.get(&url, None).await;
        let head = app.send(Method::HEAD, &url, None::<&()>, None).await;
        assert_eq!(head.status, get.status, "HEAD {path}");
        assert!(head.text.is_empty(), "HEAD {path} has a body");
    }
}
