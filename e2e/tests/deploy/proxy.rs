//! Two instances behind Debian's nginx running `deploy/nginx/vestibule.conf` (issue 17
//! item 3, issue 12 item 2). Clients are distinct loopback source addresses (127.0.0.2,
//! 127.0.0.3, …) reaching the site by name over TLS. nginx connects to both instances
//! from 127.0.0.1 (`TRUSTED_PROXIES`); instance A listens on an IPv6 socket bound to
//! `::ffff:127.0.0.1`, so it sees the proxy as `::ffff:127.0.0.1` (a dual-stack listener's
//! view of an IPv4 peer), instance B as plain `127.0.0.1`.

use crate::harness::instance::{free_port, Instance};
use crate::harness::load::{Answer, Load};
use crate::harness::nginx::{Nginx, SITE};
use crate::support::Caps;
use crate::support::TestApp;
use std::collections::HashSet;
use std::time::Duration;
use uuid::Uuid;

struct Stack {
    app: TestApp,
    instances: [Instance; 2],
    ports: [u16; 2],
    nginx: Nginx,
}

/// A program `slug` with `caps`, two production instances on its database with
/// `overrides`, and nginx in front of them.
async fn stack(slug: &str, caps: Caps, overrides: &[(&str, &str)]) -> Stack {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    owner.program_with(ws, slug, caps).await;
    let (pa, pb) = (free_port(), free_port());
    let a = Instance::start(&format!("[::ffff:127.0.0.1]:{pa}"), pa, &app.db_url, overrides).await;
    let b = Instance::start(&format!("127.0.0.1:{pb}"), pb, &app.db_url, overrides).await;
    let nginx = Nginx::start([pa, pb]).await;
    Stack { app, instances: [a, b], ports: [pa, pb], nginx }
}

impl Stack {
    /// A signup for `email` sent from the loopback address `from` through nginx, with an
    /// `X-Forwarded-For` of the client's choosing.
    async fn signup(&self, slug: &str, from: &str, email: &str, forged: Option<&str>) -> u16 {
        let http = self.nginx.client(from);
        let url = format!("https://{SITE}:{}/api/public/programs/{slug}/signups", self.nginx.https_port);
        let mut rb = http.post(url).header("origin", "https://waitlist.example.com");
        if let Some(xff) = forged {
            rb = rb.header("x-forwarded-for", xff);
        }
        let r = rb.json(&crate::harness::load::body(Uuid::new_v4(), email)).send().await.expect("nginx answers");
        r.status().as_u16()
    }

    /// The upstream addresses nginx used, one per request.
    fn upstreams(&self) -> HashSet<String> {
        self.nginx.access_log().lines().filter_map(|l| l.rsplit(' ').next().map(str::to_owned)).collect()
    }
}

#[tokio::test]
async fn behind_nginx_the_signup_rate_follows_the_real_client_address_and_ignores_forged_forwarded_for() {
    crate::support::clear_of_period_end(60, 20).await;
    let s = stack("proxied", Caps::default(), &[("SIGNUP_RATE_PER_MINUTE", "3")]).await;

    // 127.0.0.2 has three signups a minute, counted across both instances.
    let mut x = Vec::new();
    for i in 0..4 {
        x.push(s.signup("proxied", "127.0.0.2", &format!("x{i}@example.com"), None).await);
    }
    assert_eq!(x, [202, 202, 202, 429], "nginx log:\n{}", s.nginx.access_log());
    assert_eq!(s.upstreams().len(), 2, "nginx did not use both instances:\n{}", s.nginx.access_log());
    // A forged X-Forwarded-For does not give it a fresh address.
    for forged in ["198.51.100.7", "2001:db8::1", "127.0.0.9, 198.51.100.8"] {
        assert_eq!(s.signup("proxied", "127.0.0.2", "x-forged@example.com", Some(forged)).await, 429, "{forged}");
    }

    // Another client has its own three, even when it claims to be 127.0.0.2 or the proxy.
    let mut y = Vec::new();
    for (i, forged) in ["127.0.0.2", "127.0.0.1", "::ffff:127.0.0.2", "127.0.0.2"].iter().enumerate() {
        y.push(s.signup("proxied", "127.0.0.3", &format!("y{i}@example.com"), Some(forged)).await);
    }
    assert_eq!(y, [202, 202, 202, 429]);
    assert_eq!(s.signup("proxied", "127.0.0.4", "z@example.com", None).await, 202);

    let n: i64 = s.app.db().await.query_one("SELECT count(*) FROM entries", &[]).await.unwrap().get(0);
    assert_eq!(n, 7);
}

