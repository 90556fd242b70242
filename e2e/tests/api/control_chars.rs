//! Bad text is a 400, never a 500 (issue 26 item 7). Before, a NUL in a program's title
//! or description reached PostgreSQL and answered 500 (SQLSTATE 22021), and BEL or ESC
//! were stored. Every free-text field now refuses control characters with 400 and its own
//! code (newline, carriage return and tab only where the field is edited as several lines,
//! `shared::text`), and nothing is written.
//!
//! The sweep drives **every** write route of the OpenAPI document — owner, recipient,
//! public, the server API's keys and the admission hook — with each string field of a
//! valid body (and the path's slug, and an unknown field) replaced by text carrying
//! control characters, against real rows (a program with a notice, entries, an
//! invitation, a webhook, a key, a cohort code, a draw), and must never see a 5xx. A write
//! route added without a row in [`routes`] fails the sweep.

use crate::support::integrations::{signed_headers, unix_now};
use crate::support::owner::changes;
use crate::support::{Owner, Recipient, Reply, TestApp};
use reqwest::Method;
use serde_json::{json, Value};
use shared::api::PatchProgramRequest;
use std::collections::BTreeSet;
use uuid::Uuid;

/// What is put into a string: NUL, BEL, ESC, DEL, a C1 control, and the line breaks that
/// only several-line fields take.
const VARIANTS: [&str; 8] = ["\0", "\u{7}", "\u{1b}[2J", "\u{7f}", "\u{85}", "\u{9b}", "\n", "\t"];

/// Who sends a route's request.
#[derive(Clone, Copy, Debug)]
enum Who {
    Owner,
    Recipient,
    Public,
    Hook,
}

struct Route {
    method: Method,
    /// The OpenAPI path, `{…}` parameters and all.
    template: &'static str,
    who: Who,
    /// A body that would be accepted (its strings are what the sweep spoils).
    body: Value,
}

fn route(method: Method, template: &'static str, who: Who, body: Value) -> Route {
    Route { method, template, who, body }
}

/// The rows the sweep acts on.
struct Fixture {
    app: TestApp,
    owner: Owner,
    rita: Recipient,
    ws: Uuid,
    program: Uuid,
    slug: &'static str,
    entry: Uuid,
    invitation: Uuid,
    grant: Uuid,
    code: String,
    webhook: Uuid,
    key: Uuid,
    cohort: Uuid,
    hook_secret: String,
}

async fn fixture() -> Fixture {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let rita = app.recipient("rita@example.com").await;
    let slug = "ctl-beta";
    let invited = owner.invited(ws, slug, "rita@example.com").await;
    rita.redeem(&invited.code).await;
    let grant: Uuid = app.scalar("SELECT id FROM grants", &[]).await;
    app.signup(slug, "walt@example.com").await;
    let entry = app.entry_id(invited.program, "walt@example.com").await;
    let second = owner.invited(ws, "ctl-gamma", "vera@example.com").await;
    let webhook = owner.create_webhook(ws, "http://127.0.0.1:9/hook").await.webhook.id;
    let key = owner.create_api_key(ws, &["access:read"]).await.api_key.id;
    let cohort = owner.create_cohort_code(invited.program, 3).await.cohort_code.id;
    let hook_secret = owner.set_hook_secret(ws).await.secret;
    Fixture {
        app,
        owner,
        rita,
        ws,
        program: invited.program,
        slug,
        entry,
        invitation: second.invitation,
        grant,
        code: second.code,
        webhook,
        key,
        cohort,
        hook_secret,
    }
}

