//! `vestibule owner bootstrap|grant|revoke|list` (SPEC §7). Each change checks that the
//! Clerk user exists (before any transaction), then runs under the workspace's
//! `FOR UPDATE` lock, re-reads membership, refuses to remove the last active owner, and
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
    /// Remove an owner; refuses to remove the last active owner.
    Revoke(Change),
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

/// The Clerk user must exist before membership is written.
async fn require_user(clerk_user_id: &str) -> anyhow::Result<()> {
    if !crate::identity::backend_user_id_ok(clerk_user_id) {
        bail!("--clerk-user-id is not a valid Clerk user id");
    }
    let api = std::env::var("CLERK_API_URL").unwrap_or_else(|_| "https://api.clerk.com".into());
    let backend = BackendClient::new(&api, &env("CLERK_SECRET_KEY")?)?;
    match backend.user_exists(clerk_user_id).await {
        Ok(true) => Ok(()),
        Ok(false) => bail!("no such user at the identity provider"),
        Err(LookupError::Unavailable(why)) => {
            bail!("identity provider unavailable ({why}); nothing was changed")
        }
        Err(LookupError::UserGone) => bail!("no such user at the identity provider"),
    }
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
            change(&pool, &c, true).await?;
            println!("granted");
        }
        OwnerCommand::Revoke(c) => {
            change(&pool, &c, false).await?;
            println!("revoked");
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

async fn change(pool: &deadpool_postgres::Pool, c: &Change, active: bool) -> anyhow::Result<()> {
    check_text("--approval-ref", &c.approval_ref, 200)?;
    require_user(&c.clerk_user_id).await?;
    match membership::change(pool, c.workspace_id, &c.clerk_user_id, &c.approval_ref, active).await {
        Ok(()) => Ok(()),
        Err(MembershipError::NotFound) => bail!("no such workspace; nothing was changed"),
        Err(MembershipError::LastOwner) => {
            bail!("refusing to remove the last active owner; grant another owner first")
        }
        Err(MembershipError::Unchanged) => {
            bail!("that user already has that membership state; nothing was changed")
        }
        Err(MembershipError::Db(e)) => Err(e.into()),
    }
}
