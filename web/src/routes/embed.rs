//! `/embed/waitlist/:slug`: the signup form alone, for a frame on the owner's own page
//! (issue 15, `web/embed.js` inserts it). The server lets only the program's allowed
//! origins frame it (`frame-ancestors`); this page tells its parent its height, and only
//! a parent whose origin is one of them: the target origin of every `postMessage` is that
//! exact origin, so a page that is not it never receives anything. The parent's origin is
//! the `?parent=` that `embed.js` adds (checked against the list), else the browser's
//! `location.ancestorOrigins`. Signups are same-origin with the API (unchanged guard).

use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::components::set_title;
use crate::components::status::{loaded, ErrorNotice};
use crate::routes::waitlist::{page_title, public_program, route_slug, written_program, SignupForm};

#[component]
pub fn Embed() -> impl IntoView {
    set_title("Join a waitlist");
    if let Some(p) = written_program(&route_slug()) {
        return framed(p);
    }
    let program = public_program();
    view! {
        {loaded(program, move |r| match r {
            Ok(p) => framed(p),
            Err(e) if e.status == 404 => view! {
                <div class="card"><h1>"This waitlist is not available"</h1></div>
            }.into_any(),
            Err(e) => view! { <h1>"Join the waitlist"</h1><ErrorNotice err=e/> }.into_any(),
        })}
    }
    .into_any()
}

pub fn framed(p: shared::api::PublicProgram) -> AnyView {
    page_title(&p);
    if let Some(parent) = parent_origin(&p.embed_origins) {
        report_height(parent);
    }
    view! { <SignupForm program=p/> }.into_any()
}

/// The parent's origin, if it is one the owner allowed.
fn parent_origin(allowed: &[String]) -> Option<String> {
    let location = window().location();
    let from_query = location
        .search()
        .ok()
        .and_then(|s| web_sys::UrlSearchParams::new_with_str(&s).ok())
        .and_then(|p| p.get("parent"))
        .and_then(|p| shared::edge::parse_embed_origin(&p, true));
    let from_browser = js_sys::Reflect::get(&location, &"ancestorOrigins".into())
        .ok()
        .and_then(|list| js_sys::Reflect::get(&list, &0.into()).ok())
        .and_then(|o| o.as_string());
    [from_query, from_browser].into_iter().flatten().find(|o| allowed.contains(o))
}

/// Posts the content's height to `parent` now and whenever it changes. The body's, not
/// the document's: the document is never shorter than the frame, so the frame could
/// grow but never shrink.
///
/// Changes are seen by a `ResizeObserver`, and the first height is also posted from a few
/// timers after the form is mounted: the loader keeps the frame hidden until it knows the
/// height, and Chromium stops running the rendering steps of a hidden cross-origin frame
/// (where a `ResizeObserver` reports) once it has noticed that it is hidden — if that comes
/// before this page has started, the observer never reports and the frame would wait for
/// the loader's 10 s fallback at its guessed height. Reading `scrollHeight` lays the page
/// out on the spot, throttled or not, and an unchanged height is never posted twice.
fn report_height(parent: String) {
    let Some(body) = document().body() else { return };
    let last = std::rc::Rc::new(std::cell::Cell::new(0));
    let post = std::rc::Rc::new(move || {
        let Some(body) = document().body() else { return };
        let height = body.scroll_height();
        if height == last.get() {
            return;
        }
        last.set(height);
        let message = js_sys::Object::new();
        let _ = js_sys::Reflect::set(&message, &"type".into(), &"vestibule:height".into());
        let _ = js_sys::Reflect::set(&message, &"height".into(), &height.into());
        if let Ok(Some(top)) = window().parent() {
            let _ = top.post_message(&message, &parent);
        }
    });
    let observed = post.clone();
    let callback = Closure::<dyn FnMut()>::new(move || observed());
    if let Ok(observer) = web_sys::ResizeObserver::new(callback.as_ref().unchecked_ref()) {
        observer.observe(&body);
    }
    // Lives as long as the page (one per load).
    callback.forget();
    for ms in [0, 100, 400, 1000, 2500] {
        let post = post.clone();
        set_timeout(move || post(), std::time::Duration::from_millis(ms));
    }
}
