//! Real Clerk (SPEC §3.4): loads clerk-js from the instance's Frontend API, whose host is
//! encoded in the publishable key (`pk_test_`/`pk_live_` + base64 of `"<host>$"`). clerk-js
//! maintains the `__session` cookie itself; this file only starts it, mounts its sign-in
//! component, asks for a fresh token and signs out. Calls go through `js_sys::Reflect`, so
//! no bindings are generated for an object that exists only at run time.

use js_sys::{Array, Function, Object, Promise, Reflect};
use leptos::prelude::*;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

const CLERK_JS: &str = "npm/@clerk/clerk-js@5/dist/clerk.browser.js";

pub async fn load(publishable_key: &str) -> Result<(), JsValue> {
    let host = frontend_api_host(publishable_key).ok_or_else(|| JsValue::from_str("publishable key"))?;
    let script: web_sys::HtmlScriptElement = document().create_element("script")?.unchecked_into();
    script.set_src(&format!("https://{host}/{CLERK_JS}"));
    script.set_cross_origin(Some("anonymous"));
    script.set_attribute("data-clerk-publishable-key", publishable_key)?;
    let loaded = Promise::new(&mut |resolve, reject| {
        script.set_onload(Some(&resolve));
        script.set_onerror(Some(&reject));
    });
    document().body().ok_or_else(|| JsValue::from_str("body"))?.append_child(&script)?;
    JsFuture::from(loaded).await?;
    invoke(&clerk()?, "load", &[]).await.map(drop)
}

/// The Frontend API host, e.g. `clerk.example.com`, or `None` for a malformed key.
fn frontend_api_host(key: &str) -> Option<String> {
    let encoded = key.strip_prefix("pk_test_").or_else(|| key.strip_prefix("pk_live_"))?;
    let mut padded = encoded.to_owned();
    while !padded.len().is_multiple_of(4) {
        padded.push('=');
    }
    let decoded = window().atob(&padded).ok()?;
    let host = decoded.strip_suffix('$')?;
    let plausible = !host.is_empty() && host.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-');
    plausible.then(|| host.to_owned())
}

pub fn signed_in() -> bool {
    clerk().and_then(|c| Reflect::get(&c, &"user".into())).is_ok_and(|u| !u.is_null() && !u.is_undefined())
}

/// Asks clerk-js for a token that skips its cache, which also rewrites `__session`.
pub async fn refresh() -> bool {
    let Ok(session) = clerk().and_then(|c| Reflect::get(&c, &"session".into())) else {
        return false;
    };
    if session.is_null() || session.is_undefined() {
        return false;
    }
    let options = Object::new();
    let _ = Reflect::set(&options, &"skipCache".into(), &JsValue::TRUE);
    matches!(invoke(&session, "getToken", &[options.into()]).await, Ok(token) if token.is_string())
}

pub async fn sign_out() {
    if let Ok(c) = clerk() {
        let _ = invoke(&c, "signOut", &[]).await;
    }
}

pub fn mount_sign_in(el: &web_sys::HtmlElement) {
    let options = Object::new();
    let _ = Reflect::set(&options, &"fallbackRedirectUrl".into(), &"/me".into());
    if let Ok(c) = clerk() {
        let _ = call(&c, "mountSignIn", &[el.into(), options.into()]);
    }
}

pub fn unmount_sign_in(el: &web_sys::HtmlElement) {
    if let Ok(c) = clerk() {
        let _ = call(&c, "unmountSignIn", &[el.into()]);
    }
}

fn clerk() -> Result<JsValue, JsValue> {
    let c = Reflect::get(&js_sys::global(), &"Clerk".into())?;
    if c.is_object() {
        Ok(c)
    } else {
        Err(JsValue::from_str("clerk-js not loaded"))
    }
}

fn call(target: &JsValue, method: &str, args: &[JsValue]) -> Result<JsValue, JsValue> {
    let f: Function = Reflect::get(target, &method.into())?.dyn_into()?;
    f.apply(target, &args.iter().collect::<Array>())
}

async fn invoke(target: &JsValue, method: &str, args: &[JsValue]) -> Result<JsValue, JsValue> {
    let result = call(target, method, args)?;
    JsFuture::from(Promise::resolve(&result)).await
}
