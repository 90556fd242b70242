//! The `vestibule` command line (SPEC §2, §7): `serve`, `migrate`, and the audited
//! owner maintenance channel. Every command reads the same environment as the server.

mod owner;

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
