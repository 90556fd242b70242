//! A read-only field with a copy button, for the one-time invitation code. The value is
//! only ever in memory: it is not logged, stored or put in a URL.

use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen_futures::JsFuture;

/// Writes `text` to the clipboard; whether the browser allowed it.
pub async fn copy_text(text: &str) -> bool {
    let promise = window().navigator().clipboard().write_text(text);
    JsFuture::from(promise).await.is_ok()
}

#[component]
pub fn CopyField(#[prop(into)] value: String, id: &'static str, label: &'static str) -> impl IntoView {
    let copied = RwSignal::new(None::<bool>);
    let text = value.clone();
    let copy = move |_| {
        let text = text.clone();
        spawn_local(async move { copied.set(Some(copy_text(&text).await)) });
    };
    let select_all = |ev: leptos::ev::FocusEvent| event_target::<web_sys::HtmlTextAreaElement>(&ev).select();
    view! {
        <label for=id>{label}</label>
        <div class="copy-row">
            <textarea id=id class="mono copy-value" rows="2" readonly autocomplete="off" spellcheck="false" on:focus=select_all>{value}</textarea>
            <button type="button" on:click=copy>"Copy"</button>
        </div>
        <p class="small" role="status" aria-live="polite">
            {move || match copied.get() {
                Some(true) => "Copied to the clipboard.",
                Some(false) => "Could not copy automatically. Select the field and copy it by hand.",
                None => "",
            }}
        </p>
    }
}
