//! The OpenAPI document of the HTTP API, served at `GET /api/openapi.json`. It is
//! collected from the routes' own registration (`utoipa_actix_web`, in
//! `startup::register`): each handler carries its `#[utoipa::path]` (operation id, body,
//! parameters, its own answers), its path and method come from its actix attribute, and
//! the schemas are the `shared::api` wire types. [`EdgeAnswers`] then adds, by one rule
//! each, what every operation of a kind shares: tags and security by audience, and the
//! answers that come from the edge rather than from a handler (body limits, Origin,
//! session, CSRF, the uniform 404, unavailable dependencies) — each stated once, where it
//! is decided.

use actix_web::{get, HttpResponse};
use shared::integrations::WebhookEventType;
use std::sync::OnceLock;
use utoipa::openapi::header::HeaderBuilder;
use utoipa::openapi::path::{HttpMethod, Operation, ParameterBuilder, ParameterIn};
use utoipa::openapi::schema::{KnownFormat, SchemaFormat};
use utoipa::openapi::security::{
    ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityRequirement, SecurityScheme,
};
use utoipa::openapi::{
    ContentBuilder, ObjectBuilder, OpenApi as Document, Ref, RefOr, Required, Response, ResponseBuilder, Type,
};
use utoipa::{Modify, OpenApi};

/// The security requirement of signed-in routes: a Clerk session token in either place.
pub const SIGNED_IN: &str = "bearer";
/// The security requirement of the server API: a workspace API key.
pub const API_KEY: &str = "api_key";
pub const SESSION_COOKIE: &str = "session_cookie";

const DESCRIPTION: &str = "Vestibule: a self-hosted waitlist and controlled early-access service.\n\n\
Every JSON body is `application/json` (else 415), at most 32 KiB (413), with known fields only (400). \
Every error is `{\"error\":{\"code\",\"message\"}}` (schema `ErrorBody`); every `/api` response is \
`Cache-Control: private, no-store`.\n\n\
**Origin.** Every mutating request (POST, PUT, PATCH) must carry an `Origin` header equal to one of the \
server's `APP_ORIGINS`; a missing, foreign or `null` origin is 403 `origin_rejected` before any route runs. \
This includes the public signup.\n\n\
**Signing in.** Recipient (`/api/me/...`) and owner (`/api/owner/...`) routes need a Clerk session token, \
as `Authorization: Bearer <jwt>` or in the `__session` cookie (401 otherwise). Signed-in mutations also \
need `X-CSRF-Token` equal to the `csrfToken` from `GET /api/me` (403 `csrf_rejected` otherwise). Owner \
routes answer a non-owner with the same 404 as an absent object.";

/// What the registration cannot say: the title, the description, the tags and the error
/// body's schema. The paths come from `startup::register`.
#[derive(OpenApi)]
#[openapi(
    info(title = "Vestibule API", description = DESCRIPTION, license(name = "MIT")),
    components(schemas(
        shared::ErrorBody,
        shared::integrations::WebhookPayload,
        shared::integrations::WebhookData,
        shared::integrations::WebhookEventType
    )),
    tags(
        (name = "operations", description = "Liveness, readiness and this document."),
        (name = "public", description = "No session: the signup form and its notice."),
        (name = "recipient", description = "A signed-in user acting on their own entries, codes and content."),
        (name = "owner", description = "A signed-in owner of an active workspace."),
        (name = "server", description = "The server API for an owner's own product: a workspace API key as `Authorization: Bearer vst_…`, no cookies, no CSRF; scoped to the key's workspace, rate-limited per key."),
        (name = "hooks", description = "Calls from an identity provider, authenticated by a Standard Webhooks signature."),
    )
)]
struct Base;

/// The document's start, before the routes register their paths.
pub fn base() -> Document {
    Base::openapi()
}

static DOCUMENT: OnceLock<String> = OnceLock::new();

/// Completes a collected document with the edge answers and keeps it for [`serve`]. Every
/// worker collects the same document; the first one kept is served.
pub fn publish(mut doc: Document) {
    DOCUMENT.get_or_init(|| {
        crate::http::methods::learn(&doc);
        EdgeAnswers.modify(&mut doc);
        let mut json: serde_json::Value = serde_json::to_value(&doc).expect("the OpenAPI document serializes");
        add_links(&mut json);
        json["webhooks"] = webhooks();
        json.to_string()
    });
}

