//! The log scan (issue 7): drive the acceptance flows against a `vestibule serve`
//! process logging at debug level, then search everything it printed for the emails,
//! codes, identity-provider ids and tokens it handled. None may appear.

use crate::support::process::ApiProcess;
use crate::support::TestApp;
use serde_json::json;

#[tokio::test]
async fn server_output_holds_no_email_code_id_or_token() {
    let mut app = TestApp::spawn().await;
    let api = ApiProcess::start(&app.db_url, &app.clerk, &[]).await;
    app.base = api.base.clone();
    let (owner, ws) = app.owner("owner.secret@example.com").await;
    let rita = app.user("rita.secret@example.com").await;
    let (program, entry, invitation, code) = app.invited(&owner, ws, "scan-beta", "rita.secret@example.com").await;
    app.signup("scan-beta", "rita.secret@example.com").await.assert(202);
    app.signup("scan-beta", "not-an-email").await.assert(400);
    app.get("/api/me/waitlist/scan-beta", Some(&rita)).await.assert(200);
    app.redeem(&rita, &format!("{}A", "Z".repeat(42))).await.assert(404);
    app.redeem(&rita, &code).await.assert(200);
    app.get("/api/me/early-access/scan-beta", Some(&rita)).await.assert(200);
    app.get(&format!("/api/owner/programs/{program}/entries/{entry}"), Some(&owner)).await.assert(200);
    app.get(&format!("/api/owner/programs/{program}/entries.csv"), Some(&owner)).await.assert(200);
    app.post("/api/me/waitlist/scan-beta/withdraw", &json!({}), Some(&rita)).await.assert(200);
    app.clerk.users_unavailable(true).await;
    app.get("/api/me/entries", Some(&rita)).await.assert(503);
    app.clerk.users_unavailable(false).await;
    let _ = invitation;

    let output = api.output();
    assert!(output.contains("request"), "the server logged its requests");
    let me = app.get("/api/me", Some(&rita)).await.json();
    let secrets = [
        ("an applicant email", "rita.secret@example.com".to_owned()),
        ("an owner email", "owner.secret@example.com".to_owned()),
        ("a local part", "rita.secret".to_owned()),
        ("an invitation code", code.clone()),
        ("a user id", rita.user_id.clone()),
        ("an owner's user id", owner.user_id.clone()),
        ("a session id", rita.session_id.clone()),
        ("a session token", rita.token.clone()),
        ("a token's signature", rita.token.rsplit('.').next().unwrap().to_owned()),
        ("a CSRF token", me["csrfToken"].as_str().unwrap().to_owned()),
        ("private content", "Private notes for scan-beta".to_owned()),
    ];
    for (what, secret) in &secrets {
        assert!(!output.contains(secret.as_str()), "{what} reached the server output");
    }
}
