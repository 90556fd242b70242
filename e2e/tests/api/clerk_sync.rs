//! "On grant, in Clerk" (issue 14): with the program's setting on, a grant puts the
//! program's slug into the user's `public_metadata.vestibule.programs` and the user into
//! the organization, in clerk-dev, through the outbox after COMMIT; revoking removes
//! both; with clerk-dev's writes failing the delivery retries and converges once they
//! work again; an admin role is refused. The owner's delivery log shows each Clerk call's
//! result, and nothing that names the user.

use crate::support::owner::changes;
use crate::support::{eventually, Owner, Recipient, TestApp};
use reqwest::Method;
use serde_json::{json, Value};
use shared::api::PatchProgramRequest;
use shared::clerk_sync::{ClerkCall, ClerkCallOutcome, ClerkSyncCallsResponse, ClerkSyncSetting};
use std::time::Duration;
use uuid::Uuid;

/// A new organization in clerk-dev whose creator, `admin`, is its `org:admin` (as in Clerk).
async fn organization(app: &TestApp, admin: &str) -> String {
    let body = json!({"name": "Acme", "created_by": admin});
    let (status, org) = app.clerk.backend(Method::POST, "/v1/organizations", Some(body)).await;
    assert!(status.is_success(), "{org}");
    org["id"].as_str().unwrap().to_owned()
}

fn setting(org: &str, role: &str) -> PatchProgramRequest {
    let clerk = ClerkSyncSetting { public_metadata: true, organization_id: Some(org.into()), role: Some(role.into()) };
    PatchProgramRequest { clerk: Some(clerk), ..changes() }
}

/// An open program with content and access, synced to `org`; a cohort code of 5 uses.
async fn synced_program(owner: &Owner, ws: Uuid, slug: &str, org: &str) -> (Uuid, String) {
    let program = owner.open_program(ws, slug).await;
    owner.put_content(program, "Private").await;
    owner.set_access_enabled(program, true).await;
    let p = owner.patch_program(program, setting(org, "org:member")).await;
    assert_eq!(p.clerk.and_then(|c| c.role), Some("org:member".into()));
    (program, owner.create_cohort_code(program, 5).await.code)
}

/// The user's state in clerk-dev: (slug's metadata value, organization ids).
async fn clerk_state(app: &TestApp, user: &str, slug: &str) -> (Value, Vec<String>) {
    let (_, u) = app.clerk.backend(Method::GET, &format!("/v1/users/{user}"), None).await;
    let path = format!("/v1/users/{user}/organization_memberships");
    let (_, m) = app.clerk.backend(Method::GET, &path, None).await;
    let orgs = m["data"]
        .as_array()
        .map(|d| d.iter().filter_map(|x| x["organization"]["id"].as_str()).map(String::from).collect());
    (u["public_metadata"]["vestibule"]["programs"][slug].clone(), orgs.unwrap_or_default())
}

async fn wait_for(app: &TestApp, who: &Recipient, slug: &str, want: (Value, Vec<String>)) {
    eventually("clerk-dev reaches the grant's state", Duration::from_secs(20), || {
        let want = want.clone();
        async move { (clerk_state(app, &who.user_id, slug).await == want).then_some(()) }
    })
    .await;
}

/// The clerk_sync deliveries' states, in order, once the worker has recorded them (Clerk
/// reaches its state just before the worker records the outcome).
async fn deliveries_are(app: &TestApp, want: &[&str]) {
    let sql = "SELECT state FROM outbox_deliveries WHERE target_kind = 'clerk_sync' ORDER BY id";
    eventually("the clerk_sync deliveries are recorded", Duration::from_secs(10), || async {
        (app.column::<String>(sql, &[]).await == want).then_some(())
    })
    .await;
}

