//! The sign-up admission hook (issue 13): an identity provider's before-user-created
//! call, signed with the workspace's hook secret. Allowed (200 `{}`) only for an email
//! holding an unexpired issued invitation or an active grant in the workspace; 403
//! otherwise; a wrong signature and an old timestamp are refused; a repeated id is
//! answered as the first time for the same body and refused for another; 500 when the
//! database cannot answer.

use crate::support::integrations::{signed_headers, unix_now};
use crate::support::{Reply, TestApp};
use serde_json::json;
use std::time::Duration;
use uuid::Uuid;

async fn call(app: &TestApp, ws: Uuid, headers: &[(&'static str, String)], body: &str) -> Reply {
    let mut rb = app.http.post(app.url(&format!("/api/hooks/admit/{ws}"))).header("content-type", "application/json");
    for (name, value) in headers {
        rb = rb.header(*name, value);
    }
    Reply::from(rb.body(body.to_owned()).send().await.unwrap()).await
}

trait Refused {
    fn refused(&self, status: u16, code: &str);
}

/// The hook's refusals carry the error body plus the `http_code` the provider reads.
impl Refused for Reply {
    fn refused(&self, status: u16, code: &str) {
        assert_eq!(self.status.as_u16(), status, "{}", self.text);
        let body = self.json();
        assert_eq!(body["error"]["code"], code, "{body}");
        assert_eq!(body["error"]["http_code"], status, "{body}");
    }
}

fn payload(email: &str) -> String {
    json!({"metadata": {"uuid": Uuid::new_v4(), "name": "before-user-created"}, "user": {"email": email, "app_metadata": {}}})
        .to_string()
}

#[tokio::test]
async fn the_hook_admits_invited_and_granted_emails_only() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let hook = owner.set_hook_secret(ws).await;
    assert!(hook.secret.starts_with("whsec_"));
    assert_eq!(hook.path, format!("/api/hooks/admit/{ws}"));
    let invited = owner.invited(ws, "hook-beta", "ivy.hook@example.com").await;
    app.signup("hook-beta", "wendy.hook@example.com").await;

    let ask = |email: &str| {
        let body = payload(email);
        let headers = signed_headers(&hook.secret, &format!("msg_{}", Uuid::new_v4().simple()), unix_now(), &body);
        let app = app.clone();
        async move { call(&app, ws, &headers, &body).await }
    };
    let allowed = ask("ivy.hook@example.com").await;
    allowed.assert(200);
    assert_eq!(allowed.json(), json!({}));
    assert_eq!(ask("IVY.hook@EXAMPLE.com").await.status, 403, "the local part is kept exactly as typed");
    let refused = ask("wendy.hook@example.com").await;
    refused.assert(403);
    assert_eq!(refused.json()["error"]["code"], "signup_not_admitted");
    assert!(!refused.text.contains("wendy"), "no email in the answer");
    ask("nobody@example.com").await.assert(403);
    ask("not an email").await.assert(403);

    let ivy = app.recipient("ivy.hook@example.com").await;
    ivy.redeem(&invited.code).await;
    ask("ivy.hook@example.com").await.assert(200);
    owner.revoke_grant(app.scalar("SELECT id FROM grants", &[]).await).await;
    ask("ivy.hook@example.com").await.assert(403);

    // Another workspace admits nobody of this one.
    let (other, other_ws) = app.owner("other@example.com").await;
    let other_hook = other.set_hook_secret(other_ws).await;
    let body = payload("wendy.hook@example.com");
    let headers = signed_headers(&other_hook.secret, "msg_other", unix_now(), &body);
    call(&app, other_ws, &headers, &body).await.assert(403);
}

#[tokio::test]
async fn the_hook_refuses_bad_signatures_old_timestamps_and_replays() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let body = payload("ivy.hook@example.com");
    let headers = signed_headers("whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=", "msg_1", unix_now(), &body);
    call(&app, ws, &headers, &body).await.refused(404, "not_found");
    let hook = owner.set_hook_secret(ws).await;

    call(&app, ws, &headers, &body).await.refused(401, "hook_signature_rejected");
    call(&app, ws, &[], &body).await.refused(401, "hook_signature_rejected");
    let old = signed_headers(&hook.secret, "msg_old", unix_now() - 301, &body);
    call(&app, ws, &old, &body).await.refused(401, "hook_signature_rejected");
    let future = signed_headers(&hook.secret, "msg_future", unix_now() + 301, &body);
    call(&app, ws, &future, &body).await.refused(401, "hook_signature_rejected");
    let good = signed_headers(&hook.secret, "msg_once", unix_now(), &body);
    call(&app, ws, &good, &payload("someone.else@example.com")).await.refused(401, "hook_signature_rejected");
    call(&app, ws, &good, &body).await.assert(403);
    // The provider's retry of the same message is answered as the first time (see below).
    call(&app, ws, &good, &body).await.assert(403);
    call(&app, Uuid::new_v4(), &good, &body).await.refused(404, "not_found");

    // A replaced secret no longer signs.
    let replaced = owner.set_hook_secret(ws).await;
    let stale = signed_headers(&hook.secret, "msg_stale", unix_now(), &body);
    call(&app, ws, &stale, &body).await.refused(401, "hook_signature_rejected");
    let fresh = signed_headers(&replaced.secret, "msg_fresh", unix_now(), &body);
    call(&app, ws, &fresh, &body).await.assert(403);
}

