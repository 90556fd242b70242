//! The owner's CSV export at size (issue 18; the `ref` column is issue 15's): the same bytes as the rows say, in queue
//! order across the reader's batches; streamed from one snapshot, so a download holds
//! no lock (a signup during it is answered, and not in it) and the API's memory does
//! not grow with the program.

use crate::support::process::ApiProcess;
use crate::support::{eventually, TestApp};
use std::time::Duration;
use uuid::Uuid;

/// The export as its contract describes it, computed by PostgreSQL from the rows: queue
/// order, CRLF lines, RFC 3339 UTC times with microseconds, a `'` before a cell that
/// starts like a formula (no email can hold a comma, a quote or a line break).
const EXPECTED: &str = r#"
SELECT 'id,email,state,created_at,notice_version,permission_at,ref,verified_at_join' || E'\r\n' || coalesce(string_agg(
  e.id || ',' || CASE WHEN left(e.email_key, 1) IN ('=', '+', '-', '@') THEN '''' ELSE '' END || e.email_key
  || ',' || e.state || ',' || to_char(e.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')
  || ',' || n.version || ',' || to_char(e.permission_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')
  || ',' || CASE WHEN left(e.source_ref, 1) = '-' THEN '''' ELSE '' END || coalesce(e.source_ref, '')
  || ',' || E'\r\n', '' ORDER BY e.created_at, e.id), '')
FROM entries e JOIN notices n ON n.id = e.notice_id WHERE e.program_id = $1"#;

/// Adds `n` waiting entries to the program through SQL (its current notice, times a
/// millisecond apart, one in seven a formula-looking email), as `loadgen`'s fill does.
/// They are in its queue (V145: the queue is the entry counts), so its queue cap is
/// raised by as many first, for the test's own signups to still fit.
async fn fill(app: &TestApp, program: Uuid, n: i32) {
    app.exec("UPDATE programs SET queue_cap = least(queue_cap + $2, 100000) WHERE id = $1", &[&program, &n]).await;
    app.exec(
        r"INSERT INTO entries (program_id, email_key, notice_id, permission_at, state, created_at, updated_at)
          SELECT p.id, (ARRAY['', '=', '+', '-', '', '', ''])[1 + g % 7] || 'fill' || g || '@example.com',
                 p.current_notice_id, t, 'waiting', t, t
          FROM programs p, generate_series(1, $2) g,
               LATERAL (SELECT clock_timestamp() - interval '1 day' + g * interval '1 millisecond' AS t) c
          WHERE p.id = $1",
        &[&program, &n],
    )
    .await;
}

#[tokio::test]
async fn the_export_spans_batches_in_queue_order_with_the_same_bytes_as_the_rows() {
    let app = TestApp::spawn().await;
    let (owner, _, program) = app.queue_of("export-batches", 3).await;
    fill(&app, program, 2_345).await;
    for email in ["=late@example.com", "+late@example.com"] {
        app.signup("export-batches", email).await;
    }
    let entry = app.entry_id(program, "u1@example.com").await;
    owner.select(program, entry).await;
    let expected: String = app.scalar(EXPECTED, &[&program]).await;

    let r = owner.export(program).await;
    r.assert(200);
    assert_eq!(r.text, expected);
    assert_eq!(r.text.lines().count(), 1 + 3 + 2_345 + 2);
    assert!(r.text.contains(&format!("{entry},u1@example.com,selected,")));

    let (empty, ws) = app.owner("empty@example.com").await;
    let none = empty.open_program(ws, "export-empty").await;
    let r = empty.export(none).await;
    r.assert(200);
    assert_eq!(r.text, "id,email,state,created_at,notice_version,permission_at,ref,verified_at_join\r\n");
    owner.export(none).await.assert(404);
}

/// VmRSS or VmHWM of a process, in KiB.
fn memory_kib(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with(field)).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

#[tokio::test]
async fn a_large_export_streams_from_one_snapshot_without_a_lock_or_growing_memory() {
    let app = TestApp::spawn().await;
    let (owner, _, program) = app.queue_of("export-stream", 1).await;
    fill(&app, program, 60_000).await;
    let expected: String = app.scalar(EXPECTED, &[&program]).await;
    assert!(expected.len() > 6_000_000);
    let api = ApiProcess::start(&app.db_url, &app.clerk, &[]).await;
    let at = app.at(&api.base);
    let owner = at.as_owner(owner.user.clone());
    owner.export(program).await.assert(200); // warm: the pool, the statements
    let pid = api.pid();
    std::fs::write(format!("/proc/{pid}/clear_refs"), "5").expect("VmHWM reset");
    let before = memory_kib(pid, "VmRSS");

    let path = format!("/api/owner/programs/{program}/entries.csv");
    let mut download = at.request(reqwest::Method::GET, &path, Some(&owner.user)).send().await.unwrap();
    assert_eq!(download.status(), 200);
    assert_eq!(download.content_length(), None, "a streamed body has no length up front");
    let mut body = download.chunk().await.unwrap().expect("a first chunk").to_vec();

    // The client has stopped reading: the export's transaction waits, open, on its snapshot.
    eventually("the export's snapshot is open while the client stalls", Duration::from_secs(10), || async {
        let open: i64 = app
            .scalar(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() \
                 AND application_name = 'vestibule' AND state = 'idle in transaction' AND backend_xmin IS NOT NULL",
                &[],
            )
            .await;
        (open == 1).then_some(())
    })
    .await;
    // No lock held: a signup into the same program is answered meanwhile …
    let started = std::time::Instant::now();
    at.signup("export-stream", "during@example.com").await;
    assert!(started.elapsed() < Duration::from_secs(3), "the signup waited behind the download");

    while let Some(chunk) = download.chunk().await.unwrap() {
        body.extend_from_slice(&chunk);
    }
    // … and not part of an export that began before it.
    assert_eq!(String::from_utf8(body).unwrap(), expected);
    let peak_growth = memory_kib(pid, "VmHWM").saturating_sub(before);
    assert!(peak_growth < 4 * 1024, "the API's peak RSS grew by {peak_growth} KiB for a {} B export", expected.len());
}

