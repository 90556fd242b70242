//! Questions on the form and joining with a verified account (issue 31). Questions are
//! part of a notice version's immutable snapshot; answers are checked before anything is
//! written (a 400 naming the question), bound to the request key like the email, stored
//! beside a new entry only, shown to the owner (entry, queue, filter by choice, CSV,
//! entries API) and to the applicant (own export), emptied by erasure and retention
//! redaction, and never copied into events or webhook payloads. A program with
//! `joinWith: "account"` takes only signed-in joins with a verified address, recorded on
//! the entry.

use crate::support::owner::{changes, notice};
use crate::support::process::vestibule;
use crate::support::public::signup_request;
use crate::support::{Owner, Recipient, TestApp};
use serde_json::{json, Value};
use shared::api::{EntryDetail, PatchProgramRequest, SignupRequest};
use shared::integrations::V1EntriesResponse;
use shared::questions::{Answer, Answers, JoinWith};
use shared::trust::PersonalDataExport;
use uuid::Uuid;

/// Three questions of different kinds: a required short text, a required single
/// choice, an optional multiple choice.
fn three_questions() -> Value {
    json!([
        {"id": "name", "kind": "shortText", "label": "Your name", "required": true, "maxLength": 40},
        {"id": "role", "kind": "oneChoice", "label": "Your role", "required": true,
         "choices": ["Engineer", "Designer", "Founder"]},
        {"id": "tools", "kind": "manyChoices", "label": "Tools you use", "required": false,
         "choices": ["Rust", "Go", "Zig"]},
    ])
}

fn notice_with(questions: Value) -> Value {
    let mut body = serde_json::to_value(notice()).unwrap();
    body["questions"] = questions;
    body
}

fn answers(pairs: &[(&str, Value)]) -> Answers {
    serde_json::from_value(Value::Object(pairs.iter().map(|(k, v)| ((*k).to_owned(), v.clone())).collect())).unwrap()
}

fn good_answers() -> Answers {
    answers(&[("name", json!("Ada")), ("role", json!("Founder")), ("tools", json!(["Zig", "Rust"]))])
}

fn with_answers(email: &str, given: Answers) -> SignupRequest {
    SignupRequest { answers: given, ..signup_request(email) }
}

/// An open program whose first notice asks [`three_questions`].
async fn asking(app: &TestApp, slug: &str) -> (Owner, Uuid) {
    let (owner, ws) = app.owner("owner@example.com").await;
    let program = owner.create_program(ws, slug, Default::default()).await.id;
    owner.try_publish_notice(program, &notice_with(three_questions())).await.assert(201);
    let open =
        PatchProgramRequest { signup_open: Some(true), proof_of_work: Some(shared::api::PowLevel::Off), ..changes() };
    owner.patch_program(program, open).await;
    (owner, program)
}

/// Rows that a signup may write, to show that a refusal wrote none.
async fn written(app: &TestApp) -> (i64, i64, i64, i64) {
    let row = app
        .row(
            "SELECT (SELECT count(*) FROM entries), (SELECT count(*) FROM signup_receipts), \
             (SELECT count(*) FROM audit_events), (SELECT count(*) FROM entry_answers)",
            &[],
        )
        .await;
    (row.get(0), row.get(1), row.get(2), row.get(3))
}

#[tokio::test]
async fn questions_are_part_of_the_notice_version_and_old_entries_keep_the_version_they_answered() {
    let app = TestApp::spawn().await;
    let (owner, program) = asking(&app, "asking").await;
    let public = app.public_program("asking").await;
    assert_eq!(public.notice.questions.len(), 3);
    assert_eq!(serde_json::to_value(&public.notice.questions).unwrap(), three_questions());
    assert_eq!(public.join_with, JoinWith::Email);
    app.try_signup_with("asking", &with_answers("ada@example.com", good_answers())).await.assert(202);

    let fewer = json!([{"id": "site", "kind": "url", "label": "Your site", "required": true}]);
    let v2 = owner.try_publish_notice(program, &notice_with(fewer.clone())).await.expect::<shared::api::Notice>(201);
    assert_eq!((v2.version, serde_json::to_value(&v2.questions).unwrap()), (2, fewer));
    assert_eq!(app.public_program("asking").await.notice.questions, v2.questions);
    // The notice row cannot be edited afterwards (V1's trigger covers the new column).
    let edit = app.db().await.execute("UPDATE notices SET questions = '[]' WHERE program_id = $1", &[&program]).await;
    assert!(edit.is_err(), "a notice's questions are immutable");

    let ada = app.entry_id(program, "ada@example.com").await;
    let detail = owner.entry(program, ada).await;
    assert_eq!((detail.notice.version, detail.notice.questions.len()), (1, 3), "the version it answered");
    let mut v2_request = with_answers("bo@example.com", answers(&[("site", json!("https://bo.example.com"))]));
    v2_request.notice_version = 2;
    app.try_signup_with("asking", &v2_request).await.assert(202);
    let bo = owner.entry(program, app.entry_id(program, "bo@example.com").await).await;
    assert_eq!(bo.notice.questions, v2.questions);
    assert_eq!(bo.answers, answers(&[("site", json!("https://bo.example.com"))]));
}

