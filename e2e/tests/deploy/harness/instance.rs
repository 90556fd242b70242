//! A `vestibule serve` process started the way `deploy/` starts one in production: the
//! binary alone, run from an empty directory (the SPA must come from inside it), with
//! an environment read from `deploy/vestibule.env.example` and `BIND_ADDR` set as the
//! systemd unit sets it. The test replaces only what cannot be real here: the secrets
//! marked `CHANGE-ME` and the database hosts of `DATABASE_URL`.

use crate::support::process::workspace_bin;
use std::path::PathBuf;
use std::process::Stdio;
use std::time::{Duration, Instant};
use tokio::process::{Child, Command};

/// The repository's `deploy/` directory.
pub fn deploy_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../deploy")
}

/// `KEY=VALUE` lines of the example environment file, in order.
pub fn example_env() -> Vec<(String, String)> {
    let text = std::fs::read_to_string(deploy_dir().join("vestibule.env.example")).unwrap();
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (k, v) = l.split_once('=').unwrap_or_else(|| panic!("not KEY=VALUE: {l}"));
            (k.to_owned(), v.to_owned())
        })
        .collect()
}

/// The example's `DATABASE_URL` with its user, password, hosts and database replaced by
/// `server` (e.g. `postgres://u:p@127.0.0.1:5001,127.0.0.1:5002/db`); its parameters stay.
pub fn database_url(server: &str) -> String {
    let example = example_env().into_iter().find(|(k, _)| k == "DATABASE_URL").unwrap().1;
    let (_, query) = example.split_once('?').expect("the example DATABASE_URL has parameters");
    format!("{server}?{query}")
}

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

pub struct Instance {
    /// `http://127.0.0.1:PORT`, whatever address the instance binds.
    pub base: String,
    log: PathBuf,
    workdir: PathBuf,
    child: Child,
}

impl Instance {
    /// Starts an instance bound to `bind` (`127.0.0.1:{port}` or `[::ffff:127.0.0.1]:{port}`;
    /// the port must be `port`) on the database `server` (see [`database_url`]), with
    /// `overrides` applied last.
    pub async fn start(bind: &str, port: u16, server: &str, overrides: &[(&str, &str)]) -> Instance {
        let workdir = std::env::temp_dir().join(format!("vestibule-instance-{}", uuid::Uuid::new_v4().simple()));
        std::fs::create_dir_all(&workdir).unwrap();
        let log = workdir.join("output.log");
        let file = std::fs::File::create(&log).unwrap();
        let mut cmd = Command::new(workspace_bin("vestibule"));
        cmd.arg("serve").current_dir(&workdir).env_clear();
        for (key, value) in example_env() {
            let value = match key.as_str() {
                "DATABASE_URL" => database_url(server),
                "SIGNUP_BINDING_KEY" => "01".repeat(32),
                "CSRF_KEY" => "02".repeat(32),
                "SECRETS_KEYS" => "deploy1:BAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQ=".to_owned(),
                "CLERK_SECRET_KEY" => format!("sk_live_{}", "0".repeat(40)),
                "CLERK_PUBLISHABLE_KEY" => "pk_live_deploy_test".to_owned(),
                _ => {
                    assert!(!value.contains("CHANGE-ME"), "{key} is a secret the test does not fill");
                    value
                }
            };
            cmd.env(key, value);
        }
        cmd.env("BIND_ADDR", bind);
        for (k, v) in overrides {
            cmd.env(k, v);
        }
        cmd.stdout(Stdio::from(file.try_clone().unwrap())).stderr(Stdio::from(file)).kill_on_drop(true);
        let child = cmd.spawn().expect("vestibule starts");
        let base = format!("http://127.0.0.1:{port}");
        let mut instance = Instance { base, log, workdir, child };
        instance.wait_healthy().await;
        instance
    }

    async fn wait_healthy(&mut self) {
        let http = reqwest::Client::new();
        let deadline = Instant::now() + Duration::from_secs(30);
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!("vestibule exited ({status}) at start:\n{}", self.output());
            }
            if http.get(format!("{}/healthz", self.base)).send().await.is_ok_and(|r| r.status().is_success()) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("vestibule did not answer /healthz:\n{}", self.output());
    }

    pub fn pid(&self) -> i32 {
        i32::try_from(self.child.id().expect("still running")).unwrap()
    }

    pub fn terminate(&self) {
        use nix::sys::signal::{kill, Signal};
        kill(nix::unistd::Pid::from_raw(self.pid()), Signal::SIGTERM).expect("SIGTERM sent");
    }

    pub fn is_running(&mut self) -> bool {
        self.child.try_wait().unwrap().is_none()
    }

    /// Waits for the process to exit; `None` if it is still running at `bound`.
    pub async fn wait_exit(&mut self, bound: Duration) -> Option<std::process::ExitStatus> {
        tokio::time::timeout(bound, self.child.wait()).await.ok().map(|r| r.unwrap())
    }

    pub fn output(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.workdir);
    }
}
