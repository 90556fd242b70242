//! Debian's nginx running `deploy/nginx/vestibule.conf` in the foreground, from a
//! temporary prefix, on free loopback ports: never the system service. The site file is
//! used as shipped, with only its ports, upstream addresses and certificate paths
//! replaced (each replacement must match, so the file and the test cannot drift apart).
//! TLS uses a throwaway CA and a certificate for the site's name, made with openssl.

use super::instance::{deploy_dir, free_port};
use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The site's name in `deploy/nginx/vestibule.conf`.
pub const SITE: &str = "waitlist.example.com";

pub struct Nginx {
    dir: PathBuf,
    pub https_port: u16,
    pub http_port: u16,
    ca: reqwest::Certificate,
    child: tokio::process::Child,
}

fn nginx_bin() -> PathBuf {
    ["/usr/sbin/nginx", "/usr/bin/nginx"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.exists())
        .expect("nginx is installed (scripts/test installs it: scripts/lib.sh ensure_deploy_tools)")
}

fn run(cmd: &mut Command) {
    let out = cmd.output().expect("command runs");
    assert!(out.status.success(), "{cmd:?}: {}", String::from_utf8_lossy(&out.stderr));
}

/// A CA and a server certificate for [`SITE`] signed by it.
fn certificates(dir: &Path) {
    let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
    run(Command::new("openssl")
        .current_dir(dir)
        .args(["req", "-x509"])
        .args(ec)
        .args(["-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=Vestibule test CA"])
        .args(["-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign"]));
    run(Command::new("openssl").current_dir(dir).args(["req"]).args(ec).args([
        "-keyout",
        "privkey.pem",
        "-out",
        "site.csr",
        "-subj",
        &format!("/CN={SITE}"),
    ]));
    std::fs::write(
        dir.join("site.ext"),
        format!("subjectAltName=DNS:{SITE}\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n"),
    )
    .unwrap();
    run(Command::new("openssl").current_dir(dir).args([
        "x509",
        "-req",
        "-in",
        "site.csr",
        "-CA",
        "ca.pem",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-days",
        "2",
        "-extfile",
        "site.ext",
        "-out",
        "fullchain.pem",
    ]));
}

/// Replaces `from` by `to` in `text`, insisting that `from` occurs `times` times.
fn replace(text: &str, from: &str, to: &str, times: usize) -> String {
    assert_eq!(text.matches(from).count(), times, "deploy/nginx/vestibule.conf no longer has `{from}` {times}×");
    text.replace(from, to)
}