#[tokio::test]
async fn a_grant_reaches_metadata_and_the_organization_and_revoking_removes_both() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let org = organization(&app, &owner.user_id).await;
    let (program, code) = synced_program(&owner, ws, "synced-beta", &org).await;
    // An admin role is refused, and the setting is audited with the revision.
    owner.try_patch_program(program, setting(&org, "org:admin")).await.expect_error(400, "invalid_clerk_sync");
    let details: Value = app
        .scalar("SELECT details FROM audit_events WHERE program_id = $1 AND details ? 'clerkOrganization'", &[&program])
        .await;
    assert_eq!(details["clerkPublicMetadata"], true);

    let rita = app.recipient("rita@example.com").await;
    rita.redeem_cohort(&code).await;
    wait_for(&app, &rita, "synced-beta", (json!(true), vec![org.clone()])).await;

    let grant: Uuid = app.scalar("SELECT id FROM grants WHERE program_id = $1", &[&program]).await;
    owner.revoke_grant(grant).await;
    wait_for(&app, &rita, "synced-beta", (Value::Null, vec![])).await;
    deliveries_are(&app, &["delivered", "delivered"]).await;
    // Nothing personal in what the outbox carries: ids of Vestibule's own rows only.
    let payloads: Vec<Value> = app
        .column(
            "SELECT e.payload FROM outbox_events e JOIN outbox_deliveries d ON d.event_id = e.id \
             WHERE d.target_kind = 'clerk_sync'",
            &[],
        )
        .await;
    assert_eq!(payloads.len(), 2);
    for p in payloads {
        let text = p.to_string();
        assert!(!text.contains(&rita.user_id) && !text.contains("rita"), "{text}");
    }
}

#[tokio::test]
async fn with_clerk_writes_failing_the_delivery_retries_and_converges_once_they_work() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let org = organization(&app, &owner.user_id).await;
    let (_, code) = synced_program(&owner, ws, "faulty-beta", &org).await;
    let faults = format!("{}/dev/faults", app.clerk.url);
    app.http.post(&faults).json(&json!({"writes": "unavailable"})).send().await.unwrap();

    let rita = app.recipient("rita@example.com").await;
    rita.redeem_cohort(&code).await;
    let failed_attempts = "SELECT count(*) FROM outbox_attempts a JOIN outbox_deliveries d ON d.id = a.delivery_id \
                           WHERE d.target_kind = 'clerk_sync' AND a.status_code = 503";
    eventually("two failed attempts", Duration::from_secs(20), || async {
        (app.scalar::<i64>(failed_attempts, &[]).await >= 2).then_some(())
    })
    .await;
    assert_eq!(clerk_state(&app, &rita.user_id, "faulty-beta").await, (Value::Null, vec![]));

    app.http.post(&faults).json(&json!({"writes": "ok"})).send().await.unwrap();
    wait_for(&app, &rita, "faulty-beta", (json!(true), vec![org])).await;
    deliveries_are(&app, &["delivered"]).await;
}

async fn grant_of(app: &TestApp, program: Uuid) -> Uuid {
    app.scalar("SELECT id FROM grants WHERE program_id = $1", &[&program]).await
}

/// Makes the user a member of `org` in clerk-dev with `role`, as the owner's product could.
async fn make_member(app: &TestApp, org: &str, user: &str, role: &str) {
    let path = format!("/v1/organizations/{org}/memberships");
    let (status, body) = app.clerk.backend(Method::POST, &path, Some(json!({"user_id": user, "role": role}))).await;
    assert!(status.is_success(), "{body}");
}

async fn role_in(app: &TestApp, user: &str, org: &str) -> Option<String> {
    let (_, m) = app.clerk.backend(Method::GET, &format!("/v1/users/{user}/organization_memberships"), None).await;
    m["data"]
        .as_array()?
        .iter()
        .find(|x| x["organization"]["id"] == org)
        .and_then(|x| x["role"].as_str())
        .map(String::from)
}

