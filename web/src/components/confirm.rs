//! A button that asks before doing something that cannot be undone. The second step gets
//! the keyboard focus, and Cancel returns to the first.

use leptos::html;
use leptos::prelude::*;

#[component]
pub fn ConfirmButton(
    label: &'static str,
    #[prop(into)] question: String,
    confirm_label: &'static str,
    #[prop(into)] pending: Signal<bool>,
    on_confirm: Callback<()>,
) -> impl IntoView {
    let asking = RwSignal::new(false);
    let confirm_ref = NodeRef::<html::Button>::new();
    Effect::new(move || {
        if let Some(button) = confirm_ref.get() {
            let _ = button.focus();
        }
    });
    move || {
        if asking.get() {
            let question = question.clone();
            view! {
                <div class="confirm" role="group" aria-label=label>
                    <p>{question}</p>
                    <div class="actions">
                        <button type="button" class="danger" node_ref=confirm_ref disabled=move || pending.get()
                            on:click=move |_| { asking.set(false); on_confirm.run(()); }>
                            {confirm_label}
                        </button>
                        <button type="button" class="secondary" on:click=move |_| asking.set(false)>"Cancel"</button>
                    </div>
                </div>
            }
            .into_any()
        } else {
            view! {
                <button type="button" class="secondary" disabled=move || pending.get() on:click=move |_| asking.set(true)>
                    {label}
                </button>
            }
            .into_any()
        }
    }
}
