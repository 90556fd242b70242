//! The proof-of-work solver of the signup form (issue 15): `/pow-worker.js` runs in a
//! Web Worker, fetches the program's challenge and solves it while the applicant types,
//! and the page sends the ALTCHA payload with the signup. One payload per admission: a
//! new attempt after a received one, or after `challenge_failed`, asks for a fresh one.

use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Solution {
    /// The program asks for no work.
    NotNeeded,
    Working,
    Ready(String),
    /// The worker could not start or fetch; the signup goes without and is refused.
    Failed,
}

impl Solution {
    pub fn settled(&self) -> bool {
        !matches!(self, Solution::Working)
    }

    pub fn payload(&self) -> Option<String> {
        match self {
            Solution::Ready(p) => Some(p.clone()),
            _ => None,
        }
    }
}

/// Starts a worker on `slug`'s challenge; `into` turns `Ready` with the payload. The
/// first call on a form's page takes over the work `web/boot.js` started with the page.
pub fn solve(slug: &str, into: RwSignal<Solution>) {
    into.set(Solution::Working);
    if let Some(started) = started_with_the_page() {
        leptos::task::spawn_local(async move {
            let payload = wasm_bindgen_futures::JsFuture::from(started).await.ok().and_then(|v| v.as_string());
            into.set(payload.map_or(Solution::Failed, Solution::Ready));
        });
        return;
    }
    let Ok(worker) = web_sys::Worker::new("/pow-worker.js") else {
        into.set(Solution::Failed);
        return;
    };
    let done = worker.clone();
    let on_message = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |ev: web_sys::MessageEvent| {
        let payload = js_sys::Reflect::get(&ev.data(), &"payload".into()).ok().and_then(|v| v.as_string());
        into.set(payload.map_or(Solution::Failed, Solution::Ready));
        done.terminate();
    });
    let on_error = Closure::<dyn FnMut(web_sys::Event)>::new(move |_| into.set(Solution::Failed));
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    // The worker lives until it answers; its two small handlers live as long.
    on_message.forget();
    on_error.forget();
    let message = js_sys::Object::new();
    let url = format!("/api/public/programs/{slug}/challenge");
    if js_sys::Reflect::set(&message, &"url".into(), &url.into()).is_err() || worker.post_message(&message).is_err() {
        into.set(Solution::Failed);
    }
}

/// The payload promise `web/boot.js` left on `window.vestibulePow`, taken once.
fn started_with_the_page() -> Option<js_sys::Promise> {
    let window = window();
    let key = JsValue::from_str("vestibulePow");
    let promise = js_sys::Reflect::get(&window, &key).ok()?.dyn_into::<js_sys::Promise>().ok()?;
    let _ = js_sys::Reflect::delete_property(&window, &key);
    Some(promise)
}