#[tokio::test]
async fn a_filtered_export_holds_exactly_the_rows_its_filter_admits_across_batches() {
    let app = TestApp::spawn().await;
    let (owner, _, program) = app.queue_of("export-filtered", 3).await;
    fill(&app, program, 1_500).await;
    let (u0, u1) = (app.entry_id(program, "u0@example.com").await, app.entry_id(program, "u1@example.com").await);
    owner.select(program, u0).await;
    owner.select(program, u1).await;
    owner.issue(program, u1).await;
    // Every third filled entry came from a source, every fifth from a disposable domain.
    app.exec(
        "UPDATE entries SET source_ref = 'hn' WHERE program_id = $1 \
         AND substring(email_key FROM 'fill([0-9]+)')::int % 3 = 0",
        &[&program],
    )
    .await;
    app.exec(
        "UPDATE entries SET disposable_domain = true WHERE program_id = $1 \
         AND substring(email_key FROM 'fill([0-9]+)')::int % 5 = 0",
        &[&program],
    )
    .await;
    let cases = [
        ("?state=waiting", "e.state = 'waiting'"),
        ("?state=selected", "e.state = 'selected'"),
        ("?ref=hn", "e.source_ref = 'hn'"),
        ("?flag=disposable_domain", "e.disposable_domain"),
        (
            "?ref=hn&flag=disposable_domain&state=waiting",
            "e.source_ref = 'hn' AND e.disposable_domain AND e.state = 'waiting'",
        ),
        (
            "?invitation=unsent",
            "EXISTS (SELECT 1 FROM invitations i WHERE i.entry_id = e.id AND i.state = 'issued' \
             AND i.delivery_recorded_at IS NULL AND i.expires_at > clock_timestamp())",
        ),
        ("?state=declined", "false"),
    ];
    for (query, condition) in cases {
        let expected: String = app.scalar(&format!("{EXPECTED} AND {condition}"), &[&program]).await;
        let r = owner.get(&format!("/api/owner/programs/{program}/entries.csv{query}")).await;
        r.assert(200);
        assert_eq!(r.text, expected, "{query}");
    }
    let waiting = owner.get(&format!("/api/owner/programs/{program}/entries.csv?state=waiting")).await;
    assert_eq!(waiting.text.lines().count(), 1 + 1 + 1_500, "the header, u2 and the filled entries");
    let unsent = owner.get(&format!("/api/owner/programs/{program}/entries.csv?invitation=unsent")).await;
    assert_eq!(unsent.text.lines().count(), 2);
    assert!(unsent.text.contains(&format!("{u1},u1@example.com,invited,")));
    // No parameter: every entry, as before.
    let all: String = app.scalar(EXPECTED, &[&program]).await;
    assert_eq!(owner.export(program).await.text, all);
}

#[tokio::test]
async fn an_export_refuses_bad_filters_and_an_email_fragment_and_answers_a_foreign_owner_404() {
    let app = TestApp::spawn().await;
    let (owner, _, program) = app.queue_of("export-bad", 2).await;
    let path = format!("/api/owner/programs/{program}/entries.csv");
    let events: i64 = app.scalar("SELECT count(*) FROM audit_events", &[]).await;
    for (bad, code) in [
        ("?state=nope", Some("invalid_state")),
        ("?invitation=sent", Some("invalid_invitation_filter")),
        ("?flag=spam", Some("invalid_flag")),
        ("?ref=Bad", Some("invalid_ref")),
        // The export is a GET: no email fragment (nor paging) in its URL.
        ("?q=u0", None),
        ("?cursor=AAAA", None),
        ("?limit=10", None),
    ] {
        let r = owner.get(&format!("{path}{bad}")).await;
        match code {
            Some(code) => {
                r.expect_error(400, code);
            }
            None => {
                r.assert(400);
            }
        }
    }
    let after: i64 = app.scalar("SELECT count(*) FROM audit_events", &[]).await;
    assert_eq!(events, after, "nothing written");

    let (foreign, _) = app.owner("foreign@example.com").await;
    let not_found = app.not_found_text().await;
    for query in ["", "?state=waiting", "?invitation=unsent"] {
        foreign.get(&format!("{path}{query}")).await.assert_exactly(404, &not_found);
    }
}
