//! Arranging state through the product's own doors: the owner API for programs,
//! notices, content, selection, invitations and delivery records; the public signup for
//! entries; clerk-dev for recipients; the redemption endpoint for grants. The owner is
//! given (`--owner-user`, `--workspace`) or made with `vestibule owner bootstrap`.
//! Setup steps run a few at a time, never as many as the measured load.

use crate::client::{http_client, Api, Caller, Identity};
use crate::Args;
use anyhow::{bail, Context as _};
use futures::stream::{self, StreamExt, TryStreamExt};
use reqwest::Method;
use serde_json::{json, Value};
use std::collections::HashMap;
use uuid::Uuid;

/// How many setup requests are in flight at once.
pub const SETUP_PARALLELISM: usize = 8;
/// The highest caps the schema allows, so the benchmark never meets a cap.
const CAP: i32 = 100_000;
const PURPOSE: &str = "Load test of the Vestibule admission path";
/// Synthetic addresses only: a reserved-looking domain nobody receives mail for.
pub const EMAIL_DOMAIN: &str = "loadgen.example";

pub struct Context {
    pub api: Api,
    pub identity: Identity,
    pub owner: Caller,
    pub workspace: String,
    /// A random tag that keeps this run's slugs and emails apart from earlier runs'.
    pub run: String,
}

/// One open program as the public sees it.
#[derive(Debug, Clone)]
pub struct Program {
    pub id: String,
    pub slug: String,
    pub notice_version: i64,
}

/// A signed-in recipient who holds an active grant (or a code to redeem).
#[derive(Debug, Clone)]
pub struct Recipient {
    pub caller: Caller,
    pub code: Option<String>,
}

impl Context {
    pub async fn connect(args: &Args) -> anyhow::Result<Context> {
        let http = http_client()?;
        let api = Api { http: http.clone(), base: args.api.trim_end_matches('/').into(), origin: args.origin.clone() };
        let identity = Identity {
            http: http.clone(),
            base: args.identity.trim_end_matches('/').into(),
            secret: args.secret_key.clone(),
        };
        let run = Uuid::new_v4().simple().to_string()[..8].to_owned();
        let (user_id, workspace) = match (&args.owner_user, &args.workspace) {
            (Some(u), Some(w)) => (u.clone(), w.clone()),
            _ => {
                let user = identity.create_user(&format!("owner-{run}@{EMAIL_DOMAIN}")).await?;
                let ws = bootstrap(args, &user, &run).await?;
                (user, ws)
            }
        };
        let owner = identity.caller_for(&api, user_id).await.context("owner session")?;
        Ok(Context { api, identity, owner, workspace, run })
    }

