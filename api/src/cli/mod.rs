//! The `vestibule` command line (SPEC §2, §7): `serve`, `migrate`, and the audited
//! owner maintenance channel. Every command reads the same environment as the server.

mod owner;
pub mod redact;
pub mod verify;

use crate::config::Settings;
use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "vestibule", version, about = "Self-hosted waitlist and controlled early access")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the API server (applies pending migrations first).
    Serve,
    /// Apply pending migrations and exit (needs only DATABASE_URL).
    Migrate,
    /// Owner membership maintenance, audited in staff_admin_events.
    #[command(subcommand)]
    Owner(owner::OwnerCommand),
    /// Check a database (e.g. a restored backup) for intact links and history.
    Verify,
    /// Redact entries that are over (withdrawn, declined, revoked) and last changed before a date.
    Redact {
        #[arg(long)]
        program: uuid::Uuid,
        /// Cutoff: YYYY-MM-DD (midnight UTC) or an RFC 3339 instant.
        #[arg(long)]
        before: String,
    },
}

pub fn main() -> ExitCode {
    crate::telemetry::init();
    let cli = Cli::parse();
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(async move {
        match cli.command {
            Command::Serve => serve().await,
            Command::Migrate => {
                let url = std::env::var("DATABASE_URL").map_err(|_| anyhow::anyhow!("DATABASE_URL is required"))?;
                crate::db::migrate(&url).await
            }
            Command::Owner(cmd) => owner::run(cmd).await,
            Command::Verify => {
                let url = std::env::var("DATABASE_URL").map_err(|_| anyhow::anyhow!("DATABASE_URL is required"))?;
                match verify::verify(&url).await? {
                    0 => Ok(()),
                    n => Err(anyhow::anyhow!("{n} verification checks failed")),
                }
            }
            Command::Redact { program, before } => {
                let url = std::env::var("DATABASE_URL").map_err(|_| anyhow::anyhow!("DATABASE_URL is required"))?;
                let cutoff = redact::parse_cutoff(&before)?;
                let n = redact::redact(&url, program, cutoff).await?;
                println!("redacted {n} entries");
                Ok(())
            }
        }
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

async fn serve() -> anyhow::Result<()> {
    let settings = Settings::from_env()?;
    let app = crate::startup::Application::build(settings).await?;
    tracing::info!(port = app.port(), metrics_port = ?app.metrics_port(), "vestibule listening");
    app.run().await?;
    Ok(())
}
