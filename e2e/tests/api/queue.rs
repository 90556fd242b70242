//! The owner's queue (issue 4): paging stable while signups arrive, filters and bounds,
//! entry detail, the decisions' allow-lists and transitions, the CSV export, and the
//! uniform 404 for everyone who is not a current owner of the program's workspace.

use crate::support::invitations::expiring_in;
use crate::support::secrets::hex;
use crate::support::{Owner, TestApp, User};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use serde_json::json;
use shared::api::{EntryPage, EntrySearch, EntryStateResponse};
use std::collections::HashSet;
use uuid::Uuid;

fn ids(page: &EntryPage) -> Vec<Uuid> {
    page.entries.iter().map(|e| e.id).collect()
}

fn search(q: &str) -> EntrySearch {
    EntrySearch { q: Some(q.into()), ..Default::default() }
}

#[tokio::test]
async fn paging_is_stable_while_signups_arrive() {
    let app = TestApp::spawn().await;
    let (owner, _, program) = app.queue_of("paging", 12).await;
    let original: Vec<Uuid> =
        app.column("SELECT id FROM entries WHERE program_id = $1 ORDER BY created_at, id", &[&program]).await;

    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    let mut added = 0;
    loop {
        let query = match &cursor {
            Some(c) => format!("?limit=5&cursor={c}"),
            None => "?limit=5".to_owned(),
        };
        let page = owner.entries(program, &query).await;
        assert!(page.entries.len() <= 5);
        seen.extend(ids(&page));
        // New signups land between page reads.
        for _ in 0..2 {
            app.signup("paging", &format!("late{added}@example.com")).await;
            added += 1;
        }
        match page.next_cursor {
            Some(c) => {
                let raw = URL_SAFE_NO_PAD.decode(&c).expect("the cursor is base64url");
                assert_eq!(raw.len(), 24, "a time and an id, nothing else");
                assert!(!String::from_utf8_lossy(&raw).contains("example.com"), "no email in the cursor");
                cursor = Some(c);
            }
            None => break,
        }
        assert!(added < 40, "paging must end");
    }
    let unique: HashSet<_> = seen.iter().collect();
    assert_eq!(unique.len(), seen.len(), "no entry twice");
    assert_eq!(&seen[..original.len()], &original[..], "the first entries in queue order, no gaps");
    assert!(seen.len() > original.len(), "entries added while paging sort after, and are reached");
}

#[tokio::test]
async fn list_parameters_are_bounded_and_filters_work() {
    let app = TestApp::spawn().await;
    let (owner, _, program) = app.queue_of("filters", 3).await;
    app.signup("filters", "Mixed.Case@Example.com").await;
    for bad in
        ["?limit=0", "?limit=101", "?limit=x", "?state=nope", "?cursor=%21%21", "?cursor=AAAA", "?q=", "?other=1"]
    {
        owner.try_entries(program, bad).await.assert(400);
    }
    // Search text travels in a body, never in a URL. Malformed bodies are raw JSON.
    for bad in [json!({"q": ""}), json!({"q": "a".repeat(255)}), json!({"q": "x", "other": 1}), json!({"limit": 0})] {
        owner.try_search(program, &bad).await.assert(400);
    }
    owner.entries(program, "?limit=100").await;

    let first = app.entry_id(program, "u1@example.com").await;
    owner.select(program, first).await;
    let selected = owner.entries(program, "?state=selected").await;
    assert_eq!(ids(&selected), vec![first]);
    let shown = &selected.entries[0];
    assert_eq!((shown.state.as_str(), shown.email.as_str(), shown.notice_version), ("selected", "u1@example.com", 1));
    assert_eq!(selected.next_cursor, None);

    let found = owner.search(program, &search("mixed.case@example")).await;
    assert_eq!(found.entries.len(), 1, "case-insensitive fragment");
    assert_eq!(owner.search(program, &search("%")).await.entries.len(), 0, "% is a literal, not a wildcard");
    assert_eq!(owner.search(program, &search("u_@")).await.entries.len(), 0, "_ is a literal, not a wildcard");
    let waiting_u = EntrySearch { state: Some("waiting".into()), ..search("U") };
    assert_eq!(owner.search(program, &waiting_u).await.entries.len(), 2, "filters combine");
}