#[tokio::test]
async fn a_membership_the_user_already_had_is_never_removed_by_a_revocation() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let org = organization(&app, &owner.user_id).await;
    let (program, code) = synced_program(&owner, ws, "admins-beta", &org).await;
    let ada = app.recipient("ada@example.com").await;
    make_member(&app, &org, &ada.user_id, "org:admin").await;

    ada.redeem_cohort(&code).await;
    wait_for(&app, &ada, "admins-beta", (json!(true), vec![org.clone()])).await;
    deliveries_are(&app, &["delivered"]).await;
    let grant: Uuid = app.scalar("SELECT id FROM grants WHERE program_id = $1", &[&program]).await;
    owner.revoke_grant(grant).await;
    deliveries_are(&app, &["delivered", "delivered"]).await;
    // The key is gone; the admin seat she had before is untouched.
    assert_eq!(clerk_state(&app, &ada.user_id, "admins-beta").await, (Value::Null, vec![org.clone()]));
    assert_eq!(role_in(&app, &ada.user_id, &org).await.as_deref(), Some("org:admin"));
    let ledger: i64 = app.scalar("SELECT count(*) FROM clerk_sync_grants", &[]).await;
    assert_eq!(ledger, 0, "the ledger row goes once the removal is done");
}

#[tokio::test]
async fn two_programs_in_one_organization_keep_the_membership_until_both_grants_end() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let org = organization(&app, &owner.user_id).await;
    let (first, first_code) = synced_program(&owner, ws, "first-beta", &org).await;
    let (second, second_code) = synced_program(&owner, ws, "second-beta", &org).await;
    let rita = app.recipient("rita@example.com").await;
    rita.redeem_cohort(&first_code).await;
    rita.redeem_cohort(&second_code).await;
    wait_for(&app, &rita, "second-beta", (json!(true), vec![org.clone()])).await;
    deliveries_are(&app, &["delivered", "delivered"]).await;

    owner.revoke_grant(grant_of(&app, first).await).await;
    deliveries_are(&app, &["delivered", "delivered", "delivered"]).await;
    assert_eq!(clerk_state(&app, &rita.user_id, "first-beta").await, (Value::Null, vec![org.clone()]));
    assert_eq!(clerk_state(&app, &rita.user_id, "second-beta").await, (json!(true), vec![org.clone()]));

    owner.revoke_grant(grant_of(&app, second).await).await;
    wait_for(&app, &rita, "second-beta", (Value::Null, vec![])).await;
}

#[tokio::test]
async fn an_erasure_takes_back_what_the_grant_put_into_clerk() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let org = organization(&app, &owner.user_id).await;
    let (program, code) = synced_program(&owner, ws, "erased-beta", &org).await;
    let erin = app.recipient("erin@example.com").await;
    erin.redeem_cohort(&code).await;
    wait_for(&app, &erin, "erased-beta", (json!(true), vec![org.clone()])).await;

    // The erasure revokes the grant and redacts its Clerk user id in one transaction;
    // the removal still reaches her Clerk user, and then the ledger forgets her.
    erin.post("/api/me/waitlist/erased-beta/erase", &json!({})).await.assert(200);
    let user: String = app.scalar("SELECT clerk_user_id FROM grants WHERE program_id = $1", &[&program]).await;
    assert!(user.starts_with("redacted_"), "{user}");
    wait_for(&app, &erin, "erased-beta", (Value::Null, vec![])).await;
    deliveries_are(&app, &["delivered", "delivered"]).await;
    let kept: i64 = app
        .scalar("SELECT (SELECT count(*) FROM clerk_sync_grants) + (SELECT count(*) FROM clerk_sync_memberships)", &[])
        .await;
    assert_eq!(kept, 0, "no Clerk user id is kept once the removal is done");
}