/// Issue 26 item 8 (failed before: the retry was refused with 401, so a provider that
/// retried an unanswered call refused a sign-up that had been admitted). A repeated
/// `webhook-id` with the same body gets the decision given the first time — even if the
/// facts changed since — and the same id on another body, though signed with the secret,
/// admits nothing.
#[tokio::test]
async fn a_retried_hook_call_gets_its_first_decision_and_a_reused_id_admits_no_other_email() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let hook = owner.set_hook_secret(ws).await;
    let invited = owner.invited(ws, "retry-beta", "ivy.retry@example.com").await;
    app.signup("retry-beta", "wendy.retry@example.com").await;

    let ivy = payload("ivy.retry@example.com");
    let ivy_headers = signed_headers(&hook.secret, "msg_ivy", unix_now(), &ivy);
    call(&app, ws, &ivy_headers, &ivy).await.assert(200);
    call(&app, ws, &ivy_headers, &ivy).await.assert(200);
    let wendy = payload("wendy.retry@example.com");
    let wendy_headers = signed_headers(&hook.secret, "msg_wendy", unix_now(), &wendy);
    call(&app, ws, &wendy_headers, &wendy).await.assert(403);
    call(&app, ws, &wendy_headers, &wendy).await.assert(403);

    // The same ids on each other's bodies, validly signed: refused, whatever they would get.
    let ivy_as_wendy = signed_headers(&hook.secret, "msg_wendy", unix_now(), &ivy);
    call(&app, ws, &ivy_as_wendy, &ivy).await.refused(401, "hook_signature_rejected");
    let wendy_as_ivy = signed_headers(&hook.secret, "msg_ivy", unix_now(), &wendy);
    call(&app, ws, &wendy_as_ivy, &wendy).await.refused(401, "hook_signature_rejected");

    // The invitation is revoked: a new call is refused, the retry of the first still allowed.
    owner.revoke_invitation(invited.invitation).await;
    let again = signed_headers(&hook.secret, "msg_ivy_later", unix_now(), &ivy);
    call(&app, ws, &again, &ivy).await.assert(403);
    call(&app, ws, &ivy_headers, &ivy).await.assert(200);
    let stored: i64 = app.scalar("SELECT count(*) FROM hook_receipts WHERE binding IS NOT NULL", &[]).await;
    assert_eq!(stored, 3, "one receipt per message id");
}

#[tokio::test]
async fn the_hook_answers_500_when_the_database_cannot_answer() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let hook = owner.set_hook_secret(ws).await;
    let mut holder = app.db().await;
    let tx = holder.transaction().await.unwrap();
    tx.batch_execute("LOCK TABLE hook_receipts IN ACCESS EXCLUSIVE MODE").await.unwrap();
    let body = payload("ivy.hook@example.com");
    let headers = signed_headers(&hook.secret, "msg_locked", unix_now(), &body);
    let answer = tokio::time::timeout(Duration::from_secs(30), call(&app, ws, &headers, &body)).await.unwrap();
    answer.refused(500, "internal_error");
    tx.rollback().await.unwrap();
}
