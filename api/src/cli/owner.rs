//! `vestibule owner bootstrap|grant|revoke|list` (SPEC §7). Before any transaction, a
//! bootstrap or grant checks that the Clerk user exists; a revoke does not ask about the
//! user it removes (an owner whose Clerk user was deleted must still be removable) but
//! asks which of the *other* active owners still exist, since only they can still sign
//! in. Then the change runs under the workspace's `FOR UPDATE` lock, re-reads
//! membership, refuses to remove the last active owner who can still sign in, and
//! appends a `staff_admin_events` row with the approval reference.

use crate::db;
use crate::identity::{BackendClient, LookupError};
use crate::usecases::membership::{self, MembershipError};
use crate::usecases::ReadError;
use anyhow::{anyhow, bail, Context};
use clap::{Args, Subcommand};
use uuid::Uuid;

#[derive(Subcommand)]
pub enum OwnerCommand {
    /// Create a workspace with its first owner; prints the workspace id.
    Bootstrap {
        #[arg(long)]
        workspace_name: String,
        #[arg(long)]
        clerk_user_id: String,
        #[arg(long)]
        approval_ref: String,
    },
    /// Make a Clerk user an owner of a workspace (or reactivate them).
    Grant(Change),
    /// Remove an owner (even one whose Clerk user was deleted); refuses to remove the last
    /// active owner who can still sign in. Revokes the API keys the owner created (unless
    /// --keep-api-keys) and lists the webhook endpoints they created.
    Revoke {
        #[command(flatten)]
        change: Change,
        /// Leave the API keys this owner created valid (they are revoked by default).
        #[arg(long)]
        keep_api_keys: bool,
    },
    /// List the workspace's owners and its membership history.
    List {
        #[arg(long)]
        workspace_id: Uuid,
    },
}

/// Who changes in which workspace, and on whose approval.
#[derive(Args)]
pub struct Change {
    #[arg(long)]
    workspace_id: Uuid,
    #[arg(long)]
    clerk_user_id: String,
    #[arg(long)]
    approval_ref: String,
}

fn env(name: &str) -> anyhow::Result<String> {
    std::env::var(name).map_err(|_| anyhow!("{name} is required"))
}

fn check_text(what: &str, value: &str, max: usize) -> anyhow::Result<()> {
    if value.trim().is_empty() || value.chars().count() > max || value.chars().any(char::is_control) {
        bail!("{what} must be 1 to {max} printable characters");
    }
    Ok(())
}

fn backend() -> anyhow::Result<BackendClient> {
    let api = std::env::var("CLERK_API_URL").unwrap_or_else(|_| "https://api.clerk.com".into());
    BackendClient::new(&api, &env("CLERK_SECRET_KEY")?)
}

fn unavailable(why: &str) -> anyhow::Error {
    anyhow!("identity provider unavailable ({why}); nothing was changed")
}

/// The Clerk user must exist before membership is written.
async fn require_user(clerk_user_id: &str) -> anyhow::Result<()> {
    if !crate::identity::backend_user_id_ok(clerk_user_id) {
        bail!("--clerk-user-id is not a valid Clerk user id");
    }
    match backend()?.user_exists(clerk_user_id).await {
        Ok(true) => Ok(()),
        Ok(false) | Err(LookupError::UserGone) => bail!("no such user at the identity provider"),
        Err(LookupError::Unavailable(why)) => Err(unavailable(&why)),
    }
}

/// The workspace's active owners other than `leaving` whose Clerk user still exists:
/// the ones who could still sign in once `leaving` is gone. Asked before the
/// transaction; an owner granted in between is not among them (the check errs towards
/// refusing).
async fn others_who_can_sign_in(
    pool: &deadpool_postgres::Pool,
    workspace_id: Uuid,
    leaving: &str,
) -> anyhow::Result<Vec<String>> {
    let members = match membership::members(pool, workspace_id).await {
        Ok((members, _)) => members,
        Err(ReadError::NotFound) => bail!("no such workspace; nothing was changed"),
        Err(ReadError::Db(e)) => return Err(e.into()),
    };
    let backend = backend()?;
    let mut able = Vec::new();
    for m in members.into_iter().filter(|m| m.active && m.clerk_user_id != leaving) {
        match backend.user_exists(&m.clerk_user_id).await {
            Ok(true) => able.push(m.clerk_user_id),
            Ok(false) | Err(LookupError::UserGone) => {}
            Err(LookupError::Unavailable(why)) => return Err(unavailable(&why)),
        }
    }
    Ok(able)
}