#[tokio::test]
async fn entry_detail_has_the_notice_choice_time_invitations_grant_and_history_but_no_code() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let invited = owner.invited(ws, "detail", "dana@example.com").await;
    let r = owner.get(&format!("/api/owner/programs/{}/entries/{}", invited.program, invited.entry)).await;
    // Strictly decoded: an invitation carrying a code would not be an `Invitation`.
    let d: shared::api::EntryDetail = r.expect(200);
    assert!(!r.text.contains(&invited.code));
    assert_eq!(d.email, "dana@example.com");
    assert_eq!(d.state, shared::EntryState::Invited);
    assert_eq!(d.notice.version, 1);
    assert_eq!(d.notice.contact_text, "We will email you once.");
    let permission_at: chrono::DateTime<chrono::Utc> =
        app.scalar("SELECT permission_at FROM entries WHERE id = $1", &[&invited.entry]).await;
    // The wire format of an instant: RFC 3339, microseconds, `Z`.
    assert_eq!(d.permission_at, permission_at.to_rfc3339_opts(chrono::SecondsFormat::Micros, true));
    assert_eq!(d.invitations.len(), 1);
    let invitation = &d.invitations[0];
    assert_eq!((invitation.id, invitation.state.as_str()), (invited.invitation, "issued"));
    assert_eq!(invitation.delivery.as_ref().map(|d| d.channel.as_str()), Some("email"));
    assert_eq!(d.grant, None);
    let types: Vec<&str> = d.events.iter().map(|e| e.kind.as_str()).collect();
    assert_eq!(types, ["signup", "selected", "invite_issued", "delivery_recorded"]);
    assert!(d.events.windows(2).all(|w| w[0].id < w[1].id), "ascending id");
}

#[tokio::test]
async fn a_path_naming_another_programs_entry_is_denied_even_if_both_exist() {
    let app = TestApp::spawn().await;
    let (owner, ws, a) = app.queue_of("prog-a", 1).await;
    let b = owner.open_program(ws, "prog-b").await;
    app.signup("prog-b", "bea@example.com").await;
    let of_b = app.entry_id(b, "bea@example.com").await;
    let not_found = app.not_found_text().await;
    owner.get(&format!("/api/owner/programs/{a}/entries/{of_b}")).await.assert_exactly(404, &not_found);
    owner.try_select(a, of_b, "owner_discretion").await.assert(404);
    owner.try_decline(a, of_b, "owner_discretion").await.assert(404);
    owner.try_withdraw(a, of_b, "owner_policy").await.assert(404);
    owner.try_issue(a, of_b, &expiring_in(3)).await.assert(404);
    let state: String = app.scalar("SELECT state FROM entries WHERE id = $1", &[&of_b]).await;
    assert_eq!(state, "waiting");
}

#[tokio::test]
async fn decisions_use_fixed_allow_lists_and_the_state_machine() {
    let app = TestApp::spawn().await;
    let (owner, _, program) = app.queue_of("decide", 3).await;
    let e = app.queued_entries(program, 3).await;
    let (e0, e1, e2) = (e[0], e[1], e[2]);

    // Malformed or unlisted bodies, raw where no request type can hold them.
    let select_path = Owner::entry_path(program, e0, "select");
    for bad in [json!({}), json!({"reasonCode": "meets_policy", "x": 1})] {
        owner.post(&select_path, &bad).await.assert(400);
    }
    owner.try_select(program, e0, "because").await.assert(400);
    owner.try_select(program, e0, "not_eligible").await.assert(400);
    owner.try_decline(program, e0, "meets_policy").await.assert(400);
    owner.try_withdraw(program, e0, "bored").await.assert(400);

    let r = owner.try_select(program, e0, "priority_group").await;
    assert_eq!(r.expect::<EntryStateResponse>(200), EntryStateResponse { id: e0, state: shared::EntryState::Selected });
    // The wire shape itself, pinned as raw JSON: a rename in `shared` must show here.
    assert_eq!(r.json(), json!({"id": e0, "state": "selected"}));
    owner.try_select(program, e0, "priority_group").await.expect_error(409, "invalid_transition");

    // Decline: waiting or selected, but not with an issued invitation.
    owner.decline(program, e1, "not_eligible").await;
    owner.try_decline(program, e1, "not_eligible").await.assert(409);
    owner.try_select(program, e1, "meets_policy").await.assert(409);
    owner.issue(program, e0).await;
    owner.try_decline(program, e0, "capacity_reached").await.expect_error(409, "invalid_transition");

    // The owner-recorded withdrawal is the applicant's transition: it revokes the issued
    // invitation, and repeating it answers the same.
    assert_eq!(owner.withdraw(program, e0, "applicant_request").await.state, shared::EntryState::Withdrawn);
    owner.withdraw(program, e0, "applicant_request").await;
    owner.decline(program, e2, "duplicate_person").await;

    let inv: String = app.scalar("SELECT state FROM invitations WHERE entry_id = $1", &[&e0]).await;
    assert_eq!(inv, "revoked");
    let types: Vec<String> =
        app.column("SELECT event_type FROM audit_events WHERE entry_id = $1 ORDER BY id", &[&e0]).await;
    assert_eq!(
        types,
        ["signup", "selected", "invite_issued", "withdrawn"],
        "one event per change, none for the repeat"
    );
    let detail = async |event: &str, field: &str| -> String {
        let sql = "SELECT details->>$3 FROM audit_events WHERE entry_id = $1 AND event_type = $2";
        app.scalar(sql, &[&e0, &event, &field]).await
    };
    assert_eq!(detail("selected", "reasonCode").await, "priority_group");
    assert_eq!(detail("withdrawn", "basis").await, "applicant_request");
}

