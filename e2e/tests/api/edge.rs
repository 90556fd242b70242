//! The public edge (issue 15): the program's title and description, the `?ref=` source
//! of an entry, and the flags admission puts on fakes (disposable domains, one mailbox
//! under several spellings) with the owner's filter and bulk decline — against a real
//! PostgreSQL.

use crate::support::owner::changes;
use crate::support::public::signup_request;
use crate::support::{Owner, TestApp};
use serde_json::json;
use shared::api::{
    DeclineFlaggedRequest, DeclineFlaggedResponse, EntryFlag, EntrySearch, EntrySummary, PatchProgramRequest,
    SignupRequest,
};
use shared::{EntryState, EventType};
use uuid::Uuid;

async fn open(slug: &str) -> (TestApp, Owner, Uuid) {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let program = owner.open_program(ws, slug).await;
    (app, owner, program)
}

fn with_ref(email: &str, source: &str) -> SignupRequest {
    SignupRequest { source: Some(source.into()), ..signup_request(email) }
}

/// The program's entries in queue order, all of them.
async fn queue(owner: &Owner, program: Uuid, query: &str) -> Vec<EntrySummary> {
    owner.entries(program, query).await.entries
}

fn by_email<'a>(entries: &'a [EntrySummary], email: &str) -> &'a EntrySummary {
    entries.iter().find(|e| e.email == email).unwrap_or_else(|| panic!("{email} listed"))
}

// ---------------------------------------------------------------- title and description

#[tokio::test]
async fn the_title_and_description_are_owner_edits_under_the_revision_and_shown_publicly() {
    let (app, owner, program) = open("beta").await;
    let public = app.public_program("beta").await;
    assert_eq!((public.title, public.description), (None, None));

    let before = owner.program(program).await;
    let change = PatchProgramRequest {
        title: Some("Vestibule beta".into()),
        description: Some("Try the new queue before anyone else.".into()),
        ..changes()
    };
    let after = owner.patch_program(program, change.clone()).await;
    assert_eq!(after.revision, before.revision + 1);
    assert_eq!(after.title.as_deref(), Some("Vestibule beta"));
    assert_eq!(after.description.as_deref(), Some("Try the new queue before anyone else."));
    let public = app.public_program("beta").await;
    assert_eq!(public.title.as_deref(), Some("Vestibule beta"));
    assert_eq!(public.description.as_deref(), Some("Try the new queue before anyone else."));

    // The stale revision is refused; the event names the fields, never the text.
    let stale = PatchProgramRequest { expected_revision: before.revision, ..change };
    owner.patch(&format!("/api/owner/programs/{program}"), &stale).await.expect_error(409, "stale_revision");
    let events = owner.all_events(program, 100).await;
    let changed = events.iter().rev().find(|e| e.kind == EventType::ProgramChanged).expect("an event");
    assert_eq!(changed.details["titleChanged"], json!(true));
    assert_eq!(changed.details["descriptionChanged"], json!(true));
    assert!(!changed.details.to_string().contains("Vestibule beta"));

    // "" removes the text.
    let cleared = owner.patch_program(program, PatchProgramRequest { title: Some(String::new()), ..changes() }).await;
    assert_eq!(cleared.title, None);
    assert_eq!(cleared.description.as_deref(), Some("Try the new queue before anyone else."));
}

#[tokio::test]
async fn a_title_or_description_out_of_bounds_is_400() {
    let (_app, owner, program) = open("beta").await;
    let cases = [
        (PatchProgramRequest { title: Some("x".repeat(81)), ..changes() }, "invalid_title"),
        (PatchProgramRequest { title: Some("   ".into()), ..changes() }, "invalid_title"),
        (PatchProgramRequest { description: Some("x".repeat(501)), ..changes() }, "invalid_description"),
    ];
    for (change, code) in cases {
        owner.try_patch_program(program, change).await.expect_error(400, code);
    }
    let ok = PatchProgramRequest { title: Some("é".repeat(80)), description: Some("d".repeat(500)), ..changes() };
    owner.patch_program(program, ok).await;
}

// ---------------------------------------------------------------- ?ref= source

