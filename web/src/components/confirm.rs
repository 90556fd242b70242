//! A button that asks before doing something that cannot be undone. The question is a
//! native modal `<dialog>`: it keeps the keyboard inside until answered, Escape cancels,
//! the focus starts on "Cancel" (the safe answer), Tab and Shift+Tab cycle between the two
//! answers (instead of leaving for the browser's own controls), and the focus returns to
//! the button afterwards.

use std::cell::Cell;

use leptos::html;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

thread_local! {
    static NEXT_ID: Cell<u32> = const { Cell::new(0) };
}

#[component]
pub fn ConfirmButton(
    label: &'static str,
    /// What happens, in words; it may change while the page learns more (a count).
    #[prop(into)]
    question: Signal<String>,
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
    // Tab past the last answer comes back to the first, and Shift+Tab the other way.
    let trap = move |ev: leptos::ev::KeyboardEvent| {
        let Some(d) = dialog.get() else { return };
        if ev.key() != "Tab" {
            return;
        }
        let Ok(buttons) = d.query_selector_all("button") else { return };
        let at = |i: u32| buttons.item(i).and_then(|n| n.dyn_into::<web_sys::HtmlElement>().ok());
        let (Some(first), Some(last)) = (at(0), at(buttons.length().saturating_sub(1))) else { return };
        let active = document().active_element();
        let (edge, wrap) = if ev.shift_key() { (&first, &last) } else { (&last, &first) };
        let inside = active.as_ref().is_some_and(|a| d.contains(Some(&**a)));
        let at_edge = active.as_ref().is_some_and(|a| a == &**edge);
        if !inside || at_edge {
            ev.prevent_default();
            let _ = wrap.focus();
        }
    };
    view! {
        <button type="button" class=class node_ref=opener disabled=move || pending.get() on:click=open>{label}</button>
        <dialog class="dialog" node_ref=dialog aria-labelledby=labelled_by aria-describedby=described_by on:close=return_focus on:keydown=trap>
            <h2 id=title_id>{label}</h2>
            <p id=text_id>{move || question.get()}</p>
            <div class="actions">
                <button type="button" class="danger" on:click=move |_| { close(); on_confirm.run(()); }>{confirm_label}</button>
                <button type="button" class="secondary" autofocus on:click=move |_| close()>"Cancel"</button>
            </div>
        </dialog>
    }
}
