//! The API as a separate `vestibule serve` process, for what an in-process server
//! cannot show: SIGKILL mid-load, restarts, several instances on one database, and
//! everything the process prints (captured to a file for the log scan).

use super::{ClerkDev, ORIGIN};
use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;
use tokio::process::{Child, Command};

/// A binary of this workspace built next to clerk-dev (`cargo build --bins`).
pub fn workspace_bin(name: &str) -> PathBuf {
    let path = std::path::Path::new(env!("CARGO_BIN_EXE_clerk-dev")).with_file_name(name);
    assert!(path.exists(), "{} is missing: run `cargo build --bins` first (scripts/test does)", path.display());
    path
}

/// Runs the `vestibule` CLI against `db_url`, with `env` besides, and waits for it.
pub fn vestibule(db_url: &str, args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    std::process::Command::new(workspace_bin("vestibule"))
        .args(args)
        .env("DATABASE_URL", db_url)
        .envs(env.iter().copied())
        .output()
        .expect("vestibule runs")
}

pub struct ApiProcess {
    pub base: String,
    pub log: PathBuf,
    child: Child,
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

impl ApiProcess {
    /// Starts `vestibule serve` on a free loopback port with the test settings, on the
    /// database whose owner's URL is `db_url`: migrated as the owner first, then served
    /// by the app login (`db::prepare`), as in production.
    pub async fn start(db_url: &str, clerk: &ClerkDev, extra_env: &[(&str, &str)]) -> ApiProcess {
        let db_url = &super::db::prepare(db_url).await;
        let port = free_port();
        let log = std::env::temp_dir().join(format!("vestibule-{}.log", uuid::Uuid::new_v4().simple()));
        let file = std::fs::File::create(&log).unwrap();
        let mut cmd = Command::new(workspace_bin("vestibule"));
        cmd.arg("serve")
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("DATABASE_URL", db_url)
            .env("BIND_ADDR", format!("127.0.0.1:{port}"))
            .env("APP_ENV", "development")
            .env("APP_ORIGINS", ORIGIN)
            .env("SIGNUP_BINDING_KEY", "01".repeat(32))
            .env("CSRF_KEY", "02".repeat(32))
            .env("SECRETS_KEYS", crate::common::SECRETS_KEYS)
            .env("CLERK_SECRET_KEY", &clerk.secret)
            .env("CLERK_API_URL", &clerk.url)
            .env("IDENTITY_DEV_URL", &clerk.url)
            .env("SIGNUP_RATE_PER_MINUTE", "100000")
            .env("RUST_LOG", "debug")
            .stdout(Stdio::from(file.try_clone().unwrap()))
            .stderr(Stdio::from(file))
            .kill_on_drop(true);
        for (k, v) in extra_env {
            cmd.env(k, v);
        }
        let child = cmd.spawn().expect("vestibule starts");
        let base = format!("http://127.0.0.1:{port}");
        let http = reqwest::Client::new();
        let what = format!("vestibule answers /healthz (log: {})", log.display());
        super::eventually(&what, Duration::from_secs(10), || async {
            http.get(format!("{base}/healthz")).send().await.is_ok_and(|r| r.status().is_success()).then_some(())
        })
        .await;
        ApiProcess { base, log, child }
    }

    /// The process id (for /proc).
    pub fn pid(&self) -> u32 {
        self.child.id().expect("vestibule is running")
    }

    /// SIGKILL: no shutdown, no flush, no goodbye.
    pub async fn kill(&mut self) {
        self.child.kill().await.unwrap();
    }

    pub fn output(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}
