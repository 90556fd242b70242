//! Development sign-in against the bundled stand-in (`clerk-dev`, SPEC §3.3): it trades an
//! email for a session and short-lived tokens. Like clerk-js, the token goes into the
//! `__session` cookie (path `/`, SameSite=Lax, readable by script) and is refreshed before
//! it expires. Only the session id is kept, in `sessionStorage`; the email is not kept.

use std::cell::{Cell, RefCell};
use std::time::Duration;

use gloo_net::http::Request;
use leptos::prelude::*;
use leptos::task::spawn_local;
use serde::Deserialize;
use wasm_bindgen::JsCast;

use crate::api::ApiError;

const SESSION_ID_KEY: &str = "vestibule.sid";
/// Used when the token's lifetime cannot be read: the stand-in's default TTL is 60 s.
const DEFAULT_REFRESH: Duration = Duration::from_secs(40);

thread_local! {
    static BASE_URL: RefCell<String> = const { RefCell::new(String::new()) };
    static TIMER: Cell<Option<TimeoutHandle>> = const { Cell::new(None) };
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SignInAnswer {
    session_id: String,
    jwt: String,
}

#[derive(Deserialize)]
struct TokenAnswer {
    jwt: String,
}

#[derive(Deserialize)]
struct Claims {
    iat: f64,
    exp: f64,
}

pub fn configure(url: String) {
    BASE_URL.set(url.trim_end_matches('/').to_owned());
}

/// Picks up a session from earlier in this tab. `true` when one is still alive.
pub async fn resume() -> bool {
    session_id().is_some() && refresh().await
}

pub async fn sign_in(email: &str) -> Result<(), ApiError> {
    let url = format!("{}/dev/sign-in", BASE_URL.with_borrow(Clone::clone));
    let request = Request::post(&url).json(&serde_json::json!({ "email": email })).map_err(|_| ApiError::network())?;
    let response = request.send().await.map_err(|_| ApiError::network())?;
    if !response.ok() {
        return Err(ApiError {
            status: response.status(),
            code: "sign_in_failed".into(),
            message: "The development sign-in service refused this address.".into(),
        });
    }
    let answer: SignInAnswer = response.json().await.map_err(|_| ApiError::network())?;
    if let Some(storage) = storage() {
        let _ = storage.set_item(SESSION_ID_KEY, &answer.session_id);
    }
    store_token(&answer.jwt);
    Ok(())
}

/// Mints a new token for the stored session. A refusal ends the session; a network
/// failure keeps it for the next try.
pub async fn refresh() -> bool {
    let Some(id) = session_id() else { return false };
    let id: String = js_sys::encode_uri_component(&id).into();
    let url = format!("{}/dev/sessions/{id}/tokens", BASE_URL.with_borrow(Clone::clone));
    let Ok(response) = Request::post(&url).send().await else {
        return false;
    };
    if !response.ok() {
        if (400..500).contains(&response.status()) {
            sign_out();
        }
        return false;
    }
    match response.json::<TokenAnswer>().await {
        Ok(answer) => {
            store_token(&answer.jwt);
            true
        }
        Err(_) => false,
    }
}

pub fn sign_out() {
    set_cookie("__session=; Path=/; Max-Age=0; SameSite=Lax");
    if let Some(storage) = storage() {
        let _ = storage.remove_item(SESSION_ID_KEY);
    }
    if let Some(timer) = TIMER.take() {
        timer.clear();
    }
}

fn store_token(jwt: &str) {
    let secure = if window().location().protocol().as_deref() == Ok("https:") { "; Secure" } else { "" };
    set_cookie(&format!("__session={jwt}; Path=/; SameSite=Lax{secure}"));
    let delay = refresh_delay(jwt).unwrap_or(DEFAULT_REFRESH);
    let next = set_timeout_with_handle(
        || {
            spawn_local(async {
                refresh().await;
            })
        },
        delay,
    );
    if let Some(old) = TIMER.replace(next.ok()) {
        old.clear();
    }
}

/// Two thirds of the token's lifetime, from its own `iat`/`exp` (not verified: this only
/// schedules the refresh; the API verifies the token).
fn refresh_delay(jwt: &str) -> Option<Duration> {
    let payload = jwt.split('.').nth(1)?;
    let mut b64: String = payload
        .chars()
        .map(|c| match c {
            '-' => '+',
            '_' => '/',
            c => c,
        })
        .collect();
    while !b64.len().is_multiple_of(4) {
        b64.push('=');
    }
    let json = window().atob(&b64).ok()?;
    let claims: Claims = serde_json::from_str(&json).ok()?;
    let seconds = ((claims.exp - claims.iat) * 2.0 / 3.0).clamp(5.0, 3600.0);
    Some(Duration::from_secs_f64(seconds))
}

fn session_id() -> Option<String> {
    storage()?.get_item(SESSION_ID_KEY).ok().flatten()
}

fn storage() -> Option<web_sys::Storage> {
    window().session_storage().ok().flatten()
}

fn set_cookie(value: &str) {
    if let Ok(doc) = document().dyn_into::<web_sys::HtmlDocument>() {
        let _ = doc.set_cookie(value);
    }
}