/// Every write route with a body it would accept. Routes that revoke or erase come last,
/// so the rows stay for the routes before them.
fn routes(f: &Fixture) -> Vec<Route> {
    use Method as M;
    use Who::*;
    let soon = (chrono::Utc::now() + chrono::Duration::days(2)).to_rfc3339();
    vec![
        route(
            M::POST,
            "/api/public/programs/{slug}/signups",
            Public,
            json!({"requestKey": Uuid::new_v4(), "email": "new@example.com", "noticeVersion": 1, "permission": true, "source": "news"}),
        ),
        route(M::POST, "/api/hooks/admit/{workspaceId}", Hook, json!({"user": {"email": "rita@example.com"}})),
        route(M::POST, "/api/me/invitations/redeem", Recipient, json!({"code": f.code})),
        route(
            M::POST,
            "/api/owner/programs",
            Owner,
            json!({"workspaceId": f.ws, "slug": "ctl-new", "purpose": "A purpose.", "queueCap": 5, "hourlyCap": 5, "seatCap": 5, "maxInviteDays": 7}),
        ),
        route(
            M::PATCH,
            "/api/owner/programs/{id}",
            Owner,
            json!({"expectedRevision": 1, "title": "A title", "description": "A pitch.", "embedOrigins": ["https://example.com"],
                   "clerk": {"publicMetadata": true, "organizationId": "org_x", "role": "org:member"}}),
        ),
        route(
            M::POST,
            "/api/owner/programs/{id}/notices",
            Owner,
            json!({"purpose": "A purpose.", "contactText": "lists@example.com", "retentionText": "Until launch."}),
        ),
        route(
            M::PUT,
            "/api/owner/programs/{id}/content",
            Owner,
            json!({"expectedRevision": 1, "body": "Private notes"}),
        ),
        route(
            M::POST,
            "/api/owner/programs/{id}/cohort-codes",
            Owner,
            json!({"label": "Partners", "maxUses": 3, "expiresAt": soon, "note": "For the launch."}),
        ),
        route(
            M::POST,
            "/api/owner/programs/{id}/draws",
            Owner,
            json!({"winners": 1, "source": "news", "flag": "unflagged", "closesAt": soon}),
        ),
        route(
            M::POST,
            "/api/owner/programs/{id}/draws/{drawId}/run",
            Owner,
            json!({"beacon": {"round": 1, "signature": "00"}}),
        ),
        route(
            M::POST,
            "/api/owner/programs/{id}/draws/{drawId}/cancel",
            Owner,
            json!({"reasonCode": "owner_discretion"}),
        ),
        route(
            M::POST,
            "/api/owner/programs/{id}/entries/search",
            Owner,
            json!({"q": "walt", "state": "waiting", "cursor": "x"}),
        ),
        route(
            M::POST,
            "/api/owner/programs/{id}/entries/select-bulk",
            Owner,
            json!({"count": 1, "reasonCode": "meets_policy"}),
        ),
        route(
            M::POST,
            "/api/owner/programs/{id}/entries/decline-flagged",
            Owner,
            json!({"flag": "disposable_domain", "count": 1, "reasonCode": "not_eligible"}),
        ),
        route(
            M::POST,
            "/api/owner/programs/{id}/entries/{entryId}/select",
            Owner,
            json!({"reasonCode": "meets_policy"}),
        ),
        route(
            M::POST,
            "/api/owner/programs/{id}/entries/{entryId}/invitations",
            Owner,
            json!({"requestKey": Uuid::new_v4(), "expiresAt": soon}),
        ),
        route(
            M::POST,
            "/api/owner/programs/{id}/invitations/bulk",
            Owner,
            json!({"requestKey": Uuid::new_v4(), "entryIds": [f.entry], "expiresAt": soon}),
        ),
        route(
            M::POST,
            "/api/owner/programs/{id}/invitations/delivery-records",
            Owner,
            json!({"entryIds": [f.entry], "channel": "Email", "reference": "Sent by hand"}),
        ),
        route(
            M::POST,
            "/api/owner/invitations/{id}/delivery-record",
            Owner,
            json!({"requestKey": Uuid::new_v4(), "channel": "Email", "reference": "Sent by hand"}),
        ),
        route(
            M::POST,
            "/api/owner/programs/{id}/entries/{entryId}/decline",
            Owner,
            json!({"reasonCode": "not_eligible"}),
        ),
        route(M::POST, "/api/owner/programs/{id}/clerk-sync/deliveries/{deliveryId}/retry", Owner, json!({})),
        route(
            M::POST,
            "/api/owner/workspaces/{id}/webhooks",
            Owner,
            json!({"url": "http://127.0.0.1:9/other", "events": ["entry.created"], "programIds": [f.program]}),
        ),
        route(
            M::PATCH,
            "/api/owner/workspaces/{id}/webhooks/{webhookId}",
            Owner,
            json!({"events": ["entry.created"], "enabled": true}),
        ),
        route(
            M::POST,
            "/api/owner/workspaces/{id}/webhooks/{webhookId}/deliveries/{deliveryId}/retry",
            Owner,
            json!({}),
        ),
        route(M::POST, "/api/owner/workspaces/{id}/webhooks/{webhookId}/rotate-secret", Owner, json!({})),
        route(M::POST, "/api/owner/workspaces/{id}/webhooks/{webhookId}/test", Owner, json!({})),
        route(
            M::POST,
            "/api/owner/workspaces/{id}/webhooks/{webhookId}/recover",
            Owner,
            json!({"since": "2026-01-01T00:00:00Z"}),
        ),
        route(
            M::POST,
            "/api/owner/workspaces/{id}/api-keys",
            Owner,
            json!({"name": "CRM sync", "scopes": ["access:read"]}),
        ),
        route(M::POST, "/api/owner/workspaces/{id}/admission-hook/secret", Owner, json!({})),
        route(
            M::POST,
            "/api/owner/programs/{id}/entries/{entryId}/withdraw",
            Owner,
            json!({"basis": "applicant_request"}),
        ),
        route(
            M::POST,
            "/api/owner/programs/{id}/entries/{entryId}/erase",
            Owner,
            json!({"reasonCode": "applicant_request"}),
        ),
        route(M::POST, "/api/owner/invitations/{id}/revoke", Owner, json!({})),
        route(M::POST, "/api/owner/grants/{id}/revoke", Owner, json!({})),
        route(M::DELETE, "/api/owner/programs/{id}/cohort-codes/{codeId}", Owner, json!({})),
        route(M::DELETE, "/api/owner/workspaces/{id}/webhooks/{webhookId}", Owner, json!({})),
        route(M::DELETE, "/api/owner/workspaces/{id}/api-keys/{keyId}", Owner, json!({})),
        route(M::POST, "/api/me/waitlist/{slug}/withdraw", Recipient, json!({})),
        route(M::POST, "/api/me/waitlist/{slug}/erase", Recipient, json!({})),
        route(
            M::POST,
            "/api/me/waitlist/{slug}/join",
            Recipient,
            json!({"requestKey": Uuid::new_v4(), "email": "new@example.com", "noticeVersion": 1, "permission": true,
                   "answers": {"why": "because"}}),
        ),
    ]
}

