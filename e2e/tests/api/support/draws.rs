//! Lottery draws as typed steps (issue 29): open, read, run and cancel as an owner; the
//! public list and record; and the two offline verifiers — `vestibule verify-draw` and
//! `python3 tools/verify_draw.py` — run on a record written to a file.

use super::process;
use super::{Owner, Reply, TestApp};
use crate::common::drand::LocalChain;
use serde::Serialize;
use serde_json::json;
use shared::draws::{BeaconDrawRecord, PublicDraw};
use std::time::Duration;
use uuid::Uuid;

impl Owner {
    pub fn draws_path(program: Uuid) -> String {
        format!("/api/owner/programs/{program}/draws")
    }

    pub async fn try_open_draw(&self, program: Uuid, body: &serde_json::Value) -> Reply {
        self.post(&Self::draws_path(program), body).await
    }

    /// Opens a draw of `winners` over every waiting entry, closing at once.
    pub async fn open_draw(&self, program: Uuid, winners: i32) -> BeaconDrawRecord {
        self.try_open_draw(program, &json!({"winners": winners})).await.expect(201)
    }

    pub async fn draw(&self, program: Uuid, draw: Uuid) -> BeaconDrawRecord {
        self.get(&format!("{}/{draw}", Self::draws_path(program))).await.expect(200)
    }

    pub async fn try_run_draw(&self, program: Uuid, draw: Uuid, body: &serde_json::Value) -> Reply {
        self.post(&format!("{}/{draw}/run", Self::draws_path(program)), body).await
    }

    /// `POST …/run` without a body (the relay's beacon).
    pub async fn try_run_draw_bare(&self, program: Uuid, draw: Uuid) -> Reply {
        let path = format!("{}/{draw}/run", Self::draws_path(program));
        let request = self.app.request(reqwest::Method::POST, &path, Some(&self.user));
        Reply::from(request.send().await.expect("request sent")).await
    }

    /// Runs a closed draw with its round's signature from `chain`, once the round is due.
    pub async fn run_draw_on(&self, program: Uuid, record: &BeaconDrawRecord, chain: &LocalChain) -> BeaconDrawRecord {
        until(&record.beacon.round_at).await;
        let round = record.beacon.round;
        let body = json!({"beacon": {"round": round, "signature": chain.sign_hex(round)}});
        self.try_run_draw(program, record.draw_id, &body).await.expect(200)
    }

    pub async fn try_cancel_draw(&self, program: Uuid, draw: Uuid, reason: &str) -> Reply {
        self.post(&format!("{}/{draw}/cancel", Self::draws_path(program)), &json!({"reasonCode": reason})).await
    }
}

impl TestApp {
    pub async fn public_draws(&self, slug: &str) -> Vec<PublicDraw> {
        self.get(&format!("/api/public/programs/{slug}/draws"), None).await.expect(200)
    }

    pub async fn public_draw(&self, slug: &str, draw: Uuid) -> BeaconDrawRecord {
        self.get(&format!("/api/public/programs/{slug}/draws/{draw}"), None).await.expect(200)
    }
}

/// Sleeps until the RFC 3339 instant `at` has passed (on this machine's clock, which the
/// database shares).
pub async fn until(at: &str) {
    let at = chrono::DateTime::parse_from_rfc3339(at).expect("an RFC 3339 time").to_utc();
    let left = (at - chrono::Utc::now()).to_std().unwrap_or_default();
    tokio::time::sleep(left + Duration::from_millis(50)).await;
}

fn write(record: &impl Serialize) -> std::path::PathBuf {
    let path = std::env::temp_dir().join(format!("draw-{}.json", Uuid::new_v4().simple()));
    std::fs::write(&path, serde_json::to_string_pretty(record).unwrap()).unwrap();
    path
}

fn outcome(out: std::process::Output) -> (bool, String) {
    (out.status.success(), format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)))
}

/// `vestibule verify-draw FILE`: (verified, everything it printed).
pub async fn verify_draw(record: &impl Serialize) -> (bool, String) {
    let path = write(record);
    let out = tokio::process::Command::new(process::workspace_bin("vestibule"))
        .arg("verify-draw")
        .arg(&path)
        .output()
        .await
        .expect("vestibule runs");
    let _ = std::fs::remove_file(path);
    outcome(out)
}

/// `python3 tools/verify_draw.py FILE [extra…]`: (verified, everything it printed).
/// Waited for asynchronously, so a relay served by this test keeps answering.
pub async fn verify_draw_py(record: &impl Serialize, extra: &[&str]) -> (bool, String) {
    let path = write(record);
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tools/verify_draw.py");
    let out = tokio::process::Command::new("python3")
        .arg(script)
        .arg(&path)
        .args(extra)
        .output()
        .await
        .expect("python3 runs");
    let _ = std::fs::remove_file(path);
    outcome(out)
}

/// The `winner N TICKET` lines both verifiers print.
pub fn winner_lines(out: &str) -> Vec<String> {
    out.lines().filter(|l| l.starts_with("winner ")).map(str::to_owned).collect()
}
