//! Private content worth opening (issue 19, item 3): the owner writes the safe Markdown
//! subset — a heading, a list, emphasis, a link — next to a raw `<script>`, an
//! `<img onerror>` and a `javascript:` link; the editor's preview and the recipient's page
//! build the same elements from it, the link with `rel="noopener noreferrer"`, the raw tags
//! shown as text and never as elements, the `javascript:` link as plain text. The page's
//! heading is the program's title (its slug until it has one); with access switched off it
//! offers "Have a code? Redeem it". The pure conversion has its own unit tests in the
//! `markdown` crate; these check what reaches the DOM.

use reqwest::Method;
use serde_json::{json, Value};

use crate::browser::Browser;
use crate::common::clerk::User;
use crate::flows::{sign_in, sign_out};
use crate::stack::{in_browser, Stack};

const OWNER: &str = "mara.markdown@example.com";
const READER: &str = "rex.reader@example.com";
const SLUG: &str = "atlas-beta";
const TITLE: &str = "Atlas Beta";
const SCRIPT: &str = "<script>window.__injected = 'script'</script>";
const IMG: &str = "<img src=x onerror=\"window.__injected = 'img'\">";
const GUIDE: &str = "https://docs.atlas.example/start";

fn body() -> String {
    [
        "# Getting started",
        "",
        "Thanks for joining the *Atlas* beta. Read the [setup guide](https://docs.atlas.example/start) first.",
        "",
        "- Install the **desktop** app",
        "- Sign in with this address",
        "",
        SCRIPT,
        "",
        &format!("Say hello {IMG} or [run this](javascript:window.__injected='link') later."),
    ]
    .join("\n")
}

/// The rendered content under `root` as tags and text (comments and empty text left out),
/// plus what must never be there, for comparing the preview with the recipient's page.
const READ_CONTENT: &str = r#"
const root = document.querySelector(arguments[0]);
if (!root) return null;
const outline = el => [...el.childNodes].map(n => {
  if (n.nodeType === Node.TEXT_NODE) return n.textContent === '' ? '' : JSON.stringify(n.textContent);
  if (n.nodeType !== Node.ELEMENT_NODE) return '';
  const attrs = ['href', 'rel'].filter(a => n.hasAttribute(a)).map(a => ` ${a}="${n.getAttribute(a)}"`).join('');
  return `<${n.localName}${attrs}>${outline(n)}</${n.localName}>`;
}).join('');
const texts = css => [...root.querySelectorAll(css)].map(e => e.textContent.trim());
return {
  outline: outline(root),
  h2: texts('h2'),
  items: texts('ul > li'),
  em: texts('em'),
  links: [...root.querySelectorAll('a')].map(a => [a.textContent, a.getAttribute('href'), a.getAttribute('rel')]),
  scriptsOrImages: root.querySelectorAll('script, img').length + document.querySelectorAll('img').length,
  javascriptLinks: [...document.querySelectorAll('a[href]')].filter(a => /^\s*javascript:/i.test(a.getAttribute('href'))).length,
  injected: window.__injected === undefined ? null : String(window.__injected),
  text: root.innerText,
};
"#;

async fn read_content(b: &Browser, root: &str) -> Value {
    b.driver.execute(READ_CONTENT, vec![json!(root)]).await.expect("the content script").json().clone()
}

