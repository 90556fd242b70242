//! Graceful shutdown (issue 17 item 2): SIGTERM in the middle of signup load.

use crate::harness::instance::{free_port, Instance};
use crate::harness::load::{Answer, Load};
use crate::support::race::LockHolder;
use crate::support::Caps;
use crate::support::TestApp;
use std::collections::HashSet;
use std::time::Duration;

#[tokio::test]
async fn sigterm_mid_load_refuses_new_connections_finishes_those_in_flight_and_loses_no_admitted_signup() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let caps = Caps { queue: 100_000, hourly: 100_000, ..Caps::default() };
    let program = owner.program_with(ws, "drain", caps).await;
    let port = free_port();
    let bind = format!("127.0.0.1:{port}");
    let mut instance = Instance::start(&bind, port, &app.db_url, &[("SIGNUP_RATE_PER_MINUTE", "100000")]).await;
    let url = format!("{}/api/public/programs/drain/signups", instance.base);
    let load = Load::start(8, &url, "https://waitlist.example.com", "drain");
    load.wait_for("40 admissions", Duration::from_secs(60), |l| l.accepted() >= 40).await;

    // Hold the program row until every client's signup waits behind it: SIGTERM then
    // arrives while eight requests are being served (and no connection is idle between
    // two requests). With group admission (issue 28) one batch waits on the lock in the
    // database and the other signups gather in the instance behind it; no answer can come
    // while the row is held, and each closed-loop client sends its next request as soon as
    // it reads an answer, so a second after the batch queues all eight are in flight.
    let holder = LockHolder::lock(&app.db_url, "programs", program).await;
    holder.wait_for_waiters(1).await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    let accepted_before = load.accepted();
    instance.terminate();

    // New connections are refused at once, while those requests still wait.
    let mut refused = false;
    for _ in 0..100 {
        if tokio::net::TcpStream::connect(("127.0.0.1", port)).await.is_err() {
            refused = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(refused, "the listener still accepts after SIGTERM");
    assert!(instance.is_running(), "the server quit with requests in flight");
    holder.release().await;

    // Every client ends at its first refused connection.
    let attempts = load.collect().await;
    let status = instance.wait_exit(Duration::from_secs(25)).await.expect("the server exits after draining");
    assert!(status.success(), "exit {status}:\n{}", instance.output());

    let mut admitted = HashSet::new();
    for a in &attempts {
        match &a.answer {
            Answer::Status(202, _) => {
                admitted.insert(a.email.clone());
            }
            Answer::Refused => {}
            other => panic!("a request was not answered cleanly: {other:?}\n{}", instance.output()),
        }
    }
    assert!(
        admitted.len() >= accepted_before + 8,
        "the requests held at SIGTERM were not finished ({} admitted, {accepted_before} before)",
        admitted.len()
    );
    let rows = app.db().await.query("SELECT email_key FROM entries WHERE program_id = $1", &[&program]).await.unwrap();
    let stored: HashSet<String> = rows.iter().map(|r| r.get(0)).collect();
    assert_eq!(stored, admitted, "the database and the 202 answers disagree");

    let output = instance.output();
    assert!(output.contains("SIGTERM: shutting down"), "{output}");
    assert!(output.contains("background worker stopped") && output.contains("rate-limit pruner"), "{output}");
    assert!(output.contains("shutdown complete"), "{output}");
}
