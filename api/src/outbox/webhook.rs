//! One webhook attempt: sign the stored payload with the endpoint's current key (and
//! the previous one during a rotation) and POST it, with short timeouts, no redirects
//! and the SSRF rule of [`super::target`]. The response body is never read or kept; its
//! status is: `410 Gone` disables the endpoint, `429`/`503` with `Retry-After` is waited out.

use super::target::{self, PublicOnly, RefusedTarget};
use super::{Outcome, Reason};
use crate::db::outbox::Claimed;
use crate::standard_webhooks;
use crate::state::AppState;
use std::sync::Arc;
use std::time::Duration;

/// The client every delivery of this process uses.
pub fn client(allow_loopback: bool) -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        // A proxy from the environment would resolve the target itself, past the SSRF check.
        .no_proxy()
        .connect_timeout(Duration::from_secs(3))
        .timeout(Duration::from_secs(5))
        .pool_max_idle_per_host(2)
        .user_agent("Vestibule-Webhooks/1")
        .dns_resolver(Arc::new(PublicOnly { allow_loopback }))
        .build()
        .expect("the webhook client builds")
}

/// The `webhook-id` of an outbox event: stable across retries and endpoints.
pub fn message_id(event_id: uuid::Uuid) -> String {
    format!("msg_{}", event_id.simple())
}

pub async fn deliver(state: &AppState, http: &reqwest::Client, d: &Claimed) -> Outcome {
    let Some(endpoint) = &d.endpoint else { return Outcome::Failed { reason: Reason::HandlerError } };
    let allow_loopback = state.settings.integrations.allow_loopback;
    if target::check_url(&endpoint.url, allow_loopback).is_err() {
        return Outcome::Retry { status: None, reason: Reason::RefusedTarget };
    }
    let context = endpoint.id.as_bytes();
    let keys: Vec<Vec<u8>> = std::iter::once(&endpoint.secret_sealed)
        .chain(endpoint.previous_sealed.as_ref())
        .filter_map(|sealed| state.keyring.open(context, sealed))
        .collect();
    if keys.is_empty() {
        tracing::error!(endpoint = %endpoint.id, "a webhook secret does not open under SECRETS_KEYS (nor SIGNUP_BINDING_KEY)");
        return Outcome::Retry { status: None, reason: Reason::HandlerError };
    }
    let body = serde_json::to_vec(&d.event.payload).expect("a JSON value serializes");
    let msg_id = message_id(d.event.id);
    let timestamp = chrono::Utc::now().timestamp();
    let signature: Vec<String> = match endpoint.signature_scheme.as_str() {
        "v1a" => keys.iter().filter_map(|k| standard_webhooks::sign_v1a(k, &msg_id, timestamp, &body)).collect(),
        _ => keys.iter().map(|k| standard_webhooks::sign(k, &msg_id, timestamp, &body)).collect(),
    };
    let sent = http
        .post(&endpoint.url)
        .header("content-type", "application/json")
        .header("webhook-id", &msg_id)
        .header("webhook-timestamp", timestamp.to_string())
        .header("webhook-signature", signature.join(" "))
        .body(body)
        .send()
        .await;
    match sent {
        Ok(response) if response.status().is_success() => {
            Outcome::Delivered { status: Some(i32::from(response.status().as_u16())) }
        }
        Ok(response) => answered(&response),
        Err(e) if e.is_timeout() => Outcome::Retry { status: None, reason: Reason::Timeout },
        Err(e) if refused(&e) => Outcome::Retry { status: None, reason: Reason::RefusedTarget },
        Err(_) => Outcome::Retry { status: None, reason: Reason::Connection },
    }
}

/// A non-2xx answer: `410 Gone` ends the endpoint; `429` and `503` with a `Retry-After`
/// are waited out; anything else is retried on the schedule.
fn answered(response: &reqwest::Response) -> Outcome {
    let status = i32::from(response.status().as_u16());
    let asked = || {
        let value = response.headers().get(reqwest::header::RETRY_AFTER)?.to_str().ok()?;
        super::parse_retry_after(value, chrono::Utc::now())
    };
    match status {
        410 => Outcome::Gone { status },
        429 | 503 => match asked() {
            Some(secs) => Outcome::RetryAfter { status, secs },
            None => Outcome::Retry { status: Some(status), reason: Reason::HttpStatus },
        },
        _ => Outcome::Retry { status: Some(status), reason: Reason::HttpStatus },
    }
}

fn refused(e: &reqwest::Error) -> bool {
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        if s.is::<RefusedTarget>() {
            return true;
        }
        source = s.source();
    }
    false
}