/// What both renderings must show.
fn assert_rendered(content: &Value, place: &str) {
    assert_eq!(content["h2"], json!(["Getting started"]), "{place}: the heading: {content:#}");
    assert_eq!(
        content["items"],
        json!(["Install the desktop app", "Sign in with this address"]),
        "{place}: {content:#}"
    );
    assert_eq!(content["em"], json!(["Atlas"]), "{place}: emphasis: {content:#}");
    assert_eq!(
        content["links"],
        json!([["setup guide", GUIDE, "noopener noreferrer"]]),
        "{place}: only the https link"
    );
    assert_eq!(content["scriptsOrImages"], 0, "{place}: raw HTML made an element: {content:#}");
    assert_eq!(content["javascriptLinks"], 0, "{place}: a javascript: link: {content:#}");
    assert_eq!(content["injected"], Value::Null, "{place}: raw HTML ran: {content:#}");
    let text = content["text"].as_str().unwrap_or_default();
    for shown in [SCRIPT, IMG, "run this"] {
        assert!(text.contains(shown), "{place}: {shown:?} is not shown as text: {text}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn markdown_content_renders_the_same_in_the_preview_and_for_the_recipient_and_raw_html_stays_text() {
    in_browser(|stack, b| Box::pin(content(stack, b))).await;
}

async fn content(stack: &Stack, b: &Browser) {
    let (owner, workspace) = stack.owner(OWNER).await;
    let id = stack.open_program(&owner, workspace, SLUG, "Welcome to the Atlas beta.").await;
    // The reader holds a grant: a cohort code redeemed straight through the API.
    let expires = (chrono::Utc::now() + chrono::Duration::days(7)).to_rfc3339();
    let cohort = json!({"label": "Readers", "maxUses": 5, "expiresAt": expires});
    let created = stack.call(&owner, Method::POST, &format!("/api/owner/programs/{id}/cohort-codes"), cohort).await;
    let reader = stack.clerk.user(READER).await;
    let redeem = json!({"code": created["code"], "noticeVersion": 1, "permission": true});
    stack.call(&reader, Method::POST, "/api/me/invitations/redeem", redeem).await;

    // The owner writes Markdown; the preview builds its elements as typed.
    sign_in(b, OWNER, &format!("/owner/programs/{id}/content"), false).await;
    b.wait_text("HTML is shown as text").await; // the editor says what is supported
    b.fill("#content-body", &body()).await;
    b.wait_count(".preview .markdown ul > li", 2).await;
    let preview = read_content(b, ".preview .markdown").await;
    assert_rendered(&preview, "the preview");
    b.check_page("content-editor-markdown").await;
    b.click_button("Save").await;
    b.wait_text("Saved").await;
    sign_out(b).await;

    // The recipient's page: the same elements, under the slug until the program has a title.
    sign_in(b, READER, &format!("/early-access/{SLUG}"), false).await;
    b.wait_count("article.content .markdown ul > li", 2).await;
    assert_eq!(headings(b).await, json!([SLUG]), "without a title the heading is the slug");
    patch(stack, &owner, &id, json!({"title": TITLE})).await;
    b.reload().await;
    b.wait_count("article.content .markdown ul > li", 2).await;
    assert_eq!(headings(b).await, json!([TITLE]), "the heading is the program's title");
    let page = read_content(b, "article.content .markdown").await;
    assert_rendered(&page, "the recipient's page");
    assert_eq!(page["outline"], preview["outline"], "the preview is not what the recipient sees");
    b.check_page("early-access-markdown").await;

    // Access switched off: the closed page offers the way in.
    patch(stack, &owner, &id, json!({"accessEnabled": false})).await;
    b.reload().await;
    b.wait_text("Nothing to show here").await;
    let redeem = b.driver.find(thirtyfour::By::XPath("//a[normalize-space(.)='Have a code? Redeem it']")).await;
    let href = redeem.expect("a link to redeem a code").attr("href").await.unwrap();
    assert_eq!(href.as_deref(), Some("/redeem"));
    b.check_page("early-access-closed").await;
    b.click_link("Have a code? Redeem it").await;
    b.wait_path("/redeem").await;
}

/// PATCHes the program with its current revision.
async fn patch(stack: &Stack, owner: &User, id: &str, changes: Value) {
    let current = stack.call(owner, Method::GET, &format!("/api/owner/programs/{id}"), Value::Null).await;
    let mut body = json!({"expectedRevision": current["revision"]});
    body.as_object_mut().unwrap().extend(changes.as_object().unwrap().clone());
    stack.call(owner, Method::PATCH, &format!("/api/owner/programs/{id}"), body).await;
}

/// The page's `h1` texts.
async fn headings(b: &Browser) -> Value {
    let js = "return [...document.querySelectorAll('h1')].map(h => h.textContent.trim())";
    b.driver.execute(js, Vec::new()).await.expect("the headings").json().clone()
}
