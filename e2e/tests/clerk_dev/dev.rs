//! The dev endpoints: sign-in, token refresh and CORS.

use reqwest::{header, Method, Response, StatusCode};
use serde_json::json;

use crate::support::{error_code, json_of, ClerkDev, FOREIGN_ORIGIN, ORIGIN, OTHER_ORIGIN};

#[tokio::test]
async fn dev_sign_in_finds_or_creates_and_sets_azp_from_origin() {
    let clerk = ClerkDev::start().await;
    let sign_in = |email: &str, origin: Option<&str>| {
        let mut req = clerk.request(Method::POST, "/dev/sign-in").json(&json!({ "email": email }));
        if let Some(origin) = origin {
            req = req.header(header::ORIGIN, origin);
        }
        req.send()
    };

    let res = sign_in("dev@Example.com", Some(ORIGIN)).await.unwrap();
    assert_eq!(res.headers().get(header::ACCESS_CONTROL_ALLOW_ORIGIN).unwrap(), ORIGIN);
    let (status, first) = json_of(res).await;
    assert_eq!(status, StatusCode::OK, "{first}");
    let claims = clerk.verify(first["jwt"].as_str().unwrap()).await.expect("valid");
    assert_eq!(
        (&claims["sub"], &claims["sid"], &claims["azp"]),
        (&first["userId"], &first["sessionId"], &json!(ORIGIN))
    );
    let (_, user) = clerk.api(Method::GET, &format!("/v1/users/{}", first["userId"].as_str().unwrap()), None).await;
    assert_eq!(user["email_addresses"][0]["verification"]["status"], "verified");

    let (_, again) = json_of(sign_in(" dev@example.COM ", None).await.unwrap()).await;
    assert_eq!(again["userId"], first["userId"]);
    assert_ne!(again["sessionId"], first["sessionId"]);
    let claims = clerk.verify(again["jwt"].as_str().unwrap()).await.expect("valid");
    assert!(claims.get("azp").is_none(), "no Origin, no azp: {claims}");

    let existing = clerk.create_user("backend@example.com").await;
    let (_, found) = json_of(sign_in("backend@example.com", None).await.unwrap()).await;
    assert_eq!(found["userId"], existing["id"]);

    let path = format!("/dev/sessions/{}/tokens", first["sessionId"].as_str().unwrap());
    let res = clerk.request(Method::POST, &path).header(header::ORIGIN, ORIGIN).send().await.unwrap();
    let (status, refreshed) = json_of(res).await;
    assert_eq!(status, StatusCode::OK);
    let claims = clerk.verify(refreshed["jwt"].as_str().unwrap()).await.expect("valid");
    assert_eq!((&claims["sid"], &claims["azp"]), (&first["sessionId"], &json!(ORIGIN)));
    let res = clerk.request(Method::POST, "/dev/sessions/sess_nope/tokens").send().await.unwrap();
    assert_eq!(res.status(), StatusCode::NOT_FOUND);

    let (status, body) = json_of(sign_in("not an email", Some(ORIGIN)).await.unwrap()).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    error_code(&body);
}

async fn preflight(clerk: &ClerkDev, origin: &str) -> Response {
    clerk
        .request(Method::OPTIONS, "/dev/sign-in")
        .header(header::ORIGIN, origin)
        .header(header::ACCESS_CONTROL_REQUEST_METHOD, "POST")
        .header(header::ACCESS_CONTROL_REQUEST_HEADERS, "content-type")
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn cors_allows_only_the_configured_origins() {
    let clerk = ClerkDev::start_with(&["--allowed-origin", &format!("{OTHER_ORIGIN},http://localhost:8080")]).await;
    for origin in [ORIGIN, OTHER_ORIGIN, "http://localhost:8080"] {
        let res = preflight(&clerk, origin).await;
        assert!(res.status().is_success(), "{origin}: {}", res.status());
        assert_eq!(res.headers().get(header::ACCESS_CONTROL_ALLOW_ORIGIN).unwrap(), origin);
        let methods = res.headers().get(header::ACCESS_CONTROL_ALLOW_METHODS).unwrap().to_str().unwrap();
        assert!(methods.contains("POST"), "{methods}");
    }
    let res = preflight(&clerk, FOREIGN_ORIGIN).await;
    assert!(res.headers().get(header::ACCESS_CONTROL_ALLOW_ORIGIN).is_none());
    let res = clerk
        .request(Method::POST, "/dev/sign-in")
        .header(header::ORIGIN, FOREIGN_ORIGIN)
        .json(&json!({ "email": "x@example.com" }))
        .send()
        .await
        .unwrap();
    assert!(res.headers().get(header::ACCESS_CONTROL_ALLOW_ORIGIN).is_none());
    assert!(!res.status().is_success());
}
