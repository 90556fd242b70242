//! The `clerk_sync` target (issue 14): on `grant.created` and `grant.revoked` (a
//! withdrawal that ended a grant is one too), make Clerk agree with the grant as it is
//! *now*: active → `public_metadata.vestibule.programs.<slug>` set and the organization
//! membership added; inactive → the key deleted and the membership removed (unless
//! another active grant of a program synced to the same organization still holds it).
//! Deciding from the current state, not the event, makes retries and out-of-order
//! deliveries converge; every call is idempotent. Runs after COMMIT, no transaction
//! open; the outbox's attempts table is the delivery log.

use super::{Outcome, Reason};
use crate::db::clerk_sync;
use crate::db::outbox::Claimed;
use crate::identity::WriteOutcome;
use crate::state::AppState;
use uuid::Uuid;

pub async fn deliver(state: &AppState, d: &Claimed) -> Outcome {
    let grant = d.event.payload["data"]["grantId"].as_str().and_then(|s| Uuid::parse_str(s).ok());
    let Some(grant) = grant else { return Outcome::Failed { reason: Reason::HandlerError } };
    let target = match state.pool.get().await {
        Ok(client) => clerk_sync::grant_target(&client, grant).await,
        Err(_) => return Outcome::Retry { status: None, reason: Reason::HandlerError },
    };
    let target = match target {
        Ok(Some(t)) => t,
        Ok(None) => return Outcome::Failed { reason: Reason::HandlerError },
        Err(_) => return Outcome::Retry { status: None, reason: Reason::HandlerError },
    };
    // Off for this program: nothing to mirror.
    let Some(setting) = &target.setting else { return Outcome::Delivered { status: None } };
    let backend = &state.identity.backend;
    let user = target.clerk_user_id.as_str();
    let mut results = Vec::new();
    if setting.public_metadata {
        results.push(backend.set_program_metadata(user, &target.slug, target.active).await);
    }
    if let Some((org, role)) = &setting.organization {
        if target.active {
            results.push(backend.add_membership(org, user, role).await);
        } else if !target.org_still_granted {
            results.push(backend.remove_membership(org, user).await);
        }
    }
    combine(&results)
}

/// Any call worth retrying retries the whole delivery (the done ones are idempotent);
/// else any refusal fails it; else it is delivered.
fn combine(results: &[WriteOutcome]) -> Outcome {
    if let Some(status) = results.iter().find_map(|r| match r {
        WriteOutcome::Retry(status) => Some(*status),
        _ => None,
    }) {
        let reason = if status.is_some() { Reason::HttpStatus } else { Reason::Connection };
        return Outcome::Retry { status: status.map(i32::from), reason };
    }
    if results.iter().any(|r| matches!(r, WriteOutcome::Refused(_))) {
        return Outcome::Failed { reason: Reason::HttpStatus };
    }
    let status = results.iter().rev().find_map(|r| match r {
        WriteOutcome::Done(s) => Some(i32::from(*s)),
        _ => None,
    });
    Outcome::Delivered { status }
}
