//! Metrics (issue 7, item 8): `/metrics` answers only on the `METRICS_ADDR` listener,
//! counts requests by route pattern and status, admission outcomes and identity-provider
//! failures, reports the pool, and never puts an id, email or token in a label.

use crate::support::TestApp;
use reqwest::StatusCode;
use std::collections::BTreeMap;

pub(crate) async fn spawn_with_metrics() -> TestApp {
    TestApp::spawn_with(|s| s.metrics_addr = Some("127.0.0.1:0".into())).await
}

/// The exposition text, as `series → value` (the series is the name with its labels).
pub(crate) async fn scrape(app: &TestApp) -> BTreeMap<String, f64> {
    let url = format!("{}/metrics", app.metrics.as_deref().expect("the metrics listener is on"));
    let r = app.http.get(url).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert!(r.headers()["content-type"].to_str().unwrap().starts_with("text/plain"));
    r.text()
        .await
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| {
            let (series, value) = l.rsplit_once(' ').unwrap_or_else(|| panic!("not a sample: {l}"));
            (series.to_owned(), value.parse().unwrap_or_else(|_| panic!("not a number: {l}")))
        })
        .collect()
}

pub(crate) fn value(samples: &BTreeMap<String, f64>, series: &str) -> f64 {
    samples.get(series).copied().unwrap_or(0.0)
}

/// Every label value of every series.
fn label_values(samples: &BTreeMap<String, f64>) -> Vec<String> {
    samples
        .keys()
        .filter_map(|s| Some(s.split_once('{')?.1.strip_suffix('}')?.to_owned()))
        .flat_map(|labels| {
            labels
                .split("\",")
                .map(|pair| pair.split_once("=\"").expect("name=\"value\"").1.trim_end_matches('"').to_owned())
                .collect::<Vec<_>>()
        })
        .collect()
}

#[tokio::test]
async fn metrics_count_requests_admissions_and_identity_failures_on_their_own_address_only() {
    let app = spawn_with_metrics().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let program = owner.open_program(ws, "metrics-beta").await;
    let applicant = app.user("ann@example.com").await;
    let before = scrape(&app).await;

    app.signup("metrics-beta", "ann@example.com").await;
    app.clerk.users_unavailable(true).await;
    app.get("/api/me/entries", Some(&applicant)).await.assert(503);
    app.clerk.users_unavailable(false).await;
    let after = scrape(&app).await;

    let admitted = r#"vestibule_events_total{family="admission",outcome="admitted"}"#;
    assert_eq!(value(&after, admitted) - value(&before, admitted), 1.0);
    let unavailable = r#"vestibule_events_total{family="identity",outcome="users_unavailable"}"#;
    assert_eq!(value(&after, unavailable) - value(&before, unavailable), 1.0);
    let signups = r#"vestibule_http_request_duration_ms_count{method="POST",route="/api/public/programs/{slug}/signups",status="202"}"#;
    assert_eq!(value(&after, signups), 1.0, "{after:#?}");
    let failed = r#"vestibule_http_request_duration_ms_count{method="GET",route="/api/me/entries",status="503"}"#;
    assert_eq!(value(&after, failed), 1.0);
    assert!(value(&after, r#"vestibule_db_pool_connections{kind="max"}"#) >= 1.0);

    // No label carries what a request carried: ids, emails, slugs, tokens.
    let secrets = [
        program.to_string(),
        ws.to_string(),
        "metrics-beta".to_owned(),
        "example.com".to_owned(),
        applicant.user_id.clone(),
        applicant.session_id.clone(),
        owner.user_id.clone(),
    ];
    for label in label_values(&after) {
        assert!(!label.contains('@'), "an email-like label: {label}");
        assert!(uuid::Uuid::parse_str(&label).is_err(), "an id as a label: {label}");
        for secret in &secrets {
            assert!(!label.contains(secret.as_str()), "label {label} holds {secret}");
        }
    }

    // The public address does not serve the metrics.
    let public = app.http.get(app.url("/metrics")).send().await.unwrap();
    assert_eq!(public.status(), StatusCode::NOT_FOUND);
    assert!(!public.text().await.unwrap().contains("vestibule_"));
}

#[tokio::test]
async fn an_unreachable_identity_provider_is_counted_as_jwks_unavailable() {
    let app = spawn_with_metrics().await;
    let user = app.user("bea@example.com").await;
    app.clerk.kill().await;

    // No signing keys were ever fetched, so verifying the token needs the provider.
    app.get("/api/me", Some(&user)).await.assert(503);

    let samples = scrape(&app).await;
    assert!(value(&samples, r#"vestibule_events_total{family="identity",outcome="jwks_unavailable"}"#) >= 1.0);
}

#[tokio::test]
async fn without_metrics_addr_there_is_no_metrics_listener() {
    let app = TestApp::spawn().await;
    assert!(app.metrics.is_none());
    let r = app.http.get(app.url("/metrics")).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
}
