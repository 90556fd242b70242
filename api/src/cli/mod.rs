//! The `vestibule` command line (SPEC §2, §7): `serve`, `migrate`, and the audited
//! owner maintenance channel. Every command reads the same environment as the server.

mod owner;
pub mod redact;
pub mod verify;
pub mod verify_chain;
pub mod verify_erasure;

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
    /// Check a database (e.g. a restored backup) for intact links and history, and
    /// recompute every audit chain.
    Verify {
        /// Saved audit checkpoints (from the owner's audit page) to prove against today's chains.
        #[arg(long, num_args = 1.., value_name = "FILE")]
        checkpoint: Vec<std::path::PathBuf>,
    },
    /// Seal every webhook and admission-hook secret again under the first key of
    /// SECRETS_KEYS (needs SECRETS_KEYS; SIGNUP_BINDING_KEY too for secrets sealed before
    /// the keyring); prints what it did per kind.
    Reseal,
    /// Recompute a downloaded lottery draw record offline (no database needed), its
    /// filter included.
    VerifyDraw {
        #[arg(value_name = "FILE")]
        file: std::path::PathBuf,
    },
    /// Redact entries that are over (withdrawn, declined, revoked) and last changed before a date.
    /// With `--reapply` instead: erase again every entry that a restore from an older
    /// backup brought back (needs SIGNUP_BINDING_KEY).
    Redact {
        #[arg(long, required_unless_present = "reapply")]
        program: Option<uuid::Uuid>,
        /// Cutoff: YYYY-MM-DD (midnight UTC) or an RFC 3339 instant.
        #[arg(long, required_unless_present = "reapply")]
        before: Option<String>,
        #[arg(long, conflicts_with_all = ["program", "before"])]
        reapply: bool,
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
            Command::Verify { checkpoint } => {
                let url = std::env::var("DATABASE_URL").map_err(|_| anyhow::anyhow!("DATABASE_URL is required"))?;
                let saved =
                    checkpoint.iter().map(|p| verify_chain::read_checkpoint(p)).collect::<Result<Vec<_>, _>>()?;
                match verify::verify(&url, &saved).await? {
                    0 => Ok(()),
                    n => Err(anyhow::anyhow!("{n} verification checks failed")),
                }
            }
            Command::VerifyDraw { file } => verify_draw(&file),
            Command::Reseal => reseal().await,
            Command::Redact { reapply: true, .. } => {
                let url = std::env::var("DATABASE_URL").map_err(|_| anyhow::anyhow!("DATABASE_URL is required"))?;
                let key = verify_erasure::key_from_env()?
                    .ok_or_else(|| anyhow::anyhow!("SIGNUP_BINDING_KEY is required to find erased addresses"))?;
                let pool = crate::db::pool(&url, 1)?;
                let n = crate::usecases::erasure::reapply(&pool, &key).await.map_err(|e| anyhow::anyhow!("{e}"))?;
                println!("erased again {n} entries");
                Ok(())
            }
            Command::Redact { program, before, .. } => {
                let url = std::env::var("DATABASE_URL").map_err(|_| anyhow::anyhow!("DATABASE_URL is required"))?;
                let (Some(program), Some(before)) = (program, before) else {
                    anyhow::bail!("--program and --before are required");
                };
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

/// `vestibule verify-draw FILE`: one line per finding, failure when any.
fn verify_draw(file: &std::path::Path) -> anyhow::Result<()> {
    use anyhow::Context as _;
    let text = std::fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
    let record: shared::trust::DrawRecord =
        serde_json::from_str(&text).with_context(|| format!("{} is not a draw record", file.display()))?;
    let problems = crate::draw::verify(&record);
    for p in &problems {
        println!("FAIL  {p}");
    }
    if !problems.is_empty() {
        anyhow::bail!("draw {} does not verify", record.draw_id);
    }
    let over = match &record.filter {
        Some(filter) => format!("{}, filter committed", filter.describe()),
        None => "every waiting entry (format 1, before filters)".to_owned(),
    };
    match record.seed {
        Some(_) => println!(
            "ok    draw {} over {over}: seed matches its commitment, {} tickets match their hash, {} drawn as recomputed",
            record.draw_id,
            record.tickets.len(),
            record.drawn.len()
        ),
        None => println!("ok    draw {} (open) over {over}: {} tickets match their hash", record.draw_id, record.tickets.len()),
    }
    Ok(())
}

/// `vestibule reseal`: one line per kind of secret, failure when one could not be opened.
async fn reseal() -> anyhow::Result<()> {
    use crate::db::sealed::SealedKind;
    let url = std::env::var("DATABASE_URL").map_err(|_| anyhow::anyhow!("DATABASE_URL is required"))?;
    let keys = std::env::var("SECRETS_KEYS").map_err(|_| anyhow::anyhow!("SECRETS_KEYS is required"))?;
    let keys = crate::secrets::SecretsKeys::parse(&keys).map_err(|e| anyhow::anyhow!("{e}"))?;
    let binding = verify_erasure::key_from_env()?;
    let keyring = crate::secrets::Keyring::new(keys, binding.as_deref());
    let kid = keyring.sealing_kid().unwrap_or_default().to_owned();
    let pool = crate::db::pool(&url, 1)?;
    let report = crate::usecases::sealed::reseal(&pool, &keyring).await?;
    for (kind, c) in &report.kinds {
        let name = match kind {
            SealedKind::Webhook => "webhook secrets",
            SealedKind::WebhookPrevious => "previous webhook secrets (still signing)",
            SealedKind::Hook => "admission hook secrets",
        };
        println!(
            "{name}: {} resealed under {kid}, {} already under it, {} unreadable, {} changed meanwhile",
            c.resealed, c.current, c.unreadable, c.changed
        );
    }
    println!("expired previous webhook secrets dropped: {}", report.expired_dropped);
    match report.unreadable() {
        0 => Ok(()),
        n if binding.is_none() => anyhow::bail!(
            "{n} secrets open under no key of SECRETS_KEYS; those sealed before the keyring need SIGNUP_BINDING_KEY"
        ),
        n => anyhow::bail!("{n} secrets open under no key of SECRETS_KEYS nor SIGNUP_BINDING_KEY"),
    }
}

async fn serve() -> anyhow::Result<()> {
    let settings = Settings::from_env()?;
    let app = crate::startup::Application::build(settings).await?;
    tracing::info!(port = app.port(), metrics_port = ?app.metrics_port(), "vestibule listening");
    app.run().await?;
    Ok(())
}