/// The template with this fixture's ids and `slug` in place.
fn path(f: &Fixture, template: &str, slug: &str) -> String {
    let id = if template.starts_with("/api/owner/workspaces/") {
        f.ws.to_string()
    } else if template.starts_with("/api/owner/invitations/") {
        f.invitation.to_string()
    } else if template.starts_with("/api/owner/grants/") {
        f.grant.to_string()
    } else {
        f.program.to_string()
    };
    template
        .replace("{slug}", slug)
        .replace("{workspaceId}", &f.ws.to_string())
        .replace("{entryId}", &f.entry.to_string())
        .replace("{webhookId}", &f.webhook.to_string())
        .replace("{keyId}", &f.key.to_string())
        .replace("{codeId}", &f.cohort.to_string())
        .replace("{drawId}", &Uuid::new_v4().to_string())
        .replace("{deliveryId}", "1")
        .replace("{id}", &id)
}

/// Copies of `body`, each with one string leaf (at any depth) spoiled by `variant`, in the
/// middle of the text and on its own.
fn spoiled(body: &Value, variant: &str) -> Vec<Value> {
    fn leaves(v: &Value, at: &mut Vec<Vec<PathStep>>, here: Vec<PathStep>) {
        match v {
            Value::String(_) => at.push(here),
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    let mut p = here.clone();
                    p.push(PathStep::Index(i));
                    leaves(item, at, p);
                }
            }
            Value::Object(map) => {
                for (k, item) in map {
                    let mut p = here.clone();
                    p.push(PathStep::Key(k.clone()));
                    leaves(item, at, p);
                }
            }
            _ => {}
        }
    }
    let mut at = Vec::new();
    leaves(body, &mut at, Vec::new());
    let mut out = Vec::new();
    for leaf in at {
        for whole in [false, true] {
            let mut copy = body.clone();
            let mut cursor = &mut copy;
            for step in &leaf {
                cursor = match step {
                    PathStep::Index(i) => &mut cursor[*i],
                    PathStep::Key(k) => &mut cursor[k.as_str()],
                };
            }
            let text = cursor.as_str().unwrap_or_default().to_owned();
            let mid = text.char_indices().nth(text.chars().count() / 2).map_or(text.len(), |(i, _)| i);
            *cursor = Value::String(if whole {
                variant.to_owned()
            } else {
                format!("{}{variant}{}", &text[..mid], &text[mid..])
            });
            out.push(copy);
        }
    }
    // An unknown field whose name and value carry the variant.
    if let Value::Object(map) = body {
        let mut copy = map.clone();
        copy.insert(format!("extra{variant}"), Value::String(variant.to_owned()));
        out.push(Value::Object(copy));
    }
    out
}

