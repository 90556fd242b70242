//! The public edge on the owner's program page (issue 15): the title and description the
//! waitlist page shows. Each save is a PATCH carrying the page's revision, like the
//! caps; `""` removes a text.

use leptos::prelude::*;
use shared::api::{PatchProgramRequest, PowLevel, Program};

use crate::components::copy::CopyField;

/// The form; `change` sends the PATCH (with the revision filled in) and reports.
#[component]
pub fn PresentationForm(
    p: Program,
    blank: PatchProgramRequest,
    pending: RwSignal<bool>,
    change: Callback<(PatchProgramRequest, &'static str)>,
) -> impl IntoView {
    let title = RwSignal::new(p.title.clone().unwrap_or_default());
    let description = RwSignal::new(p.description.clone().unwrap_or_default());
    let save = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let patch = PatchProgramRequest {
            title: Some(title.get_untracked().trim().to_owned()),
            description: Some(description.get_untracked().trim().to_owned()),
            ..blank.clone()
        };
        change.run((patch, "Title and description saved."));
    };
    view! {
        <form class="card form" method="post" on:submit=save>
            <h2>"Title and description"</h2>
            <p class="muted small">"Shown on the waitlist page and the embedded form instead of the slug. Plain text; leave empty to remove."</p>
            <label for="program-title">"Title"</label>
            <input id="program-title" type="text" maxlength="80" prop:value=move || title.get()
                on:input=move |ev| title.set(event_target_value(&ev))/>
            <label for="program-description">"Description"</label>
            <textarea id="program-description" maxlength="500" rows="3" prop:value=move || description.get()
                on:input=move |ev| description.set(event_target_value(&ev))></textarea>
            <button type="submit" disabled=move || pending.get()>"Save title and description"</button>
        </form>
    }
}

/// The embedded form and the proof of work (issue 15): the origins allowed to frame the
/// form (one per line, at most 10), the snippet to paste, and the challenge level.
#[component]
pub fn EmbedForm(
    p: Program,
    blank: PatchProgramRequest,
    pending: RwSignal<bool>,
    change: Callback<(PatchProgramRequest, &'static str)>,
) -> impl IntoView {
    let origins = RwSignal::new(p.embed_origins.join("\n"));
    let level = RwSignal::new(p.proof_of_work);
    let blank_pow = blank.clone();
    let save = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let list = origins.get_untracked().lines().map(str::trim).filter(|l| !l.is_empty()).map(String::from).collect();
        change.run((PatchProgramRequest { embed_origins: Some(list), ..blank.clone() }, "Allowed sites saved."));
    };
    let save_pow = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let patch = PatchProgramRequest { proof_of_work: Some(level.get_untracked()), ..blank_pow.clone() };
        change.run((patch, "Bot protection saved."));
    };
    let here = window().location().origin().unwrap_or_default();
    let snippet = format!("<script src=\"{here}/embed.js\" data-program=\"{}\" async></script>", p.slug);
    let embeddable = !p.embed_origins.is_empty();
    view! {
        <form class="card form" method="post" on:submit=save>
            <h2>"Embed on your site"</h2>
            <p class="muted small">"Sites allowed to show the sign-up form in a frame: one origin per line, such as https://www.example.com (no path), at most 10. Every other site is refused by the browser."</p>
            <label for="embed-origins">"Allowed sites"</label>
            <textarea id="embed-origins" rows="3" spellcheck="false" class="mono" prop:value=move || origins.get()
                on:input=move |ev| origins.set(event_target_value(&ev))></textarea>
            <button type="submit" disabled=move || pending.get()>"Save allowed sites"</button>
            {if embeddable {
                view! { <CopyField value=snippet id="embed-snippet" label="Paste this where the form should appear"/> }.into_any()
            } else {
                view! { <p class="muted small">"Add a site to get the snippet to paste."</p> }.into_any()
            }}
        </form>
        <form class="card form" method="post" on:submit=save_pow>
            <h2>"Bot protection"</h2>
            <p class="muted small">"The sign-up form makes the applicant's browser solve a small puzzle while they type. Nothing is sent to a third party."</p>
            <label for="pow-level">"Proof of work"</label>
            <select id="pow-level" on:change=move |ev| {
                if let Ok(l) = event_target_value(&ev).parse() { level.set(l) }
            }>
                {PowLevel::ALL.into_iter().map(|l| view! {
                    <option value=l.as_str() selected=move || level.get() == l>{match l {
                        PowLevel::Off => "Off",
                        PowLevel::Normal => "Normal (a moment on a phone)",
                        PowLevel::Strict => "Strict (during a bot wave)",
                    }}</option>
                }).collect_view()}
            </select>
            <button type="submit" disabled=move || pending.get()>"Save bot protection"</button>
        </form>
    }
}
