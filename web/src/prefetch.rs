//! The console's files, fetched ahead (issue 27). The public bundle (`web/Cargo.toml`)
//! holds no owner page, so an owner's first move into the console loads the console bundle;
//! once a public page knows its visitor is a signed-in owner, this asks the browser to fetch
//! the console's script and WASM while it is idle, so that move finds them in the cache
//! (their names carry a content hash and are cached as immutable, `api/src/routes/spa.rs`).
//!
//! How: it reads the console's shell (`/console.html`, small and revalidated) for the two
//! names on its `vestibule-app` meta (`web/boot.js` loads the same two) and adds a
//! `<link rel="prefetch">` for each, once per page load. Best effort: a failure only
//! means the first console page loads as it would have anyway. The console bundle itself
//! has nothing to fetch ahead, so there this does nothing.

/// Fetches the console's files once the browser is idle (once per page load).
#[cfg(not(feature = "console"))]
pub fn console() {
    use std::cell::Cell;
    use wasm_bindgen::{closure::Closure, JsCast};

    thread_local! { static ASKED: Cell<bool> = const { Cell::new(false) }; }
    if ASKED.replace(true) {
        return;
    }
    let start = Closure::once_into_js(|| leptos::task::spawn_local(fetch_ahead()));
    let window = leptos::prelude::window();
    if window.request_idle_callback(start.unchecked_ref()).is_err() {
        let _ = window.set_timeout_with_callback_and_timeout_and_arguments_0(start.unchecked_ref(), 1000);
    }
}

#[cfg(feature = "console")]
pub fn console() {}

#[cfg(not(feature = "console"))]
async fn fetch_ahead() {
    let Ok(response) = gloo_net::http::Request::get("/console.html").send().await else { return };
    if !response.ok() {
        return;
    }
    let Ok(shell) = response.text().await else { return };
    let document = leptos::prelude::document();
    let Some(head) = document.head() else { return };
    for name in [attribute(&shell, "data-js"), attribute(&shell, "data-wasm")].into_iter().flatten() {
        if let Ok(link) = document.create_element("link") {
            let _ = link.set_attribute("rel", "prefetch");
            let _ = link.set_attribute("href", name);
            let _ = head.append_child(&link);
        }
    }
}

/// The value of `name=` in the shell: quoted, or bare as a minifier leaves it. Only a
/// same-origin absolute path is taken.
#[cfg(not(feature = "console"))]
fn attribute<'a>(shell: &'a str, name: &str) -> Option<&'a str> {
    let at = shell.find(&format!("{name}="))? + name.len() + 1;
    let rest = &shell[at..];
    let value = match rest.strip_prefix('"') {
        Some(quoted) => &quoted[..quoted.find('"')?],
        None => &rest[..rest.find(|c: char| c.is_whitespace() || c == '>').unwrap_or(rest.len())],
    };
    (value.starts_with('/') && !value.starts_with("//")).then_some(value)
}
