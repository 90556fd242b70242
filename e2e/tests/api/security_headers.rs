//! Browser security headers (issue 12, item 8): every response carries them, pages get a
//! policy without inline script and with `'wasm-unsafe-eval'`, API answers get one that
//! allows nothing, nobody may frame anything, and HSTS is sent in production only. (The
//! browser tests show the SPA runs under this policy with no violation in the console.)

use crate::support::TestApp;
use api::config::AppEnv;

/// The directives of a `Content-Security-Policy` value, by name.
fn directives(csp: &str) -> std::collections::HashMap<String, Vec<String>> {
    csp.split(';')
        .filter_map(|d| {
            let mut words = d.split_whitespace().map(str::to_owned);
            Some((words.next()?, words.collect()))
        })
        .collect()
}

#[tokio::test]
async fn pages_allow_only_their_own_scripts_and_no_framing() {
    let app = TestApp::spawn().await;
    let clerk_origin = app.clerk.url.trim_end_matches('/').to_owned();
    for path in ["/", "/waitlist/aurora-beta", "/owner/programs/x", "/sign-in"] {
        let page = app.get(path, None).await;
        let csp = page.header("content-security-policy").unwrap_or_else(|| panic!("{path}: no CSP"));
        let d = directives(csp);
        assert_eq!(d["script-src"], ["'self'", "'wasm-unsafe-eval'"], "{path}: {csp}");
        assert_eq!(d["style-src"], ["'self'"], "{path}: no inline style either: {csp}");
        assert_eq!(d["default-src"], ["'self'"], "{path}: {csp}");
        assert_eq!(d["object-src"], ["'none'"], "{path}: {csp}");
        assert_eq!(d["base-uri"], ["'none'"], "{path}: {csp}");
        assert_eq!(d["frame-ancestors"], ["'none'"], "{path}: {csp}");
        // The development sign-in calls the stand-in from the page.
        assert_eq!(d["connect-src"], ["'self'".to_owned(), clerk_origin.clone()], "{path}: {csp}");
        assert_eq!(page.header("x-frame-options"), Some("DENY"), "{path}");
        assert_eq!(page.header("x-content-type-options"), Some("nosniff"), "{path}");
        assert_eq!(page.header("referrer-policy"), Some("same-origin"), "{path}");
        assert_eq!(page.header("strict-transport-security"), None, "{path}: HSTS is for production only");
    }
}

#[tokio::test]
async fn api_answers_and_not_found_answers_carry_the_headers_too() {
    let app = TestApp::spawn().await;
    for (path, status) in
        [("/api/config", 200), ("/api/nothing-here", 404), ("/no-such-file.txt", 404), ("/healthz", 200)]
    {
        let reply = app.get(path, None).await;
        reply.assert(status);
        let csp = reply.header("content-security-policy").unwrap_or_else(|| panic!("{path}: no CSP"));
        assert!(csp.contains("frame-ancestors 'none'"), "{path}: {csp}");
        assert_eq!(reply.header("x-content-type-options"), Some("nosniff"), "{path}");
        assert_eq!(reply.header("referrer-policy"), Some("same-origin"), "{path}");
        if path.starts_with("/api/") {
            assert_eq!(directives(csp)["default-src"], ["'none'"], "{path}: data loads nothing: {csp}");
        }
    }
}

#[tokio::test]
async fn production_adds_strict_transport_security() {
    let app = TestApp::spawn_with(|s| s.app_env = AppEnv::Production).await;
    for path in ["/", "/api/config"] {
        let reply = app.get(path, None).await;
        assert_eq!(reply.header("strict-transport-security"), Some("max-age=31536000"), "{path}");
    }
}

#[tokio::test]
async fn with_real_clerk_the_pages_allow_its_frontend_api() {
    use base64::Engine as _;
    let key = format!("pk_test_{}", base64::engine::general_purpose::STANDARD.encode("clerk.example.com$"));
    let app = TestApp::spawn_with(|s| {
        s.clerk_publishable_key = Some(key);
        s.identity_dev_url = None;
    })
    .await;
    let page = app.get("/sign-in", None).await;
    let csp = page.header("content-security-policy").expect("a CSP");
    let d = directives(csp);
    assert!(d["script-src"].contains(&"https://clerk.example.com".to_owned()), "{csp}");
    assert!(!d["script-src"].iter().any(|s| s == "'unsafe-inline'"), "still no inline script: {csp}");
    assert_eq!(d["connect-src"], ["'self'", "https://clerk.example.com"], "{csp}");
    assert!(d["style-src"].contains(&"'unsafe-inline'".to_owned()), "clerk-js styles its components: {csp}");
}