#[tokio::test]
async fn questions_that_break_the_rules_are_refused_and_nothing_is_published() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let program = owner.create_program(ws, "rules", Default::default()).await.id;
    let eleven: Vec<Value> =
        (0..11).map(|i| json!({"id": format!("q{i}"), "kind": "shortText", "label": "L", "required": false})).collect();
    let bad = [
        json!(eleven),
        json!([{"id": "a", "kind": "shortText", "label": "A", "required": false},
               {"id": "a", "kind": "longText", "label": "B", "required": false}]),
        json!([{"id": "Bad Id", "kind": "shortText", "label": "A", "required": false}]),
        json!([{"id": "a", "kind": "oneChoice", "label": "A", "required": false, "choices": ["only"]}]),
        json!([{"id": "a", "kind": "shortText", "label": "A", "required": false, "choices": ["x", "y"]}]),
        json!([{"id": "a", "kind": "shortText", "label": "A", "required": false, "maxLength": 201}]),
        json!([{"id": "a", "kind": "oneChoice", "label": "A", "required": false, "choices": ["x", "y"], "maxLength": 5}]),
        json!([{"id": "a", "kind": "shortText", "label": "two\nlines", "required": false}]),
    ];
    for questions in bad {
        owner.try_publish_notice(program, &notice_with(questions.clone())).await.expect_error(400, "invalid_questions");
    }
    let kind = json!([{"id": "a", "kind": "essay", "label": "A", "required": false}]);
    owner.try_publish_notice(program, &notice_with(kind)).await.expect_error(400, "invalid_body");
    let published: i64 = app.scalar("SELECT count(*) FROM notices", &[]).await;
    assert_eq!(published, 0);
}

#[tokio::test]
async fn each_bad_answer_is_a_400_naming_its_question_and_writes_nothing() {
    let app = TestApp::spawn().await;
    asking(&app, "strict").await;
    let before = written(&app).await;
    let cases: [(Answers, Option<&str>); 8] = [
        (answers(&[("role", json!("Founder"))]), Some("name")),
        (answers(&[("name", json!("   ")), ("role", json!("Founder"))]), Some("name")),
        (answers(&[("name", json!("Ada"))]), Some("role")),
        (answers(&[("name", json!("Ada")), ("role", json!("Astronaut"))]), Some("role")),
        (answers(&[("name", json!("x".repeat(41))), ("role", json!("Founder"))]), Some("name")),
        (answers(&[("name", json!("Ada")), ("role", json!(["Founder"]))]), Some("role")),
        (answers(&[("name", json!("Ada")), ("role", json!("Founder")), ("tools", json!(["Perl"]))]), Some("tools")),
        (answers(&[("name", json!("Ada")), ("role", json!("Founder")), ("nickname", json!("A"))]), None),
    ];
    for (given, question) in cases {
        let reply = app.try_signup_with("strict", &with_answers("ada@example.com", given.clone())).await;
        let error = reply.expect_error(400, "invalid_answer");
        assert_eq!(error.question.as_deref(), question, "{given:?}");
        assert!(!reply.text.contains("Astronaut") && !reply.text.contains("Perl") && !reply.text.contains("nickname"));
    }
    // A number is no answer at all: the body is refused before any route logic.
    let mut body = serde_json::to_value(signup_request("ada@example.com")).unwrap();
    body["answers"] = json!({"name": 7, "role": "Founder"});
    app.post("/api/public/programs/strict/signups", &body, None).await.expect_error(400, "invalid_body");
    assert_eq!(written(&app).await, before, "no entry, receipt, event or answer");
    // A notice version the program does not have is outdated, whatever the answers.
    let mut outdated = with_answers("ada@example.com", good_answers());
    outdated.notice_version = 9;
    app.try_signup_with("strict", &outdated).await.expect_error(409, "notice_outdated");
}

