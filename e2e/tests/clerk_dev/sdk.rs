//! Fidelity: Clerk's official Backend SDK (`@clerk/backend`, pinned in the root
//! package.json and installed by `npm ci`, which `scripts/test` runs) drives a real
//! clerk-dev through `e2e/sdk/clerk-backend.mjs`. A missing Node.js or SDK fails the test
//! with what to do; it never skips.

use std::path::PathBuf;
use std::process::Stdio;

use tokio::process::Command;

use crate::support::{ClerkDev, SECRET};

/// The number of steps the script runs; a script that stops early cannot pass.
const STEPS: usize = 18;

#[tokio::test]
async fn clerks_backend_sdk_works_against_clerk_dev() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().expect("repository root").to_owned();
    let installed = root.join("node_modules/@clerk/backend/package.json");
    assert!(
        installed.exists(),
        "@clerk/backend is not installed: run `npm ci` at the repository root ({} is missing)",
        installed.display()
    );
    let clerk = ClerkDev::start().await;
    let output = Command::new("node")
        .arg(root.join("e2e/sdk/clerk-backend.mjs"))
        .current_dir(&root)
        .env("CLERK_DEV_URL", &clerk.url)
        .env("CLERK_DEV_SECRET", SECRET)
        .stdin(Stdio::null())
        .output()
        .await
        .unwrap_or_else(|e| panic!("cannot run `node` ({e}): this test needs Node.js >= 20.9 on PATH"));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "the SDK script failed ({}):\n{stdout}\n{stderr}", output.status);
    assert!(
        stdout.lines().any(|line| line == format!("clerk-backend: all {STEPS} steps passed")),
        "expected all {STEPS} steps to pass:\n{stdout}\n{stderr}"
    );
}
