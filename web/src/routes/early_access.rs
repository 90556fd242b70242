//! `/early-access/:slug`: a program's private content for a person with an active grant,
//! under the program's title (its slug when it has none). The body is the safe Markdown
//! subset of `components::markdown`, the same renderer as the editor's preview. Any refusal
//! reads as "not found", and that page, like an empty body, offers the way in: redeeming a
//! code.

use leptos::prelude::*;
use leptos_router::components::A;
use leptos_router::hooks::use_params_map;
use shared::api::EarlyAccessContent;
use shared::Slug;

use crate::api::{self, ApiError};
use crate::components::markdown::Markdown;
use crate::components::set_title;
use crate::components::status::{loaded, ErrorNotice, RequireSignIn};

#[component]
pub fn EarlyAccess() -> impl IntoView {
    set_title("Early access");
    view! { <RequireSignIn><Content/></RequireSignIn> }
}

#[component]
fn Content() -> impl IntoView {
    let params = use_params_map();
    let content = LocalResource::new(move || {
        let slug = params.read().get("slug").unwrap_or_default();
        async move {
            Slug::parse(&slug).map_err(|_| ApiError::not_found())?;
            api::get::<EarlyAccessContent>(&format!("/api/me/early-access/{slug}")).await
        }
    });
    view! {
        {loaded(content, move |r| match r {
            Ok(c) => {
                let title = c.title.unwrap_or(c.slug);
                set_title(&format!("{title} early access"));
                let body = if c.body.trim().is_empty() {
                    view! { <p>"Nothing has been written here yet."</p><WayIn/> }.into_any()
                } else {
                    view! { <Markdown text=c.body/> }.into_any()
                };
                view! {
                    <p class="muted small">"Early access"</p>
                    <h1>{title}</h1>
                    <article class="card content">{body}</article>
                }.into_any()
            }
            Err(e) if e.status == 404 => view! {
                <div class="card">
                    <h1>"Nothing to show here"</h1>
                    <p>"This page does not exist, or it is not available to your account."</p>
                    <WayIn/>
                </div>
            }.into_any(),
            Err(err) => view! { <h1>"Early access"</h1><ErrorNotice err/> }.into_any(),
        })}
    }
}

/// The links out of an empty or closed page: a code opens it; the waitlists show where one stands.
#[component]
fn WayIn() -> impl IntoView {
    view! {
        <p><A href="/redeem">"Have a code? Redeem it"</A></p>
        <p><A href="/me">"Go to my waitlists"</A></p>
    }
}
