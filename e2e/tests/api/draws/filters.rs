//! The entrant rule: a draw over one source and/or a flag filter has only those
//! candidates, and the rule is fixed at the opening (chained) and part of the tickets
//! hash, so a record with another rule does not verify. A malformed rule writes nothing.

use super::{sorted_tickets, tickets_hash};
use crate::common::drand::LocalChain;
use crate::support::draws::verify_draw;
use crate::support::{Caps, TestApp};
use serde_json::json;
use shared::api::SignupRequest;
use shared::draws::BeaconDrawRecord;
use shared::trust::{DrawFilter, DrawSummary, FlagFilter};
use shared::SourceRef;
use uuid::Uuid;

/// Signs `email` up to `slug` from `source` (`?ref=`) and answers its entry id.
async fn signup_from(app: &TestApp, program: Uuid, slug: &str, email: &str, source: Option<&str>) -> Uuid {
    let request = SignupRequest { source: source.map(str::to_owned), ..crate::support::public::signup_request(email) };
    app.try_signup_with(slug, &request).await.assert(202);
    app.entry_id(program, email).await
}

fn filter(source: Option<&str>, flag: Option<FlagFilter>) -> DrawFilter {
    DrawFilter { source: source.map(|s| SourceRef::parse(s).unwrap()), flag }
}

#[tokio::test]
async fn a_draw_over_a_source_has_only_that_sources_candidates_and_fixes_the_rule() {
    let chain = LocalChain::default_for_tests();
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let program = owner.program_with(ws, "by-source", Caps { seats: 5, ..Caps::default() }).await;
    let mut newsletter = Vec::new();
    for (i, source) in [Some("newsletter"), Some("hn"), Some("newsletter"), None, Some("newsletter")].iter().enumerate()
    {
        let entry = signup_from(&app, program, "by-source", &format!("s{i}@example.com"), *source).await;
        if *source == Some("newsletter") {
            newsletter.push(entry);
        }
    }
    let opened: BeaconDrawRecord =
        owner.try_open_draw(program, &json!({"winners": 2, "source": "newsletter"})).await.expect(201);
    let expected = sorted_tickets(program, &newsletter);
    assert_eq!(opened.tickets, expected, "only the newsletter's waiting entries hold tickets");
    assert_eq!(opened.filter, filter(Some("newsletter"), None));
    assert_eq!(opened.tickets_hash, Some(tickets_hash(opened.draw_id, &opened.filter, &expected, &[])));
    let listed: Vec<DrawSummary> = owner.get(&format!("/api/owner/programs/{program}/draws")).await.expect(200);
    assert_eq!((listed[0].filter.clone(), listed[0].candidates), (filter(Some("newsletter"), None), 3));

    let run = owner.run_draw_on(program, &opened, &chain).await;
    assert_eq!(run.drawn.len(), 2);
    assert!(run.drawn.iter().all(|t| expected.contains(t)), "winners come from the rule's population");
    let selected: Vec<Uuid> =
        app.column("SELECT id FROM entries WHERE program_id = $1 AND state = 'selected'", &[&program]).await;
    assert!(selected.iter().all(|e| newsletter.contains(e)) && selected.len() == 2, "{selected:?}");

    let (ok, out) = verify_draw(&run).await;
    assert!(ok && out.contains("over waiting entries from source “newsletter”"), "{out}");
    for other in [filter(Some("hn"), None), filter(None, None), filter(Some("newsletter"), Some(FlagFilter::Unflagged))]
    {
        let (ok, out) = verify_draw(&BeaconDrawRecord { filter: other, ..run.clone() }).await;
        assert!(!ok && out.contains("fixed field"), "{out}");
    }
}

#[tokio::test]
async fn a_flag_filter_draws_from_unflagged_or_from_flagged_entries_only() {
    let chain = LocalChain::default_for_tests();
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let program = owner.program_with(ws, "by-flag", Caps { seats: 5, ..Caps::default() }).await;
    let mut ids = Vec::new();
    for email in ["ann@example.com", "ann@mailinator.com", "john.doe@gmail.com", "johndoe+w@googlemail.com"] {
        ids.push(signup_from(&app, program, "by-flag", email, None).await);
    }
    let (plain, disposable, first, duplicate) = (ids[0], ids[1], ids[2], ids[3]);

    let clean: BeaconDrawRecord =
        owner.try_open_draw(program, &json!({"winners": 1, "flag": "unflagged"})).await.expect(201);
    assert_eq!(clean.tickets, sorted_tickets(program, &[plain, first]), "fakes left out");
    assert_eq!(clean.filter, filter(None, Some(FlagFilter::Unflagged)));
    assert!(verify_draw(&owner.run_draw_on(program, &clean, &chain).await).await.0);

    let flagged: BeaconDrawRecord =
        owner.try_open_draw(program, &json!({"winners": 1, "flag": "disposable_domain"})).await.expect(201);
    assert_eq!(flagged.tickets, sorted_tickets(program, &[disposable]));
    let (ok, out) = verify_draw(&owner.run_draw_on(program, &flagged, &chain).await).await;
    assert!(ok && out.contains("flagged as a disposable domain"), "{out}");

    let both = json!({"winners": 1, "flag": "possible_duplicate", "source": "newsletter"});
    owner.try_open_draw(program, &both).await.expect_error(409, "draw_no_candidates");
    let dups: BeaconDrawRecord =
        owner.try_open_draw(program, &json!({"winners": 1, "flag": "possible_duplicate"})).await.expect(201);
    assert_eq!(dups.tickets, sorted_tickets(program, &[duplicate]));
}

#[tokio::test]
async fn an_invalid_filter_is_400_and_writes_nothing() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let (program, _) = super::waiting(&app, &owner, ws, "bad-filter", 3, 2).await;
    let audit = "SELECT count(*) FROM audit_events WHERE program_id = $1";
    let events: i64 = app.scalar(audit, &[&program]).await;
    for body in [
        json!({"winners": 1, "source": "Newsletter"}),
        json!({"winners": 1, "source": ""}),
        json!({"winners": 1, "source": "x".repeat(41)}),
        json!({"winners": 1, "source": "a b"}),
        json!({"winners": 1, "source": 7}),
        json!({"winners": 1, "flag": "spam"}),
        json!({"winners": 1, "flag": ""}),
        json!({"winners": 1, "flag": ["unflagged"]}),
        json!({"winners": 1, "filter": {"source": "newsletter"}}),
        json!({"winners": 1, "seed": "00"}),
    ] {
        owner.try_open_draw(program, &body).await.expect_error(400, "invalid_body");
    }
    // A well-formed rule nobody matches, closing at once, is the usual conflict.
    owner
        .try_open_draw(program, &json!({"winners": 1, "source": "nobody"}))
        .await
        .expect_error(409, "draw_no_candidates");
    assert_eq!(app.scalar::<i64>(audit, &[&program]).await, events, "no audit event");
    assert_eq!(app.scalar::<i64>("SELECT count(*) FROM draws", &[]).await, 0, "no draw");
    assert_eq!(app.scalar::<i64>("SELECT count(*) FROM draw_tickets", &[]).await, 0, "no ticket");
}
