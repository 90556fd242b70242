//! Verifiable lottery draws (issue 16): opening commits to a seed and to the frozen
//! tickets, running reveals the seed and selects the first eligible tickets of its order
//! within the seat cap, and the downloadable record recomputes offline with
//! `vestibule verify-draw`. A draw may be over a filter (source, flag), which is frozen
//! into its record and commitment. Each refusal changes nothing.

use crate::support::process;
use crate::support::{Caps, Owner, TestApp};
use ring::digest;
use serde_json::json;
use shared::api::SignupRequest;
use shared::trust::{DrawFilter, DrawRecord, DrawSummary, FlagFilter, OwnDrawTicket};
use shared::SourceRef;
use uuid::Uuid;

fn ticket(program: Uuid, entry: Uuid) -> String {
    let mut ctx = digest::Context::new(&digest::SHA256);
    ctx.update(program.as_bytes());
    ctx.update(entry.as_bytes());
    hex::encode(ctx.finish())
}

fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(digest::digest(&digest::SHA256, bytes))
}

/// A format 2 tickets hash, by the rule the README gives: SHA-256 of the filter line
/// (an empty value for an absent part) and then the sorted tickets' bytes.
fn tickets_hash(source: &str, flag: &str, sorted: &[String]) -> String {
    let mut bytes = format!("vestibule-draw/2\nsource={source}\nflag={flag}\n").into_bytes();
    sorted.iter().for_each(|t| bytes.extend(hex::decode(t).unwrap()));
    sha256_hex(&bytes)
}

fn sorted_tickets(program: Uuid, entries: &[Uuid]) -> Vec<String> {
    let mut tickets: Vec<String> = entries.iter().map(|e| ticket(program, *e)).collect();
    tickets.sort();
    tickets
}

fn verify_draw(record: &DrawRecord) -> (bool, String) {
    let path = std::env::temp_dir().join(format!("draw-{}.json", Uuid::new_v4().simple()));
    std::fs::write(&path, serde_json::to_string_pretty(record).unwrap()).unwrap();
    let out = process::vestibule("postgres://unused", &["verify-draw", path.to_str().unwrap()], &[]);
    let _ = std::fs::remove_file(path);
    (out.status.success(), format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)))
}

/// An open program `slug` with `n` waiting signups `d{i}@example.com`.
async fn waiting(app: &TestApp, owner: &Owner, ws: Uuid, slug: &str, seats: i32, n: usize) -> (Uuid, Vec<Uuid>) {
    let program = owner.program_with(ws, slug, Caps { seats, ..Caps::default() }).await;
    let mut entries = Vec::new();
    for i in 0..n {
        let email = format!("d{i}@example.com");
        app.signup(slug, &email).await;
        entries.push(app.entry_id(program, &email).await);
    }
    (program, entries)
}