#[tokio::test]
async fn the_answers_are_bound_to_the_request_key_like_the_email() {
    let app = TestApp::spawn().await;
    let (owner, program) = asking(&app, "bound").await;
    let first = with_answers("ada@example.com", good_answers());
    app.try_signup_with("bound", &first).await.assert(202);
    // The same answers, written differently (spaces, another order of choices): the same signup.
    let same = answers(&[("name", json!(" Ada ")), ("role", json!("Founder")), ("tools", json!(["Rust", "Zig"]))]);
    app.try_signup_with("bound", &SignupRequest { answers: same, ..first.clone() }).await.assert(202);
    let other = answers(&[("name", json!("Ada")), ("role", json!("Engineer"))]);
    let reused = app.try_signup_with("bound", &SignupRequest { answers: other, ..first.clone() }).await;
    reused.expect_error(409, "request_key_reused");
    let none = app.try_signup_with("bound", &SignupRequest { answers: Answers::new(), ..first.clone() }).await;
    none.expect_error(400, "invalid_answer");
    let entries: i64 = app.scalar("SELECT count(*) FROM entries WHERE program_id = $1", &[&program]).await;
    assert_eq!(entries, 1);
    let stored = owner.entry(program, app.entry_id(program, "ada@example.com").await).await.answers;
    let normalized = answers(&[("name", json!("Ada")), ("role", json!("Founder")), ("tools", json!(["Rust", "Zig"]))]);
    assert_eq!(stored, normalized, "trimmed, choices in the notice's order");

    // A known address with a new key: a receipt, and the original answers untouched.
    let again = with_answers("ada@example.com", answers(&[("name", json!("Imposter")), ("role", json!("Designer"))]));
    app.try_signup_with("bound", &again).await.assert(202);
    let kept = owner.entry(program, app.entry_id(program, "ada@example.com").await).await.answers;
    assert_eq!(kept, normalized);
    let rows: i64 = app.scalar("SELECT count(*) FROM entry_answers", &[]).await;
    assert_eq!(rows, 1);
}

#[tokio::test]
async fn a_signup_without_questions_keeps_its_binding_and_stores_nothing_beside_the_entry() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    owner.open_program(ws, "plain").await;
    let request = signup_request("plain@example.com");
    app.try_signup_with("plain", &request).await.assert(202);
    app.try_signup_with("plain", &request).await.assert(202);
    let stray = SignupRequest { answers: answers(&[("name", json!("x"))]), ..signup_request("p2@example.com") };
    app.try_signup_with("plain", &stray).await.expect_error(400, "invalid_answer");
    let rows: i64 = app.scalar("SELECT count(*) FROM entry_answers", &[]).await;
    assert_eq!(rows, 0);
}

/// Three entries with different answers, for the owner's views.
async fn answered_queue(app: &TestApp, slug: &str) -> (Owner, Uuid) {
    let (owner, program) = asking(app, slug).await;
    let people = [
        ("ada@example.com", good_answers()),
        ("bo@example.com", answers(&[("name", json!("=HYPERLINK(\"x\")")), ("role", json!("Engineer"))])),
        (
            "cy@example.com",
            answers(&[("name", json!("Cy, Jr.")), ("role", json!("Founder")), ("tools", json!(["Go"]))]),
        ),
    ];
    for (email, given) in people {
        app.try_signup_with(slug, &with_answers(email, given)).await.assert(202);
    }
    (owner, program)
}

