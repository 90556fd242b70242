//! The one way the SPA talks to the API: same-origin fetch with JSON bodies, decoding the
//! shared error body into [`ApiError`]. Policy: signed-in calls refresh the session once
//! on a 401 and retry, and every signed-in mutation carries the `X-CSRF-Token` header;
//! nothing here logs a request or response body.

use std::future::Future;
use std::pin::Pin;

use gloo_net::http::{Method, RequestBuilder};
use serde::{de::DeserializeOwned, Serialize};
use shared::api::MeResponse;
use shared::{ErrorBody, ErrorCode};

use crate::auth;

/// A failed call: HTTP status (0 when the server could not be reached), what kind of
/// failure it was, and a message safe to show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    pub status: u16,
    pub code: Code,
    pub message: String,
}

/// The kind of a failure: the API's stable code, or one the SPA itself observed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Code {
    /// The error body's code (the one list, `shared::ErrorCode`).
    Api(ErrorCode),
    /// The server could not be reached.
    Network,
    /// The server answered something that is not the contract's error body.
    Unexpected,
    /// The page wrote the message for the situation; shown as is.
    Explained,
}

impl ApiError {
    fn new(status: u16, code: Code, message: &str) -> Self {
        ApiError { status, code, message: message.into() }
    }

    /// The API's code, when the server sent one.
    pub fn api_code(&self) -> Option<ErrorCode> {
        match self.code {
            Code::Api(code) => Some(code),
            _ => None,
        }
    }

    /// The browser could not reach the server (offline, DNS, CORS, aborted).
    pub fn network() -> Self {
        Self::new(0, Code::Network, "Could not reach the server. Check your connection and try again.")
    }

    /// A network failure or a server-side error: the same request may be sent again.
    pub fn is_retryable(&self) -> bool {
        self.status == 0 || self.status >= 500
    }

    /// Answered locally for input that cannot name anything (a malformed slug).
    pub fn not_found() -> Self {
        Self::new(404, Code::Api(ErrorCode::NotFound), "Not found.")
    }

    /// Input the page refused before sending anything, with its explanation.
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::new(400, Code::Explained, "").explained(message)
    }

    /// The same failure with a message written for the page it happened on; shown as is.
    pub fn explained(self, message: impl Into<String>) -> Self {
        ApiError { code: Code::Explained, message: message.into(), ..self }
    }

    pub fn is_explained(&self) -> bool {
        self.code == Code::Explained
    }

    fn unexpected(status: u16) -> Self {
        Self::new(status, Code::Unexpected, "The server answered unexpectedly. Try again shortly.")
    }
}

/// Whether a call is made on behalf of the signed-in user (refresh + CSRF) or anonymously.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Caller {
    Anonymous,
    Session,
}

/// The one request shape every helper below funnels into.
struct Call {
    method: Method,
    path: String,
    body: Option<String>,
    caller: Caller,
    accept: &'static str,
}

/// Boxed so that the request logic exists once in the bundle, not once per response type.
type Pending = Pin<Box<dyn Future<Output = Result<String, ApiError>>>>;

const JSON: &str = "application/json";
const CSV: &str = "text/csv";

/// Signed-in GET of a JSON resource.
pub async fn get<T: DeserializeOwned>(path: impl Into<String>) -> Result<T, ApiError> {
    decode(
        call(Call { method: Method::GET, path: path.into(), body: None, caller: Caller::Session, accept: JSON })
            .await?,
    )
}

/// Anonymous GET (public pages, `/api/config`): no refresh on 401.
pub async fn get_public<T: DeserializeOwned>(path: impl Into<String>) -> Result<T, ApiError> {
    decode(
        call(Call { method: Method::GET, path: path.into(), body: None, caller: Caller::Anonymous, accept: JSON })
            .await?,
    )
}

/// Signed-in POST with a JSON body and the CSRF header.
pub async fn post<B: Serialize, T: DeserializeOwned>(path: impl Into<String>, body: &B) -> Result<T, ApiError> {
    decode(call(with_body(Method::POST, path.into(), body, Caller::Session, JSON)?).await?)
}

/// Signed-in PATCH with a JSON body and the CSRF header.
pub async fn patch<B: Serialize, T: DeserializeOwned>(path: impl Into<String>, body: &B) -> Result<T, ApiError> {
    decode(call(with_body(Method::PATCH, path.into(), body, Caller::Session, JSON)?).await?)
}