#[derive(Clone)]
enum PathStep {
    Index(usize),
    Key(String),
}

async fn send(f: &Fixture, r: &Route, path: &str, body: &Value) -> Reply {
    match r.who {
        Who::Owner => f.owner.send(r.method.clone(), path, body).await,
        Who::Recipient => f.rita.send(r.method.clone(), path, body).await,
        Who::Public => f.app.send(r.method.clone(), path, Some(body), None).await,
        Who::Hook => {
            let text = body.to_string();
            let headers =
                signed_headers(&f.hook_secret, &format!("msg_{}", Uuid::new_v4().simple()), unix_now(), &text);
            let mut rb = f.app.http.post(f.app.url(path)).header("content-type", "application/json");
            for (name, value) in headers {
                rb = rb.header(name, value);
            }
            Reply::from(rb.body(text).send().await.unwrap()).await
        }
    }
}

/// The write operations the API documents, as (METHOD, path template).
async fn documented_writes(app: &TestApp) -> BTreeSet<(String, String)> {
    let doc = app.get("/api/openapi.json", None).await.json();
    let mut writes = BTreeSet::new();
    for (path, ops) in doc["paths"].as_object().unwrap() {
        for method in ops.as_object().unwrap().keys() {
            if ["post", "put", "patch", "delete"].contains(&method.as_str()) {
                writes.insert((method.to_uppercase(), path.clone()));
            }
        }
    }
    writes
}

#[tokio::test]
async fn every_write_route_answers_control_characters_without_a_5xx() {
    let f = fixture().await;
    let table = routes(&f);
    let covered: BTreeSet<(String, String)> =
        table.iter().map(|r| (r.method.as_str().to_owned(), r.template.to_owned())).collect();
    let documented = documented_writes(&f.app).await;
    let missing: Vec<_> = documented.difference(&covered).collect();
    assert!(missing.is_empty(), "write routes the sweep does not drive: {missing:?}");

    let mut sent = 0;
    for r in &table {
        let mut cases: Vec<(String, Value)> = Vec::new();
        for variant in VARIANTS {
            for body in spoiled(&r.body, variant) {
                cases.push((path(&f, r.template, f.slug), body));
            }
            if r.template.contains("{slug}") {
                let slug = format!("ctl{variant}beta");
                cases.push((path(&f, r.template, &urlencoding(&slug)), r.body.clone()));
            }
        }
        for (path, body) in cases {
            let reply = send(&f, r, &path, &body).await;
            assert!(reply.status.as_u16() < 500, "{} {path} with {body}: {} {}", r.method, reply.status, reply.text);
            sent += 1;
        }
    }
    assert!(sent > 500, "only {sent} requests");
}