pub async fn run(cmd: OwnerCommand) -> anyhow::Result<()> {
    let url = env("DATABASE_URL")?;
    db::migrate(&url).await.context("migrating")?;
    let pool = db::pool(&url, 1)?;
    match cmd {
        OwnerCommand::Bootstrap { workspace_name, clerk_user_id, approval_ref } => {
            check_text("--workspace-name", &workspace_name, 120)?;
            check_text("--approval-ref", &approval_ref, 200)?;
            require_user(&clerk_user_id).await?;
            let id = membership::bootstrap(&pool, &workspace_name, &clerk_user_id, &approval_ref).await?;
            println!("{id}");
        }
        OwnerCommand::Grant(c) => {
            change(&pool, &c, None).await?;
            println!("granted");
        }
        OwnerCommand::Revoke { change: c, keep_api_keys } => {
            let revoked = change(&pool, &c, Some(keep_api_keys)).await?;
            println!("revoked");
            if revoked.api_keys_kept {
                println!("api keys kept: {} (created by this owner, still valid)", revoked.api_keys);
            } else {
                println!("api keys revoked: {}", revoked.api_keys);
            }
            println!("webhook endpoints created by this owner: {} (review them)", revoked.webhooks.len());
            for (id, url, enabled) in revoked.webhooks {
                println!("{id}\t{}\t{url}", if enabled { "enabled" } else { "disabled" });
            }
        }
        OwnerCommand::List { workspace_id } => {
            let (members, history) = match membership::members(&pool, workspace_id).await {
                Ok(listed) => listed,
                Err(ReadError::NotFound) => bail!("no such workspace, or it has no owners"),
                Err(ReadError::Db(e)) => return Err(e.into()),
            };
            for m in members {
                println!("{}\t{}", m.clerk_user_id, if m.active { "active" } else { "revoked" });
            }
            for h in history {
                println!(
                    "#{}\t{}\t{}\t{}\t{}",
                    h.id,
                    crate::time::rfc3339(h.at),
                    h.action,
                    h.clerk_user_id,
                    h.approval_ref
                );
            }
        }
    }
    Ok(())
}

/// A grant (`keep_api_keys` is `None`) or a revoke (`Some(keep the owner's API keys)`).
async fn change(
    pool: &deadpool_postgres::Pool,
    c: &Change,
    keep_api_keys: Option<bool>,
) -> anyhow::Result<membership::Revoked> {
    check_text("--approval-ref", &c.approval_ref, 200)?;
    let change = match keep_api_keys {
        None => {
            require_user(&c.clerk_user_id).await?;
            membership::Change::Grant
        }
        Some(keep_api_keys) => {
            if !crate::identity::backend_user_id_ok(&c.clerk_user_id) {
                bail!("--clerk-user-id is not a valid Clerk user id");
            }
            let remaining = others_who_can_sign_in(pool, c.workspace_id, &c.clerk_user_id).await?;
            membership::Change::Revoke { remaining_who_can_sign_in: remaining, keep_api_keys }
        }
    };
    match membership::change(pool, c.workspace_id, &c.clerk_user_id, &c.approval_ref, &change).await {
        Ok(revoked) => Ok(revoked),
        Err(MembershipError::NotFound) => bail!("no such workspace; nothing was changed"),
        Err(MembershipError::LastOwner) => {
            bail!("refusing to remove the last active owner who can still sign in; grant another owner first")
        }
        Err(MembershipError::Unchanged) => {
            bail!("that user already has that membership state; nothing was changed")
        }
        Err(MembershipError::Db(e)) => Err(e.into()),
    }
}
