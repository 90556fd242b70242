//! The notice an applicant agrees to: purpose, contact text and retention text, shown
//! exactly as published (whitespace kept, escaped). Used by the public form, the owner's
//! publishing preview and an entry's notice snapshot.

use leptos::prelude::*;
use shared::signup_form as words;

#[component]
pub fn NoticeView(
    #[prop(into)] purpose: Signal<String>,
    #[prop(into)] contact_text: Signal<String>,
    #[prop(into)] retention_text: Signal<String>,
    /// Version and publication time, when the notice is published.
    #[prop(optional)]
    published: Option<(i32, String)>,
    #[prop(default = words::FULL_NOTICE_HEADING)] heading: &'static str,
    /// The purpose is shown just above (the public form's compact notice): not twice.
    #[prop(optional)]
    purpose_above: bool,
) -> impl IntoView {
    let meta = published.map(|(version, at)| {
        view! { <p class="muted small">{words::published_line(version, &at)}</p> }
    });
    view! {
        <section class="notice" aria-label=heading>
            <h2>{heading}</h2>
            {meta}
            {(!purpose_above).then(|| view! {
                <h3>"Purpose"</h3>
                <p class="exact">{move || purpose.get()}</p>
            })}
            <h3>{words::CONTACT_HEADING}</h3>
            <p class="exact">{move || contact_text.get()}</p>
            <h3>{words::RETENTION_HEADING}</h3>
            <p class="exact">{move || retention_text.get()}</p>
        </section>
    }
}
