//! The log scan (issue 7): drive the acceptance flows against a `vestibule serve`
//! process logging at debug level, then search everything it printed for the emails,
//! codes, identity-provider ids and tokens it handled. None may appear.

use crate::support::integrations::{signed_headers, unix_now};
use crate::support::owner::changes;
use crate::support::process::ApiProcess;
use crate::support::receiver::Receiver;
use crate::support::{eventually, TestApp};
use serde_json::json;
use shared::api::PatchProgramRequest;
use shared::clerk_sync::ClerkSyncSetting;
use std::time::Duration;

#[tokio::test]
async fn server_output_holds_no_email_code_id_or_token() {
    // The process under scan does every delivery: the in-process server's worker idles.
    let in_process = TestApp::spawn_with(|s| s.integrations.poll = Duration::from_secs(3600)).await;
    let env = [("WEBHOOK_ALLOW_LOOPBACK", "true"), ("OUTBOX_POLL_MS", "50"), ("OUTBOX_BACKOFF_SCALE", "0.001")];
    let api = ApiProcess::start(&in_process.db_url, &in_process.clerk, &env).await;
    let app = in_process.at(&api.base);
    let (owner, ws) = app.owner("owner.secret@example.com").await;
    // A second owner with a Clerk name (issue 19, item 8): the pages name owners.
    let named = app.clerk.create_named_user("named.secret@example.com", Some("Octavia"), Some("Quillfeather")).await;
    let pool = api::db::pool(&in_process.db_url, 1).unwrap();
    api::usecases::membership::change(&pool, ws, &named, "scan-approval", &api::usecases::membership::Change::Grant)
        .await
        .expect("granted");
    // Integrations (issue 13): a webhook with its deliveries, an API key and its calls,
    // the admission hook.
    let receiver = Receiver::start().await;
    let webhook = owner.create_webhook(ws, &receiver.url()).await;
    receiver.trust(&webhook.secret);
    let rotated = owner.rotate_webhook_secret(ws, webhook.webhook.id).await;
    receiver.trust(&rotated.secret);
    let key = owner.create_api_key(ws, &["access:read", "entries:read"]).await;
    let hook = owner.set_hook_secret(ws).await;
    let rita = app.recipient("rita.secret@example.com").await;
    let invited = owner.invited(ws, "scan-beta", "rita.secret@example.com").await;
    // "On grant, in Clerk" (issue 14): the grant and the withdrawal reach Clerk from the
    // process under scan.
    let body = json!({"name": "Scan", "created_by": owner.user_id});
    let (_, org) = app.clerk.backend(reqwest::Method::POST, "/v1/organizations", Some(body)).await;
    let clerk = ClerkSyncSetting {
        public_metadata: true,
        organization_id: org["id"].as_str().map(String::from),
        role: Some("org:member".into()),
    };
    owner.patch_program(invited.program, PatchProgramRequest { clerk: Some(clerk), ..changes() }).await;
    app.signup("scan-beta", "rita.secret@example.com").await;
    app.try_signup("scan-beta", "not-an-email").await.assert(400);
    rita.status("scan-beta").await;
    rita.try_redeem(&format!("{}A", "Z".repeat(42))).await.assert(404);
    rita.redeem(&invited.code).await;
    rita.early_access("scan-beta").await;
    owner.entry(invited.program, invited.entry).await;
    owner.events(invited.program, "?order=desc&actor=owner").await;
    assert!(owner.owners(ws).await.owners.iter().any(|o| o.name.as_deref() == Some("Octavia Quillfeather")));
    owner.export(invited.program).await.assert(200);
    rita.withdraw("scan-beta").await;
    app.v1(&key.secret, &format!("/api/v1/programs/scan-beta/access?clerkUserId={}", rita.user_id)).await.assert(200);
    app.v1(&key.secret, "/api/v1/programs/scan-beta/entries").await.assert(200);
    let body = serde_json::json!({"user": {"email": "rita.secret@example.com"}}).to_string();
    let headers = signed_headers(&hook.secret, "msg_scan", unix_now(), &body);
    let mut call = app.http.post(app.url(&format!("/api/hooks/admit/{ws}"))).header("content-type", "application/json");
    for (name, value) in &headers {
        call = call.header(*name, value);
    }
    assert!(call.body(body).send().await.unwrap().status().is_client_error());
    app.clerk.users_unavailable(true).await;
    rita.try_entries().await.assert(503);
    app.v1(&key.secret, &format!("/api/v1/programs/scan-beta/access?clerkUserId={}", rita.user_id)).await.assert(200);
    app.clerk.users_unavailable(false).await;
    eventually("every webhook delivered", Duration::from_secs(60), || async {
        (app.undelivered().await == 0 && receiver.accepted_ids() == app.outbox_message_ids().await).then_some(())
    })
    .await;

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
        ("an owner's name", "Quillfeather".to_owned()),
        ("a named owner's email", "named.secret@example.com".to_owned()),
        ("a named owner's user id", named.clone()),
        ("a session id", rita.session_id.clone()),
        ("a session token", rita.token.clone()),
        ("a token's signature", rita.token.rsplit('.').next().unwrap().to_owned()),
        ("a CSRF token", me.csrf_token),
        ("private content", "Private notes for scan-beta".to_owned()),
        ("a webhook secret", webhook.secret[6..].to_owned()),
        ("a rotated webhook secret", rotated.secret[6..].to_owned()),
        ("an API key", key.secret[4..].to_owned()),
        ("a hook secret", hook.secret[6..].to_owned()),
    ];
    for (_, payload) in &receiver.log.lock().unwrap().accepted {
        let text = payload.to_string();
        for (what, secret) in &secrets {
            assert!(!text.contains(secret.as_str()), "{what} reached a webhook payload");
        }
    }
    let attempts: Vec<String> = app.column("SELECT outcome FROM outbox_attempts", &[]).await;
    assert!(!attempts.is_empty() && output.contains("outbox delivery attempt"), "deliveries were logged");
    let synced: i64 = app
        .scalar("SELECT count(*) FROM outbox_deliveries WHERE target_kind = 'clerk_sync' AND state = 'delivered'", &[])
        .await;
    assert!(synced == 2 && output.contains("clerk sync call"), "the grant and the withdrawal reached Clerk");
    for (what, secret) in &secrets {
        assert!(!output.contains(secret.as_str()), "{what} reached the server output");
    }
}