#[tokio::test]
async fn a_grant_revoked_at_once_converges_to_nothing_in_clerk() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let org = organization(&app, &owner.user_id).await;
    let (program, code) = synced_program(&owner, ws, "brief-beta", &org).await;
    let rita = app.recipient("rita@example.com").await;
    rita.redeem_cohort(&code).await;
    let grant: Uuid = app.scalar("SELECT id FROM grants WHERE program_id = $1", &[&program]).await;
    owner.revoke_grant(grant).await;
    deliveries_are(&app, &["delivered", "delivered"]).await;
    assert_eq!(clerk_state(&app, &rita.user_id, "brief-beta").await, (Value::Null, vec![]));
}

#[tokio::test]
async fn the_setting_is_checked_and_a_removal_under_faults_converges() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let org = organization(&app, &owner.user_id).await;
    let program = owner.open_program(ws, "meta-beta").await;
    owner.put_content(program, "Private").await;
    owner.set_access_enabled(program, true).await;
    let with = |clerk: ClerkSyncSetting| PatchProgramRequest { clerk: Some(clerk), ..changes() };
    let bad = [
        ClerkSyncSetting { public_metadata: true, organization_id: None, role: Some("org:member".into()) },
        ClerkSyncSetting { public_metadata: true, organization_id: Some(org.clone()), role: None },
        ClerkSyncSetting {
            public_metadata: false,
            organization_id: Some(org.clone()),
            role: Some("org:billing_admin".into()),
        },
        ClerkSyncSetting {
            public_metadata: false,
            organization_id: Some("org/../x".into()),
            role: Some("org:member".into()),
        },
    ];
    for clerk in bad {
        owner.try_patch_program(program, with(clerk)).await.expect_error(400, "invalid_clerk_sync");
    }
    // Metadata only; then off; then metadata only again.
    let metadata_only = ClerkSyncSetting { public_metadata: true, organization_id: None, role: None };
    assert_eq!(owner.patch_program(program, with(metadata_only.clone())).await.clerk, Some(metadata_only.clone()));
    let off = ClerkSyncSetting { public_metadata: false, organization_id: None, role: None };
    assert_eq!(owner.patch_program(program, with(off)).await.clerk, None);
    owner.patch_program(program, with(metadata_only)).await;

    let code = owner.create_cohort_code(program, 5).await.code;
    let rita = app.recipient("rita@example.com").await;
    rita.redeem_cohort(&code).await;
    wait_for(&app, &rita, "meta-beta", (json!(true), vec![])).await;
    deliveries_are(&app, &["delivered"]).await;

    // Clerk's writes fail while the grant is revoked: the removal retries, then converges.
    let faults = format!("{}/dev/faults", app.clerk.url);
    app.http.post(&faults).json(&json!({"writes": "unavailable"})).send().await.unwrap();
    owner.revoke_grant(grant_of(&app, program).await).await;
    let failed = "SELECT count(*) FROM outbox_attempts a JOIN outbox_deliveries d ON d.id = a.delivery_id \
                  WHERE d.target_kind = 'clerk_sync' AND a.status_code = 503";
    eventually("a failed removal attempt", Duration::from_secs(20), || async {
        (app.scalar::<i64>(failed, &[]).await >= 1).then_some(())
    })
    .await;
    assert_eq!(clerk_state(&app, &rita.user_id, "meta-beta").await, (json!(true), vec![]));
    app.http.post(&faults).json(&json!({"writes": "ok"})).send().await.unwrap();
    wait_for(&app, &rita, "meta-beta", (Value::Null, vec![])).await;
    deliveries_are(&app, &["delivered", "delivered"]).await;
}

/// The program's Clerk delivery log as the owner reads it: the typed page and the raw body.
async fn clerk_log(owner: &Owner, program: Uuid) -> (ClerkSyncCallsResponse, String) {
    let reply = owner.get(&format!("/api/owner/programs/{program}/clerk-sync/deliveries?limit=100")).await;
    let page: ClerkSyncCallsResponse = reply.expect(200);
    (page, reply.text)
}

