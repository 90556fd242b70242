//! The log scan (issue 7): drive the acceptance flows against a `vestibule serve`
//! process logging at debug level, then search everything it printed for the emails,
//! codes, identity-provider ids and tokens it handled. None may appear.

use crate::support::process::ApiProcess;
use crate::support::TestApp;

#[tokio::test]
async fn server_output_holds_no_email_code_id_or_token() {
    let in_process = TestApp::spawn().await;
    let api = ApiProcess::start(&in_process.db_url, &in_process.clerk, &[]).await;
    let app = in_process.at(&api.base);
    let (owner, ws) = app.owner("owner.secret@example.com").await;
    let rita = app.recipient("rita.secret@example.com").await;
    let invited = owner.invited(ws, "scan-beta", "rita.secret@example.com").await;
    app.signup("scan-beta", "rita.secret@example.com").await;
    app.try_signup("scan-beta", "not-an-email").await.assert(400);
    rita.status("scan-beta").await;
    rita.try_redeem(&format!("{}A", "Z".repeat(42))).await.assert(404);
    rita.redeem(&invited.code).await;
    rita.early_access("scan-beta").await;
    owner.entry(invited.program, invited.entry).await;
    owner.export(invited.program).await.assert(200);
    rita.withdraw("scan-beta").await;
    app.clerk.users_unavailable(true).await;
    rita.try_entries().await.assert(503);
    app.clerk.users_unavailable(false).await;

    let output = api.output();
    assert!(output.contains("request"), "the server logged its requests");
    let me = rita.me().await;
    let secrets = [
        ("an applicant email", "rita.secret@example.com".to_owned()),
        ("an owner email", "owner.secret@example.com".to_owned()),
        ("a local part", "rita.secret".to_owned()),
        ("an invitation code", invited.code.clone()),
        ("a user id", rita.user_id.clone()),
        ("an owner's user id", owner.user_id.clone()),
        ("a session id", rita.session_id.clone()),
        ("a session token", rita.token.clone()),
        ("a token's signature", rita.token.rsplit('.').next().unwrap().to_owned()),
        ("a CSRF token", me.csrf_token),
        ("private content", "Private notes for scan-beta".to_owned()),
    ];
    for (what, secret) in &secrets {
        assert!(!output.contains(secret.as_str()), "{what} reached the server output");
    }
}
