//! Bulk actions for large launches (issue 4): select the first N waiting entries in queue
//! order; issue invitations to a list of selected entries all-or-nothing, with the codes
//! returned once as CSV and a replay that answers metadata only.

use crate::support::invitations::{delivery, expiring_in};
use crate::support::secrets::{assert_not_stored, hex, sha256_hex};
use crate::support::{Owner, Reply, TestApp};
use serde_json::json;
use shared::api::{
    BulkDeliveryResponse, BulkIssueReceipt, BulkIssueRequest, BulkSelectRequest, EntrySearch, IssuedInvitation,
};
use uuid::Uuid;

async fn count(app: &TestApp, sql: &str) -> i64 {
    app.scalar(sql, &[]).await
}

/// The rows of a bulk issue's CSV answer, after its header: (entry id, email cell, code).
fn csv_rows(r: &Reply) -> Vec<(Uuid, String, String)> {
    r.text
        .lines()
        .skip(1)
        .map(|line| {
            let cells: Vec<&str> = line.split(',').collect();
            (cells[0].parse().expect("an entry id"), cells[1].to_owned(), cells[2].to_owned())
        })
        .collect()
}

#[tokio::test]
async fn bulk_select_takes_the_first_waiting_entries_in_queue_order() {
    let app = TestApp::spawn().await;
    let (owner, _, program) = app.queue_of("bulk-select", 5).await;
    let e = app.queued_entries(program, 5).await;
    owner.select(program, e[1]).await;
    for (count, reason_code) in [(0, "meets_policy"), (1001, "meets_policy"), (2, "whim")] {
        let bad = BulkSelectRequest { count, reason_code: reason_code.into() };
        owner.try_select_bulk(program, &bad).await.assert(400);
    }
    assert_eq!(owner.select_bulk(program, 3, "capacity_available").await, [e[0], e[2], e[3]]);
    let events = count(&app, "SELECT count(*) FROM audit_events WHERE event_type = 'selected'").await;
    assert_eq!(events, 4, "one event per selected entry");
    assert_eq!(owner.select_bulk(program, 10, "meets_policy").await, [e[4]], "fewer when fewer wait");
}