#[tokio::test]
async fn the_source_is_stored_filtered_on_and_exported_and_a_bad_one_is_dropped() {
    let (app, owner, program) = open("beta").await;
    app.try_signup_with("beta", &with_ref("a@example.com", "newsletter")).await.assert(202);
    app.try_signup_with("beta", &with_ref("b@example.com", "hn_launch-2")).await.assert(202);
    app.try_signup_with("beta", &with_ref("c@example.com", "Bad Ref!")).await.assert(202);
    app.try_signup_with("beta", &with_ref("d@example.com", &"x".repeat(41))).await.assert(202);
    app.signup("beta", "e@example.com").await;

    let all = queue(&owner, program, "").await;
    assert_eq!(by_email(&all, "a@example.com").source.as_deref(), Some("newsletter"));
    assert_eq!(by_email(&all, "b@example.com").source.as_deref(), Some("hn_launch-2"));
    for dropped in ["c@example.com", "d@example.com", "e@example.com"] {
        assert_eq!(by_email(&all, dropped).source, None, "{dropped}");
    }

    let newsletter = queue(&owner, program, "?ref=newsletter").await;
    assert_eq!(newsletter.iter().map(|e| e.email.as_str()).collect::<Vec<_>>(), ["a@example.com"]);
    let search = EntrySearch { source: Some("hn_launch-2".into()), ..Default::default() };
    let found = owner.search(program, &search).await.entries;
    assert_eq!(found.iter().map(|e| e.email.as_str()).collect::<Vec<_>>(), ["b@example.com"]);
    owner.try_entries(program, "?ref=Bad").await.expect_error(400, "invalid_ref");

    let csv = owner.export(program).await;
    csv.assert(200);
    let mut lines = csv.text.lines();
    assert_eq!(lines.next(), Some("id,email,state,created_at,notice_version,permission_at,ref,verified_at_join"));
    let a = csv.text.lines().find(|l| l.contains("a@example.com")).unwrap();
    assert!(a.ends_with(",newsletter,"), "{a}");
    let e = csv.text.lines().find(|l| l.contains("e@example.com")).unwrap();
    assert!(e.ends_with(','), "an entry without a source has an empty cell: {e}");
}

// ---------------------------------------------------------------- flags

#[tokio::test]
async fn a_disposable_domain_is_flagged_with_the_same_neutral_answer() {
    let (app, owner, program) = open("beta").await;
    let plain = app.try_signup("beta", "ann@example.com").await;
    let throwaway = app.try_signup("beta", "ann@mailinator.com").await;
    let sub = app.try_signup("beta", "bob@x.yopmail.com").await;
    for r in [&plain, &throwaway, &sub] {
        assert_eq!((r.status.as_u16(), r.text.as_str()), (202, plain.text.as_str()));
    }
    let all = queue(&owner, program, "").await;
    assert_eq!(by_email(&all, "ann@example.com").flags, []);
    assert_eq!(by_email(&all, "ann@mailinator.com").flags, [EntryFlag::DisposableDomain]);
    assert_eq!(by_email(&all, "bob@x.yopmail.com").flags, [EntryFlag::DisposableDomain]);
    let flagged = queue(&owner, program, "?flag=disposable_domain").await;
    assert_eq!(flagged.len(), 2);
    let detail = owner.entry(program, by_email(&all, "ann@mailinator.com").id).await;
    assert_eq!(detail.flags, [EntryFlag::DisposableDomain]);
}

#[tokio::test]
async fn one_mailbox_under_its_providers_alias_rules_is_a_possible_duplicate_of_the_first() {
    let (app, owner, program) = open("beta").await;
    for email in [
        "john.doe@gmail.com",
        "johndoe+waitlist@googlemail.com",
        "John.D.oe@gmail.com",
        "jane.doe@outlook.com",
        "jane.doe+x@outlook.com",
        "janedoe@outlook.com",
        "john.doe+x@example.com",
        "john.doe@example.com",
    ] {
        app.signup("beta", email).await;
    }
    let all = queue(&owner, program, "").await;
    let first = by_email(&all, "john.doe@gmail.com");
    assert_eq!(first.flags, []);
    for dup in ["johndoe+waitlist@googlemail.com", "John.D.oe@gmail.com"] {
        let e = by_email(&all, dup);
        assert_eq!(e.flags, [EntryFlag::PossibleDuplicate], "{dup}");
        assert_eq!(e.duplicate_of, Some(first.id), "{dup} links the earliest");
    }
    let jane = by_email(&all, "jane.doe@outlook.com");
    assert_eq!(by_email(&all, "jane.doe+x@outlook.com").duplicate_of, Some(jane.id));
    // Dots count at Outlook, and no rule applies to example.com.
    for distinct in ["janedoe@outlook.com", "john.doe+x@example.com", "john.doe@example.com"] {
        assert_eq!(by_email(&all, distinct).flags, [], "{distinct}");
    }
    let dups = queue(&owner, program, "?flag=possible_duplicate").await;
    assert_eq!(dups.len(), 3);
    let detail = owner.entry(program, by_email(&all, "John.D.oe@gmail.com").id).await;
    assert_eq!(detail.duplicate_of, Some(first.id));
    owner.try_entries(program, "?flag=spam").await.expect_error(400, "invalid_flag");
}

