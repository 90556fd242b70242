//! The `clerk_sync` target (issue 14): on `grant.created` and `grant.revoked` (a
//! withdrawal or an erasure that ended a grant is one too), make Clerk agree with the
//! grant as it is *now*. Runs after COMMIT with no transaction open; every call is
//! idempotent; each Backend API call's result is returned with the outcome, recorded
//! with the attempt (`clerk_sync_calls`, V33: the owner's delivery log) and logged —
//! call name and status, never the user id.
//!
//! * **Active grant, setting on:** the grant's ledger row (`clerk_sync_grants`, V32) is
//!   written first, pinning the Clerk user id and the setting the grant is synced with;
//!   then `public_metadata.vestibule.programs.<slug>` is set to `true` and the user is
//!   added to the organization with the role. A membership the user already had is left
//!   alone and not recorded as Vestibule's (`clerk_sync_memberships`), so no revocation
//!   ever removes it.
//! * **Inactive grant:** from the ledger row (not the grant: erasure redacts the grant's
//!   user id in the transaction that revokes it), the key is deleted (`null`) and
//!   Vestibule's membership removed unless another active grant of the user pinned to the
//!   same organization still wants it; then the row goes. No row: nothing was put.
//! * **One grant, one delivery at a time (issue 26 item 3):** a delivery first takes a
//!   session advisory lock on its grant (`db::clerk_sync::try_lock_grant`), on the one
//!   pooled connection it then uses for every query of the delivery, and holds it until it
//!   is done — across instances, and past a lease that lapses on a slow Clerk (the
//!   connection, not the lease, holds the lock; a process that dies closes it). A delivery
//!   that finds the lock taken is [`Outcome::Deferred`]: due again shortly, no attempt
//!   counted. The claim also leaves a grant's delivery alone while another of the same
//!   grant is leased. So `grant.created` and `grant.revoked` never interleave their calls,
//!   and a removal never deletes the ledger row while an addition is still adding.
//! * **Convergence:** after acting, the grant is read again; if it changed meanwhile (a
//!   revocation committed while the grant was being put), the handler acts again: a round
//!   that added something and then finds the grant inactive takes back, from the ledger
//!   row it wrote itself, what it added. The ledger row is written before any call and a
//!   membership is recorded as Vestibule's before it is created and forgotten after it is
//!   removed, with the "still wanted" check repeated after a removal, so deliveries of
//!   different grants of one user and organization end with the membership exactly when
//!   an active grant wants it.
//!
//! Changing or switching off a program's setting applies to grants not yet synced;
//! grants already synced keep their pinned setting until they end.

use super::{Call, Outcome, Reason};
use crate::db::clerk_sync::{self, GrantTarget, Synced};
use crate::db::outbox::Claimed;
use crate::identity::WriteOutcome;
use crate::state::AppState;
use shared::clerk_sync::ClerkCall;
use std::time::Instant;
use uuid::Uuid;

/// Rounds of act-then-check before the delivery is retried later instead.
const ROUNDS: usize = 3;

/// Why a step stopped: the outcome to report.
type Step<T = ()> = Result<T, Outcome>;

fn db_failed<E>(_: E) -> Outcome {
    Outcome::Retry { status: None, reason: Reason::HandlerError }
}

/// Makes Clerk agree with the grant, holding the grant's lock; answers the outcome and
/// every call made.
pub async fn deliver(state: &AppState, d: &Claimed) -> (Outcome, Vec<Call>) {
    let grant = d.event.payload["data"]["grantId"].as_str().and_then(|s| Uuid::parse_str(s).ok());
    let Some(grant) = grant else { return (Outcome::Failed { reason: Reason::HandlerError }, Vec::new()) };
    let lock = match GrantLock::take(state, grant).await {
        Ok(Some(lock)) => lock,
        Ok(None) => return (Outcome::Deferred, Vec::new()),
        Err(outcome) => return (outcome, Vec::new()),
    };
    let mut sync = Sync { state, db: lock.client(), delivery: d.id, grant, status: None, calls: Vec::new() };
    let outcome = sync.converge().await;
    let calls = std::mem::take(&mut sync.calls);
    lock.release().await;
    (outcome, calls)
}