/// Signed-in PUT with a JSON body and the CSRF header.
pub async fn put<B: Serialize, T: DeserializeOwned>(path: impl Into<String>, body: &B) -> Result<T, ApiError> {
    decode(call(with_body(Method::PUT, path.into(), body, Caller::Session, JSON)?).await?)
}

/// Signed-in DELETE with the CSRF header (revoking an API key or a cohort code).
pub async fn delete<T: DeserializeOwned>(path: impl Into<String>) -> Result<T, ApiError> {
    decode(
        call(Call { method: Method::DELETE, path: path.into(), body: None, caller: Caller::Session, accept: JSON })
            .await?,
    )
}

/// Anonymous POST (the public signup): no session, no CSRF token.
pub async fn post_public<B: Serialize, T: DeserializeOwned>(path: impl Into<String>, body: &B) -> Result<T, ApiError> {
    decode(call(with_body(Method::POST, path.into(), body, Caller::Anonymous, JSON)?).await?)
}

/// Signed-in GET of a text resource (CSV exports).
pub async fn get_text(path: impl Into<String>) -> Result<String, ApiError> {
    call(Call { method: Method::GET, path: path.into(), body: None, caller: Caller::Session, accept: CSV }).await
}

/// Signed-in POST answered with text (bulk invitation CSV).
pub async fn post_text<B: Serialize>(path: impl Into<String>, body: &B) -> Result<String, ApiError> {
    call(with_body(Method::POST, path.into(), body, Caller::Session, CSV)?).await
}

/// `GET /api/me` with one refresh on 401. Used by [`auth`] to learn the CSRF token; kept
/// apart from [`call`] so that asking for a token never asks for a token.
pub async fn fetch_me() -> Result<MeResponse, ApiError> {
    let mut answer = fetch(Method::GET, "/api/me", None, None, JSON).await?;
    if answer.0 == 401 && auth::refresh().await {
        answer = fetch(Method::GET, "/api/me", None, None, JSON).await?;
    }
    match answer {
        (200..=299, text) => decode(text),
        (status, text) => Err(error_from(status, &text)),
    }
}

fn with_body<B: Serialize>(
    method: Method,
    path: String,
    body: &B,
    caller: Caller,
    accept: &'static str,
) -> Result<Call, ApiError> {
    let body = serde_json::to_string(body).map_err(|_| ApiError::unexpected(0))?;
    Ok(Call { method, path, body: Some(body), caller, accept })
}

fn call(c: Call) -> Pending {
    Box::pin(async move {
        let signed_in = c.caller == Caller::Session;
        let mutating = c.method != Method::GET;
        let (mut refreshed, mut new_token) = (false, false);
        loop {
            let csrf = if signed_in && mutating { Some(auth::csrf_token().await?) } else { None };
            let (status, text) = fetch(c.method.clone(), &c.path, c.body.as_deref(), csrf.as_deref(), c.accept).await?;
            match status {
                200..=299 => return Ok(text),
                401 if signed_in && !refreshed => {
                    refreshed = true;
                    if auth::refresh().await {
                        continue;
                    }
                    auth::mark_signed_out();
                }
                401 if signed_in => auth::mark_signed_out(),
                // A token from before a refresh-sign-in: learn the current one, try once more.
                403 if csrf.is_some() && !new_token => {
                    new_token = true;
                    auth::forget_csrf();
                    continue;
                }
                _ => {}
            }
            return Err(error_from(status, &text));
        }
    })
}

async fn fetch(
    method: Method,
    path: &str,
    body: Option<&str>,
    csrf: Option<&str>,
    accept: &str,
) -> Result<(u16, String), ApiError> {
    let mut builder = RequestBuilder::new(path).method(method).header("Accept", accept);
    if let Some(token) = csrf {
        builder = builder.header("X-CSRF-Token", token);
    }
    let request = match body {
        Some(json) => builder.header("Content-Type", JSON).body(json.to_owned()),
        None => builder.build(),
    }
    .map_err(|_| ApiError::network())?;
    let response = request.send().await.map_err(|_| ApiError::network())?;
    let text = response.text().await.map_err(|_| ApiError::network())?;
    Ok((response.status(), text))
}

fn decode<T: DeserializeOwned>(text: String) -> Result<T, ApiError> {
    let text = if text.trim().is_empty() { "null" } else { text.as_str() };
    serde_json::from_str(text).map_err(|_| ApiError::unexpected(200))
}

fn error_from(status: u16, text: &str) -> ApiError {
    match serde_json::from_str::<ErrorBody>(text) {
        Ok(body) => ApiError { status, code: Code::Api(body.error.code), message: body.error.message },
        Err(_) => ApiError::unexpected(status),
    }
}