/// This document.
#[utoipa::path(operation_id = "getOpenApi", responses(
    (status = 200, description = "The OpenAPI document of this API.", body = Object),
))]
#[get("/openapi.json")]
pub async fn serve() -> HttpResponse {
    HttpResponse::Ok().content_type("application/json").body(DOCUMENT.get().map(String::as_str).unwrap_or("{}"))
}

/// The answers of the guards every request passes before its handler, each added to the
/// operations it applies to (never replacing what a handler documents itself):
/// * a JSON request body: 400 malformed/out of bounds, 413 too large, 415 not JSON;
/// * query parameters: 400 when they do not parse;
/// * path parameters: 404 when one does not parse (an id that is not a UUID names nothing);
/// * a mutating method: 403 for a missing or foreign `Origin` (and, signed in, a bad CSRF token),
///   plus the `X-CSRF-Token` header parameter when signed in;
/// * signed in: 401 without a valid session token;
/// * under `/api` except the two routes that read only settings: 503 when the database
///   or the identity provider is unavailable;
/// * and, by audience (the path's prefix): the tag, and for `/api/me` and `/api/owner`
///   the session-token security requirement; every owner operation may answer the
///   uniform 404.
struct EdgeAnswers;

const NO_DEPENDENCY: &[&str] = &["getOpenApi", "getConfig"];

impl Modify for EdgeAnswers {
    fn modify(&self, doc: &mut Document) {
        let components = doc.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            SIGNED_IN,
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .bearer_format("JWT")
                    .description(Some("A Clerk session token (RS256) in `Authorization: Bearer`."))
                    .build(),
            ),
        );
        components.add_security_scheme(
            SESSION_COOKIE,
            SecurityScheme::ApiKey(ApiKey::Cookie(ApiKeyValue::with_description(
                "__session",
                "The same Clerk session token in the `__session` cookie (read when there is no Authorization header).",
            ))),
        );
        components.add_security_scheme(
            API_KEY,
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .bearer_format("vst_…")
                    .description(Some("A workspace API key (`vst_` + 43 characters), created by an owner; shown once."))
                    .build(),
            ),
        );
        for (name, response) in edge_responses() {
            components.responses.insert(name.to_owned(), RefOr::T(response));
        }
        for (path, item) in doc.paths.paths.iter_mut() {
            let under_api = path.starts_with("/api/");
            let audience = Audience::of(path);
            let operations = [
                (HttpMethod::Get, &mut item.get),
                (HttpMethod::Post, &mut item.post),
                (HttpMethod::Put, &mut item.put),
                (HttpMethod::Patch, &mut item.patch),
                (HttpMethod::Delete, &mut item.delete),
            ];
            for (method, operation) in operations {
                if let Some(operation) = operation {
                    audience.mark(operation);
                    describe_path_parameters(path, operation);
                    add_edge_answers(operation, method != HttpMethod::Get, under_api);
                }
            }
        }
    }
}

/// The OpenAPI `links` from each create to what acts on the object it created: where the
/// new object's id goes in the next call (`$response.body#/…`) and which path parameters
/// stay those of the creating request (`$request.path.…`). Clients (and Schemathesis's
/// stateful phase) follow them to chain calls. One row per creating answer:
/// (operation id, status, where the new id is, the id's path parameter, the targets).
const LINKS: &[(&str, &str, &str, &str, &[&str])] = &[
    (
        "createProgram",
        "201",
        "/id",
        "id",
        &[
            "getProgram",
            "updateProgram",
            "getProgramStats",
            "listEntries",
            "getContent",
            "putContent",
            "publishNotice",
            "createCohortCode",
            "listCohortCodes",
            "openDraw",
            "listDraws",
            "listEvents",
            "getAuditCheckpoint",
        ],
    ),
    ("createCohortCode", "201", "/cohortCode/id", "codeId", &["getCohortCode", "revokeCohortCode"]),
    (
        "createWebhook",
        "201",
        "/webhook/id",
        "webhookId",
        &[
            "updateWebhook",
            "deleteWebhook",
            "rotateWebhookSecret",
            "listWebhookDeliveries",
            "testWebhook",
            "recoverWebhook",
        ],
    ),
    ("createApiKey", "201", "/apiKey/id", "keyId", &["revokeApiKey"]),
    ("issueInvitation", "201", "/invitation/id", "id", &["recordDelivery", "revokeInvitation"]),
    ("openDraw", "201", "/drawId", "drawId", &["getDrawRecord", "runDraw", "cancelDraw"]),
];

