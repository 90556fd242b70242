//! A PostgreSQL primary and its synchronous standby, set up the way the README's
//! "Production" runbook says: both nodes include `deploy/postgresql/vestibule.conf`, the
//! roles and database come from `deploy/sql/roles.sql`, the owner migrates, the standby is
//! a `pg_basebackup -R` of the primary reporting as `vestibule_standby`, and only then
//! does the primary name it in `synchronous_standby_names`. Two clusters under a temp
//! directory on free loopback ports, run as `postgres` when the tests run as root. The
//! node-specific settings (port, socket directory, `cluster_name`) go on the command line;
//! `fsync` is off because no test crashes the machine, only the server.

use super::instance::{deploy_dir, free_port};
use crate::support::pg::{as_postgres, pg_bin};
use crate::support::process::workspace_bin;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

pub const OWNER_PASSWORD: &str = "owner-secret";
pub const APP_PASSWORD: &str = "app-secret";
pub const BACKUP_PASSWORD: &str = "backup-secret";
pub const REPLICA_PASSWORD: &str = "replica-secret";

pub struct Node {
    pub dir: PathBuf,
    pub port: u16,
    name: &'static str,
}

pub struct Pair {
    pub primary: Node,
    pub standby: Node,
    root: PathBuf,
    bin: PathBuf,
}

