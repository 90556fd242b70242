//! One-time invitation codes (issue 4): shown in exactly one response and stored only
//! as the SHA-256 of their bytes; replays answer metadata; seats hold under concurrency;
//! revocation, expiry and reissue; delivery records once; grant revocation.

use crate::queue::{hex, queue_of};
use crate::support::TestApp;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use serde_json::{json, Value};
use std::sync::Arc;
use tokio::sync::Barrier;
use uuid::Uuid;

/// Every row of every table of the app's database, as JSON text.
pub(crate) async fn database_text(app: &TestApp) -> String {
    let db = app.db().await;
    let tables = db.query("SELECT tablename FROM pg_tables WHERE schemaname = 'public'", &[]).await.unwrap();
    assert!(tables.len() >= 14, "every table is dumped");
    let mut out = String::new();
    for t in tables {
        let name: String = t.get(0);
        for r in db.query(&format!("SELECT row_to_json(t)::text FROM \"{name}\" t"), &[]).await.unwrap() {
            out.push_str(r.get::<_, &str>(0));
            out.push('\n');
        }
    }
    out
}

/// Asserts that `code` appears nowhere in the database, neither as text nor as raw bytes.
pub(crate) async fn assert_not_stored(app: &TestApp, code: &str) {
    let dump = database_text(app).await;
    assert!(!dump.contains(code), "the code is in a database column");
    let bytes = URL_SAFE_NO_PAD.decode(code).unwrap();
    assert!(!dump.contains(&hex(&bytes)), "the code's bytes are in a database column");
}

fn sha256_hex(code: &str) -> String {
    let bytes = URL_SAFE_NO_PAD.decode(code).unwrap();
    assert_eq!(bytes.len(), 32);
    hex(ring::digest::digest(&ring::digest::SHA256, &bytes).as_ref())
}

fn in_days(days: i64) -> String {
    (chrono::Utc::now() + chrono::Duration::days(days)).to_rfc3339()
}

#[tokio::test]
async fn the_code_appears_in_exactly_one_response_and_only_its_digest_is_stored() {
    let app = TestApp::spawn().await;
    let (owner, _, program) = queue_of(&app, "once", 1).await;
    let entry = app.entry_id(program, "u0@example.com").await;
    app.select(&owner, program, entry).await.assert(200);
    let key = Uuid::new_v4();
    let expires = in_days(5);
    let path = format!("/api/owner/programs/{program}/entries/{entry}/invitations");
    let r = app.post(&path, &json!({"requestKey": key, "expiresAt": expires}), Some(&owner)).await;
    r.assert(201);
    assert_eq!(r.header("cache-control"), Some("private, no-store"));
    let issued = r.json();
    let code = issued["code"].as_str().unwrap().to_owned();
    assert_eq!(code.len(), 43);
    assert_eq!(issued["invitation"]["state"], "issued");
    let invitation: Uuid = issued["invitation"]["id"].as_str().unwrap().parse().unwrap();

    // The same key and fields: the same invitation, without a code.
    let replay = app.post(&path, &json!({"requestKey": key, "expiresAt": expires}), Some(&owner)).await;
    replay.assert(200);
    assert_eq!(replay.json()["invitation"]["id"], invitation.to_string());
    assert!(replay.json().get("code").is_none());
    assert!(!replay.text.contains(&code));
    // The same key with other fields: refused, and nothing new issued.
    let other = app.post(&path, &json!({"requestKey": key, "expiresAt": in_days(6)}), Some(&owner)).await;
    other.assert(409);
    assert_eq!(other.code(), "request_key_reused");

    app.record_delivery(&owner, invitation).await.assert(200);
    let p = format!("/api/owner/programs/{program}");
    for later in
        [format!("{p}/entries"), format!("{p}/entries/{entry}"), format!("{p}/events"), format!("{p}/entries.csv")]
    {
        let r = app.get(&later, Some(&owner)).await;
        r.assert(200);
        assert!(!r.text.contains(&code), "{later} shows the code");
    }
    let db = app.db().await;
    let rows = db.query("SELECT token_sha256 FROM invitations", &[]).await.unwrap();
    assert_eq!(rows.len(), 1, "one invitation, even after the replay");
    let digest: Vec<u8> = rows[0].get(0);
    assert_eq!(digest.len(), 32);
    assert_eq!(hex(&digest), sha256_hex(&code), "SHA-256 of the decoded bytes");
    assert_not_stored(&app, &code).await;
    let receipt: (String, Uuid) = db
        .query_one("SELECT action, target_id FROM owner_action_receipts WHERE request_key = $1", &[&key])
        .await
        .map(|r| (r.get(0), r.get(1)))
        .unwrap();
    assert_eq!(receipt, ("issue_invitation".to_owned(), invitation));
}