/// Adds [`LINKS`] to the creating answers. A target's other path parameters come from the
/// creating request's path (a program's or workspace's `id`). Written into the JSON rather
/// than with `utoipa::openapi::link::Link`, which serializes its fields in snake case
/// (`operation_id`) instead of the specification's `operationId` (utoipa 5.5).
fn add_links(doc: &mut serde_json::Value) {
    const METHODS: [&str; 5] = ["get", "post", "put", "patch", "delete"];
    let names = |path: &str| -> Vec<String> {
        path.split('/')
            .filter_map(|s| s.strip_prefix('{').and_then(|s| s.strip_suffix('}')))
            .map(str::to_owned)
            .collect()
    };
    let mut paths: std::collections::HashMap<String, (String, String)> = Default::default();
    for (path, item) in doc["paths"].as_object().into_iter().flatten() {
        for method in METHODS {
            if let Some(id) = item[method]["operationId"].as_str() {
                paths.insert(id.to_owned(), (path.clone(), method.to_owned()));
            }
        }
    }
    for &(source, status, pointer, param, targets) in LINKS {
        let Some((source_path, method)) = paths.get(source) else { continue };
        let source_params = names(source_path);
        let mut links = serde_json::Map::new();
        for target in targets {
            let Some((target_path, _)) = paths.get(*target) else { continue };
            let mut parameters = serde_json::Map::new();
            for name in names(target_path) {
                if name == param {
                    parameters.insert(name, format!("$response.body#{pointer}").into());
                } else if source_params.contains(&name) {
                    parameters.insert(name.clone(), format!("$request.path.{name}").into());
                }
            }
            let mut name = target.to_string();
            name[..1].make_ascii_uppercase();
            links.insert(name, serde_json::json!({ "operationId": target, "parameters": parameters }));
        }
        let response = doc.pointer_mut(&format!(
            "/paths/{}/{method}/responses/{status}",
            source_path.replace('~', "~0").replace('/', "~1")
        ));
        if let Some(serde_json::Value::Object(response)) = response {
            response.insert("links".to_owned(), links.into());
        }
    }
}

/// Who a path is for, from its prefix.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Audience {
    Operations,
    Public,
    Recipient,
    Owner,
    Server,
    Hooks,
}

impl Audience {
    fn of(path: &str) -> Audience {
        if path.starts_with("/api/owner") {
            Audience::Owner
        } else if path.starts_with("/api/me") {
            Audience::Recipient
        } else if path.starts_with("/api/v1/") {
            Audience::Server
        } else if path.starts_with("/api/hooks/") {
            Audience::Hooks
        } else if path.starts_with("/api/public") || path == "/api/config" {
            Audience::Public
        } else {
            Audience::Operations
        }
    }

    fn mark(self, op: &mut Operation) {
        let tag = match self {
            Audience::Operations => "operations",
            Audience::Public => "public",
            Audience::Recipient => "recipient",
            Audience::Owner => "owner",
            Audience::Server => "server",
            Audience::Hooks => "hooks",
        };
        if self == Audience::Server {
            op.security = Some(vec![SecurityRequirement::new(API_KEY, Vec::<String>::new())]);
        }
        op.tags = Some(vec![tag.to_owned()]);
        if matches!(self, Audience::Recipient | Audience::Owner) {
            let either = [SIGNED_IN, SESSION_COOKIE].map(|name| SecurityRequirement::new(name, Vec::<String>::new()));
            op.security = Some(either.to_vec());
            if self == Audience::Owner {
                op.responses
                    .responses
                    .entry("404".to_owned())
                    .or_insert_with(|| RefOr::Ref(Ref::from_response_name("OwnerNotFound")));
            }
        }
    }
}