#[tokio::test]
async fn bulk_issue_returns_the_codes_once_as_csv_and_replays_metadata() {
    let app = TestApp::spawn().await;
    let (owner, _, program) = app.queue_of("bulk-issue", 2).await;
    app.signup("bulk-issue", "=sum@example.com").await;
    owner.select_bulk(program, 3, "meets_policy").await;
    let mut ids = app.queued_entries(program, 2).await;
    ids.push(app.entry_id(program, "=sum@example.com").await);
    let body = Owner::bulk_request(&ids, 4);

    let r = owner.try_issue_bulk(program, &body).await;
    r.assert(201);
    assert!(r.header("content-type").unwrap().starts_with("text/csv"));
    assert_eq!(r.header("cache-control"), Some("private, no-store"));
    assert_eq!(r.text.lines().next(), Some("entry_id,email,code,expires_at"));
    let rows = csv_rows(&r);
    assert_eq!(rows.len(), 3);
    let mut codes = Vec::new();
    for (entry, email_cell, code) in rows {
        let email: String = app.scalar("SELECT email_key FROM entries WHERE id = $1", &[&entry]).await;
        let shown = if email.starts_with('=') { format!("'{email}") } else { email };
        assert_eq!(email_cell, shown, "emails are formula-neutralized");
        let digest: Vec<u8> = app
            .scalar("SELECT token_sha256 FROM invitations WHERE entry_id = $1 AND state = 'issued'", &[&entry])
            .await;
        assert_eq!(hex(&digest), sha256_hex(&code));
        codes.push(code);
    }
    let events = count(&app, "SELECT count(*) FROM audit_events WHERE event_type = 'invite_issued'").await;
    assert_eq!(events, 3, "one event per invitation");

    let replay = owner.try_issue_bulk(program, &body).await;
    let receipt: BulkIssueReceipt = replay.expect(200);
    assert_eq!(receipt.invitations.len(), 3);
    let rebound = BulkIssueRequest { entry_ids: ids[..2].to_vec(), ..body.clone() };
    owner.try_issue_bulk(program, &rebound).await.expect_error(409, "request_key_reused");
    let p = format!("/api/owner/programs/{program}");
    let later: Vec<Reply> = futures::future::join_all(
        [format!("{p}/entries"), format!("{p}/events"), format!("{p}/entries.csv"), format!("{p}/entries/{}", ids[0])]
            .iter()
            .map(|u| owner.get(u)),
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
    let (owner, ws, program) = app.queue_of("bulk-atomic", 3).await;
    let e = app.queued_entries(program, 3).await;
    owner.select(program, e[0]).await;
    owner.select(program, e[1]).await;

    let r = owner.try_issue_bulk(program, &Owner::bulk_request(&e, 2)).await;
    r.expect_error(409, "invalid_transition"); // the waiting entry spoils the batch
    let soon = BulkIssueRequest { expires_at: "soon".into(), ..Owner::bulk_request(&[e[0]], 2) };
    for bad in [Owner::bulk_request(&[], 2), Owner::bulk_request(&[e[0], e[0]], 2), soon] {
        owner.try_issue_bulk(program, &bad).await.assert(400);
    }
    let other = owner.open_program(ws, "bulk-other").await;
    app.signup("bulk-other", "x@example.com").await;
    let foreign = app.entry_id(other, "x@example.com").await;
    owner.try_issue_bulk(program, &Owner::bulk_request(&[e[0], foreign], 2)).await.assert(404);
    // Seats: the program has 100; leave room for one only.
    app.exec("UPDATE programs SET seat_cap = 1 WHERE id = $1", &[&program]).await;
    let r = owner.try_issue_bulk(program, &Owner::bulk_request(&e[..2], 2)).await;
    r.expect_error(409, "no_seat_available");
    for table in ["invitations", "owner_action_receipts", "invitation_batches"] {
        assert_eq!(count(&app, &format!("SELECT count(*) FROM {table}")).await, 0, "{table} untouched");
    }
    let issued = count(&app, "SELECT count(*) FROM audit_events WHERE event_type LIKE 'invite%'").await;
    assert_eq!(issued, 0);
    let states: Vec<String> =
        app.column("SELECT state FROM entries WHERE program_id = $1 ORDER BY created_at", &[&program]).await;
    assert_eq!(states, ["selected", "selected", "waiting"]);
    app.exec("UPDATE programs SET seat_cap = 2 WHERE id = $1", &[&program]).await;
    owner.try_issue_bulk(program, &Owner::bulk_request(&e[..2], 2)).await.assert(201);
}

#[tokio::test]
async fn owner_flows_leave_no_code_or_email_in_the_server_output() {
    let in_process = TestApp::spawn().await;
    let api = crate::support::process::ApiProcess::start(&in_process.db_url, &in_process.clerk, &[]).await;
    let app = in_process.at(&api.base);
    let (owner, ws) = app.owner("owner@example.com").await;
    let program = owner.open_program(ws, "scan-owner").await;
    let emails = ["olga.secret@example.com", "=formula.secret@example.com", "pete.secret@example.com"];
    for email in emails {
        app.signup("scan-owner", email).await;
    }
    owner.select_bulk(program, 3, "meets_policy").await;
    let olga = app.entry_id(program, emails[0]).await;
    let single = expiring_in(3);
    let issued: IssuedInvitation = owner.try_issue(program, olga, &single).await.expect(201);
    let mut codes = vec![issued.code.expect("the first answer has the code")];
    owner.try_issue(program, olga, &single).await.assert(200);
    let invitation = issued.invitation.id;
    let leaky = delivery("email", Some(&format!("{} {}", emails[0], codes[0])));
    owner.try_record_delivery(invitation, &leaky).await.assert(400);
    owner.record_delivery(invitation).await;

    let rest = [app.entry_id(program, emails[1]).await, app.entry_id(program, emails[2]).await];
    let body = Owner::bulk_request(&rest, 3);
    let csv = owner.try_issue_bulk(program, &body).await;
    csv.assert(201);
    codes.extend(csv_rows(&csv).into_iter().map(|(_, _, code)| code));
    owner.try_issue_bulk(program, &body).await.assert(200);
    let p = format!("/api/owner/programs/{program}");
    for path in [
        format!("{p}/entries?state=selected"),
        format!("{p}/entries/{olga}"),
        format!("{p}/entries.csv"),
        format!("{p}/events"),
    ] {
        owner.get(&path).await.assert(200);
    }
    // The search fragment travels in a body (a query string no longer takes one).
    owner.search(program, &EntrySearch { q: Some("secret".into()), ..Default::default() }).await;

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

/// Issue 19, item 1: after a bulk issue the owner marks the whole batch sent in one audited
/// step; the queue and the program's counts show which codes are not marked sent yet.
#[tokio::test]
async fn a_bulk_issued_batch_is_marked_sent_in_one_step_and_the_queue_shows_it() {
    let app = TestApp::spawn().await;
    let (owner, _, program) = app.queue_of("mark-sent", 3).await;
    owner.select_bulk(program, 3, "meets_policy").await;
    let ids = app.queued_entries(program, 3).await;
    owner.try_issue_bulk(program, &Owner::bulk_request(&ids[..2], 1)).await.assert(201);

    let counts = owner.program(program).await.counts;
    assert_eq!((counts.not_sent, counts.expiring_soon, counts.selected), (2, 2, 1), "{counts:?}");
    let page = owner.entries(program, "").await;
    let badges: Vec<_> = page.entries.iter().map(|e| e.invitation.as_ref().map(|i| i.sent)).collect();
    assert_eq!(badges, [Some(false), Some(false), None], "the two invited entries show unsent codes");

    let path = format!("/api/owner/programs/{program}/invitations/delivery-records");
    // All or nothing: the third entry holds no invitation, so nothing is marked.
    let with_unissued = json!({"entryIds": ids, "channel": "email"});
    owner.post(&path, &with_unissued).await.expect_error(409, "invitation_not_issued");
    owner.post(&path, &json!({"entryIds": [], "channel": "email"})).await.assert(400);
    owner
        .post(&path, &json!({"entryIds": ids[..2], "channel": "email", "reference": "u0@example.com"}))
        .await
        .assert(400);

    let body = json!({"entryIds": ids[..2], "channel": "email", "reference": "launch mail merge"});
    let done: BulkDeliveryResponse = owner.post(&path, &body).await.expect(200);
    assert_eq!((done.marked, done.already_marked), (2, 0));
    let events = count(&app, "SELECT count(*) FROM audit_events WHERE event_type = 'delivery_recorded'").await;
    assert_eq!(events, 2, "one event per invitation");
    // A retry after a lost answer marks nothing twice.
    let again: BulkDeliveryResponse = owner.post(&path, &body).await.expect(200);
    assert_eq!((again.marked, again.already_marked), (0, 2));
    assert_eq!(count(&app, "SELECT count(*) FROM audit_events WHERE event_type = 'delivery_recorded'").await, 2);

    assert_eq!(owner.program(program).await.counts.not_sent, 0);
    let sent: Vec<_> =
        owner.entries(program, "").await.entries.iter().map(|e| e.invitation.as_ref().map(|i| i.sent)).collect();
    assert_eq!(sent, [Some(true), Some(true), None]);
    let channels = count(&app, "SELECT count(*) FROM invitations WHERE delivery_channel = 'email' AND delivery_reference = 'launch mail merge'").await;
    assert_eq!(channels, 2);
}
