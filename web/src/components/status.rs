//! The states every view shows: loading, empty, error, success, and the sign-in gate.
//! Policy: error text comes from the status and the server's generic message, never from
//! anything the user typed.

use leptos::prelude::*;
use leptos_router::components::A;
use leptos_router::hooks::use_location;

use crate::api::ApiError;
use crate::auth::{use_session, Status};

#[component]
pub fn Loading(#[prop(default = "Loading…")] label: &'static str) -> impl IntoView {
    view! { <p class="loading" role="status" aria-live="polite"><span class="spinner" aria-hidden="true"></span>{label}</p> }
}

#[component]
pub fn Empty(children: Children) -> impl IntoView {
    view! { <div class="empty">{children()}</div> }
}

/// A success message, announced politely.
#[component]
pub fn Success(children: Children) -> impl IntoView {
    view! { <div class="alert alert-ok" role="status">{children()}</div> }
}

/// A success panel that takes the focus when it appears (its heading is focusable but not
/// in the Tab order), so a keyboard or screen-reader user lands on the news instead of on
/// the button that has just disappeared.
#[component]
pub fn Arrived(id: &'static str, #[prop(into)] heading: String, children: Children) -> impl IntoView {
    let title = NodeRef::<leptos::html::H2>::new();
    Effect::new(move || {
        if let Some(h) = title.get() {
            let _ = h.focus();
        }
    });
    view! {
        <div class="alert alert-ok" role="status">
            <h2 id=id tabindex="-1" node_ref=title>{heading}</h2>
            {children()}
        </div>
    }
}

/// A warning or conflict that the user can act on.
#[component]
pub fn Warning(children: Children) -> impl IntoView {
    view! { <div class="alert alert-warn" role="alert">{children()}</div> }
}

/// A failed call, explained by its status; 401 offers the sign-in page.
#[component]
pub fn ErrorNotice(err: ApiError) -> impl IntoView {
    let text = match err.status {
        _ if err.is_explained() => err.message.clone(),
        0 => "Could not reach the server. Check your connection and try again.".to_owned(),
        401 => "You are signed out. Sign in to continue.".to_owned(),
        404 => "Not found. It may not exist, or it is not available to your account.".to_owned(),
        409 => "Someone else changed this — reload to see the current version.".to_owned(),
        429 => "Too many attempts right now. Wait a few minutes and try again.".to_owned(),
        503 => "The service is unavailable right now. Try again shortly.".to_owned(),
        _ => err.message.clone(),
    };
    let sign_in = (err.status == 401).then(|| view! { <p><A href="/sign-in">"Sign in"</A></p> });
    view! {
        <div class="alert alert-error" role="alert">
            <p>{text}</p>
            {sign_in}
        </div>
    }
}

/// Shown instead of a page that needs a session; `why` says which account to use, where
/// that matters (`/redeem`).
#[component]
pub fn SignInPrompt(
    #[prop(default = "This page shows information for your account only.")] why: &'static str,
) -> impl IntoView {
    let path = use_location().pathname.get_untracked();
    let href = format!("/sign-in?next={}", String::from(js_sys::encode_uri_component(&path)));
    view! {
        <div class="card">
            <h1>"Sign in to continue"</h1>
            <p>{why}</p>
            <p><A href=href attr:class="button">"Sign in to continue"</A></p>
        </div>
    }
}

/// Renders `children` for a signed-in visitor (or when the session cannot be confirmed
/// either way, so the page can show the server's own error), a prompt otherwise.
#[component]
pub fn RequireSignIn(
    children: ChildrenFn,
    /// What the sign-in prompt says instead of its general line.
    #[prop(optional)]
    why: Option<&'static str>,
) -> impl IntoView {
    let session = use_session();
    let status = Memo::new(move |_| session.status.get());
    move || match status.get() {
        Status::Starting => view! { <Loading label="Checking your session…"/> }.into_any(),
        Status::SignedOut => match why {
            Some(why) => view! { <SignInPrompt why/> }.into_any(),
            None => view! { <SignInPrompt/> }.into_any(),
        },
        Status::SignedIn | Status::Unverified => children().into_any(),
    }
}

/// A resource inside a `Transition`: a spinner until the first answer, then `render` of
/// it; while a refetch is under way the previous answer stays on screen. Only the small
/// closure is generic: the `Transition` itself is built once, in [`transition`], for every
/// page (it was instantiated per call site before, a sixth of the bundle's code).
pub fn loaded<T, F>(res: LocalResource<Result<T, ApiError>>, render: F) -> AnyView
where
    T: Clone + Send + Sync + 'static,
    F: Fn(Result<T, ApiError>) -> AnyView + Send + Sync + 'static,
{
    transition(Box::new(move || res.get().map(&render)))
}

type Body = Box<dyn Fn() -> Option<AnyView> + Send + Sync>;

fn transition(body: Body) -> AnyView {
    view! { <Transition fallback=|| view! { <Loading/> }>{move || body()}</Transition> }.into_any()
}