#[tokio::test]
async fn the_owner_sees_answers_on_the_entry_and_queue_filters_by_choice_and_exports_a_column_per_question() {
    let app = TestApp::spawn().await;
    let (owner, program) = answered_queue(&app, "owner-view").await;
    let page = owner.entries(program, "").await;
    let ada = page.entries.iter().find(|e| e.email == "ada@example.com").unwrap();
    assert_eq!(ada.answers.get("role"), Some(&Answer::Text("Founder".into())));
    assert_eq!(ada.verified_at_join, None);
    let detail: EntryDetail = owner.entry(program, ada.id).await;
    assert_eq!(detail.answers.get("tools"), Some(&Answer::Choices(vec!["Rust".into(), "Zig".into()])));

    let emails = |query: &'static str| {
        let owner = owner.clone();
        async move {
            let page = owner.entries(program, query).await;
            page.entries.into_iter().map(|e| e.email).collect::<Vec<_>>()
        }
    };
    assert_eq!(emails("?question=role&choice=Founder").await, ["ada@example.com", "cy@example.com"]);
    assert_eq!(emails("?question=tools&choice=Rust").await, ["ada@example.com"]);
    assert_eq!(emails("?question=tools&choice=Go").await, ["cy@example.com"]);
    assert_eq!(emails("?question=role&choice=Designer").await, Vec::<String>::new());
    assert_eq!(emails("?verified=false").await.len(), 3);
    owner.try_entries(program, "?question=role").await.expect_error(400, "invalid_query");
    owner.try_entries(program, "?question=Bad%20Id&choice=x").await.expect_error(400, "invalid_query");

    let csv = owner.export(program).await;
    csv.assert(200);
    let lines: Vec<&str> = csv.text.lines().collect();
    assert_eq!(lines[0], "id,email,state,created_at,notice_version,permission_at,ref,verified_at_join,name,role,tools");
    let line = |email: &str| *lines.iter().find(|l| l.contains(email)).unwrap();
    assert!(line("ada@example.com").ends_with(",,Ada,Founder,Rust; Zig"), "{}", line("ada@example.com"));
    assert!(line("bo@example.com").ends_with(",,\"'=HYPERLINK(\"\"x\"\")\",Engineer,"), "{}", line("bo@example.com"));
    assert!(line("cy@example.com").ends_with(",,\"Cy, Jr.\",Founder,Go"), "{}", line("cy@example.com"));
    let filtered = owner.get(&format!("/api/owner/programs/{program}/entries.csv?question=tools&choice=Go")).await;
    assert_eq!(filtered.text.lines().count(), 2);
}

#[tokio::test]
async fn the_entries_api_and_the_applicants_own_export_carry_the_answers() {
    let app = TestApp::spawn().await;
    let (owner, program) = answered_queue(&app, "carried").await;
    let ws: Uuid = app.scalar("SELECT workspace_id FROM programs WHERE id = $1", &[&program]).await;
    let key = owner.create_api_key(ws, &["entries:read"]).await;
    let page: V1EntriesResponse = app.v1(&key.secret, "/api/v1/programs/carried/entries").await.expect(200);
    let ada = page.entries.iter().find(|e| e.email == "ada@example.com").unwrap();
    assert_eq!(
        ada.answers,
        answers(&[("name", json!("Ada")), ("role", json!("Founder")), ("tools", json!(["Rust", "Zig"]))])
    );
    let access_only = owner.create_api_key(ws, &["access:read"]).await;
    app.v1(&access_only.secret, "/api/v1/programs/carried/entries").await.expect_error(403, "missing_scope");

    let ada = app.recipient("ada@example.com").await;
    let export: PersonalDataExport = ada.get("/api/me/export").await.expect(200);
    assert_eq!(export.entries.len(), 1);
    assert_eq!(export.entries[0].answers.get("name"), Some(&Answer::Text("Ada".into())));
    assert_eq!(export.entries[0].notice.questions.len(), 3, "with the questions it answered");
    let text = ada.get("/api/me/export").await.text;
    assert!(!text.contains("HYPERLINK") && !text.contains("Cy, Jr."), "nobody else's answers");
}

#[tokio::test]
async fn erasure_and_retention_redaction_empty_the_answers() {
    let app = TestApp::spawn().await;
    let (owner, program) = answered_queue(&app, "forget").await;
    let ada = app.recipient("ada@example.com").await;
    ada.post("/api/me/waitlist/forget/erase", &json!({})).await.assert(200);
    let ada_id: Uuid = app.scalar("SELECT id FROM entries WHERE email_key LIKE 'redacted+%'", &[]).await;
    assert!(owner.entry(program, ada_id).await.answers.is_empty());

    let bo = app.entry_id(program, "bo@example.com").await;
    owner.decline(program, bo, "not_eligible").await;
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    let cutoff = chrono::Utc::now().to_rfc3339();
    let key = [("SIGNUP_BINDING_KEY", "01".repeat(32))];
    let key = [(key[0].0, key[0].1.as_str())];
    let out = vestibule(&app.db_url, &["redact", "--program", &program.to_string(), "--before", &cutoff], &key);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(owner.entry(program, bo).await.answers.is_empty());
    let left: Vec<String> = app
        .rows("SELECT answers::text FROM entry_answers ORDER BY answers::text", &[])
        .await
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(left.len(), 3, "the rows stay");
    assert_eq!(left.iter().filter(|a| a.as_str() == "{}").count(), 2);
    assert!(left.iter().any(|a| a.contains("Cy, Jr.")), "the waiting entry keeps its answers");
    let csv = owner.export(program).await.text;
    assert!(!csv.contains("Ada") && !csv.contains("HYPERLINK"), "{csv}");
}