#[tokio::test]
async fn two_concurrent_issues_for_the_last_seat_give_exactly_one_invitation() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let caps = crate::support::flows::Caps { seats: 1, ..Default::default() };
    let program = app.program_with(&owner, ws, "one-seat", caps).await;
    let mut entries = Vec::new();
    for email in ["a@example.com", "b@example.com"] {
        app.signup("one-seat", email).await.assert(202);
        let e = app.entry_id(program, email).await;
        app.select(&owner, program, e).await.assert(200);
        entries.push(e);
    }
    let barrier = Arc::new(Barrier::new(2));
    let go = async |entry: Uuid| {
        barrier.wait().await;
        app.issue_with(&owner, program, entry, Uuid::new_v4(), 3).await
    };
    let (a, b) = tokio::join!(go(entries[0]), go(entries[1]));
    let mut statuses = [a.status.as_u16(), b.status.as_u16()];
    statuses.sort();
    assert_eq!(statuses, [201, 409], "{} / {}", a.text, b.text);
    let loser = if a.status == 409 { &a } else { &b };
    assert_eq!(loser.code(), "no_seat_available");
    let db = app.db().await;
    let n: i64 = db.query_one("SELECT count(*) FROM invitations WHERE state = 'issued'", &[]).await.unwrap().get(0);
    assert_eq!(n, 1);
}

#[tokio::test]
async fn revoke_frees_the_seat_and_a_new_key_reissues() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let caps = crate::support::flows::Caps { seats: 1, ..Default::default() };
    let program = app.program_with(&owner, ws, "reissue", caps).await;
    app.signup("reissue", "a@example.com").await.assert(202);
    app.signup("reissue", "b@example.com").await.assert(202);
    let (a, b) = (app.entry_id(program, "a@example.com").await, app.entry_id(program, "b@example.com").await);
    app.select(&owner, program, a).await.assert(200);
    app.select(&owner, program, b).await.assert(200);
    let first_key = Uuid::new_v4();
    let first_body = json!({"requestKey": first_key, "expiresAt": in_days(3)});
    let issue_a = format!("/api/owner/programs/{program}/entries/{a}/invitations");
    let first = app.post(&issue_a, &first_body, Some(&owner)).await;
    first.assert(201);
    let invitation = first.json()["invitation"]["id"].as_str().unwrap().to_owned();
    let full = app.issue_with(&owner, program, b, Uuid::new_v4(), 3).await;
    full.assert(409);
    assert_eq!(full.code(), "no_seat_available");
    let live = app.issue_with(&owner, program, a, Uuid::new_v4(), 3).await;
    live.assert(409);
    assert_eq!(live.code(), "invitation_outstanding");

    let r = app.post(&format!("/api/owner/invitations/{invitation}/revoke"), &json!({}), Some(&owner)).await;
    r.assert(200);
    assert_eq!(r.json()["state"], "revoked");
    assert!(!r.text.contains(first.json()["code"].as_str().unwrap()));
    let again = app.post(&format!("/api/owner/invitations/{invitation}/revoke"), &json!({}), Some(&owner)).await;
    again.assert(409);
    let detail = app.get(&format!("/api/owner/programs/{program}/entries/{a}"), Some(&owner)).await.json();
    assert_eq!(detail["state"], "selected");

    // The old key still answers what it did, without a code; a new key reissues.
    let replay = app.post(&issue_a, &first_body, Some(&owner)).await;
    replay.assert(200);
    assert_eq!(replay.json()["invitation"]["state"], "revoked");
    assert!(replay.json().get("code").is_none());
    let reissued = app.issue_with(&owner, program, a, Uuid::new_v4(), 3).await;
    reissued.assert(201);
    assert_ne!(reissued.json()["code"], first.json()["code"]);
    let types = entry_event_types(&app, a).await;
    assert_eq!(types, ["signup", "selected", "invite_issued", "invite_revoked", "invite_issued"]);
}