#[tokio::test]
async fn behind_nginx_caps_are_exact_across_two_instances_and_the_app_arrives_over_tls() {
    let caps = Caps { queue: 10, ..Caps::default() };
    let s = stack("capped", caps, &[("SIGNUP_RATE_PER_MINUTE", "1000")]).await;

    // Thirty signups at once from three clients for ten places.
    let mut requests = Vec::new();
    let s = &s;
    for i in 0..30 {
        let from = ["127.0.0.2", "127.0.0.3", "127.0.0.4"][i % 3];
        requests.push(async move { s.signup("capped", from, &format!("c{i}@example.com"), None).await });
    }
    let statuses = futures::future::join_all(requests).await;
    assert_eq!(statuses.iter().filter(|s| **s == 202).count(), 10, "{statuses:?}");
    assert_eq!(statuses.iter().filter(|s| **s == 429).count(), 20, "{statuses:?}");
    assert_eq!(s.upstreams().len(), 2, "nginx did not use both instances:\n{}", s.nginx.access_log());
    let n: i64 = s.app.db().await.query_one("SELECT count(*) FROM entries", &[]).await.unwrap().get(0);
    assert_eq!(n, 10);
    let queue: i32 = s
        .app
        .db()
        .await
        .query_one("SELECT coalesce(sum(n), 0)::integer FROM program_entry_counts WHERE state <> 'withdrawn'", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(queue, 10);

    // The SPA, built into the binaries, arrives through nginx in the coding asked for,
    // with the API's cache headers, and a deep link gets the shell.
    let http = s.nginx.client("127.0.0.5");
    let dist = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../web/dist");
    let r = http.get(format!("{}/redeem", s.nginx.origin())).header("accept-encoding", "br").send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["content-encoding"], "br");
    assert_eq!(r.headers()["cache-control"], "no-cache");
    assert_eq!(r.bytes().await.unwrap().to_vec(), std::fs::read(dist.join("index.html.br")).unwrap());
    let r = http.head(format!("{}/redeem", s.nginx.origin())).send().await.unwrap();
    assert_eq!(r.status(), 200);
    // A form page is written for its program by the server (issue 27), so it is not a
    // precompressed file; it arrives through nginx all the same, uncached.
    let r = http.get(format!("{}/waitlist/capped", s.nginx.origin())).send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["cache-control"], "no-cache");
    assert!(r.text().await.unwrap().contains("id=\"vestibule-program\""), "the form page is written for its program");
    let r = http.get(format!("{}/api/config", s.nginx.origin())).send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.json::<serde_json::Value>().await.unwrap()["identity"], "clerk");

    // Plain HTTP is sent to HTTPS.
    let plain = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
    let r = plain
        .get(format!("http://127.0.0.1:{}/waitlist/capped", s.nginx.http_port))
        .header("host", SITE)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 301);
    assert_eq!(r.headers()["location"], format!("https://{SITE}/waitlist/capped"));
}

/// A rolling restart as the runbook does it, under load: take an instance out of nginx,
/// SIGTERM it (it finishes what it holds and exits), start the new one, put it back.
/// Every signup is answered 202 and stored once. Clients resend a request whose
/// keep-alive connection nginx's reload closed under it, with the same key (as the SPA
/// does); no answer from the servers is ever a 5xx.
#[tokio::test]
async fn behind_nginx_a_rolling_restart_costs_no_request() {
    let caps = Caps { queue: 100_000, hourly: 100_000, ..Caps::default() };
    let overrides = &[("SIGNUP_RATE_PER_MINUTE", "100000")];
    let mut s = stack("rolling", caps, overrides).await;
    let url = format!("{}/api/public/programs/rolling/signups", s.nginx.origin());
    let clients = (2..6).map(|i| s.nginx.client(&format!("127.0.0.{i}"))).collect();
    let load = Load::start_with(clients, &url, "https://waitlist.example.com", "rolling", true);
    load.wait_for("40 admissions", Duration::from_secs(60), |l| l.accepted() >= 40).await;
    // One step of a rolling upgrade: out of nginx, SIGTERM, a new process, back in.
    s.nginx.take_out(s.ports[0]).await;
    s.instances[0].terminate();
    let status = s.instances[0].wait_exit(Duration::from_secs(25)).await.expect("the instance exits after draining");
    assert!(status.success());
    let bind = format!("[::ffff:127.0.0.1]:{}", s.ports[0]);
    s.instances[0] = Instance::start(&bind, s.ports[0], &s.app.db_url, overrides).await;
    s.nginx.put_back(s.ports[0]).await;
    let after = load.accepted();
    load.wait_for("40 admissions after the restart", Duration::from_secs(60), |l| l.accepted() >= after + 40).await;
    let resent = load.counters.resent.load(std::sync::atomic::Ordering::SeqCst);
    let attempts = load.finish().await;
    assert!(resent <= 8, "{resent} requests were resent: more than nginx's two reloads explain");
    let mut admitted = HashSet::new();
    for a in attempts {
        match a.answer {
            Answer::Status(202, _) => {
                admitted.insert(a.email);
            }
            other => panic!(
                "a client saw {other:?}\nnginx:\n{}\ninstances:\n{}\n{}",
                s.nginx.errors(),
                s.instances[0].output(),
                s.instances[1].output()
            ),
        }
    }
    let rows = s.app.db().await.query("SELECT email_key FROM entries", &[]).await.unwrap();
    let stored: HashSet<String> = rows.iter().map(|r| r.get(0)).collect();
    assert_eq!(stored, admitted);
}
