//! The files in `deploy/` that no other test starts: the systemd unit (checked with
//! systemd's own analyzer) and the example environment against the README.

use crate::harness::instance::{deploy_dir, example_env};
use crate::support::process::workspace_bin;
use std::process::Command;

/// The unit with `ExecStart` pointing at this build's binary, in a scratch directory.
fn unit_copy() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("vestibule-unit-{}", uuid::Uuid::new_v4().simple()));
    std::fs::create_dir_all(&dir).unwrap();
    let unit = std::fs::read_to_string(deploy_dir().join("systemd/vestibule@.service")).unwrap();
    assert!(unit.contains("ExecStart=/usr/local/bin/vestibule serve"));
    let unit = unit.replace("/usr/local/bin/vestibule", workspace_bin("vestibule").to_str().unwrap());
    std::fs::write(dir.join("vestibule@.service"), unit).unwrap();
    dir
}

#[test]
fn the_systemd_unit_verifies_keeps_its_hardening_and_outlasts_the_graceful_shutdown() {
    let dir = unit_copy();
    let out = Command::new("systemd-analyze")
        .current_dir(&dir)
        .args(["verify", "--man=no", "./vestibule@8080.service"])
        .output()
        .expect("systemd-analyze runs (scripts/lib.sh ensure_deploy_tools installs systemd)");
    let said = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success() && said.trim().is_empty(), "systemd-analyze verify:\n{said}");

    // systemd's exposure score (0 = locked down, 10 = none): the unit must stay below 2.
    let out = Command::new("systemd-analyze")
        .current_dir(&dir)
        .args(["security", "--offline=true", "--threshold=20", "./vestibule@.service"])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "systemd-analyze security:\n{said}");

    // systemd waits TimeoutStopSec before SIGKILL: longer than the server's own bounds.
    let unit = std::fs::read_to_string(dir.join("vestibule@.service")).unwrap();
    let stop: u64 = unit.lines().find_map(|l| l.strip_prefix("TimeoutStopSec=")).unwrap().parse().unwrap();
    let needed = api::shutdown::DRAIN_TIMEOUT + api::shutdown::WORKER_TIMEOUT;
    assert!(stop > needed.as_secs(), "TimeoutStopSec={stop} does not cover {needed:?}");
    for line in ["User=vestibule", "NoNewPrivileges=yes", "ProtectSystem=strict", "KillSignal=SIGTERM"] {
        assert!(unit.lines().any(|l| l == line), "the unit lost {line}");
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn the_example_environment_names_only_documented_variables_and_leaves_out_what_the_unit_sets() {
    let readme =
        std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md")).unwrap();
    let env = example_env();
    for (key, _) in &env {
        let documented = readme.lines().any(|l| l.starts_with("| `") && l.contains(&format!("`{key}`")));
        assert!(documented, "{key} is not in the README's configuration table");
        assert!(!["BIND_ADDR", "METRICS_ADDR", "STATIC_DIR"].contains(&key.as_str()), "{key} belongs to the unit");
    }
    let value = |k: &str| env.iter().find(|(key, _)| key == k).map(|(_, v)| v.as_str());
    assert_eq!(value("APP_ENV"), Some("production"));
    assert_eq!(value("TRUSTED_PROXIES"), Some("127.0.0.1"));
    assert!(value("DATABASE_URL").unwrap().contains("target_session_attrs=read-write"));
}
