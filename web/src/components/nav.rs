//! The site header: the name, the main links, who is signed in ("Signed in as …") and the
//! sign-in / sign-out control, by section (issue 27): the owner's console has the console's
//! links and none of an applicant's; a signup form (`/waitlist/{slug}`) is the owner's
//! page and has no header at all (the footer names Vestibule); the other public pages have
//! the public links, and the owner console for a signed-in owner.

use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos_router::components::A;
use leptos_router::hooks::{use_location, use_navigate};

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
    let location = use_location();
    let section = Memo::new(move |_| Section::of(&location.pathname.get()));
    move || {
        match section.get() {
        Section::Form => ().into_any(),
        Section::Console => view! {
            <header class="site-header console">
                <nav aria-label="Main" class="wrap">
                    <A href="/owner" exact=true attr:class="brand">"Vestibule " <span class="brand-sub">"console"</span></A>
                    <span class="session">{control.clone()}</span>
                    <ul>
                        <li><A href="/owner" exact=true>"Programs"</A></li>
                    </ul>
                </nav>
            </header>
        }
        .into_any(),
        Section::Public => view! {
            <header class="site-header">
                <nav aria-label="Main" class="wrap">
                    <A href="/" exact=true attr:class="brand">"Vestibule"</A>
                    <span class="session">{control.clone()}</span>
                    <ul>
                        <li><A href="/me">"My waitlists"</A></li>
                        <li><A href="/redeem">"Redeem a code"</A></li>
                        {owner}
                    </ul>
                </nav>
            </header>
        }
        .into_any(),
    }
    }
}

/// Which header a path gets.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Section {
    /// A program's signup form: the owner's page, no header.
    Form,
    Console,
    Public,
}

impl Section {
    fn of(path: &str) -> Section {
        let parts: Vec<&str> = path.trim_end_matches('/').split('/').skip(1).collect();
        match parts.as_slice() {
            ["waitlist", _] => Section::Form,
            ["owner", ..] => Section::Console,
            _ => Section::Public,
        }
    }
}
