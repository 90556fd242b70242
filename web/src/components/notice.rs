//! The notice an applicant agrees to: purpose, contact text, retention text and the
//! questions it asks (issue 31: they are part of the notice version), shown exactly as
//! published (whitespace kept, escaped). Used by the public form's full notice, the
//! owner's current notice and publishing preview, an entry's notice snapshot and a cohort
//! code's notice.

use leptos::prelude::*;
use shared::questions::Question;
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
    /// The questions this notice version asks (none: the section is left out).
    #[prop(optional, into)]
    questions: MaybeProp<Vec<Question>>,
) -> impl IntoView {
    let asked = move || {
        let questions = questions.get().unwrap_or_default();
        (!questions.is_empty()).then(|| {
            let items = questions.into_iter().map(|q| view! { <li>{words::question_line(&q)}</li> }).collect_view();
            view! {
                <h3>{words::QUESTIONS_ASKED_HEADING}</h3>
                <ul class="notice-questions">{items}</ul>
            }
        })
    };
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
            {asked}
        </section>
    }
}
