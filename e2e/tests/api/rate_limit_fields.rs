//! The IETF rate-limit fields (issue 30 item 2, draft-ietf-httpapi-ratelimit-headers):
//! every answer a limiter counted — a public signup with a new key, a challenge, a
//! redemption, a server API call — says its policy (`"name";q=…;w=…`) and where the
//! counter stands (`"name";r=…;t=…`), with the windows the server really counts in; a
//! 429 says them beside `Retry-After`. A replayed signup (not counted) says where the
//! address stands, so it is the same answer as the first; other reads carry neither.

use crate::support::public::signup_request;
use crate::support::{clear_of_period_end, Reply, TestApp};

/// (remaining, seconds to reset) of `policy` in the `RateLimit` field, checking the
/// `RateLimit-Policy` field names it with `quota` per `window` seconds.
#[track_caller]
fn standing(r: &Reply, policy: &str, quota: u32, window: u32) -> (u32, u32) {
    let declared = r.header("ratelimit-policy").unwrap_or_else(|| panic!("no RateLimit-Policy ({})", r.status));
    assert!(declared.split(", ").any(|p| p == format!("\"{policy}\";q={quota};w={window}")), "{declared}");
    let field = r.header("ratelimit").expect("a RateLimit field");
    let item = field
        .split(", ")
        .find(|i| i.starts_with(&format!("\"{policy}\";")))
        .unwrap_or_else(|| panic!("{policy} not in {field}"));
    let param = |name: &str| -> u32 {
        let p = item.split(';').find_map(|p| p.strip_prefix(&format!("{name}="))).expect("the parameter");
        p.parse().expect("an integer")
    };
    let (remaining, reset) = (param("r"), param("t"));
    assert!((1..=window).contains(&reset), "t={reset} outside the {window}-second window");
    (remaining, reset)
}

#[tokio::test]
async fn signups_and_challenges_say_their_policy_and_what_remains() {
    let app = TestApp::spawn_with(|s| s.signup_rate_per_minute = 3).await;
    let (owner, ws) = app.owner("owner@example.com").await;
    owner.open_program(ws, "fields-beta").await;
    clear_of_period_end(60, 10).await;

    let first = signup_request("ann@example.com");
    let r = app.try_signup_with("fields-beta", &first).await;
    r.assert(202);
    assert_eq!(standing(&r, "signup", 3, 60).0, 2);
    // A replayed key is not counted, but says the same policy and where the address stands.
    let replay = app.try_signup_with("fields-beta", &first).await;
    replay.assert(202);
    assert_eq!(standing(&replay, "signup", 3, 60).0, 2);
    // A refused attempt is counted too (409 for a permission not given).
    let refused = app.try_signup_as("fields-beta", uuid::Uuid::new_v4(), "bob@example.com", 1, false).await;
    refused.assert(409);
    assert_eq!(standing(&refused, "signup", 3, 60).0, 1);
    app.try_signup("fields-beta", "cy@example.com").await.assert(202);
    let limited = app.try_signup("fields-beta", "dee@example.com").await;
    limited.expect_error(429, "too_many_requests");
    let (remaining, reset) = standing(&limited, "signup", 3, 60);
    assert_eq!(remaining, 0);
    assert_eq!(limited.header("retry-after"), Some(reset.to_string().as_str()));
    crate::support::assert_retry_after_is_the_windows_end(&limited, 60);

    // The challenge: four times the signup rate per address, its own counter.
    let program = owner.create_program(ws, "fields-work", Default::default()).await;
    owner.publish_notice(program.id).await;
    for left in (0..12).rev() {
        let r = app.get("/api/public/programs/fields-work/challenge", None).await;
        r.assert(200);
        assert_eq!(standing(&r, "challenge", 12, 60).0, left);
    }
    let r = app.get("/api/public/programs/fields-work/challenge", None).await;
    r.expect_error(429, "too_many_requests");
    let (_, reset) = standing(&r, "challenge", 12, 60);
    assert_eq!(r.header("retry-after"), Some(reset.to_string().as_str()));
    // An uncounted read carries nothing.
    let read = app.get("/api/public/programs/fields-beta", None).await;
    assert_eq!(read.header("ratelimit"), None);
}

#[tokio::test]
async fn redemptions_and_server_api_calls_say_their_policies() {
    let app = TestApp::spawn_with(|s| {
        s.redeem_failures_per_15min = 2;
        s.integrations.api_key_rate_per_minute = 3;
    })
    .await;
    clear_of_period_end(900, 20).await;
    let (owner, ws) = app.owner("owner@example.com").await;
    owner.open_program(ws, "fields-gamma").await;
    let rita = app.recipient("rita@example.com").await;

    let r = rita.try_redeem(&format!("{}A", "B".repeat(42))).await;
    r.assert(404);
    assert_eq!(standing(&r, "redeem-account", 2, 900).0, 1);
    assert_eq!(standing(&r, "redeem-address", 10, 900).0, 9);
    rita.try_redeem(&format!("{}Q", "B".repeat(42))).await.assert(404);
    let r = rita.try_redeem(&format!("{}g", "B".repeat(42))).await;
    r.expect_error(429, "too_many_requests");
    let (remaining, reset) = standing(&r, "redeem-account", 2, 900);
    assert_eq!(remaining, 0);
    assert_eq!(r.header("retry-after"), Some(reset.to_string().as_str()));

    clear_of_period_end(60, 5).await;
    let key = owner.create_api_key(ws, &["entries:read"]).await.secret;
    let path = "/api/v1/programs/fields-gamma/entries";
    for left in (0..3).rev() {
        let r = app.v1(&key, path).await;
        r.assert(200);
        assert_eq!(standing(&r, "api-key", 3, 60).0, left);
    }
    let r = app.v1(&key, path).await;
    r.expect_error(429, "too_many_requests");
    let (remaining, reset) = standing(&r, "api-key", 3, 60);
    assert_eq!(remaining, 0);
    assert_eq!(r.header("retry-after"), Some(reset.to_string().as_str()));
}