/// Every `{name}` of the path as a required path parameter, described once here: a slug
/// is a string with the slug pattern, anything else a UUID naming the object its path
/// segment says. Parameters the framework already derived from the handler are kept
/// and given the same description.
fn describe_path_parameters(path: &str, op: &mut Operation) {
    let segments: Vec<&str> = path.split('/').collect();
    let mut declared = Vec::new();
    for (i, segment) in segments.iter().enumerate() {
        let Some(name) = segment.strip_prefix('{').and_then(|s| s.strip_suffix('}')) else { continue };
        let (description, schema) = match name {
            "slug" => {
                ("The program's public slug.", ObjectBuilder::new().schema_type(Type::String).pattern(Some(SLUG)))
            }
            "entryId" => ("The entry id.", uuid()),
            "webhookId" => ("The webhook endpoint id.", uuid()),
            "keyId" => ("The API key id.", uuid()),
            "workspaceId" => ("The workspace id.", uuid()),
            "deliveryId" => {
                ("The delivery id (from the delivery log).", ObjectBuilder::new().schema_type(Type::Integer))
            }
            _ => (object_named_by(segments.get(i.wrapping_sub(1)).copied().unwrap_or_default()), uuid()),
        };
        declared.push(
            ParameterBuilder::new()
                .name(name)
                .parameter_in(ParameterIn::Path)
                .required(Required::True)
                .description(Some(description))
                .schema(Some(schema))
                .build(),
        );
    }
    let others = op.parameters.take().unwrap_or_default().into_iter().filter(|p| p.parameter_in != ParameterIn::Path);
    declared.extend(others);
    op.parameters = (!declared.is_empty()).then_some(declared);
}

const SLUG: &str = r"^[a-z0-9-]{3,60}$";

fn uuid() -> ObjectBuilder {
    ObjectBuilder::new().schema_type(Type::String).format(Some(SchemaFormat::KnownFormat(KnownFormat::Uuid)))
}

/// `…/programs/{id}` names a program, `…/invitations/{id}` an invitation, and so on.
fn object_named_by(collection: &str) -> &'static str {
    match collection {
        "programs" => "The program id.",
        "invitations" => "The invitation id.",
        "grants" => "The grant id.",
        "workspaces" => "The workspace id.",
        "webhooks" => "The webhook endpoint id.",
        "api-keys" => "The API key id.",
        "admit" => "The workspace id.",
        _ => "The object's id.",
    }
}

fn add_edge_answers(op: &mut Operation, mutating: bool, under_api: bool) {
    let signed_in = op.security.as_ref().is_some_and(|s| !s.is_empty());
    let params = op.parameters.as_deref().unwrap_or_default();
    let has_query = params.iter().any(|p| p.parameter_in == ParameterIn::Query);
    let has_path = params.iter().any(|p| p.parameter_in == ParameterIn::Path);
    // An error a handler documents carries the one error body.
    for (status, response) in op.responses.responses.iter_mut() {
        if let RefOr::T(response) = response {
            if status.as_str() >= "400" && response.content.is_empty() {
                response.content.insert("application/json".to_owned(), error_content());
            }
        }
    }
    let mut add = |status: &str, name: &str| {
        op.responses.responses.entry(status.to_owned()).or_insert_with(|| RefOr::Ref(Ref::from_response_name(name)));
    };
    if op.request_body.is_some() {
        add("400", "BadRequest");
        add("413", "PayloadTooLarge");
        add("415", "UnsupportedMediaType");
    }
    if has_query {
        add("400", "BadRequest");
    }
    if has_path {
        add("404", "NotFound");
    }
    if mutating {
        add("403", "Forbidden");
    }
    if signed_in {
        add("401", "SignedOut");
    }
    let operation_id = op.operation_id.as_deref().unwrap_or_default();
    if under_api && !NO_DEPENDENCY.contains(&operation_id) {
        add("503", "Unavailable");
    }
    if mutating && signed_in {
        let csrf = ParameterBuilder::new()
            .name("X-CSRF-Token")
            .parameter_in(ParameterIn::Header)
            .required(Required::True)
            .description(Some("The `csrfToken` of `GET /api/me`, bound to this session."))
            .schema(Some(ObjectBuilder::new().schema_type(Type::String)))
            .build();
        op.parameters.get_or_insert_with(Vec::new).push(csrf);
    }
}

