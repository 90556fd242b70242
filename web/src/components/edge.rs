//! The public edge on the owner's program page (issue 15): the title and description the
//! waitlist page shows. Each save is a PATCH carrying the page's revision, like the
//! caps; `""` removes a text.

use leptos::prelude::*;
use shared::api::{PatchProgramRequest, Program};

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
