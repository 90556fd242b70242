//! The site header: the name, the main links, who is signed in ("Signed in as …") and the
//! sign-in / sign-out control. The owner console is offered only to a signed-in owner;
//! visitors and applicants see the public links.

use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos_router::components::A;
use leptos_router::hooks::use_navigate;

use crate::auth::{self, use_session, Status};

#[component]
pub fn Header() -> impl IntoView {
    let session = use_session();
    let navigate = use_navigate();
    let sign_out = move |_| {
        let navigate = navigate.clone();
        spawn_local(async move {
            auth::sign_out().await;
            navigate("/", Default::default());
        });
    };
    let control = move || {
        match session.status.get() {
        Status::SignedIn => view! {
            {move || session.email.get().map(|e| view! { <span class="who">"Signed in as " <strong class="email">{e}</strong></span> })}
            <button type="button" class="link-button" on:click=sign_out.clone()>"Sign out"</button>
        }
        .into_any(),
        Status::Starting => ().into_any(),
        _ => view! { <A href="/sign-in">"Sign in"</A> }.into_any(),
    }
    };
    let owner = move || {
        (session.status.get() == Status::SignedIn && session.owner.get() == Some(true))
            .then(|| view! { <li><A href="/owner">"Owner console"</A></li> })
    };
    view! {
        <header class="site-header">
            <nav aria-label="Main" class="wrap">
                <A href="/" exact=true attr:class="brand">"Vestibule"</A>
                <span class="session">{control}</span>
                <ul>
                    <li><A href="/me">"My waitlists"</A></li>
                    <li><A href="/redeem">"Redeem a code"</A></li>
                    {owner}
                </ul>
            </nav>
        </header>
    }
}
