//! A button that asks before doing something that cannot be undone. The question is a
//! native modal `<dialog>`: it keeps the keyboard inside until answered, Escape cancels,
//! the focus starts on "Cancel" (the safe answer) and returns to the button afterwards.

use std::cell::Cell;

use leptos::html;
use leptos::prelude::*;

thread_local! {
    static NEXT_ID: Cell<u32> = const { Cell::new(0) };
}

#[component]
pub fn ConfirmButton(
    label: &'static str,
    #[prop(into)] question: String,
    confirm_label: &'static str,
    #[prop(into)] pending: Signal<bool>,
    on_confirm: Callback<()>,
    /// Style of the button that opens the question.
    #[prop(default = "secondary")]
    class: &'static str,
) -> impl IntoView {
    let n = NEXT_ID.with(|c| {
        c.set(c.get() + 1);
        c.get()
    });
    let (title_id, text_id) = (format!("confirm-{n}-title"), format!("confirm-{n}-text"));
    let (labelled_by, described_by) = (title_id.clone(), text_id.clone());
    let dialog = NodeRef::<html::Dialog>::new();
    let opener = NodeRef::<html::Button>::new();
    let open = move |_| {
        if let Some(d) = dialog.get() {
            let _ = d.show_modal();
        }
    };
    let close = move || {
        if let Some(d) = dialog.get() {
            d.close();
        }
    };
    let return_focus = move |_| {
        if let Some(b) = opener.get() {
            let _ = b.focus();
        }
    };
    view! {
        <button type="button" class=class node_ref=opener disabled=move || pending.get() on:click=open>{label}</button>
        <dialog class="dialog" node_ref=dialog aria-labelledby=labelled_by aria-describedby=described_by on:close=return_focus>
            <h2 id=title_id>{label}</h2>
            <p id=text_id>{question}</p>
            <div class="actions">
                <button type="button" class="danger" on:click=move |_| { close(); on_confirm.run(()); }>{confirm_label}</button>
                <button type="button" class="secondary" autofocus on:click=move |_| close()>"Cancel"</button>
            </div>
        </dialog>
    }
}
