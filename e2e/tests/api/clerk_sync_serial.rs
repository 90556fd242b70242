//! Issue 26 item 3: one grant's Clerk calls never overlap. `grant.created` and
//! `grant.revoked` of one grant, delivered by two instances at once against a slow Clerk,
//! used to interleave: the removal deleted the ledger row while the addition was still
//! adding, and the membership stayed in Clerk with no record. Now a grant's deliveries
//! run one at a time across instances, and a round that added something and then finds
//! the grant inactive takes it back.

use crate::support::owner::changes;
use crate::support::process::ApiProcess;
use crate::support::{eventually, TestApp};
use reqwest::Method;
use serde_json::{json, Value};
use shared::api::PatchProgramRequest;
use shared::clerk_sync::ClerkSyncSetting;
use std::time::Duration;
use uuid::Uuid;

/// Two `vestibule serve` processes polling every 250 ms (so a grant's two deliveries are
/// often due together), with a compressed retry schedule.
const PROCESS_ENV: [(&str, &str); 2] = [("OUTBOX_POLL_MS", "250"), ("OUTBOX_BACKOFF_SCALE", "0.001")];

/// People who redeem a cohort code and withdraw at once.
const PEOPLE: usize = 50;

async fn organization_administered_by(app: &TestApp, owner_user: &str) -> String {
    let (status, org) = app.clerk.backend(Method::POST, "/v1/organizations", Some(json!({"name": "Acme"}))).await;
    assert!(status.is_success(), "{org}");
    let org = org["id"].as_str().unwrap().to_owned();
    let path = format!("/v1/organizations/{org}/memberships");
    let body = json!({"user_id": owner_user, "role": "org:admin"});
    let (status, body) = app.clerk.backend(Method::POST, &path, Some(body)).await;
    assert!(status.is_success(), "{body}");
    org
}

/// The user's state in clerk-dev: (their `vestibule` public metadata, their organizations).
async fn clerk_state(app: &TestApp, user: &str) -> (Value, Vec<String>) {
    let (_, u) = app.clerk.backend(Method::GET, &format!("/v1/users/{user}"), None).await;
    let (_, m) = app.clerk.backend(Method::GET, &format!("/v1/users/{user}/organization_memberships"), None).await;
    let orgs = m["data"]
        .as_array()
        .map(|d| d.iter().filter_map(|x| x["organization"]["id"].as_str()).map(String::from).collect::<Vec<_>>());
    (u["public_metadata"]["vestibule"]["programs"].clone(), orgs.unwrap_or_default())
}

#[tokio::test]
async fn fifty_redeem_then_withdraw_at_once_on_two_instances_leave_nothing_in_clerk() {
    let app = TestApp::spawn_with(|s| s.integrations.poll = Duration::from_secs(3600)).await;
    let a = ApiProcess::start(&app.db_url, &app.clerk, &PROCESS_ENV).await;
    let b = ApiProcess::start(&app.db_url, &app.clerk, &PROCESS_ENV).await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let org = organization_administered_by(&app, &owner.user_id).await;
    let program = owner.open_program(ws, "serial-beta").await;
    owner.put_content(program, "Private").await;
    owner.set_access_enabled(program, true).await;
    let clerk =
        ClerkSyncSetting { public_metadata: true, organization_id: Some(org.clone()), role: Some("org:member".into()) };
    owner.patch_program(program, PatchProgramRequest { clerk: Some(clerk), ..changes() }).await;
    let code = owner.create_cohort_code(program, PEOPLE as i32).await.code;
    // A slow Clerk: each metadata or membership write takes 25 ms to apply.
    let faults = format!("{}/dev/faults", app.clerk.url);
    app.http.post(&faults).json(&json!({"writeDelayMs": 25})).send().await.unwrap().error_for_status().unwrap();

    let mut users = Vec::new();
    for i in 0..PEOPLE {
        users.push(app.user(&format!("serial{i}@example.com")).await);
    }
    // Each person redeems through one instance and withdraws through the other at once.
    let (on_a, on_b) = (app.at(&a.base), app.at(&b.base));
    for user in &users {
        on_a.as_recipient(user.clone()).redeem_cohort(&code).await;
        on_b.as_recipient(user.clone()).withdraw("serial-beta").await;
    }

    let sql = "SELECT count(*) FILTER (WHERE state = 'delivered'), count(*) FROM outbox_deliveries \
               WHERE target_kind = 'clerk_sync'";
    eventually("every clerk_sync delivery is delivered", Duration::from_secs(90), || async {
        let row = app.row(sql, &[]).await;
        let (delivered, all): (i64, i64) = (row.get(0), row.get(1));
        (all == 2 * PEOPLE as i64 && delivered == all).then_some(())
    })
    .await;
    let mut left = Vec::new();
    for user in &users {
        let (metadata, orgs) = clerk_state(&app, &user.user_id).await;
        let slug_left = !metadata.is_null() && !metadata["serial-beta"].is_null();
        if slug_left || !orgs.is_empty() {
            left.push(format!("{metadata} {orgs:?}"));
        }
    }
    assert!(left.is_empty(), "{} of {PEOPLE} keep something in Clerk: {left:?}", left.len());
    let ledger: i64 = app
        .scalar("SELECT (SELECT count(*) FROM clerk_sync_grants) + (SELECT count(*) FROM clerk_sync_memberships)", &[])
        .await;
    assert_eq!(ledger, 0, "the ledger forgets every grant once its removal is done");
    let grants: Vec<Uuid> = app.column("SELECT id FROM grants WHERE program_id = $1 AND active", &[&program]).await;
    assert!(grants.is_empty(), "every grant was withdrawn");
}