#[tokio::test]
async fn export_has_every_entry_no_codes_and_neutralized_formula_cells() {
    let app = TestApp::spawn().await;
    let (owner, _, program) = app.queue_of("export", 1).await;
    for email in ["=cmd@example.com", "+sum@example.com", "-neg@example.com"] {
        app.signup("export", email).await;
    }
    let entry = app.entry_id(program, "u0@example.com").await;
    owner.select(program, entry).await;
    let code = owner.issue(program, entry).await.code.unwrap();

    let r = owner.export(program).await;
    r.assert(200);
    assert!(r.header("content-type").unwrap().starts_with("text/csv"));
    assert_eq!(r.header("cache-control"), Some("private, no-store"));
    assert!(!r.text.contains(&code));
    let lines: Vec<&str> = r.text.lines().collect();
    assert_eq!(lines[0], "id,email,state,created_at,notice_version,permission_at,ref,verified_at_join");
    assert_eq!(lines.len(), 5);
    assert!(lines[1].starts_with(&format!("{entry},u0@example.com,invited,")));
    for (line, email) in lines[2..].iter().zip(["=cmd@example.com", "+sum@example.com", "-neg@example.com"]) {
        let cell = line.split(',').nth(1).unwrap();
        assert_eq!(cell, format!("'{email}"), "formula cells get a leading quote");
    }
    let digest: Vec<u8> = app.scalar("SELECT token_sha256 FROM invitations", &[]).await;
    assert!(!r.text.to_lowercase().contains(&hex(&digest)));
}

