//! `/early-access/:slug`: a program's private content for a person with an active grant.
//! The body is rendered as escaped text in paragraphs; any refusal reads as "not found".

use leptos::prelude::*;
use leptos_router::components::A;
use leptos_router::hooks::use_params_map;
use shared::api::EarlyAccessContent;
use shared::Slug;

use crate::api::{self, ApiError};
use crate::components::set_title;
use crate::components::status::{loaded, ErrorNotice, RequireSignIn};
use crate::components::text::Paragraphs;

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
                    Ok(c) => { set_title(&format!("{} early access", c.slug)); view! {
                        <p class="muted small">"Early access"</p>
                        <h1>{c.slug}</h1>
                        <article class="card content">
                            <Paragraphs text=c.body/>
                        </article>
                    }.into_any() }
                    Err(e) if e.status == 404 => view! {
                        <div class="card">
                            <h1>"Nothing to show here"</h1>
                            <p>"This page does not exist, or it is not available to your account."</p>
                            <p><A href="/me">"Go to my waitlists"</A></p>
                        </div>
                    }.into_any(),
                    Err(err) => view! { <h1>"Early access"</h1><ErrorNotice err/> }.into_any(),
            })}
    }
}