#[tokio::test]
async fn a_draw_commits_runs_once_and_its_record_recomputes_offline() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let (program, entries) = waiting(&app, &owner, ws, "lottery", 3, 6).await;
    let draws = format!("/api/owner/programs/{program}/draws");

    let opened: DrawRecord = owner.post(&draws, &json!({"winners": 2})).await.expect(201);
    assert_eq!((opened.state.as_str(), opened.seed.as_ref(), opened.tickets.len()), ("open", None, 6));
    let mut expected: Vec<String> = entries.iter().map(|e| ticket(program, *e)).collect();
    expected.sort();
    assert_eq!(opened.tickets, expected, "ticket = SHA-256(program ‖ entry), sorted");
    assert_eq!((opened.format.as_str(), opened.filter.clone()), ("vestibule-draw/2", Some(DrawFilter::default())));
    assert_eq!(opened.tickets_hash, tickets_hash("", "", &expected), "the commitment covers the (empty) filter");
    assert!(!serde_json::to_string(&opened).unwrap().contains('@'), "tickets reveal no email");
    owner.post(&draws, &json!({"winners": 1})).await.expect_error(409, "draw_already_open");
    assert!(verify_draw(&opened).0, "an open record verifies its tickets");

    // Someone leaves between opening and running: their ticket is skipped.
    owner.withdraw(program, entries[0], "applicant_request").await;
    let run_path = format!("{draws}/{}/run", opened.draw_id);
    let run: DrawRecord = owner.post(&run_path, &json!({})).await.expect(200);
    let seed = hex::decode(run.seed.as_ref().expect("the seed is revealed")).unwrap();
    assert_eq!(sha256_hex(&seed), opened.seed_commitment, "the seed is the one committed to at opening");
    assert_eq!((run.tickets.clone(), run.tickets_hash.clone()), (opened.tickets.clone(), opened.tickets_hash.clone()));
    assert_eq!(run.ineligible, [ticket(program, entries[0])]);
    assert_eq!(run.drawn.len(), 2);
    owner.post(&run_path, &json!({})).await.expect_error(409, "draw_already_run");

    // The winners are selected with reason `lottery`, nobody else is.
    let winners: Vec<Uuid> = entries.iter().copied().filter(|e| run.drawn.contains(&ticket(program, *e))).collect();
    assert_eq!(winners.len(), 2);
    for entry in &entries {
        let state: String = app.scalar("SELECT state FROM entries WHERE id = $1", &[entry]).await;
        let want = if winners.contains(entry) {
            "selected"
        } else if *entry == entries[0] {
            "withdrawn"
        } else {
            "waiting"
        };
        assert_eq!(state, want);
    }
    let reasons: Vec<String> = app
        .column(
            "SELECT details->>'reasonCode' FROM audit_events WHERE program_id = $1 AND event_type = 'selected'",
            &[&program],
        )
        .await;
    assert_eq!(reasons, ["lottery", "lottery"]);

    // The downloadable record recomputes offline; an altered seed or ticket list does not.
    let record: DrawRecord = owner.get(&format!("{draws}/{}", opened.draw_id)).await.expect(200);
    assert_eq!(record, run);
    let (ok, out) = verify_draw(&record);
    assert!(ok && out.starts_with("ok"), "{out}");
    let mut seed_changed = record.clone();
    seed_changed.seed = Some(hex::encode([7u8; 32]));
    let (ok, out) = verify_draw(&seed_changed);
    assert!(!ok && out.contains("seed was altered"), "{out}");
    let mut tickets_changed = record.clone();
    tickets_changed.tickets.pop();
    let (ok, out) = verify_draw(&tickets_changed);
    assert!(!ok && out.contains("ticket list was altered"), "{out}");

    // Each applicant sees their own ticket and whether it was drawn.
    for (i, entry) in entries.iter().enumerate().skip(1) {
        let me = app.recipient(&format!("d{i}@example.com")).await;
        let mine: Vec<OwnDrawTicket> = me.get("/api/me/waitlist/lottery/draws").await.expect(200);
        assert_eq!(mine.len(), 1);
        assert_eq!((mine[0].ticket.clone(), mine[0].drawn), (ticket(program, *entry), winners.contains(entry)));
    }
    let (ok, report) = {
        let out = process::vestibule(&app.db_url, &["verify"], &[]);
        (out.status.success(), String::from_utf8_lossy(&out.stdout).into_owned())
    };
    assert!(ok, "{report}");
}