#[tokio::test]
async fn a_replaced_email_takes_its_mailbox_key_with_it() {
    let (app, _owner, program) = open("beta").await;
    app.signup("beta", "john.doe@gmail.com").await;
    let entry = app.entry_id(program, "john.doe@gmail.com").await;
    let key: Option<String> = app.scalar("SELECT mailbox_key FROM entries WHERE id = $1", &[&entry]).await;
    assert_eq!(key.as_deref(), Some("johndoe@gmail.com"));
    app.exec("UPDATE entries SET email_key = 'redacted@redacted.invalid' WHERE id = $1", &[&entry]).await;
    let key: Option<String> = app.scalar("SELECT mailbox_key FROM entries WHERE id = $1", &[&entry]).await;
    assert_eq!(key, None);
}

#[tokio::test]
async fn flagged_waiting_entries_are_declined_in_bulk_with_a_reason_code() {
    let (app, owner, program) = open("beta").await;
    for email in ["a@mailinator.com", "keep@example.com", "b@yopmail.com", "c@mailinator.com"] {
        app.signup("beta", email).await;
    }
    let selected = app.entry_id(program, "c@mailinator.com").await;
    owner.select(program, selected).await;
    let path = format!("/api/owner/programs/{program}/entries/decline-flagged");
    let request = |count, reason: &str| DeclineFlaggedRequest {
        flag: EntryFlag::DisposableDomain,
        count,
        reason_code: reason.into(),
    };

    owner.post(&path, &request(10, "spam")).await.expect_error(400, "invalid_reason_code");
    owner.post(&path, &request(0, "not_eligible")).await.expect_error(400, "invalid_count");
    let stranger = app.owner("stranger@example.com").await.0;
    stranger.post(&path, &request(10, "not_eligible")).await.assert(404);

    let done: DeclineFlaggedResponse = owner.post(&path, &request(10, "not_eligible")).await.expect(200);
    let a = app.entry_id(program, "a@mailinator.com").await;
    let b = app.entry_id(program, "b@yopmail.com").await;
    assert_eq!(done.declined, [a, b], "waiting flagged entries only, in queue order");
    let all = queue(&owner, program, "").await;
    assert_eq!(by_email(&all, "a@mailinator.com").state, EntryState::Declined);
    assert_eq!(by_email(&all, "keep@example.com").state, EntryState::Waiting);
    assert_eq!(by_email(&all, "c@mailinator.com").state, EntryState::Selected);
    let events = owner.all_events(program, 100).await;
    let declined: Vec<_> = events.iter().filter(|e| e.kind == EventType::Declined).collect();
    assert_eq!(declined.len(), 2);
    assert!(declined.iter().all(|e| e.details["reasonCode"] == json!("not_eligible")));

    let again: DeclineFlaggedResponse = owner.post(&path, &request(10, "not_eligible")).await.expect(200);
    assert!(again.declined.is_empty());
}

#[tokio::test]
async fn the_dashboard_splits_intake_by_source() {
    let (app, owner, program) = open("beta").await;
    for (email, source) in [("a1@example.com", "news"), ("a2@example.com", "news"), ("b1@example.com", "partner")] {
        app.try_signup_with("beta", &with_ref(email, source)).await.assert(202);
    }
    app.signup("beta", "none@example.com").await;
    app.try_signup_with("beta", &with_ref("bad@example.com", "Not A Ref!")).await.assert(202);

    let stats: shared::api::ProgramStats = owner.get(&format!("/api/owner/programs/{program}/stats")).await.expect(200);
    let split: Vec<(Option<&str>, i64)> =
        stats.intake_sources.iter().map(|s| (s.source.as_deref(), s.hours.iter().map(|h| h.admitted).sum())).collect();
    // Most entries first; a dropped ref counts as none.
    assert_eq!(split, [(Some("news"), 2), (None, 2), (Some("partner"), 1)]);
    let total: i64 = stats.intake_hours.iter().map(|h| h.admitted).sum();
    assert_eq!(total, 5, "the split adds up to the intake");
}