async fn entry_event_types(app: &TestApp, entry: Uuid) -> Vec<String> {
    let db = app.db().await;
    let rows =
        db.query("SELECT event_type FROM audit_events WHERE entry_id = $1 ORDER BY id", &[&entry]).await.unwrap();
    rows.iter().map(|r| r.get(0)).collect()
}

#[tokio::test]
async fn an_expired_invitation_is_marked_expired_before_the_reissue() {
    let app = TestApp::spawn().await;
    let (owner, _, program) = queue_of(&app, "expired", 1).await;
    let entry = app.entry_id(program, "u0@example.com").await;
    app.select(&owner, program, entry).await.assert(200);
    let (old, old_code) = app.issue(&owner, program, entry).await;
    let db = app.db().await;
    db.execute(
        "UPDATE invitations SET issued_at = now() - interval '3 days', expires_at = now() - interval '1 day' WHERE id = $1",
        &[&old],
    )
    .await
    .unwrap();
    // One seat: the expired invitation no longer holds it, and this entry counts once.
    db.execute("UPDATE programs SET seat_cap = 1 WHERE id = $1", &[&program]).await.unwrap();

    let r = app.issue_with(&owner, program, entry, Uuid::new_v4(), 2).await;
    r.assert(201);
    let new_code = r.json()["code"].as_str().unwrap().to_owned();
    assert_ne!(new_code, old_code);
    let row =
        db.query_one("SELECT state, terminal_at IS NOT NULL FROM invitations WHERE id = $1", &[&old]).await.unwrap();
    assert_eq!((row.get::<_, &str>(0), row.get::<_, bool>(1)), ("expired", true));
    let detail = app.get(&format!("/api/owner/programs/{program}/entries/{entry}"), Some(&owner)).await.json();
    assert_eq!(detail["state"], "invited");
    let states: Vec<&str> =
        detail["invitations"].as_array().unwrap().iter().map(|i| i["state"].as_str().unwrap()).collect();
    assert_eq!(states, ["expired", "issued"]);
    let types = entry_event_types(&app, entry).await;
    assert_eq!(types, ["signup", "selected", "invite_issued", "invite_expired", "invite_issued"]);
    assert_not_stored(&app, &old_code).await;
    assert_not_stored(&app, &new_code).await;
}

#[tokio::test]
async fn expiry_must_be_in_the_future_and_within_max_invite_days() {
    let app = TestApp::spawn().await;
    let (owner, _, program) = queue_of(&app, "expiry", 2).await;
    let entry = app.entry_id(program, "u0@example.com").await;
    let waiting = app.entry_id(program, "u1@example.com").await;
    app.select(&owner, program, entry).await.assert(200);
    let path = format!("/api/owner/programs/{program}/entries/{entry}/invitations");
    for (expires, status, code) in [
        (in_days(-1), 409, "expiry_out_of_range"),
        (in_days(15), 409, "expiry_out_of_range"),
        ("tomorrow".to_owned(), 400, "invalid_expiry"),
        ("2030-01-01".to_owned(), 400, "invalid_expiry"),
    ] {
        let r = app.post(&path, &json!({"requestKey": Uuid::new_v4(), "expiresAt": expires}), Some(&owner)).await;
        r.assert(status);
        assert_eq!(r.code(), code, "{expires}");
    }
    let r = app.issue_with(&owner, program, waiting, Uuid::new_v4(), 3).await;
    r.assert(409);
    assert_eq!(r.code(), "invalid_transition", "a waiting entry is not selected");
    app.issue_with(&owner, program, entry, Uuid::new_v4(), 14).await.assert(201);
    let db = app.db().await;
    let n: i64 = db.query_one("SELECT count(*) FROM invitations", &[]).await.unwrap().get(0);
    assert_eq!(n, 1);
}

fn delivery(key: Uuid, channel: &str, reference: Option<&str>) -> Value {
    match reference {
        Some(r) => json!({"requestKey": key, "channel": channel, "reference": r}),
        None => json!({"requestKey": key, "channel": channel}),
    }
}

