//! An owner decision with a controlled reason (SPEC §6.4 allow-lists): a labelled select
//! that starts empty, so every decision is a deliberate choice.

use leptos::prelude::*;

use crate::components::text::label;

#[component]
pub fn ReasonForm(
    id: &'static str,
    legend: &'static str,
    options: &'static [&'static str],
    button: &'static str,
    #[prop(into)] pending: Signal<bool>,
    on_submit: Callback<String>,
    #[prop(default = "")] class: &'static str,
) -> impl IntoView {
    let choice = RwSignal::new(String::new());
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let reason = choice.get_untracked();
        if !reason.is_empty() {
            on_submit.run(reason);
        }
    };
    view! {
        <form class=format!("reason-form {class}") method="post" on:submit=submit>
            <label for=id>{legend}</label>
            <div class="row">
                <select id=id on:change=move |ev| choice.set(event_target_value(&ev)) prop:value=move || choice.get()>
                    <option value="">"Choose a reason…"</option>
                    {options.iter().map(|o| view! { <option value=*o>{label(o)}</option> }).collect_view()}
                </select>
                <button type="submit" class=class disabled=move || pending.get() || choice.get().is_empty()>{button}</button>
            </div>
        </form>
    }
}