/// The grant's session advisory lock, held on its own pooled connection. Released by
/// [`GrantLock::release`]; dropped without it (a cancelled delivery, a failed unlock),
/// the connection is closed instead of pooled, which releases the lock with it.
struct GrantLock {
    conn: Option<deadpool_postgres::Client>,
    grant: Uuid,
}

impl GrantLock {
    /// The lock, `None` when another delivery of the grant holds it.
    async fn take(state: &AppState, grant: Uuid) -> Step<Option<GrantLock>> {
        let conn = state.pool.get().await.map_err(db_failed)?;
        match clerk_sync::try_lock_grant(&conn, grant).await {
            Ok(true) => Ok(Some(GrantLock { conn: Some(conn), grant })),
            Ok(false) => Ok(None),
            Err(e) => {
                drop(deadpool_postgres::Object::take(conn));
                Err(db_failed(e))
            }
        }
    }

    fn client(&self) -> &deadpool_postgres::Client {
        self.conn.as_ref().expect("held until released")
    }

    async fn release(mut self) {
        let Some(conn) = self.conn.take() else { return };
        if !matches!(clerk_sync::unlock_grant(&conn, self.grant).await, Ok(true)) {
            drop(deadpool_postgres::Object::take(conn));
        }
    }
}

impl Drop for GrantLock {
    fn drop(&mut self) {
        if let Some(conn) = self.conn.take() {
            drop(deadpool_postgres::Object::take(conn));
        }
    }
}

struct Sync<'a> {
    state: &'a AppState,
    /// The connection holding the grant's lock: every query of the delivery runs on it.
    db: &'a deadpool_postgres::Client,
    delivery: i64,
    grant: Uuid,
    /// The last status Clerk answered.
    status: Option<i32>,
    /// The calls made so far, for the delivery log.
    calls: Vec<Call>,
}