impl Nginx {
    /// nginx with the shipped site in front of the instances on `upstream_ports` (loopback).
    pub async fn start(upstream_ports: [u16; 2]) -> Nginx {
        let dir = std::env::temp_dir().join(format!("vestibule-nginx-{}", uuid::Uuid::new_v4().simple()));
        std::fs::create_dir_all(dir.join("tmp")).unwrap();
        certificates(&dir);
        let (https_port, http_port) = (free_port(), free_port());
        let site = std::fs::read_to_string(deploy_dir().join("nginx/vestibule.conf")).unwrap();
        let site = replace(&site, "server 127.0.0.1:8080;", &format!("server 127.0.0.1:{};", upstream_ports[0]), 1);
        let site = replace(&site, "server 127.0.0.1:8081;", &format!("server 127.0.0.1:{};", upstream_ports[1]), 1);
        let site = replace(&site, "listen 80;", &format!("listen 127.0.0.1:{http_port};"), 1);
        let site = replace(&site, "listen [::]:80;", "", 1);
        let site = replace(&site, "listen 443 ssl http2;", &format!("listen 127.0.0.1:{https_port} ssl http2;"), 1);
        let site = replace(&site, "listen [::]:443 ssl http2;", "", 1);
        let live = format!("/etc/letsencrypt/live/{SITE}/");
        let site = replace(&site, &live, &format!("{}/", dir.display()), 2);
        std::fs::write(dir.join("vestibule.conf"), site).unwrap();
        let d = dir.display();
        let main = format!(
            "daemon off;\nmaster_process on;\nworker_processes 1;\npid {d}/nginx.pid;\nerror_log {d}/error.log warn;\n\
             events {{ worker_connections 256; }}\n\
             http {{\n\
               log_format upstream '$remote_addr \"$http_x_forwarded_for\" $status $upstream_addr';\n\
               access_log {d}/access.log upstream;\n\
               client_body_temp_path {d}/tmp/body; proxy_temp_path {d}/tmp/proxy; fastcgi_temp_path {d}/tmp/fastcgi;\n\
               uwsgi_temp_path {d}/tmp/uwsgi; scgi_temp_path {d}/tmp/scgi;\n\
               include {d}/vestibule.conf;\n\
             }}\n"
        );
        std::fs::write(dir.join("nginx.conf"), main).unwrap();
        let conf = dir.join("nginx.conf");
        let child = tokio::process::Command::new(nginx_bin())
            .arg("-p")
            .arg(&dir)
            .arg("-c")
            .arg(&conf)
            .args(["-e", "stderr"])
            .stdout(Stdio::null())
            .stderr(Stdio::from(std::fs::File::create(dir.join("stderr.log")).unwrap()))
            .spawn()
            .expect("nginx starts");
        let ca = reqwest::Certificate::from_pem(&std::fs::read(dir.join("ca.pem")).unwrap()).unwrap();
        let mut nginx = Nginx { dir, https_port, http_port, ca, child };
        let deadline = Instant::now() + Duration::from_secs(10);
        while tokio::net::TcpStream::connect(("127.0.0.1", https_port)).await.is_err() {
            if let Ok(Some(status)) = nginx.child.try_wait() {
                panic!("nginx exited ({status}): {}", nginx.errors());
            }
            assert!(Instant::now() < deadline, "nginx did not listen: {}", nginx.errors());
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        nginx
    }

    /// Takes the instance on `port` out of the upstream (`down`) and reloads nginx, as the
    /// runbook's rolling restart does before stopping an instance; returns once the last
    /// 30 requests went elsewhere (needs traffic).
    pub async fn take_out(&self, port: u16) {
        self.edit_and_reload(&format!("server 127.0.0.1:{port};"), &format!("server 127.0.0.1:{port} down;"));
        self.wait_for_recent(port, false).await;
    }

    /// Puts it back; returns once requests reach it again.
    pub async fn put_back(&self, port: u16) {
        self.edit_and_reload(&format!("server 127.0.0.1:{port} down;"), &format!("server 127.0.0.1:{port};"));
        self.wait_for_recent(port, true).await;
    }

    fn edit_and_reload(&self, from: &str, to: &str) {
        let site = self.dir.join("vestibule.conf");
        let text = replace(&std::fs::read_to_string(&site).unwrap(), from, to, 1);
        std::fs::write(&site, text).unwrap();
        let conf = self.dir.join("nginx.conf");
        run(Command::new(nginx_bin()).arg("-p").arg(&self.dir).arg("-c").arg(conf).args(["-s", "reload"]));
    }

    /// Waits until the last 30 requests in the access log include (or avoid) `port`.
    async fn wait_for_recent(&self, port: u16, included: bool) {
        let instance = format!("127.0.0.1:{port}");
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let log = self.access_log();
            let recent: Vec<&str> = log.lines().rev().take(30).collect();
            if recent.len() == 30 && recent.iter().any(|l| l.contains(&instance)) == included {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "nginx never {} {instance}:\n{log}",
                if included { "used" } else { "avoided" }
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// A client that reaches the site by its name over TLS (trusting the test CA) from the
    /// loopback source address `from` (127.0.0.2, 127.0.0.3…: distinct clients).
    pub fn client(&self, from: &str) -> reqwest::Client {
        let from: IpAddr = from.parse().unwrap();
        reqwest::Client::builder()
            .add_root_certificate(self.ca.clone())
            .resolve(SITE, SocketAddr::from(([127, 0, 0, 1], self.https_port)))
            .local_address(from)
            .redirect(reqwest::redirect::Policy::none())
            .timeout(Duration::from_secs(30))
            .build()
            .unwrap()
    }

    /// `https://waitlist.example.com:PORT`
    pub fn origin(&self) -> String {
        format!("https://{SITE}:{}", self.https_port)
    }

    /// The access log: one line per request, `client "x-forwarded-for" status upstream`.
    pub fn access_log(&self) -> String {
        std::fs::read_to_string(self.dir.join("access.log")).unwrap_or_default()
    }

    pub fn errors(&self) -> String {
        let log = std::fs::read_to_string(self.dir.join("error.log")).unwrap_or_default();
        let stderr = std::fs::read_to_string(self.dir.join("stderr.log")).unwrap_or_default();
        format!("{stderr}{log}")
    }
}

impl Drop for Nginx {
    /// SIGTERM to the master, which stops its workers (a SIGKILL would orphan them).
    fn drop(&mut self) {
        if let Some(pid) = self.child.id().and_then(|p| i32::try_from(p).ok()) {
            let _ = nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), nix::sys::signal::Signal::SIGTERM);
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