    fn owner(&self, method: Method, path: &str, body: Option<&Value>, expect: &[u16]) -> OwnerCall<'_> {
        OwnerCall { ctx: self, method, path: path.to_owned(), body: body.cloned(), expect: expect.to_vec() }
    }

    /// An open program with a notice (and, with `content`, private content and access on).
    pub async fn program(&self, slug: &str, content: bool) -> anyhow::Result<Program> {
        self.program_asking(slug, content, json!([])).await
    }

    /// [`Context::program`] whose notice asks `questions` (issue 31).
    pub async fn program_asking(&self, slug: &str, content: bool, questions: Value) -> anyhow::Result<Program> {
        let body = json!({
            "workspaceId": self.workspace, "slug": slug, "purpose": PURPOSE,
            "queueCap": CAP, "hourlyCap": CAP, "seatCap": CAP, "maxInviteDays": 30,
        });
        let p = self.owner(Method::POST, "/api/owner/programs", Some(&body), &[201]).send().await?;
        let id = p["id"].as_str().context("program id")?.to_owned();
        let notice = json!({"purpose": PURPOSE, "contactText": "Benchmark only.",
                            "retentionText": "Dropped after the run.", "questions": questions});
        let n = self
            .owner(Method::POST, &format!("/api/owner/programs/{id}/notices"), Some(&notice), &[201])
            .send()
            .await?;
        let notice_version = n["version"].as_i64().context("notice version")?;
        // No proof of work: the benchmark measures admission, not the clients' hashing
        // (`signup-pow` turns it on for its own program).
        self.patch_program(&id, json!({"signupOpen": true, "proofOfWork": "off"})).await?;
        if content {
            let body = json!({"expectedRevision": 0, "body": "Private benchmark notes: ".repeat(20)});
            self.owner(Method::PUT, &format!("/api/owner/programs/{id}/content"), Some(&body), &[200, 201])
                .send()
                .await?;
            self.patch_program(&id, json!({"accessEnabled": true})).await?;
        }
        Ok(Program { id, slug: slug.to_owned(), notice_version })
    }

    /// Sets the program's proof of work (`off`, `normal` or `strict`).
    pub async fn set_proof_of_work(&self, program: &Program, level: &str) -> anyhow::Result<()> {
        self.patch_program(&program.id, json!({"proofOfWork": level})).await
    }

    async fn patch_program(&self, id: &str, mut changes: Value) -> anyhow::Result<()> {
        let p = self.owner(Method::GET, &format!("/api/owner/programs/{id}"), None, &[200]).send().await?;
        changes["expectedRevision"] = p["revision"].clone();
        self.owner(Method::PATCH, &format!("/api/owner/programs/{id}"), Some(&changes), &[200]).send().await?;
        Ok(())
    }

    /// A fresh, unused slug for this run.
    pub fn slug(&self, what: &str) -> String {
        format!("lg-{}-{what}-{}", self.run, &Uuid::new_v4().simple().to_string()[..6])
    }

    /// Signs `emails` up to `program` with fresh keys; returns the committed (key, email).
    pub async fn signups(&self, program: &Program, emails: Vec<String>) -> anyhow::Result<Vec<(Uuid, String)>> {
        stream::iter(emails)
            .map(|email| async move {
                let key = Uuid::new_v4();
                let body = signup_body(key, &email, program.notice_version);
                let path = format!("/api/public/programs/{}/signups", program.slug);
                self.api.call(Method::POST, &path, None, Some(&body), &[202]).await?;
                Ok((key, email))
            })
            .buffer_unordered(SETUP_PARALLELISM)
            .try_collect()
            .await
    }

    /// Every waiting entry of the program, by email.
    async fn entry_ids(&self, program: &Program) -> anyhow::Result<HashMap<String, String>> {
        let mut ids = HashMap::new();
        let mut cursor: Option<String> = None;
        loop {
            let mut path = format!("/api/owner/programs/{}/entries?state=waiting&limit=100", program.id);
            if let Some(c) = &cursor {
                path.push_str(&format!("&cursor={}", urlencode(c)));
            }
            let page = self.owner(Method::GET, &path, None, &[200]).send().await?;
            for e in page["entries"].as_array().context("entries")? {
                let (Some(email), Some(id)) = (e["email"].as_str(), e["id"].as_str()) else { bail!("entry shape") };
                ids.insert(email.to_owned(), id.to_owned());
            }
            match page["nextCursor"].as_str() {
                Some(c) if !c.is_empty() => cursor = Some(c.to_owned()),
                _ => return Ok(ids),
            }
        }
    }

    /// `n` recipients of `program`, each with an issued, delivered code; with `redeem`,
    /// the code is redeemed too (the recipient then holds an active grant).
    pub async fn recipients(&self, program: &Program, n: usize, redeem: bool) -> anyhow::Result<Vec<Recipient>> {
        let tag = &program.slug;
        let emails: Vec<String> = (0..n).map(|i| format!("r{i}-{tag}@{EMAIL_DOMAIN}")).collect();
        self.signups(program, emails.clone()).await?;
        let ids = self.entry_ids(program).await?;
        stream::iter(emails)
            .map(|email| {
                let entry = ids.get(&email).cloned();
                async move {
                    let entry = entry.context("the signup made an entry")?;
                    let code = self.invite(program, &entry).await?;
                    let caller = self.identity.caller(&self.api, &email).await?;
                    if redeem {
                        let body = json!({"code": code});
                        self.api
                            .call(Method::POST, "/api/me/invitations/redeem", Some(&caller), Some(&body), &[200])
                            .await?;
                        return Ok(Recipient { caller, code: None });
                    }
                    Ok(Recipient { caller, code: Some(code) })
                }
            })
            .buffer_unordered(SETUP_PARALLELISM)
            .try_collect()
            .await
    }

    /// A cohort code of `program` with `uses` uses (at most 10 000), valid for a week.
    pub async fn cohort_code(&self, program: &Program, uses: usize) -> anyhow::Result<String> {
        let expires = (chrono::Utc::now() + chrono::Duration::days(7)).to_rfc3339();
        let body = json!({"label": "bench", "maxUses": uses, "expiresAt": expires});
        let path = format!("/api/owner/programs/{}/cohort-codes", program.id);
        let created = self.owner(Method::POST, &path, Some(&body), &[201]).send().await?;
        Ok(created["code"].as_str().context("cohort code")?.to_owned())
    }

    /// `n` signed-in users with a verified address each and no entry anywhere.
    pub async fn users(&self, tag: &str, n: usize) -> anyhow::Result<Vec<Caller>> {
        stream::iter(0..n)
            .map(|i| async move { self.identity.caller(&self.api, &format!("u{i}-{tag}@{EMAIL_DOMAIN}")).await })
            .buffer_unordered(SETUP_PARALLELISM)
            .try_collect()
            .await
    }

    /// Selects the entry, issues an invitation and records its delivery; returns the code.
    async fn invite(&self, program: &Program, entry: &str) -> anyhow::Result<String> {
        let base = format!("/api/owner/programs/{}/entries/{entry}", program.id);
        let select = json!({"reasonCode": "meets_policy"});
        self.owner(Method::POST, &format!("{base}/select"), Some(&select), &[200]).send().await?;
        let expires = (chrono::Utc::now() + chrono::Duration::days(7)).to_rfc3339();
        let issue = json!({"requestKey": Uuid::new_v4(), "expiresAt": expires});
        let issued = self.owner(Method::POST, &format!("{base}/invitations"), Some(&issue), &[201]).send().await?;
        let invitation = issued["invitation"]["id"].as_str().context("invitation id")?;
        let code = issued["code"].as_str().context("code")?.to_owned();
        let delivery = json!({"requestKey": Uuid::new_v4(), "channel": "email"});
        let path = format!("/api/owner/invitations/{invitation}/delivery-record");
        self.owner(Method::POST, &path, Some(&delivery), &[200, 201]).send().await?;
        Ok(code)
    }
}

