//! Bulk actions for large launches (issue 4): select the first N waiting entries in queue
//! order; issue invitations to a list of selected entries all-or-nothing, with the codes
//! returned once as CSV and a replay that answers metadata only.

use crate::invitations::assert_not_stored;
use crate::queue::{hex, queue_of};
use crate::support::{Reply, TestApp, User};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use serde_json::{json, Value};
use uuid::Uuid;

async fn select_bulk(app: &TestApp, owner: &User, program: Uuid, body: Value) -> Reply {
    app.post(&format!("/api/owner/programs/{program}/entries/select-bulk"), &body, Some(owner)).await
}

async fn issue_bulk(app: &TestApp, owner: &User, program: Uuid, body: &Value) -> Reply {
    app.post(&format!("/api/owner/programs/{program}/invitations/bulk"), body, Some(owner)).await
}

async fn entries(app: &TestApp, program: Uuid, n: usize) -> Vec<Uuid> {
    let mut out = Vec::new();
    for i in 0..n {
        out.push(app.entry_id(program, &format!("u{i}@example.com")).await);
    }
    out
}

async fn count(app: &TestApp, sql: &str) -> i64 {
    app.db().await.query_one(sql, &[]).await.unwrap().get(0)
}

#[tokio::test]
async fn bulk_select_takes_the_first_waiting_entries_in_queue_order() {
    let app = TestApp::spawn().await;
    let (owner, _, program) = queue_of(&app, "bulk-select", 5).await;
    let e = entries(&app, program, 5).await;
    app.select(&owner, program, e[1]).await.assert(200);
    for bad in [
        json!({"count": 0, "reasonCode": "meets_policy"}),
        json!({"count": 1001, "reasonCode": "meets_policy"}),
        json!({"count": 2, "reasonCode": "whim"}),
    ] {
        select_bulk(&app, &owner, program, bad).await.assert(400);
    }
    let r = select_bulk(&app, &owner, program, json!({"count": 3, "reasonCode": "capacity_available"})).await;
    r.assert(200);
    assert_eq!(r.json()["selected"], json!([e[0], e[2], e[3]]));
    let events = count(&app, "SELECT count(*) FROM audit_events WHERE event_type = 'selected'").await;
    assert_eq!(events, 4, "one event per selected entry");
    let r = select_bulk(&app, &owner, program, json!({"count": 10, "reasonCode": "meets_policy"})).await;
    assert_eq!(r.json()["selected"], json!([e[4]]), "fewer when fewer wait");
}

#[tokio::test]
async fn bulk_issue_returns_the_codes_once_as_csv_and_replays_metadata() {
    let app = TestApp::spawn().await;
    let (owner, _, program) = queue_of(&app, "bulk-issue", 2).await;
    app.signup("bulk-issue", "=sum@example.com").await.assert(202);
    select_bulk(&app, &owner, program, json!({"count": 3, "reasonCode": "meets_policy"})).await.assert(200);
    let mut ids = entries(&app, program, 2).await;
    ids.push(app.entry_id(program, "=sum@example.com").await);
    let expires = (chrono::Utc::now() + chrono::Duration::days(4)).to_rfc3339();
    let body = json!({"requestKey": Uuid::new_v4(), "entryIds": ids, "expiresAt": expires});

    let r = issue_bulk(&app, &owner, program, &body).await;
    r.assert(201);
    assert!(r.header("content-type").unwrap().starts_with("text/csv"));
    assert_eq!(r.header("cache-control"), Some("private, no-store"));
    let lines: Vec<&str> = r.text.lines().collect();
    assert_eq!(lines[0], "entry_id,email,code,expires_at");
    assert_eq!(lines.len(), 4);
    let db = app.db().await;
    let mut codes = Vec::new();
    for line in &lines[1..] {
        let cells: Vec<&str> = line.split(',').collect();
        let entry: Uuid = cells[0].parse().unwrap();
        let email: String =
            db.query_one("SELECT email_key FROM entries WHERE id = $1", &[&entry]).await.unwrap().get(0);
        let shown = if email.starts_with('=') { format!("'{email}") } else { email };
        assert_eq!(cells[1], shown, "emails are formula-neutralized");
        let digest: Vec<u8> = db
            .query_one("SELECT token_sha256 FROM invitations WHERE entry_id = $1 AND state = 'issued'", &[&entry])
            .await
            .unwrap()
            .get(0);
        let bytes = URL_SAFE_NO_PAD.decode(cells[2]).unwrap();
        assert_eq!(bytes.len(), 32);
        assert_eq!(hex(&digest), hex(ring::digest::digest(&ring::digest::SHA256, &bytes).as_ref()));
        codes.push(cells[2].to_owned());
    }
    let events = count(&app, "SELECT count(*) FROM audit_events WHERE event_type = 'invite_issued'").await;
    assert_eq!(events, 3, "one event per invitation");

    let replay = issue_bulk(&app, &owner, program, &body).await;
    replay.assert(200);
    let receipt = replay.json();
    assert_eq!(receipt["invitations"].as_array().unwrap().len(), 3);
    let mut other = body.clone();
    other["entryIds"] = json!(&ids[..2]);
    let rebound = issue_bulk(&app, &owner, program, &other).await;
    rebound.assert(409);
    assert_eq!(rebound.code(), "request_key_reused");
    let p = format!("/api/owner/programs/{program}");
    let later: Vec<Reply> = futures::future::join_all(
        [format!("{p}/entries"), format!("{p}/events"), format!("{p}/entries.csv"), format!("{p}/entries/{}", ids[0])]
            .iter()
            .map(|u| async { app.get(u, Some(&owner)).await }),
    )
    .await;
    for code in &codes {
        assert!(!replay.text.contains(code.as_str()));
        for r in &later {
            assert!(!r.text.contains(code.as_str()));
        }
        assert_not_stored(&app, code).await;
    }
    assert_eq!(count(&app, "SELECT count(*) FROM invitations").await, 3, "the replay issued nothing");
}