fn error_content() -> utoipa::openapi::Content {
    ContentBuilder::new().schema(Some(Ref::from_schema_name("ErrorBody"))).build()
}

fn error_response(description: &str) -> ResponseBuilder {
    ResponseBuilder::new().description(description).content("application/json", error_content())
}

fn retry_after() -> utoipa::openapi::header::Header {
    HeaderBuilder::new()
        .schema(ObjectBuilder::new().schema_type(Type::Integer))
        .description(Some("Seconds to wait before retrying."))
        .build()
}

fn edge_responses() -> [(&'static str, Response); 8] {
    [
        ("BadRequest", error_response("Malformed body or query, or a field out of bounds.").build()),
        (
            "SignedOut",
            error_response("No valid session token (`signed_out`), or the provider no longer knows the user.")
                .header("WWW-Authenticate", HeaderBuilder::new().schema(ObjectBuilder::new()).build())
                .build(),
        ),
        (
            "Forbidden",
            error_response("A missing, foreign or `null` `Origin` (`origin_rejected`), or a missing or wrong `X-CSRF-Token` (`csrf_rejected`).")
                .build(),
        ),
        ("NotFound", error_response("Absent, foreign, revoked or not permitted: one shape for all.").build()),
        (
            "OwnerNotFound",
            error_response("No such object, or the caller is not an owner of its workspace (one shape for all).")
                .build(),
        ),
        ("PayloadTooLarge", error_response("The body is larger than 32 KiB.").build()),
        ("UnsupportedMediaType", error_response("The body is not `application/json`.").build()),
        (
            "Unavailable",
            error_response("The database or the identity provider is unavailable; safe to retry.")
                .header("Retry-After", retry_after())
                .build(),
        ),
    ]
}

/// The document's top-level `webhooks` (OpenAPI 3.1): what the outbox posts to an
/// owner's endpoint, one entry per event type, each with its own JSON Schema (the exact
/// `data` fields that type carries, nothing else) and an example.
fn webhooks() -> serde_json::Value {
    use serde_json::json;
    let header = |name: &str, description: &str| json!({"name": name, "in": "header", "required": true, "description": description, "schema": {"type": "string"}});
    let parameters = json!([
        header("webhook-id", "`msg_…`: the message id, the same on every retry (deduplicate on it)."),
        header("webhook-timestamp", "Unix seconds of this attempt; refuse one more than 5 minutes away."),
        header("webhook-signature", "Space-separated signatures of `{webhook-id}.{webhook-timestamp}.{body}`: `v1,<base64>` HMAC-SHA256 under the base64-decoded part of the `whsec_` secret, or, for a `v1a` endpoint, `v1a,<base64>` Ed25519 verified with its `whpk_` public key; during a rotation both keys sign."),
    ]);
    let operation = |t: WebhookEventType| {
        let (schema, example) = event_schema(t);
        json!({"post": {
            "operationId": format!("webhook_{}", t.as_str().replace('.', "_")),
            "summary": format!("`{}`", t.as_str()),
            "description": match t {
                WebhookEventType::WebhookTest => "Sent to one endpoint only, by `POST …/webhooks/{webhookId}/test`. Accept and ignore it.",
                _ => "Standard Webhooks 1.0. Thin: ids and the new state only, never an email, code or key. At least once: retried with backoff (about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h) until a 2xx; `410` disables the endpoint; `429`/`503` with `Retry-After` is waited out.",
            },
            "parameters": parameters,
            "requestBody": {"required": true, "content": {"application/json": {"schema": schema, "example": example}}},
            "responses": {"2XX": {"description": "Received; any other answer (or none within 5 s) is retried."}}
        }})
    };
    WebhookEventType::ALL
        .into_iter()
        .chain([WebhookEventType::WebhookTest])
        .map(|t| (t.as_str().to_owned(), operation(t)))
        .collect()
}

/// One event type's body: its JSON Schema and an example. Which ids and states each type
/// carries is what `outbox_enqueue` (V123) builds.
fn event_schema(t: WebhookEventType) -> (serde_json::Value, serde_json::Value) {
    use serde_json::{json, Map, Value};
    let uuid = json!({"type": "string", "format": "uuid"});
    let id = |n: u8| Value::String(format!("{n:08x}-0000-4000-8000-000000000000"));
    // (field, required, schema, example)
    let mut fields: Vec<(&str, bool, Value, Value)> = vec![("workspaceId", true, uuid.clone(), id(1))];
    let state = |states: &[&str]| json!({"type": "string", "enum": states});
    let entry_state = |states: &[&str], ex: &str| ("state", true, state(states), json!(ex));
    use WebhookEventType as T;
    if t != T::WebhookTest {
        fields.push(("programId", true, uuid.clone(), id(2)));
    }
    match t {
        T::EntryCreated => {
            fields.extend([("entryId", true, uuid.clone(), id(3)), entry_state(&["waiting", "active"], "waiting")])
        }
        T::EntrySelected => {
            fields.extend([("entryId", true, uuid.clone(), id(3)), entry_state(&["selected"], "selected")])
        }
        T::EntryDeclined => {
            fields.extend([("entryId", true, uuid.clone(), id(3)), entry_state(&["declined"], "declined")])
        }
        T::EntryWithdrawn => {
            fields.extend([("entryId", true, uuid.clone(), id(3)), entry_state(&["withdrawn"], "withdrawn")])
        }
        T::InvitationIssued => fields.extend([
            ("entryId", true, uuid.clone(), id(3)),
            ("invitationId", true, uuid.clone(), id(4)),
            entry_state(&["issued"], "issued"),
        ]),
        T::InvitationRevoked => fields.extend([
            ("entryId", true, uuid.clone(), id(3)),
            ("invitationId", true, uuid.clone(), id(4)),
            entry_state(&["revoked"], "revoked"),
        ]),
        T::GrantCreated => fields.extend([
            ("entryId", true, uuid.clone(), id(3)),
            ("grantId", true, uuid.clone(), id(5)),
            entry_state(&["active"], "active"),
        ]),
        T::GrantRevoked => fields.extend([
            ("entryId", true, uuid.clone(), id(3)),
            ("grantId", true, uuid.clone(), id(5)),
            entry_state(&["revoked"], "revoked"),
        ]),
        T::ContentPublished => fields.push(("revision", true, json!({"type": "integer", "minimum": 1}), json!(3))),
        T::WebhookTest => fields.push(("webhookId", true, uuid.clone(), id(6))),
    }
    let properties: Map<String, Value> = fields.iter().map(|(n, _, s, _)| ((*n).to_owned(), s.clone())).collect();
    let required: Vec<&str> = fields.iter().filter(|f| f.1).map(|f| f.0).collect();
    let data_example: Map<String, Value> = fields.iter().map(|(n, _, _, e)| ((*n).to_owned(), e.clone())).collect();
    let schema = json!({
        "type": "object",
        "required": ["type", "timestamp", "data"],
        "additionalProperties": false,
        "properties": {
            "type": {"const": t.as_str()},
            "timestamp": {"type": "string", "format": "date-time", "description": "When the change was committed (RFC 3339, UTC)."},
            "data": {"type": "object", "required": required, "additionalProperties": false, "properties": properties},
        },
    });
    let example = json!({"type": t.as_str(), "timestamp": "2026-12-02T09:30:00.123456Z", "data": data_example});
    (schema, example)
}

#[cfg(test)]
mod tests {
    use super::*;
    use utoipa_actix_web::AppExt;

    #[test]
    fn operation_ids_are_unique_and_every_operation_answers_errors_in_the_error_body() {
        let (_, collected) =
            crate::startup::register(actix_web::App::new().into_utoipa_app().openapi(base())).split_for_parts();
        publish(collected);
        let doc: serde_json::Value = serde_json::from_str(DOCUMENT.get().unwrap()).unwrap();
        if let Ok(path) = std::env::var("OPENAPI_DUMP") {
            std::fs::write(path, serde_json::to_string_pretty(&doc).unwrap()).unwrap();
        }
        let mut ids = std::collections::BTreeSet::new();
        for (path, item) in doc["paths"].as_object().unwrap() {
            for (method, op) in item.as_object().unwrap() {
                let id = op["operationId"].as_str().unwrap_or_else(|| panic!("{method} {path} has no operationId"));
                assert!(ids.insert(id.to_owned()), "duplicate operationId {id}");
            }
        }
    }
}