#[tokio::test]
async fn the_delivery_log_shows_each_clerk_call_failing_then_succeeding_and_nothing_personal() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let org = organization(&app, &owner.user_id).await;
    let (program, code) = synced_program(&owner, ws, "logged-beta", &org).await;
    assert!(clerk_log(&owner, program).await.0.calls.is_empty(), "no calls before a grant");
    let faults = format!("{}/dev/faults", app.clerk.url);
    app.http.post(&faults).json(&json!({"writes": "unavailable"})).send().await.unwrap();

    let rita = app.recipient("rita@example.com").await;
    rita.redeem_cohort(&code).await;
    let grant = grant_of(&app, program).await;
    // Two failed attempts, each a metadata call Clerk answered 503.
    let failed = eventually("two failed metadata calls in the log", Duration::from_secs(20), || async {
        let (page, _) = clerk_log(&owner, program).await;
        (page.calls.len() >= 2).then_some(page)
    })
    .await;
    for call in &failed.calls {
        assert_eq!((call.call, call.status_code, call.error.as_deref()), (ClerkCall::MetadataAdd, Some(503), None));
        assert_eq!((call.grant_id, call.event_type.as_str()), (Some(grant), "grant.created"));
        assert_ne!(call.outcome, ClerkCallOutcome::Succeeded);
    }
    let attempts: Vec<i32> = failed.calls.iter().map(|c| c.attempt).collect();
    assert!(attempts.windows(2).all(|w| w[0] > w[1]), "newest first: {attempts:?}");
    // Only the newest attempt's failure is still open (pending, with its next try, or
    // being tried right now); older ones are plain failures.
    assert!(failed.calls[1..].iter().all(|c| c.outcome == ClerkCallOutcome::Failed && !c.can_retry));
    let newest = &failed.calls[0];
    if newest.outcome == ClerkCallOutcome::Pending {
        assert!(newest.can_retry && newest.next_attempt_at.is_some(), "{newest:?}");
    }

    // Paged: one call per page, the cursor walking back in time.
    let first: ClerkSyncCallsResponse =
        owner.get(&format!("/api/owner/programs/{program}/clerk-sync/deliveries?limit=1")).await.expect(200);
    let cursor = first.next_cursor.expect("more than one call");
    let second: ClerkSyncCallsResponse = owner
        .get(&format!("/api/owner/programs/{program}/clerk-sync/deliveries?limit=1&cursor={cursor}"))
        .await
        .expect(200);
    assert!(second.calls[0].id < first.calls[0].id);

    // A foreign owner sees the uniform 404, for the log and for a retry.
    let (stranger, _) = app.owner("stranger@example.com").await;
    stranger.get(&format!("/api/owner/programs/{program}/clerk-sync/deliveries")).await.expect_error(404, "not_found");
    let retry = format!("/api/owner/programs/{program}/clerk-sync/deliveries/{}/retry", newest.delivery_id);
    stranger.post(&retry, &json!({})).await.expect_error(404, "not_found");

    // Clerk works again; the owner's retry makes the delivery due now and it converges.
    app.http.post(&faults).json(&json!({"writes": "ok"})).send().await.unwrap();
    owner.post(&retry, &json!({})).await.assert(202);
    wait_for(&app, &rita, "logged-beta", (json!(true), vec![org.clone()])).await;
    deliveries_are(&app, &["delivered"]).await;
    let (page, raw) = clerk_log(&owner, program).await;
    // (Had an automatic attempt beaten the retry, the retry runs the calls once more:
    // each is idempotent, so the set is what counts.)
    let succeeded: Vec<ClerkCall> =
        page.calls.iter().filter(|c| c.outcome == ClerkCallOutcome::Succeeded).map(|c| c.call).collect();
    assert_eq!(succeeded.first(), Some(&ClerkCall::MembershipAdd), "{raw}");
    for call in [ClerkCall::MetadataAdd, ClerkCall::MembershipCheck] {
        assert!(succeeded.contains(&call), "{call:?} succeeded: {raw}");
    }
    assert!(page.calls.iter().all(|c| !c.can_retry && c.next_attempt_at.is_none()), "{raw}");
    assert!(page.calls.iter().filter(|c| c.outcome == ClerkCallOutcome::Failed).all(|c| c.status_code == Some(503)));

    // Revoking is logged as removals.
    owner.revoke_grant(grant).await;
    deliveries_are(&app, &["delivered", "delivered"]).await;
    let (page, raw) = clerk_log(&owner, program).await;
    let newest: Vec<(ClerkCall, &str)> = page.calls[..2].iter().map(|c| (c.call, c.event_type.as_str())).collect();
    assert_eq!(newest, [(ClerkCall::MembershipRemove, "grant.revoked"), (ClerkCall::MetadataRemove, "grant.revoked")]);
    // Nothing personal in the log: no Clerk user id, no email, no organization id.
    for secret in [rita.user_id.as_str(), "rita@example.com", "example.com", org.as_str(), "user_"] {
        assert!(!raw.contains(secret), "the log holds {secret}: {raw}");
    }
}