fn check(what: &str, out: std::process::Output) -> String {
    assert!(
        out.status.success(),
        "{what}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

impl Node {
    /// `postgres://USER:PASSWORD@127.0.0.1:PORT/DB`
    pub fn url(&self, user: &str, password: &str, db: &str) -> String {
        format!("postgres://{user}:{password}@127.0.0.1:{}/{db}", self.port)
    }

    pub fn superuser_url(&self, db: &str) -> String {
        format!("postgres://postgres@127.0.0.1:{}/{db}", self.port)
    }

    /// Runs SQL as the superuser through psql; returns its unaligned output.
    pub fn psql(&self, db: &str, args: &[&str]) -> String {
        let out = Command::new("psql")
            .args(["-X", "-qAt", "-v", "ON_ERROR_STOP=1", "-d", &self.superuser_url(db)])
            .args(args)
            .output()
            .expect("psql runs");
        check(&format!("psql on {}", self.name), out)
    }
}

impl Pair {
    pub fn start() -> Pair {
        let bin = pg_bin();
        let root = std::env::temp_dir().join(format!("vestibule-replication-{}", uuid::Uuid::new_v4().simple()));
        std::fs::create_dir_all(&root).unwrap();
        let _ = Command::new("chown").arg("postgres").arg(&root).status();
        let primary = Node { dir: root.join("primary"), port: free_port(), name: "primary" };
        let standby = Node { dir: root.join("standby"), port: free_port(), name: "standby" };
        let pair = Pair { primary, standby, root, bin };

        let p = &pair.primary;
        check(
            "initdb",
            as_postgres(&pair.bin.join("initdb"), &["-D", p.dir.to_str().unwrap(), "-U", "postgres", "-A", "trust"]),
        );
        let conf = std::fs::read_to_string(deploy_dir().join("postgresql/vestibule.conf")).unwrap();
        std::fs::write(p.dir.join("vestibule.conf"), conf).unwrap();
        let mut main = std::fs::read_to_string(p.dir.join("postgresql.conf")).unwrap();
        main.push_str("\ninclude 'vestibule.conf'\n");
        std::fs::write(p.dir.join("postgresql.conf"), main).unwrap();
        let _ = Command::new("chown").args(["-R", "postgres"]).arg(&p.dir).status();
        pair.pg_ctl(p, "start", &[]);

        // The runbook's install: roles and database, the owner migrates, CREATEROLE goes.
        let roles = deploy_dir().join("sql/roles.sql");
        p.psql(
            "postgres",
            &[
                "-v",
                &format!("owner_password={OWNER_PASSWORD}"),
                "-v",
                &format!("app_password={APP_PASSWORD}"),
                "-v",
                &format!("backup_password={BACKUP_PASSWORD}"),
                "-v",
                &format!("replica_password={REPLICA_PASSWORD}"),
                "-f",
                roles.to_str().unwrap(),
            ],
        );
        let out = Command::new(workspace_bin("vestibule"))
            .arg("migrate")
            .env_clear()
            .env("DATABASE_URL", p.url("vestibule_owner", OWNER_PASSWORD, "vestibule"))
            .output()
            .expect("vestibule migrate runs");
        check("vestibule migrate as vestibule_owner", out);
        p.psql("postgres", &["-f", deploy_dir().join("sql/after-first-migrate.sql").to_str().unwrap()]);

        // The standby: a base backup that follows the primary, then made synchronous.
        let s = &pair.standby;
        check(
            "pg_basebackup",
            as_postgres(
                &pair.bin.join("pg_basebackup"),
                &[
                    "-d",
                    &format!("host=127.0.0.1 port={} user=vestibule_replica password={REPLICA_PASSWORD}", p.port),
                    "-D",
                    s.dir.to_str().unwrap(),
                    "-R",
                    "-X",
                    "stream",
                    "-c",
                    "fast",
                ],
            ),
        );
        pair.pg_ctl(s, "start", &["-c", "cluster_name=vestibule_standby"]);
        pair.wait_for(p, "SELECT count(*) FROM pg_stat_replication WHERE application_name = 'vestibule_standby' AND state = 'streaming'");
        p.psql(
            "postgres",
            &[
                "-c",
                "ALTER SYSTEM SET synchronous_standby_names = 'FIRST 1 (vestibule_standby)'",
                "-c",
                "SELECT pg_reload_conf()",
            ],
        );
        pair.wait_for(p, "SELECT count(*) FROM pg_stat_replication WHERE application_name = 'vestibule_standby' AND sync_state = 'sync'");
        pair
    }

    fn pg_ctl(&self, node: &Node, action: &str, extra: &[&str]) {
        let mut opts = format!("-p {} -k {} -c listen_addresses=127.0.0.1 -c fsync=off", node.port, node.dir.display());
        for e in extra {
            opts.push(' ');
            opts.push_str(e);
        }
        let log = node.dir.with_extension("log");
        let dir = node.dir.to_str().unwrap();
        let args = ["-D", dir, "-l", log.to_str().unwrap(), "-o", &opts, "-w", "-t", "60", action];
        check(&format!("pg_ctl {action} ({})", node.name), as_postgres(&self.bin.join("pg_ctl"), &args));
    }

    /// Waits until `query` (a count) on `node` answers at least 1.
    fn wait_for(&self, node: &Node, query: &str) {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if node.psql("postgres", &["-c", query]).trim().parse::<i64>().unwrap_or(0) >= 1 {
                return;
            }
            assert!(Instant::now() < deadline, "{} never answered: {query}", node.name);
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// The primary dies at once: no checkpoint, no goodbye to its clients.
    pub fn stop_primary_immediately(&self) {
        let dir = self.primary.dir.to_str().unwrap();
        check(
            "pg_ctl stop -m immediate",
            as_postgres(&self.bin.join("pg_ctl"), &["-D", dir, "-m", "immediate", "-w", "stop"]),
        );
    }

    /// `pg_ctl promote` on the standby, waiting until it accepts writes.
    pub fn promote_standby(&self) {
        let dir = self.standby.dir.to_str().unwrap();
        check("pg_ctl promote", as_postgres(&self.bin.join("pg_ctl"), &["-D", dir, "-w", "-t", "60", "promote"]));
    }

    pub fn log(&self, node: &Node) -> String {
        std::fs::read_to_string(node.dir.with_extension("log")).unwrap_or_default()
    }

    pub fn root(&self) -> &Path {
        &self.root
    }
}

impl Drop for Pair {
    fn drop(&mut self) {
        for node in [&self.primary, &self.standby] {
            let dir = node.dir.to_str().unwrap();
            let _ = as_postgres(&self.bin.join("pg_ctl"), &["-D", dir, "-m", "immediate", "stop"]);
        }
        let _ = std::fs::remove_dir_all(&self.root);
    }
}