#[tokio::test]
async fn a_draw_without_enough_seats_or_candidates_is_refused() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let (program, _) = waiting(&app, &owner, ws, "few-seats", 1, 3).await;
    let draws = format!("/api/owner/programs/{program}/draws");
    owner.post(&draws, &json!({"winners": 0})).await.expect_error(400, "invalid_winners");
    let opened: DrawRecord = owner.post(&draws, &json!({"winners": 2})).await.expect(201);
    let run_path = format!("{draws}/{}/run", opened.draw_id);
    owner.post(&run_path, &json!({})).await.expect_error(409, "draw_seats_insufficient");
    let selected: i64 = app.scalar("SELECT count(*) FROM entries WHERE state = 'selected'", &[]).await;
    assert_eq!(selected, 0, "a refused run selects nobody");
    let record: DrawRecord = owner.get(&format!("{draws}/{}", opened.draw_id)).await.expect(200);
    assert_eq!((record.state.as_str(), record.seed), ("open", None), "and reveals nothing");

    // With the seats there, the same draw runs.
    owner
        .patch_program(
            program,
            shared::api::PatchProgramRequest { seat_cap: Some(2), ..crate::support::owner::changes() },
        )
        .await;
    let run: DrawRecord = owner.post(&run_path, &json!({})).await.expect(200);
    assert_eq!(run.drawn.len(), 2);

    let (empty, _) = waiting(&app, &owner, ws, "nobody-waits", 5, 0).await;
    owner
        .post(&format!("/api/owner/programs/{empty}/draws"), &json!({"winners": 1}))
        .await
        .expect_error(409, "draw_no_candidates");
    let (stranger, _) = app.owner("stranger@example.com").await;
    stranger.post(&draws, &json!({"winners": 1})).await.assert(404);
    stranger.get(&format!("{draws}/{}", opened.draw_id)).await.assert(404);
}

// ---------------------------------------------------------------- filters

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
async fn a_draw_over_a_source_has_only_that_sources_candidates_and_commits_to_the_filter() {
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
    let draws = format!("/api/owner/programs/{program}/draws");

    let opened: DrawRecord = owner.post(&draws, &json!({"winners": 2, "source": "newsletter"})).await.expect(201);
    let expected = sorted_tickets(program, &newsletter);
    assert_eq!(opened.tickets, expected, "only the newsletter's waiting entries hold tickets");
    assert_eq!(opened.filter, Some(filter(Some("newsletter"), None)));
    assert_eq!(opened.tickets_hash, tickets_hash("newsletter", "", &expected));
    let listed: Vec<DrawSummary> = owner.get(&draws).await.expect(200);
    assert_eq!((listed[0].filter.clone(), listed[0].candidates), (filter(Some("newsletter"), None), 3));

    let run: DrawRecord = owner.post(&format!("{draws}/{}/run", opened.draw_id), &json!({})).await.expect(200);
    assert_eq!(run.drawn.len(), 2);
    assert!(run.drawn.iter().all(|t| expected.contains(t)), "winners come from the filtered population");
    let selected: Vec<Uuid> =
        app.column("SELECT id FROM entries WHERE program_id = $1 AND state = 'selected'", &[&program]).await;
    assert!(selected.iter().all(|e| newsletter.contains(e)) && selected.len() == 2, "{selected:?}");

    // The record names its filter; verify-draw reproduces it and refuses an altered one.
    let record: DrawRecord = owner.get(&format!("{draws}/{}", opened.draw_id)).await.expect(200);
    assert_eq!((record.format.as_str(), record.filter.clone()), ("vestibule-draw/2", opened.filter.clone()));
    let (ok, out) = verify_draw(&record);
    assert!(ok && out.contains("over waiting entries from source “newsletter”"), "{out}");
    for other in [filter(Some("hn"), None), filter(None, None), filter(Some("newsletter"), Some(FlagFilter::Unflagged))]
    {
        let altered = DrawRecord { filter: Some(other), ..record.clone() };
        let (ok, out) = verify_draw(&altered);
        assert!(!ok && out.contains("the filter or the ticket list was altered"), "{out}");
    }
    let relabelled = DrawRecord { format: "vestibule-draw/1".into(), filter: None, ..record.clone() };
    let (ok, out) = verify_draw(&relabelled);
    assert!(!ok && out.contains("ticket list was altered"), "a filtered draw cannot pass as an unfiltered one: {out}");
}

