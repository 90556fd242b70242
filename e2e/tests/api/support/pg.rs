//! A private PostgreSQL cluster for tests that stop and start the database server
//! (the shared server is used by every other test and must never be restarted).

use std::path::PathBuf;
use std::process::Command;

pub struct PrivateCluster {
    pub dir: PathBuf,
    pub port: u16,
    bin: PathBuf,
}

pub fn pg_bin() -> PathBuf {
    let mut versions: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .expect("PostgreSQL server binaries in /usr/lib/postgresql")
        .filter_map(|e| e.ok().map(|e| e.path().join("bin")))
        .filter(|p| p.join("postgres").exists())
        .collect();
    versions.sort();
    versions.pop().expect("a PostgreSQL server version")
}

/// Runs a PostgreSQL tool as the `postgres` user when we are root (initdb refuses root).
pub fn as_postgres(bin: &std::path::Path, args: &[&str]) -> std::process::Output {
    let is_root = Command::new("id").arg("-u").output().map(|o| o.stdout == b"0\n").unwrap_or(false);
    let mut cmd = if is_root {
        let mut c = Command::new("runuser");
        c.args(["-u", "postgres", "--"]).arg(bin);
        c
    } else {
        Command::new(bin)
    };
    cmd.args(args).output().expect("PostgreSQL tool runs")
}

impl PrivateCluster {
    pub fn start() -> PrivateCluster {
        let bin = pg_bin();
        let dir = std::env::temp_dir().join(format!("vestibule-pg-{}", uuid::Uuid::new_v4().simple()));
        std::fs::create_dir_all(&dir).unwrap();
        let _ = Command::new("chown").args(["postgres"]).arg(&dir).status();
        let out = as_postgres(&bin.join("initdb"), &["-D", dir.to_str().unwrap(), "-U", "postgres", "-A", "trust"]);
        assert!(out.status.success(), "initdb: {}", String::from_utf8_lossy(&out.stderr));
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let cluster = PrivateCluster { dir, port, bin };
        cluster.pg_ctl("start", "fast");
        cluster
    }

    fn pg_ctl(&self, action: &str, mode: &str) {
        let opts = format!("-p {} -k /tmp -c listen_addresses=127.0.0.1 -c fsync=off", self.port);
        let log = self.dir.join("server.log");
        let args =
            ["-D", self.dir.to_str().unwrap(), "-l", log.to_str().unwrap(), "-o", &opts, "-w", "-m", mode, action];
        let out = as_postgres(&self.bin.join("pg_ctl"), &args);
        assert!(out.status.success(), "pg_ctl {action}: {}", String::from_utf8_lossy(&out.stderr));
    }

    pub fn stop(&self) {
        self.pg_ctl("stop", "fast");
    }

    /// Stops the server as a crash does (`-m immediate`): what is only in its shared
    /// memory — WAL not yet written out among it — is gone; the next start recovers.
    /// (`fsync` is off: what was written out survives, as a flushed write would.)
    pub fn crash(&self) {
        self.pg_ctl("stop", "immediate");
    }

    pub fn start_again(&self) {
        self.pg_ctl("start", "fast");
    }

    pub fn url(&self, db: &str) -> String {
        format!("postgres://postgres@127.0.0.1:{}/{db}", self.port)
    }
}

impl Drop for PrivateCluster {
    fn drop(&mut self) {
        let _ = as_postgres(&self.bin.join("pg_ctl"), &["-D", self.dir.to_str().unwrap(), "-m", "immediate", "stop"]);
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