/// The program's Clerk setting row as stored: (organization, role, checked by someone).
async fn stored_setting(app: &TestApp, program: Uuid) -> Option<(Option<String>, Option<String>, bool)> {
    let sql = "SELECT organization_id, organization_role, organization_checked_by IS NOT NULL \
               FROM program_clerk_sync WHERE program_id = $1";
    app.db().await.query_opt(sql, &[&program]).await.unwrap().map(|r| (r.get(0), r.get(1), r.get(2)))
}

/// Issue 26 item 2 (failed before the fix: every case below but the admin's saved 200, and
/// the foreign organization's membership was then created by the first grant). An owner of
/// workspace A may point a program only at an organization they administer in Clerk, with
/// a role the operator allows (`CLERK_SYNC_ROLES`, default `org:member`); anything else is
/// 400 `invalid_clerk_sync` and writes nothing; Clerk unreachable is 503.
#[tokio::test]
async fn only_an_organizations_admin_may_point_a_program_at_it() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner-a@example.com").await;
    let (owner_b, _) = app.owner("owner-b@example.com").await;
    let program = owner.open_program(ws, "org-guard").await;
    let foreign = organization(&app, &owner_b.user_id).await;
    let revision = owner.program(program).await.revision;

    // Not a member of B's organization; then a member with a role that is not admin.
    owner.try_patch_program(program, setting(&foreign, "org:member")).await.expect_error(400, "invalid_clerk_sync");
    for role in ["org:member", "org:owner", "org:manager"] {
        let path = format!("/v1/organizations/{foreign}/memberships");
        let _ = app.clerk.backend(Method::DELETE, &format!("{path}/{}", owner.user_id), None).await;
        let (status, body) =
            app.clerk.backend(Method::POST, &path, Some(json!({"user_id": owner.user_id, "role": role}))).await;
        assert!(status.is_success(), "{body}");
        for asked in ["org:member", "org:owner", "org:manager"] {
            let reply = owner.try_patch_program(program, setting(&foreign, asked)).await;
            reply.expect_error(400, "invalid_clerk_sync");
        }
    }
    // An organization Clerk does not know.
    owner
        .try_patch_program(program, setting("org_nosuchorganization", "org:member"))
        .await
        .expect_error(400, "invalid_clerk_sync");

    // Their own organization, but a role outside CLERK_SYNC_ROLES (the default is org:member).
    let own = organization(&app, &owner.user_id).await;
    for role in ["org:owner", "org:manager", "org:billing"] {
        owner.try_patch_program(program, setting(&own, role)).await.expect_error(400, "invalid_clerk_sync");
    }
    // Nothing was written by any refusal.
    assert_eq!(owner.program(program).await.revision, revision);
    assert_eq!(stored_setting(&app, program).await, None);

    // Clerk cannot answer: 503, nothing written.
    app.clerk.users_unavailable(true).await;
    owner.try_patch_program(program, setting(&own, "org:member")).await.expect_error(503, "identity_unavailable");
    app.clerk.users_unavailable(false).await;
    assert_eq!(stored_setting(&app, program).await, None);

    // A stranger to the program gets the uniform 404 (its ownership is read before Clerk is asked).
    let stranger = PatchProgramRequest { expected_revision: revision, ..setting(&foreign, "org:member") };
    owner_b.patch(&format!("/api/owner/programs/{program}"), &stranger).await.expect_error(404, "not_found");

    // The admin of their own organization, with an allowed role: saved, with who was checked.
    owner.patch_program(program, setting(&own, "org:member")).await;
    assert_eq!(stored_setting(&app, program).await, Some((Some(own), Some("org:member".into()), true)));
}