#[tokio::test]
async fn bulk_issue_is_all_or_nothing() {
    let app = TestApp::spawn().await;
    let (owner, ws, program) = queue_of(&app, "bulk-atomic", 3).await;
    let e = entries(&app, program, 3).await;
    app.select(&owner, program, e[0]).await.assert(200);
    app.select(&owner, program, e[1]).await.assert(200);
    let expires = (chrono::Utc::now() + chrono::Duration::days(2)).to_rfc3339();
    let body = |ids: &[Uuid]| json!({"requestKey": Uuid::new_v4(), "entryIds": ids, "expiresAt": expires});

    let r = issue_bulk(&app, &owner, program, &body(&e)).await;
    r.assert(409);
    assert_eq!(r.code(), "invalid_transition", "the waiting entry spoils the batch");
    for bad in
        [body(&[]), body(&[e[0], e[0]]), json!({"requestKey": Uuid::new_v4(), "entryIds": [e[0]], "expiresAt": "soon"})]
    {
        issue_bulk(&app, &owner, program, &bad).await.assert(400);
    }
    let other = app.open_program(&owner, ws, "bulk-other").await;
    app.signup("bulk-other", "x@example.com").await.assert(202);
    let foreign = app.entry_id(other, "x@example.com").await;
    issue_bulk(&app, &owner, program, &body(&[e[0], foreign])).await.assert(404);
    // Seats: the program has 100; leave room for one only.
    let db = app.db().await;
    db.execute("UPDATE programs SET seat_cap = 1 WHERE id = $1", &[&program]).await.unwrap();
    let r = issue_bulk(&app, &owner, program, &body(&e[..2])).await;
    r.assert(409);
    assert_eq!(r.code(), "no_seat_available");
    for table in ["invitations", "owner_action_receipts", "invitation_batches"] {
        assert_eq!(count(&app, &format!("SELECT count(*) FROM {table}")).await, 0, "{table} untouched");
    }
    let issued = count(&app, "SELECT count(*) FROM audit_events WHERE event_type LIKE 'invite%'").await;
    assert_eq!(issued, 0);
    let states: Vec<String> = db
        .query("SELECT state FROM entries WHERE program_id = $1 ORDER BY created_at", &[&program])
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(states, ["selected", "selected", "waiting"]);
    db.execute("UPDATE programs SET seat_cap = 2 WHERE id = $1", &[&program]).await.unwrap();
    issue_bulk(&app, &owner, program, &body(&e[..2])).await.assert(201);
}

#[tokio::test]
async fn owner_flows_leave_no_code_or_email_in_the_server_output() {
    let mut app = TestApp::spawn().await;
    let api = crate::support::process::ApiProcess::start(&app.db_url, &app.clerk, &[]).await;
    app.base = api.base.clone();
    let (owner, ws) = app.owner("owner@example.com").await;
    let program = app.open_program(&owner, ws, "scan-owner").await;
    let emails = ["olga.secret@example.com", "=formula.secret@example.com", "pete.secret@example.com"];
    for email in emails {
        app.signup("scan-owner", email).await.assert(202);
    }
    select_bulk(&app, &owner, program, json!({"count": 3, "reasonCode": "meets_policy"})).await.assert(200);
    let olga = app.entry_id(program, emails[0]).await;
    let single = Uuid::new_v4();
    let expires = (chrono::Utc::now() + chrono::Duration::days(3)).to_rfc3339();
    let issue_path = format!("/api/owner/programs/{program}/entries/{olga}/invitations");
    let issued = app.post(&issue_path, &json!({"requestKey": single, "expiresAt": expires}), Some(&owner)).await;
    issued.assert(201);
    let mut codes = vec![issued.json()["code"].as_str().unwrap().to_owned()];
    app.post(&issue_path, &json!({"requestKey": single, "expiresAt": expires}), Some(&owner)).await.assert(200);
    let invitation = issued.json()["invitation"]["id"].as_str().unwrap().to_owned();
    let delivery = format!("/api/owner/invitations/{invitation}/delivery-record");
    let leaky =
        json!({"requestKey": Uuid::new_v4(), "channel": "email", "reference": format!("{} {}", emails[0], codes[0])});
    app.post(&delivery, &leaky, Some(&owner)).await.assert(400);
    app.record_delivery(&owner, invitation.parse().unwrap()).await.assert(200);

    let rest = [app.entry_id(program, emails[1]).await, app.entry_id(program, emails[2]).await];
    let body = json!({"requestKey": Uuid::new_v4(), "entryIds": rest, "expiresAt": expires});
    let csv = issue_bulk(&app, &owner, program, &body).await;
    csv.assert(201);
    codes.extend(csv.text.lines().skip(1).map(|l| l.split(',').nth(2).unwrap().to_owned()));
    issue_bulk(&app, &owner, program, &body).await.assert(200);
    let p = format!("/api/owner/programs/{program}");
    for path in [
        format!("{p}/entries?q=secret"),
        format!("{p}/entries/{olga}"),
        format!("{p}/entries.csv"),
        format!("{p}/events"),
    ] {
        app.get(&path, Some(&owner)).await.assert(200);
    }

    let output = api.output();
    assert!(output.contains("request"), "the server logged its requests");
    assert_eq!(codes.len(), 3);
    for code in &codes {
        assert!(!output.contains(code.as_str()), "a code reached the server output");
    }
    for email in emails {
        assert!(!output.contains(email), "an email reached the server output");
    }
    assert!(!output.contains(".secret"), "a local part reached the server output");
}