#[tokio::test]
async fn strangers_foreign_and_revoked_owners_get_the_same_404_on_every_owner_route() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let invited = owner.invited(ws, "guarded", "gus@example.com").await;
    let (program, entry, invitation) = (invited.program, invited.entry, invited.invitation);
    let (foreign, _) = app.owner("foreign@example.com").await;
    let stranger = app.user("stranger@example.com").await;
    let not_found = app.not_found_text().await;
    let p = format!("/api/owner/programs/{program}");
    let gets = [
        format!("{p}/entries"),
        format!("{p}/entries/{entry}"),
        format!("{p}/entries.csv"),
        format!("{p}/content"),
        format!("{p}/events"),
    ];
    let key = Uuid::new_v4();
    let posts = [
        (format!("{p}/entries/{entry}/select"), json!({"reasonCode": "meets_policy"})),
        (format!("{p}/entries/{entry}/decline"), json!({"reasonCode": "not_eligible"})),
        (format!("{p}/entries/{entry}/withdraw"), json!({"basis": "owner_policy"})),
        (format!("{p}/entries/{entry}/invitations"), json!({"requestKey": key, "expiresAt": "2099-01-01T00:00:00Z"})),
        (format!("{p}/entries/select-bulk"), json!({"count": 1, "reasonCode": "meets_policy"})),
        (
            format!("{p}/invitations/bulk"),
            json!({"requestKey": key, "entryIds": [entry], "expiresAt": "2099-01-01T00:00:00Z"}),
        ),
        (format!("/api/owner/invitations/{invitation}/delivery-record"), json!({"requestKey": key, "channel": "sms"})),
        (format!("/api/owner/invitations/{invitation}/revoke"), json!({})),
        (format!("/api/owner/grants/{}/revoke", Uuid::new_v4()), json!({})),
    ];
    let check = async |who: &User, label: &str| {
        let as_who = app.as_owner(who.clone());
        for path in &gets {
            let r = as_who.get(path).await;
            assert_eq!((r.status.as_u16(), &r.text), (404, &not_found), "{label} GET {path}");
        }
        for (path, body) in &posts {
            let r = as_who.post(path, body).await;
            assert_eq!((r.status.as_u16(), &r.text), (404, &not_found), "{label} POST {path}");
        }
        let r = as_who.try_put_content(program, 1, "x").await;
        assert_eq!((r.status.as_u16(), &r.text), (404, &not_found), "{label} PUT content");
    };
    check(&stranger, "signed-in non-owner").await;
    check(&foreign.user, "owner of another workspace").await;
    app.exec("UPDATE staff_members SET active = false WHERE clerk_user_id = $1", &[&owner.user_id]).await;
    check(&owner.user, "revoked owner").await;

    let events: i64 = app.scalar("SELECT count(*) FROM audit_events", &[]).await;
    let states: Vec<String> =
        app.column("SELECT state FROM entries UNION ALL SELECT state FROM invitations", &[]).await;
    assert_eq!(states, ["invited", "issued"], "nothing changed");
    let before = events;
    app.exec("UPDATE staff_members SET active = true WHERE clerk_user_id = $1", &[&owner.user_id]).await;
    owner.entries(program, "").await;
    let after: i64 = app.scalar("SELECT count(*) FROM audit_events", &[]).await;
    assert_eq!(before, after);
}

/// Sets an invitation's expiry relative to the database's own clock.
async fn expire_in(app: &TestApp, invitation: Uuid, interval: &str) {
    let sql = "UPDATE invitations SET issued_at = least(issued_at, clock_timestamp() - interval '2 days'), \
               expires_at = clock_timestamp() + $2::text::interval WHERE id = $1";
    app.exec(sql, &[&invitation, &interval]).await;
}

#[tokio::test]
async fn the_code_filters_follow_delivery_and_the_48_hour_boundary_by_the_database_clock() {
    let app = TestApp::spawn().await;
    let (owner, _, program) = app.queue_of("codes", 5).await;
    let e = app.queued_entries(program, 5).await;
    let mut invitations = Vec::new();
    for &entry in &e[..4] {
        owner.select(program, entry).await;
        invitations.push(owner.issue(program, entry).await.invitation.id);
    }
    // e0: not marked sent, a week to go. e1: marked sent, a minute inside 48 h. e2: not
    // marked sent, a minute outside 48 h. e3: not marked sent but already expired (still
    // `issued` until something marks it). e4: waiting, no code.
    owner.record_delivery(invitations[1]).await;
    expire_in(&app, invitations[1], "47 hours 59 minutes").await;
    expire_in(&app, invitations[2], "48 hours 1 minute").await;
    expire_in(&app, invitations[3], "-1 second").await;

    assert_eq!(ids(&owner.entries(program, "?invitation=unsent").await), [e[0], e[2]]);
    assert_eq!(ids(&owner.entries(program, "?invitation=expiring").await), [e[1]]);
    // The program's figures count the same invitations the filters list.
    let p: shared::api::Program = owner.get(&format!("/api/owner/programs/{program}")).await.expect(200);
    assert_eq!((p.counts.not_sent, p.counts.expiring_soon, p.counts.entries), (2, 1, 5));

    // Filters combine, page by the queue's cursor, and reach the search.
    let first = owner.entries(program, "?invitation=unsent&state=invited&limit=1").await;
    assert_eq!(ids(&first), [e[0]]);
    let cursor = first.next_cursor.expect("a second page");
    let second = owner.entries(program, &format!("?invitation=unsent&limit=1&cursor={cursor}")).await;
    assert_eq!((ids(&second), second.next_cursor), (vec![e[2]], None));
    assert!(owner.entries(program, "?invitation=unsent&state=waiting").await.entries.is_empty());
    let found = EntrySearch { invitation: Some("unsent".into()), ..search("u2@") };
    assert_eq!(ids(&owner.search(program, &found).await), [e[2]]);

    // The boundary moves with the database clock: a second inside 48 h is expiring.
    expire_in(&app, invitations[2], "47 hours 59 minutes 59 seconds").await;
    assert_eq!(ids(&owner.entries(program, "?invitation=expiring").await), [e[1], e[2]]);
    expire_in(&app, invitations[1], "-1 second").await;
    assert_eq!(ids(&owner.entries(program, "?invitation=expiring").await), [e[2]], "an expired code is not expiring");
}