#[tokio::test]
async fn a_delivery_record_is_taken_once_and_is_idempotent_by_key() {
    let app = TestApp::spawn().await;
    let (owner, _, program) = queue_of(&app, "delivery", 1).await;
    let entry = app.entry_id(program, "u0@example.com").await;
    app.select(&owner, program, entry).await.assert(200);
    let (invitation, code) = app.issue(&owner, program, entry).await;
    let path = format!("/api/owner/invitations/{invitation}/delivery-record");

    for bad in [
        delivery(Uuid::new_v4(), "", None),
        delivery(Uuid::new_v4(), &"c".repeat(81), None),
        delivery(Uuid::new_v4(), "email", Some(&"r".repeat(161))),
        delivery(Uuid::new_v4(), "email", Some("")),
        delivery(Uuid::new_v4(), "email to u0@example.com", None),
        delivery(Uuid::new_v4(), "email", Some("sent to <u0@example.com>")),
        delivery(Uuid::new_v4(), "email", Some(&format!("code {code}"))),
    ] {
        app.post(&path, &bad, Some(&owner)).await.assert(400);
    }
    let key = Uuid::new_v4();
    let first = app.post(&path, &delivery(key, "phone", Some("call #12")), Some(&owner)).await;
    first.assert(200);
    assert_eq!(first.json()["delivery"]["channel"], "phone");
    assert_eq!(first.json()["delivery"]["reference"], "call #12");
    let replay = app.post(&path, &delivery(key, "phone", Some("call #12")), Some(&owner)).await;
    replay.assert(200);
    assert_eq!(replay.json(), first.json());
    let rebound = app.post(&path, &delivery(key, "phone", None), Some(&owner)).await;
    rebound.assert(409);
    assert_eq!(rebound.code(), "request_key_reused");
    let second = app.post(&path, &delivery(Uuid::new_v4(), "sms", None), Some(&owner)).await;
    second.assert(409);
    assert_eq!(second.code(), "delivery_already_recorded");

    let types = entry_event_types(&app, entry).await;
    assert_eq!(types.iter().filter(|t| *t == "delivery_recorded").count(), 1);
    // Only an issued invitation takes a record.
    app.post(&format!("/api/owner/invitations/{invitation}/revoke"), &json!({}), Some(&owner)).await.assert(200);
    let (other, _) = app.issue(&owner, program, entry).await;
    app.post(&format!("/api/owner/invitations/{other}/revoke"), &json!({}), Some(&owner)).await.assert(200);
    let r = app
        .post(
            &format!("/api/owner/invitations/{other}/delivery-record"),
            &delivery(Uuid::new_v4(), "sms", None),
            Some(&owner),
        )
        .await;
    r.assert(409);
    assert_eq!(r.code(), "invitation_not_issued");
    app.post(
        &format!("/api/owner/invitations/{}/delivery-record", Uuid::new_v4()),
        &delivery(Uuid::new_v4(), "sms", None),
        Some(&owner),
    )
    .await
    .assert(404);
}

#[tokio::test]
async fn grant_revocation_deactivates_the_grant_and_denies_the_next_read() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let (program, entry, _, code) = app.invited(&owner, ws, "granted", "gina@example.com").await;
    let gina = app.user("gina@example.com").await;
    app.redeem(&gina, &code).await.assert(200);
    app.get("/api/me/early-access/granted", Some(&gina)).await.assert(200);
    let detail = app.get(&format!("/api/owner/programs/{program}/entries/{entry}"), Some(&owner)).await.json();
    assert_eq!(detail["state"], "active");
    let grant = detail["grant"]["id"].as_str().unwrap().to_owned();
    assert_eq!(detail["grant"]["active"], true);

    let r = app.post(&format!("/api/owner/grants/{grant}/revoke"), &json!({}), Some(&owner)).await;
    r.assert(200);
    assert_eq!(r.json()["active"], false);
    assert!(r.json()["revokedAt"].is_string());
    app.get("/api/me/early-access/granted", Some(&gina)).await.assert(404);
    let again = app.post(&format!("/api/owner/grants/{grant}/revoke"), &json!({}), Some(&owner)).await;
    again.assert(409);
    let detail = app.get(&format!("/api/owner/programs/{program}/entries/{entry}"), Some(&owner)).await.json();
    assert_eq!(detail["state"], "revoked");
    let types = entry_event_types(&app, entry).await;
    assert_eq!(types.last().map(String::as_str), Some("grant_revoked"));
    assert_eq!(types.iter().filter(|t| *t == "grant_revoked").count(), 1);
    // A redeemed entry cannot be issued again.
    app.issue_with(&owner, program, entry, Uuid::new_v4(), 3).await.assert(409);
}