#[tokio::test]
async fn answers_never_reach_events_or_webhook_payloads() {
    let app = TestApp::spawn().await;
    let (owner, program) = asking(&app, "quiet").await;
    let ws: Uuid = app.scalar("SELECT workspace_id FROM programs WHERE id = $1", &[&program]).await;
    owner.create_webhook(ws, "http://127.0.0.1:9/hook").await;
    let secret = answers(&[("name", json!("Zanzibar Quokka")), ("role", json!("Designer"))]);
    app.try_signup_with("quiet", &with_answers("zq@example.com", secret)).await.assert(202);
    let leaks: i64 = app
        .scalar(
            "SELECT (SELECT count(*) FROM audit_events WHERE details::text LIKE '%Quokka%' OR details::text LIKE '%Designer%') \
             + (SELECT count(*) FROM outbox_events WHERE payload::text LIKE '%Quokka%' OR payload::text LIKE '%Designer%')",
            &[],
        )
        .await;
    assert_eq!(leaks, 0);
    let enqueued: i64 = app.scalar("SELECT count(*) FROM outbox_events WHERE event_type = 'entry.created'", &[]).await;
    assert_eq!(enqueued, 1, "the signup's webhook was enqueued, without the answers");
}

// ---------------------------------------------------------------- joinWith: account

async fn account_program(app: &TestApp, slug: &str) -> (Owner, Uuid) {
    let (owner, program) = asking(app, slug).await;
    let p = owner.patch_program(program, PatchProgramRequest { join_with: Some(JoinWith::Account), ..changes() }).await;
    assert_eq!(p.join_with, JoinWith::Account);
    (owner, program)
}

fn join_body(email: &str, given: &Answers) -> Value {
    json!({"requestKey": Uuid::new_v4(), "email": email, "noticeVersion": 1, "permission": true, "answers": given})
}

async fn join(person: &Recipient, slug: &str, body: &Value) -> crate::support::Reply {
    person.post(&format!("/api/me/waitlist/{slug}/join"), body).await
}

#[tokio::test]
async fn an_account_program_takes_a_verified_address_of_the_signed_in_applicant_and_records_it() {
    let app = TestApp::spawn().await;
    let (owner, program) = account_program(&app, "verified").await;
    assert_eq!(app.public_program("verified").await.join_with, JoinWith::Account);
    let before = written(&app).await;
    let form = app.try_signup_with("verified", &with_answers("ann@example.com", good_answers())).await;
    form.expect_error(409, "account_required");
    app.post("/api/me/waitlist/verified/join", &join_body("ann@example.com", &good_answers()), None).await.assert(401);

    let ann = app.recipient("ann@example.com").await;
    let spare = app.clerk.add_email(&ann.user_id, "ann.unverified@example.com", false).await;
    join(&ann, "verified", &join_body("ann.unverified@example.com", &good_answers()))
        .await
        .expect_error(400, "email_not_verified");
    join(&ann, "verified", &join_body("someone@example.com", &good_answers()))
        .await
        .expect_error(400, "email_not_verified");
    join(&ann, "verified", &join_body("ann@example.com", &Answers::new())).await.expect_error(400, "invalid_answer");
    app.clerk.users_unavailable(true).await;
    join(&ann, "verified", &join_body("ann@example.com", &good_answers()))
        .await
        .expect_error(503, "identity_unavailable");
    app.clerk.users_unavailable(false).await;
    assert_eq!(written(&app).await, before, "no refusal wrote anything");

    // The address verified later is one to join with; the same key and answers replay.
    app.clerk.set_verified(&spare, true).await;
    let body = join_body("ann.unverified@example.com", &good_answers());
    join(&ann, "verified", &body).await.assert(202);
    join(&ann, "verified", &body).await.assert(202);
    let mut other = body.clone();
    other["answers"] = json!({"name": "Ann", "role": "Designer"});
    join(&ann, "verified", &other).await.expect_error(409, "request_key_reused");

    let entry = app.entry_id(program, "ann.unverified@example.com").await;
    let detail = owner.entry(program, entry).await;
    let at = detail.verified_at_join.clone().expect("verified at join");
    assert_eq!(at, detail.created_at);
    let verified = owner.entries(program, "?verified=true").await.entries;
    assert_eq!(verified.iter().map(|e| e.id).collect::<Vec<_>>(), [entry]);
    assert!(owner.entries(program, "?verified=false").await.entries.is_empty());
    let csv = owner.export(program).await.text;
    assert!(csv.lines().any(|l| l.contains(&format!(",{at},Ada,Founder,"))), "{csv}");
    // The applicant's own export says so too.
    let export: PersonalDataExport = ann.get("/api/me/export").await.expect(200);
    assert_eq!(export.entries[0].verified_at_join.as_deref(), Some(at.as_str()));
}