#[tokio::test]
async fn a_bad_code_filter_is_refused_and_a_foreign_owner_sees_nothing() {
    let app = TestApp::spawn().await;
    let (owner, _, program) = app.queue_of("codes-bad", 1).await;
    let entry = app.entry_id(program, "u0@example.com").await;
    owner.select(program, entry).await;
    owner.issue(program, entry).await;
    let events: i64 = app.scalar("SELECT count(*) FROM audit_events", &[]).await;
    for bad in ["?invitation=", "?invitation=sent", "?invitation=UNSENT", "?invitation=expired", "?invitation=unsent,x"]
    {
        owner.try_entries(program, bad).await.expect_error(400, "invalid_invitation_filter");
    }
    owner.try_search(program, &json!({"invitation": "soon"})).await.expect_error(400, "invalid_invitation_filter");
    owner.try_search(program, &json!({"invitation": 1})).await.assert(400);
    let after: i64 = app.scalar("SELECT count(*) FROM audit_events", &[]).await;
    assert_eq!(events, after, "nothing written");

    let (foreign, _) = app.owner("foreign@example.com").await;
    let not_found = app.not_found_text().await;
    for query in ["?invitation=unsent", "?invitation=expiring"] {
        foreign.try_entries(program, query).await.assert_exactly(404, &not_found);
    }
    assert_eq!(ids(&owner.entries(program, "?invitation=unsent").await), [entry]);
}

/// The search index's pending list is merged by the server (V143), not by a signup under
/// its program's lock: with the list's limit at 4 MB, a dozen signups' trigrams can only
/// leave it through the server's merger (autovacuum does not visit for a dozen rows), and
/// it empties within seconds while nothing else happens; the search finds the entries
/// before and after. The merge is the owner's (SECURITY DEFINER), callable by the server's
/// role alone, on a pinned search path (V144).
#[tokio::test]
async fn the_server_merges_the_search_index_off_the_admission() {
    let app = TestApp::spawn().await;
    let (owner, _, program) = app.queue_of("merged", 12).await;
    let options: Vec<String> =
        app.scalar("SELECT reloptions::text[] FROM pg_class WHERE relname = 'entries_email_trgm_idx'", &[]).await;
    assert_eq!(options, ["gin_pending_list_limit=4096"], "no insert merges a list this small");
    assert_eq!(owner.search(program, &search("1@example")).await.entries.len(), 2, "u1@ and u11@");
    // The merge runs with its owner's rights: only the server's role may call it, and its
    // search path is pinned (a caller's temporary schema last, never first).
    let (definer, config, app_may, public_may): (bool, Vec<String>, bool, bool) = {
        let row = app
            .row(
                "SELECT prosecdef, proconfig::text[], \
                        has_function_privilege('vestibule_app', oid, 'EXECUTE'), \
                        has_function_privilege('public', oid, 'EXECUTE') \
                 FROM pg_proc WHERE proname = 'entry_search_merge'",
                &[],
            )
            .await;
        (row.get(0), row.get(1), row.get(2), row.get(3))
    };
    assert_eq!(
        (definer, config, app_may, public_may),
        (true, vec!["search_path=pg_catalog, pg_temp".to_owned()], true, false)
    );
    app.exec("CREATE EXTENSION IF NOT EXISTS pgstattuple", &[]).await;
    crate::support::eventually("the pending list is merged", std::time::Duration::from_secs(10), || async {
        let pending: i64 =
            app.scalar("SELECT pending_tuples::bigint FROM pgstatginindex('entries_email_trgm_idx')", &[]).await;
        (pending == 0).then_some(())
    })
    .await;
    assert_eq!(owner.search(program, &search("1@example")).await.entries.len(), 2, "the merged index finds them too");
}
