//! Keyboard only (issue 19, item 10): signup, select-and-issue and redemption done with
//! Tab, Shift+Tab, Enter and Space — plus typing into fields and a letter to pick an option,
//! as anyone without a mouse does. On the way: the first Tab reaches the skip link, every
//! focus stop is visible (see `keys`), a navigation puts the focus on the new page's
//! heading, a panel that appears takes the focus (the join answer, the code panel, the
//! redemption answer), and the confirmation dialog keeps the focus inside until answered
//! and then returns it to the button that opened it.

use thirtyfour::Key;

use crate::browser::Browser;
use crate::keys::Target;
use crate::stack::{in_browser, Stack};

const OWNER: &str = "kim.keys@example.com";
const APPLICANT: &str = "tab.only@example.com";
const SLUG: &str = "keyboard-beta";
const CONTENT: &str = "Welcome, keyboard user.";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn signup_issue_and_redemption_work_with_the_keyboard_alone() {
    in_browser(|stack, b| Box::pin(keyboard(stack, b))).await;
}

async fn keyboard(stack: &Stack, b: &Browser) {
    let (owner, workspace) = stack.owner(OWNER).await;
    stack.open_program(&owner, workspace, SLUG, CONTENT).await;

    join(b).await;
    sign_in(b, OWNER, "/owner").await;
    let code = select_and_issue(b).await;
    sign_out(b).await;
    sign_in(b, APPLICANT, "/redeem").await;
    redeem(b, &code).await;
    leave_dialog(b).await;
}

/// The public form: skip link, email, the box (Space), the button (Enter).
async fn join(b: &Browser) {
    b.open(&format!("/waitlist/{SLUG}")).await;
    b.wait_text("Join the waitlist").await;
    b.element("#signup-email").await;
    b.press(Key::Tab).await;
    let first = b.focused().await;
    assert_eq!(
        (first.tag.as_str(), first.text.as_str()),
        ("a", "Skip to content"),
        "the first Tab reaches the skip link"
    );
    b.press(Key::Enter).await;
    b.wait_focus(Target::Id("main")).await;
    b.tab_to(Target::Id("signup-email")).await;
    b.type_text(APPLICANT).await;
    b.tab_to(Target::Id("signup-permission")).await;
    b.press(Key::Space).await;
    b.tab_to(Target::Text("button", "Join the waitlist")).await;
    b.press(Key::Enter).await;
    b.wait_text("your request was received").await;
    b.wait_focus(Target::Id("joined-heading")).await;
}

async fn sign_in(b: &Browser, email: &str, next: &str) {
    b.open(&format!("/sign-in?next={next}")).await;
    b.wait_text("Development sign-in").await;
    b.tab_to(Target::Id("sign-in-email")).await;
    b.type_text(email).await;
    b.press(Key::Enter).await;
    b.wait_path(next).await;
}

async fn sign_out(b: &Browser) {
    b.tab_to(Target::Text("button", "Sign out")).await;
    b.press(Key::Enter).await;
    b.wait_text("Waitlists and early access, done carefully").await;
}

/// From the dashboard to the entry through links, then select, issue and mark sent.
async fn select_and_issue(b: &Browser) -> String {
    b.wait_text(SLUG).await;
    b.tab_to(Target::Text("a", SLUG)).await;
    b.press(Key::Enter).await;
    b.wait_heading_focus(SLUG).await;
    b.tab_to(Target::Text("a", "Queue")).await;
    b.press(Key::Enter).await;
    b.wait_heading_focus("Queue").await;
    b.wait_text(APPLICANT).await;
    // The toolbar's "More actions" opens with Enter and its actions are next in the Tab
    // order; Escape closes it and gives the focus back.
    b.tab_to(Target::Text("summary", "More actions")).await;
    b.press(Key::Enter).await;
    b.tab_to(Target::Text("button", "Export CSV")).await;
    b.press(Key::Escape).await;
    b.wait_focus(Target::Text("summary", "More actions")).await;
    assert_eq!(b.count(".more-menu[open]").await, 0, "Escape closed the menu");
    b.tab_to(Target::Text("a", APPLICANT)).await;
    b.press(Key::Enter).await;
    b.wait_text("Decisions").await;
    b.wait_focus(Target::Id("entry-heading")).await;

    b.tab_to(Target::Id("entry-select")).await;
    b.type_text("m").await; // "Meets policy", picked by its first letter
    b.tab_to(Target::Text("button", "Select")).await;
    b.press(Key::Enter).await;
    b.wait_text("Selected.").await;
    b.tab_to(Target::Text("button", "Issue invitation")).await;
    b.press(Key::Enter).await;
    b.wait_text("This code will not be shown again.").await;
    b.wait_focus(Target::Id("code-panel")).await;
    let code = b.element("#invite-code").await.prop("value").await.unwrap().unwrap_or_default();
    assert_eq!(code.len(), 43, "a code is 43 characters of base64url: {code:?}");

    // The channel first, then the one action that copies the code and marks it sent.
    b.capture_clipboard().await;
    b.tab_to(Target::Text("select", "Sent through")).await;
    b.type_text("e").await; // "Email"
    b.tab_to(Target::Text("button", "Copy code and mark sent")).await;
    b.press(Key::Enter).await;
    b.wait_text("Code copied and marked sent.").await;
    assert_eq!(b.copied().await, code, "the button copied the code itself");
    code
}

async fn redeem(b: &Browser, code: &str) {
    b.wait_text("Paste the code").await;
    b.tab_to(Target::Id("redeem-code")).await;
    b.type_text(code).await;
    b.press(Key::Enter).await;
    b.wait_text("You're in").await;
    b.wait_focus(Target::Id("redeemed-heading")).await;
    b.tab_to(Target::Text("a", "Open early access")).await;
    b.press(Key::Enter).await;
    b.wait_heading_focus(SLUG).await;
    b.wait_text(CONTENT).await;
}

/// The leave dialog: the focus starts on Cancel, Tab and Shift+Tab stay inside, and
/// Cancel hands the focus back to the button that opened it.
async fn leave_dialog(b: &Browser) {
    b.tab_to(Target::Text("a", "My waitlists")).await;
    b.press(Key::Enter).await;
    b.wait_heading_focus("My waitlists").await;
    b.wait_text(SLUG).await;
    b.tab_to(Target::Text("button", "Leave this waitlist")).await;
    b.press(Key::Enter).await;
    b.wait_focus(Target::Text("button", "Cancel")).await;
    // Two buttons: every press moves between them and never out of the dialog.
    for forward in [true, true, false, false, true, false] {
        if forward {
            b.press(Key::Tab).await;
        } else {
            b.shift_tab().await;
        }
        let now = b.focused().await;
        assert!(now.in_dialog && now.visible, "the focus left the open dialog for {now:?}");
    }
    b.wait_focus(Target::Text("button", "Cancel")).await;
    b.press(Key::Enter).await;
    b.wait_focus(Target::Text("button", "Leave this waitlist")).await;
    assert!(b.text().await.contains("Active"), "Cancel left the entry as it was");
}