fn urlencoding(s: &str) -> String {
    s.bytes()
        .map(|b| if b.is_ascii_alphanumeric() || b == b'-' { (b as char).to_string() } else { format!("%{b:02X}") })
        .collect()
}

/// The fields a person types, each refused with its own code when it holds a control
/// character (a line break too, where the field is one line), with nothing written.
#[tokio::test]
async fn each_free_text_field_refuses_control_characters_with_its_code_and_writes_nothing() {
    let f = fixture().await;
    let (app, owner, program) = (&f.app, &f.owner, f.program);
    let events_before: i64 = app.scalar("SELECT count(*) FROM audit_events", &[]).await;
    let revision = owner.program(program).await.revision;
    let patch = |title: Option<&str>, description: Option<&str>| PatchProgramRequest {
        expected_revision: revision,
        title: title.map(String::from),
        description: description.map(String::from),
        ..changes()
    };
    let at = format!("/api/owner/programs/{program}");
    for bad in ["\0", "\u{7}", "\u{1b}", "\u{85}"] {
        let spoiled = format!("Spring{bad}beta");
        owner.patch(&at, &patch(Some(&spoiled), None)).await.expect_error(400, "invalid_title");
        owner.patch(&at, &patch(None, Some(&spoiled))).await.expect_error(400, "invalid_description");
        let notice = json!({"purpose": spoiled, "contactText": "a", "retentionText": "b"});
        owner.post(&format!("{at}/notices"), &notice).await.expect_error(400, "invalid_purpose");
        let notice = json!({"purpose": "p", "contactText": spoiled, "retentionText": "b"});
        owner.post(&format!("{at}/notices"), &notice).await.expect_error(400, "invalid_contact_text");
        let notice = json!({"purpose": "p", "contactText": "a", "retentionText": spoiled});
        owner.post(&format!("{at}/notices"), &notice).await.expect_error(400, "invalid_retention_text");
        let content = json!({"expectedRevision": 1, "body": spoiled});
        owner.put(&format!("{at}/content"), &content).await.expect_error(400, "invalid_content_body");
        let url = format!("https://hooks.example.com/{bad}x");
        let hook = json!({"url": url, "events": ["entry.created"]});
        owner.post(&format!("/api/owner/workspaces/{}/webhooks", f.ws), &hook).await.expect_error(400, "invalid_url");
    }
    // One-line fields refuse line breaks and tabs; several-line fields take them.
    for brk in ["\n", "\t", "\r\n"] {
        let title = format!("Spring{brk}beta");
        owner.patch(&at, &patch(Some(&title), None)).await.expect_error(400, "invalid_title");
        let key = json!({"name": title, "scopes": ["access:read"]});
        owner.post(&format!("/api/owner/workspaces/{}/api-keys", f.ws), &key).await.expect_error(400, "invalid_name");
    }
    let url = "https://hooks.example.com/a\tb";
    let hook = json!({"url": url, "events": ["entry.created"]});
    owner.post(&format!("/api/owner/workspaces/{}/webhooks", f.ws), &hook).await.expect_error(400, "invalid_url");
    assert_eq!(owner.program(program).await.revision, revision, "no refusal changed the program");
    let events_after: i64 = app.scalar("SELECT count(*) FROM audit_events", &[]).await;
    assert_eq!(events_after, events_before, "no refusal wrote an event");

    let described = owner.patch(&at, &patch(Some("Spring beta"), Some("Line one.\nLine two.\tTabbed."))).await;
    described.assert(200);
    assert_eq!(owner.program(program).await.description.as_deref(), Some("Line one.\nLine two.\tTabbed."));
}
