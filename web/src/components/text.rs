//! Text helpers: timestamps and labels for controlled codes.
//! Policy: user- and owner-written text is only ever rendered as text nodes (escaped).

use leptos::prelude::*;

/// `2026-01-02T13:45:07.123Z` → `2026-01-02 13:45 UTC` (the API speaks UTC).
pub fn time(ts: &str) -> String {
    shared::signup_form::utc_minute(ts)
}

/// `owner_discretion` → `Owner discretion`.
pub fn label(code: &str) -> String {
    let mut s = code.replace('_', " ");
    if let Some(first) = s.get(..1) {
        let upper = first.to_ascii_uppercase();
        s.replace_range(..1, &upper);
    }
    s
}

/// A state as a small badge.
#[component]
pub fn StateBadge(state: &'static str) -> impl IntoView {
    let class = format!("badge badge-{state}");
    view! { <span class=class>{label(state)}</span> }
}

/// The RFC 3339 instant `days` whole days from now (the browser's clock; the API checks
/// the bound against its own).
pub fn days_from_now(days: u32) -> String {
    let ms = js_sys::Date::now() + f64::from(days) * 86_400_000.0;
    String::from(js_sys::Date::new(&ms.into()).to_iso_string())
}

/// Whether an RFC 3339 instant lies in the past by the browser's clock.
pub fn is_past(ts: &str) -> bool {
    js_sys::Date::parse(ts) < js_sys::Date::now()
}

/// What the owner reads for an entry flag (the queue's filter and badges, the draw form).
pub fn flag_label(flag: shared::edge::EntryFlag) -> &'static str {
    match flag {
        shared::edge::EntryFlag::DisposableDomain => "Disposable domain",
        shared::edge::EntryFlag::PossibleDuplicate => "Possible duplicate",
    }
}