/// An owner API request, sent with the owner's token and CSRF token.
struct OwnerCall<'a> {
    ctx: &'a Context,
    method: Method,
    path: String,
    body: Option<Value>,
    expect: Vec<u16>,
}

impl OwnerCall<'_> {
    async fn send(self) -> anyhow::Result<Value> {
        self.ctx.api.call(self.method, &self.path, Some(&self.ctx.owner), self.body.as_ref(), &self.expect).await
    }
}

/// The three questions of `signup-answers`: a short text, one choice, several choices.
pub fn three_questions() -> Value {
    json!([
        {"id": "name", "kind": "shortText", "label": "Your name", "required": true},
        {"id": "role", "kind": "oneChoice", "label": "Your role", "required": true,
         "choices": ["Engineer", "Designer", "Founder"]},
        {"id": "tools", "kind": "manyChoices", "label": "Tools", "required": false, "choices": ["Rust", "Go", "Zig"]},
    ])
}

/// Answers to [`three_questions`], varied by `seq`.
pub fn three_answers(seq: u64) -> Value {
    let roles = ["Engineer", "Designer", "Founder"];
    json!({"name": format!("Applicant number {seq}"), "role": roles[seq as usize % 3], "tools": ["Rust", "Zig"]})
}

pub fn signup_body(key: Uuid, email: &str, notice_version: i64) -> Value {
    json!({"requestKey": key, "email": email, "noticeVersion": notice_version, "permission": true})
}

fn urlencode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// `vestibule owner bootstrap` for a new workspace owned by `user`; prints its id.
async fn bootstrap(args: &Args, user: &str, run: &str) -> anyhow::Result<String> {
    let url = args.database_url.as_deref().context("--database-url (or --owner-user/--workspace) is needed")?;
    let out = tokio::process::Command::new(&args.vestibule)
        .args(["owner", "bootstrap", "--workspace-name", &format!("Load test {run}"), "--clerk-user-id", user])
        .args(["--approval-ref", &format!("loadgen-{run}")])
        .env("DATABASE_URL", url)
        .env("CLERK_SECRET_KEY", &args.secret_key)
        .env("CLERK_API_URL", &args.identity)
        .output()
        .await
        .with_context(|| format!("running {}", args.vestibule))?;
    if !out.status.success() {
        bail!("owner bootstrap failed: {}", String::from_utf8_lossy(&out.stderr).trim());
    }
    let ws = String::from_utf8(out.stdout)?.trim().to_owned();
    Uuid::parse_str(&ws).with_context(|| format!("bootstrap printed {ws:?}, not a workspace id"))?;
    Ok(ws)
}