#[tokio::test]
async fn a_flag_filter_draws_from_unflagged_or_from_flagged_entries_only() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let program = owner.program_with(ws, "by-flag", Caps { seats: 5, ..Caps::default() }).await;
    let mut ids = Vec::new();
    for email in ["ann@example.com", "ann@mailinator.com", "john.doe@gmail.com", "johndoe+w@googlemail.com"] {
        ids.push(signup_from(&app, program, "by-flag", email, None).await);
    }
    let (plain, disposable, first, duplicate) = (ids[0], ids[1], ids[2], ids[3]);
    let draws = format!("/api/owner/programs/{program}/draws");

    let clean: DrawRecord = owner.post(&draws, &json!({"winners": 1, "flag": "unflagged"})).await.expect(201);
    assert_eq!(clean.tickets, sorted_tickets(program, &[plain, first]), "fakes left out");
    assert_eq!(clean.filter, Some(filter(None, Some(FlagFilter::Unflagged))));
    assert_eq!(clean.tickets_hash, tickets_hash("", "unflagged", &clean.tickets));
    let run: DrawRecord = owner.post(&format!("{draws}/{}/run", clean.draw_id), &json!({})).await.expect(200);
    assert!(verify_draw(&run).0);

    let flagged: DrawRecord = owner.post(&draws, &json!({"winners": 1, "flag": "disposable_domain"})).await.expect(201);
    assert_eq!(flagged.tickets, sorted_tickets(program, &[disposable]));
    let run: DrawRecord = owner.post(&format!("{draws}/{}/run", flagged.draw_id), &json!({})).await.expect(200);
    let (ok, out) = verify_draw(&run);
    assert!(ok && out.contains("flagged as a disposable domain"), "{out}");

    let both = json!({"winners": 1, "flag": "possible_duplicate", "source": "newsletter"});
    owner.post(&draws, &both).await.expect_error(409, "draw_no_candidates");
    let dups: DrawRecord = owner.post(&draws, &json!({"winners": 1, "flag": "possible_duplicate"})).await.expect(201);
    assert_eq!(dups.tickets, sorted_tickets(program, &[duplicate]));
}

#[tokio::test]
async fn an_invalid_filter_is_400_and_writes_nothing() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let (program, _) = waiting(&app, &owner, ws, "bad-filter", 3, 2).await;
    let draws = format!("/api/owner/programs/{program}/draws");
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
    ] {
        owner.post(&draws, &body).await.expect_error(400, "invalid_body");
    }
    // A well-formed filter nobody matches is the usual conflict, and writes nothing either.
    owner.post(&draws, &json!({"winners": 1, "source": "nobody"})).await.expect_error(409, "draw_no_candidates");
    assert_eq!(app.scalar::<i64>(audit, &[&program]).await, events, "no audit event");
    assert_eq!(app.scalar::<i64>("SELECT count(*) FROM draws", &[]).await, 0, "no draw");
    assert_eq!(app.scalar::<i64>("SELECT count(*) FROM draw_tickets", &[]).await, 0, "no ticket");
}

#[tokio::test]
async fn a_draw_opened_before_filters_keeps_its_format_1_record_and_verifies() {
    // A record downloaded before filters existed, computed independently (Python).
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/draw-v1.json");
    let old: DrawRecord = serde_json::from_str(&std::fs::read_to_string(fixture).unwrap()).unwrap();
    let (ok, out) = verify_draw(&old);
    assert!(ok && out.contains("format 1"), "{out}");

    // A draw row from before migration V53 (format 1, plain tickets hash) is served as such.
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let (program, entries) = waiting(&app, &owner, ws, "old-draw", 3, 3).await;
    let draws = format!("/api/owner/programs/{program}/draws");
    let opened: DrawRecord = owner.post(&draws, &json!({"winners": 1})).await.expect(201);
    let joined: Vec<u8> = sorted_tickets(program, &entries).iter().flat_map(|t| hex::decode(t).unwrap()).collect();
    let plain = digest::digest(&digest::SHA256, &joined).as_ref().to_vec();
    app.exec("UPDATE draws SET format = 1, tickets_hash = $2 WHERE id = $1", &[&opened.draw_id, &plain]).await;
    let run: DrawRecord = owner.post(&format!("{draws}/{}/run", opened.draw_id), &json!({})).await.expect(200);
    assert_eq!((run.format.as_str(), run.filter.as_ref()), ("vestibule-draw/1", None));
    let text = owner.get(&format!("{draws}/{}", opened.draw_id)).await.text;
    assert!(!text.contains("\"filter\""), "a format 1 record has no filter field: {text}");
    let (ok, out) = verify_draw(&run);
    assert!(ok, "{out}");
}
