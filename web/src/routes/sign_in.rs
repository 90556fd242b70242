//! `/sign-in`: the local stand-in's development form or Clerk's own component, chosen by
//! `GET /api/config`. After a successful sign-in it continues to `?next=` — only ever a
//! path on this origin, see [`safe_next`] — or, without one, owners to `/owner` and
//! everyone else to `/me`. The email typed here is sent to the identity service only.

use leptos::html;
use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos_router::components::A;
use leptos_router::hooks::{use_navigate, use_query_map};
use shared::EmailKey;

use crate::auth::{self, use_session, Backend, Status};
use crate::components::set_title;
use crate::components::status::{ErrorNotice, Loading, Warning};

/// The place to continue to after signing in, if `raw` is a path on this origin. Refused:
/// anything with a backslash, a control or a white-space character (browsers drop or
/// rewrite those, so `/\evil.example` and `/<TAB>/evil.example` become `//evil.example`), and
/// anything that, parsed against this page's origin, lands elsewhere or starts with `//`.
/// The answer is rebuilt from the parsed URL, never passed through as typed.
pub fn safe_next(raw: &str) -> Option<String> {
    if !raw.starts_with('/') || raw.chars().any(|c| c == '\\' || c.is_control() || c.is_whitespace()) {
        return None;
    }
    let origin = window().location().origin().ok()?;
    let url = web_sys::Url::new_with_base(raw, &origin).ok()?;
    let path = format!("{}{}{}", url.pathname(), url.search(), url.hash());
    (url.origin() == origin && path.starts_with('/') && !path.starts_with("//")).then_some(path)
}

#[component]
pub fn SignIn() -> impl IntoView {
    set_title("Sign in");
    let session = use_session();
    let query = use_query_map();
    let next = Memo::new(move |_| query.read().get("next").as_deref().and_then(safe_next));
    let navigate = use_navigate();
    let was_signed_out = StoredValue::new(false);
    Effect::new(move || match session.status.get() {
        Status::SignedOut => was_signed_out.set_value(true),
        Status::SignedIn if was_signed_out.get_value() => {
            let navigate = navigate.clone();
            spawn_local(async move {
                let to = match next.get_untracked() {
                    Some(path) => path,
                    None if auth::is_owner().await => "/owner".to_owned(),
                    None => "/me".to_owned(),
                };
                navigate(&to, Default::default());
            });
        }
        _ => {}
    });
    let continue_to = move || next.get().unwrap_or_else(|| "/me".to_owned());
    let state = Memo::new(move |_| (session.backend.get(), session.status.get()));
    view! {
        <h1>"Sign in"</h1>
        {move || match state.get() {
            (_, Status::SignedIn) => view! {
                <div class="card">
                    <p>"You are signed in."</p>
                    <p><A href=continue_to() attr:class="button">"Continue"</A></p>
                </div>
            }.into_any(),
            (Backend::Unknown, _) | (_, Status::Starting) => view! { <Loading/> }.into_any(),
            (Backend::Local, _) => view! { <LocalSignIn/> }.into_any(),
            (Backend::Clerk, _) => view! { <ClerkSignIn/> }.into_any(),
            (Backend::Unavailable, _) => view! {
                <Warning><p>"Sign-in is unavailable right now. Please try again in a few minutes."</p></Warning>
            }.into_any(),
        }}
    }
}

#[component]
fn LocalSignIn() -> impl IntoView {
    let email = RwSignal::new(String::new());
    let pending = RwSignal::new(false);
    let failure = RwSignal::new(None);
    let valid = move || email.with(|e| EmailKey::parse(e).is_ok());
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        if !valid() || pending.get_untracked() {
            return;
        }
        pending.set(true);
        failure.set(None);
        spawn_local(async move {
            let result = auth::sign_in_local(&email.get_untracked()).await;
            pending.set(false);
            match result {
                Ok(()) => email.set(String::new()),
                Err(e) => failure.set(Some(e)),
            }
        });
    };
    view! {
        <form class="card form" method="post" novalidate on:submit=submit>
            <p class="badge badge-selected">"Development sign-in"</p>
            <p>"This server uses the local identity stand-in. Enter an address to sign in as it; no password is needed. Real deployments sign in through Clerk."</p>
            <label for="sign-in-email">"Email address"</label>
            <input id="sign-in-email" type="email" inputmode="email" autocomplete="email" spellcheck="false" maxlength="254"
                prop:value=move || email.get() on:input=move |ev| email.set(event_target_value(&ev))/>
            <button type="submit" disabled=move || pending.get() || !valid()>
                {move || if pending.get() { "Signing in…" } else { "Sign in" }}
            </button>
            {move || failure.get().map(|err| view! { <ErrorNotice err/> })}
        </form>
    }
}

#[component]
fn ClerkSignIn() -> impl IntoView {
    let target = NodeRef::<html::Div>::new();
    let mounted = StoredValue::new_local(None::<web_sys::HtmlElement>);
    Effect::new(move || {
        if let Some(div) = target.get() {
            let el: web_sys::HtmlElement = div.into();
            auth::mount_clerk_sign_in(&el);
            mounted.set_value(Some(el));
        }
    });
    on_cleanup(move || {
        if let Some(Some(el)) = mounted.try_get_value() {
            auth::unmount_clerk_sign_in(&el);
        }
    });
    view! { <div class="clerk-mount" node_ref=target aria-live="polite"></div> }
}
