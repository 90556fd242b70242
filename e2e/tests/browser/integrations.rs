//! The workspace's Integrations page (issue 13) as an owner sees it, checked and
//! photographed like every other page (issue 19, item 9): empty at first, then with an API
//! key made, whose secret is shown once — gone after leaving the page — and kept only as a
//! digest on the server, so the list shows its name and prefix, never the key.

use crate::browser::Browser;
use crate::flows::sign_in;
use crate::stack::{in_browser, Stack};

const OWNER: &str = "ida.integrations@example.com";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_api_key_is_shown_once_on_the_integrations_page() {
    in_browser(|stack, b| Box::pin(integrations(stack, b))).await;
}

async fn integrations(stack: &Stack, b: &Browser) {
    let (_owner, workspace) = stack.owner(OWNER).await;
    let page = format!("/owner/workspaces/{workspace}/integrations");
    sign_in(b, OWNER, &page, false).await;
    b.wait_text("No endpoints yet.").await;
    b.wait_text("No keys yet.").await;
    b.check_page("integrations").await;

    b.fill("#key-name", "Product gate").await;
    b.click_button("Create key").await;
    let secret = b.element("#api-key-secret").await.prop("value").await.unwrap().unwrap_or_default();
    assert!(secret.len() >= 32, "a fresh key is shown: {secret:?}");
    b.wait_text("Product gate").await;
    b.check_page("integrations-key-created").await;

    // Shown once: the list names the key, and a fresh load of the page has no secret.
    b.reload().await;
    b.wait_text("Product gate").await;
    assert_eq!(b.count("#api-key-secret").await, 0, "the key is shown only when it is made");
    assert!(!b.text().await.contains(&secret), "the page shows the key again");
}