#[tokio::test]
async fn an_email_program_also_takes_a_verified_join_and_a_public_replay_survives_the_switch_to_account() {
    let app = TestApp::spawn().await;
    let (owner, program) = asking(&app, "switch").await;
    let early = with_answers("early@example.com", good_answers());
    app.try_signup_with("switch", &early).await.assert(202);
    let dee = app.recipient("dee@example.com").await;
    join(&dee, "switch", &join_body("dee@example.com", &good_answers())).await.assert(202);
    owner.patch_program(program, PatchProgramRequest { join_with: Some(JoinWith::Account), ..changes() }).await;
    app.try_signup_with("switch", &early).await.assert(202);
    let late = with_answers("late@example.com", good_answers());
    app.try_signup_with("switch", &late).await.expect_error(409, "account_required");
    let verified = owner.entries(program, "?verified=true").await.entries;
    assert_eq!(verified.iter().map(|e| e.email.as_str()).collect::<Vec<_>>(), ["dee@example.com"]);
    let events = owner.all_events(program, 100).await;
    let change = events.iter().rev().find(|e| e.details.get("joinWith").is_some()).expect("audited");
    assert_eq!(change.details["joinWith"], "account");
}

/// A cohort code skips the queue, not the notice: its notice step shows the questions,
/// a bad answer is the same 400 as on the form and writes nothing (the code's use is not
/// counted), and the entry it opens keeps the answers and that its address was verified.
#[tokio::test]
async fn a_cohort_code_asks_the_notices_questions_and_keeps_the_answers_with_its_entry() {
    let app = TestApp::spawn().await;
    let (owner, program) = asking(&app, "cohort-asks").await;
    owner.put_content(program, "Private notes").await;
    owner.set_access_enabled(program, true).await;
    let code = owner.create_cohort_code(program, 5).await.code;
    let rita = app.recipient("rita@example.com").await;
    let step = rita.notice_step(&code).await;
    assert_eq!(serde_json::to_value(&step.notice.questions).unwrap(), three_questions());

    let before = written(&app).await;
    for (given, question) in [
        (None, Some("name")),
        (Some(answers(&[("name", json!("Rita"))])), Some("role")),
        (Some(answers(&[("name", json!("Rita")), ("role", json!("Astronaut"))])), Some("role")),
        (Some(answers(&[("name", json!("Rita")), ("role", json!("Founder")), ("pet", json!("cat"))])), None),
    ] {
        let reply = rita.try_redeem_answering(&code, step.notice.version, given.clone()).await;
        let error = reply.expect_error(400, "invalid_answer");
        assert_eq!(error.question.as_deref(), question, "{given:?}");
        assert!(!reply.text.contains("Astronaut") && !reply.text.contains("pet"));
    }
    assert_eq!(written(&app).await, before, "no entry, event or answer");
    let uses: i32 = app.scalar("SELECT uses FROM cohort_codes WHERE program_id = $1", &[&program]).await;
    assert_eq!(uses, 0, "a refused answer uses nothing of the code");

    let reply = rita.try_redeem_answering(&code, step.notice.version, Some(good_answers())).await;
    assert!(reply.expect::<shared::cohort::RedeemReply>(200).is_active());
    let entry = owner.entry(program, app.entry_id(program, "rita@example.com").await).await;
    assert_eq!(entry.answers.get("name"), Some(&Answer::Text("Ada".into())));
    assert_eq!(
        entry.answers.get("tools"),
        Some(&Answer::Choices(vec!["Rust".into(), "Zig".into()])),
        "in the notice's order"
    );
    assert!(entry.verified_at_join.is_some(), "a cohort redemption joins with a verified address");
    let page = owner.entries(program, "?question=role&choice=Founder").await;
    assert_eq!(page.entries.iter().map(|e| e.email.as_str()).collect::<Vec<_>>(), ["rita@example.com"]);
}