/// `CLERK_SYNC_ROLES` widens the roles a program may give; an admin role is never one.
#[tokio::test]
async fn the_operator_chooses_the_roles_a_program_may_give() {
    let roles = vec!["org:member".to_owned(), "org:partner".to_owned()];
    let app = TestApp::spawn_with(|s| s.integrations.clerk_sync_roles = roles).await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let program = owner.open_program(ws, "partner-roles").await;
    let org = organization(&app, &owner.user_id).await;
    owner.patch_program(program, setting(&org, "org:partner")).await;
    owner.try_patch_program(program, setting(&org, "org:owner")).await.expect_error(400, "invalid_clerk_sync");
    owner.try_patch_program(program, setting(&org, "org:admin")).await.expect_error(400, "invalid_clerk_sync");

    let mut settings = app.settings.clone();
    settings.integrations.clerk_sync_roles = vec!["org:admin".into()];
    assert!(settings.validate().is_err(), "an admin role in CLERK_SYNC_ROLES is refused at start");
}

/// A setting saved before the check existed (V81) named an organization nobody checked:
/// it is read as having none — shown without it, and no grant adds a membership — until
/// an organization admin saves it again.
#[tokio::test]
async fn an_organization_saved_before_the_check_is_not_acted_on() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let (owner_b, _) = app.owner("owner-b@example.com").await;
    let foreign = organization(&app, &owner_b.user_id).await;
    let program = owner.open_program(ws, "legacy-org").await;
    owner.put_content(program, "Private").await;
    owner.set_access_enabled(program, true).await;
    // A row as an earlier release wrote it (the constraint that V81 added NOT VALID refuses
    // such a row today, so the arrangement lifts it for this one insert).
    let db = app.db().await;
    db.batch_execute(&format!(
        "BEGIN; ALTER TABLE program_clerk_sync DROP CONSTRAINT program_clerk_sync_org_checked;
         INSERT INTO program_clerk_sync (program_id, public_metadata, organization_id, organization_role)
           VALUES ('{program}', true, '{foreign}', 'org:owner');
         ALTER TABLE program_clerk_sync ADD CONSTRAINT program_clerk_sync_org_checked CHECK (organization_id IS NULL
           OR (organization_checked_at IS NOT NULL AND organization_checked_by IS NOT NULL)) NOT VALID; COMMIT;"
    ))
    .await
    .unwrap();
    let shown = owner.program(program).await.clerk.expect("the metadata part stays");
    assert_eq!((shown.organization_id, shown.role), (None, None));

    let code = owner.create_cohort_code(program, 5).await.code;
    let rita = app.recipient("rita@example.com").await;
    rita.redeem_cohort(&code).await;
    wait_for(&app, &rita, "legacy-org", (json!(true), vec![])).await;
    deliveries_are(&app, &["delivered"]).await;
    assert_eq!(clerk_state(&app, &rita.user_id, "legacy-org").await, (json!(true), vec![]), "no foreign membership");
}