impl Sync<'_> {
    async fn converge(&mut self) -> Outcome {
        for _ in 0..ROUNDS {
            let target = match self.read().await {
                Ok(t) => t,
                Err(outcome) => return outcome,
            };
            let acted = if target.active { self.put(&target).await } else { self.take_back(&target).await };
            if let Err(outcome) = acted {
                return outcome;
            }
            match self.read().await {
                Ok(now) if now.active == target.active => return Outcome::Delivered { status: self.status },
                Ok(_) => continue,
                Err(outcome) => return outcome,
            }
        }
        Outcome::Retry { status: None, reason: Reason::HandlerError }
    }

    async fn read(&self) -> Step<GrantTarget> {
        match clerk_sync::grant_target(self.db, self.grant).await {
            Ok(Some(t)) => Ok(t),
            Ok(None) => Err(Outcome::Failed { reason: Reason::HandlerError }),
            Err(e) => Err(db_failed(e)),
        }
    }

    /// Reports one Backend API call's result; `gone_is_done` counts a 404 as done (a
    /// removal for a user or organization that no longer exists).
    fn call(&mut self, name: ClerkCall, result: WriteOutcome, gone_is_done: bool) -> Step {
        let (status, outcome) = match result {
            WriteOutcome::Done(s) => (Some(s), Ok(())),
            WriteOutcome::Refused(404) if gone_is_done => (Some(404), Ok(())),
            WriteOutcome::Retry(s) => {
                let reason = if s.is_some() { Reason::HttpStatus } else { Reason::Connection };
                (s, Err(Outcome::Retry { status: s.map(i32::from), reason }))
            }
            WriteOutcome::Refused(s) => (Some(s), Err(Outcome::Failed { reason: Reason::HttpStatus })),
        };
        tracing::info!(delivery = self.delivery, call = name.as_str(), status, ok = outcome.is_ok(), "clerk sync call");
        if let Some(s) = status {
            self.status = Some(i32::from(s));
        }
        let logged = match (&outcome, status) {
            (Ok(()), _) => "succeeded",
            (Err(_), Some(_)) => Reason::HttpStatus.as_str(),
            (Err(_), None) => Reason::Connection.as_str(),
        };
        self.calls.push(Call { name, outcome: logged, status: status.map(i32::from), ended: Instant::now() });
        outcome
    }

    /// The grant is active: pin it, then set the key and the membership.
    async fn put(&mut self, target: &GrantTarget) -> Step {
        // Off for this program (and never synced): nothing to mirror.
        let Some(setting) = &target.setting else { return Ok(()) };
        let Some(user) = &target.clerk_user_id else { return Ok(()) };
        let wanted = Synced {
            clerk_user_id: user.clone(),
            public_metadata: setting.public_metadata,
            organization: setting.organization.clone(),
        };
        let grant = self.grant;
        let pinned = clerk_sync::pin(self.db, grant, &wanted).await.map_err(db_failed)?;
        let backend = &self.state.identity.backend;
        let user = pinned.clerk_user_id.as_str();
        if pinned.public_metadata {
            let result = backend.set_program_metadata(user, &target.slug, true).await;
            self.call(ClerkCall::MetadataAdd, result, false)?;
        }
        if let Some((org, role)) = &pinned.organization {
            self.add_member(org, user, role).await?;
        }
        Ok(())
    }

    /// Adds the membership unless the user has one Vestibule did not create.
    async fn add_member(&mut self, org: &str, user: &str, role: &str) -> Step {
        let backend = &self.state.identity.backend;
        if !clerk_sync::membership_ours(self.db, org, user).await.map_err(db_failed)? {
            match backend.is_member(org, user).await {
                Ok((member, status)) => {
                    self.call(ClerkCall::MembershipCheck, WriteOutcome::Done(status), false)?;
                    if member {
                        return Ok(());
                    }
                }
                Err(result) => return self.call(ClerkCall::MembershipCheck, result, false),
            }
            clerk_sync::set_membership_ours(self.db, org, user, true).await.map_err(db_failed)?;
        }
        let result = backend.add_membership(org, user, role).await;
        self.call(ClerkCall::MembershipAdd, result, false)
    }

    /// The grant has ended: remove what its ledger row says was put, then the row.
    async fn take_back(&mut self, target: &GrantTarget) -> Step {
        let Some(pinned) = &target.synced else { return Ok(()) };
        let backend = &self.state.identity.backend;
        let user = pinned.clerk_user_id.as_str();
        if pinned.public_metadata {
            let result = backend.set_program_metadata(user, &target.slug, false).await;
            self.call(ClerkCall::MetadataRemove, result, true)?;
        }
        if let Some((org, _)) = &pinned.organization {
            let grant = self.grant;
            let ours = clerk_sync::membership_ours(self.db, org, user).await.map_err(db_failed)?;
            let wanted = clerk_sync::org_still_wanted(self.db, org, user, grant).await.map_err(db_failed)?;
            if ours && wanted.is_none() {
                let result = backend.remove_membership(org, user).await;
                self.call(ClerkCall::MembershipRemove, result, true)?;
                clerk_sync::set_membership_ours(self.db, org, user, false).await.map_err(db_failed)?;
                // A grant pinned to the organization meanwhile saw the membership and
                // left it; it is wanted again, so it is put back.
                let again = clerk_sync::org_still_wanted(self.db, org, user, grant).await.map_err(db_failed)?;
                if let Some(role) = again {
                    self.add_member(org, user, &role).await?;
                }
            }
        }
        clerk_sync::unpin(self.db, self.grant).await.map_err(db_failed)
    }
}
