//! The public signup form's fixed words (issue 27 item 2), in one place for its two
//! renderers: the SPA (`web/src/routes/waitlist.rs`, the form that works) and the server's
//! first paint (`api/src/routes/form_page.rs`, the same form written into the page,
//! disabled, so the first screen shows before the WASM has loaded and the app's form then
//! takes its place without moving anything). If these words differed between the two, the
//! form would change size as the app starts.

use crate::questions::Question;

/// The id of the data block holding the program's public answer, which the server writes
/// into a form page and the SPA (`web/src/routes/waitlist.rs`, and `web/boot.js`) reads.
pub const DATA_ID: &str = "vestibule-program";
/// The id of the server's first paint, removed by the SPA once its own form has rendered
/// (`web/src/components/later.rs`; `web/style.css` keys on it too).
pub const FIRST_PAINT_ID: &str = "first-paint";
/// The id of the first paint's footer (the form's page only), removed with it.
pub const FIRST_PAINT_FOOTER_ID: &str = "first-paint-footer";

/// The heading of a program without a title.
pub const UNTITLED_HEADING: &str = "Join the waitlist";
/// Before the slug of a program without a title.
pub const PROGRAM_PREFIX: &str = "Program: ";
/// The form's own heading.
pub const EMAIL_HEADING: &str = "Your email address";
pub const EMAIL_LABEL: &str = "Email address";
/// The notice in short, above its purpose.
pub const NOTICE_HEADING: &str = "What you agree to";
/// The heading of the full notice inside the fold.
pub const FULL_NOTICE_HEADING: &str = "Notice";
pub const CONTACT_HEADING: &str = "Contact";
pub const RETENTION_HEADING: &str = "How long your address is kept";
pub const QUESTIONS_HEADING: &str = "A few questions";
/// The full notice's list of its questions.
pub const QUESTIONS_ASKED_HEADING: &str = "Questions it asks";
/// The box the applicant ticks.
pub const PERMISSION: &str =
    "I want to join this waitlist, and I agree that my email address is used and kept as the notice describes.";
pub const SUBMIT: &str = "Join the waitlist";
pub const CLOSED: &str = "This waitlist is not taking sign-ups right now. Please check back later.";
/// Why the button cannot be pressed yet, in the order the form asks.
pub const BLOCKED_CLOSED: &str = "Sign-ups are closed.";
pub const BLOCKED_EMAIL: &str = "Enter your email address.";
pub const BLOCKED_PERMISSION: &str = "Tick the box to continue.";
/// The footer of every page but the embed.
pub const FOOTER: &str = "Vestibule · waitlists and early access, kept to the notice you agreed to.";

/// The fold's summary: `Read the full notice (version 3)`.
pub fn full_notice_summary(version: i32) -> String {
    format!("Read the full notice (version {version})")
}

/// A question's label with whether it must be answered.
pub fn question_label(label: &str, required: bool) -> String {
    let need = if required { " (required)" } else { " (optional)" };
    format!("{label}{need}")
}

/// One question as the notice lists it: its label, kind, whether it must be answered and,
/// for choices, the choices.
pub fn question_line(q: &Question) -> String {
    let need = if q.required { "required" } else { "optional" };
    let mut line = format!("{} ({}, {need})", q.label, q.kind.noun());
    if !q.choices().is_empty() {
        line.push_str(&format!(": {}", q.choices().join(" · ")));
    }
    line
}

/// `2026-01-02T13:45:07.123Z` → `2026-01-02 13:45 UTC` (the API speaks UTC); anything
/// else as it is.
pub fn utc_minute(ts: &str) -> String {
    match (ts.get(..10), ts.get(11..16)) {
        (Some(day), Some(hm)) if ts.as_bytes().get(10) == Some(&b'T') => format!("{day} {hm} UTC"),
        _ => ts.to_owned(),
    }
}

/// The line under the full notice's heading.
pub fn published_line(version: i32, published_at: &str) -> String {
    format!("Version {version}, published {}", utc_minute(published_at))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_shown_to_the_minute_in_utc() {
        assert_eq!(utc_minute("2026-01-02T13:45:07.123Z"), "2026-01-02 13:45 UTC");
        assert_eq!(utc_minute("yesterday"), "yesterday");
        assert_eq!(published_line(2, "2026-01-02T13:45:07Z"), "Version 2, published 2026-01-02 13:45 UTC");
        assert_eq!(question_label("Team size", true), "Team size (required)");
    }
}
