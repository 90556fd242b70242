//! Keyboard-only moves for [`Browser`]: Tab and Shift+Tab to a control, Enter and Space
//! on it, and typing into the focused field — never a click. Every stop the focus makes
//! on the way is checked for a visible focus indicator (WCAG 2.4.7), so a control that
//! hides its outline fails the test at the first Tab that reaches it.

use serde_json::Value;
use thirtyfour::prelude::*;

use crate::browser::Browser;

/// Most Tab presses a test may need to reach one control (the header's links, the page's
/// fields and the footer fit easily; an unreachable control stops the test here).
const MAX_TABS: usize = 60;

/// What the focused element is, as a script reads it.
const FOCUSED: &str = r#"
const el = document.activeElement;
if (!el || el === document.body) return { tag: 'body', id: '', text: '', visible: true, inDialog: false };
const s = getComputedStyle(el);
const outline = s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 2;
const shadow = s.boxShadow && s.boxShadow !== 'none';
const label = el.getAttribute('aria-label') || (el.labels && el.labels[0] ? el.labels[0].innerText : '') || el.innerText || el.value || '';
return {
  tag: el.tagName.toLowerCase(), id: el.id || '', text: label.trim().replace(/\s+/g, ' ').slice(0, 80),
  // Headings and <main> take the focus only to announce a navigation: no indicator needed.
  visible: outline || shadow || ['h1', 'main'].includes(el.tagName.toLowerCase()) || el.tabIndex < 0,
  inDialog: !!el.closest('dialog[open]'),
};
"#;

/// The focused element: tag, id, accessible text, whether its focus is visible and whether
/// it sits in an open dialog.
#[derive(Debug, Clone)]
pub struct Focused {
    pub tag: String,
    pub id: String,
    pub text: String,
    pub visible: bool,
    pub in_dialog: bool,
}

impl Focused {
    fn from(v: &Value) -> Focused {
        let s = |k: &str| v[k].as_str().unwrap_or_default().to_owned();
        Focused {
            tag: s("tag"),
            id: s("id"),
            text: s("text"),
            visible: v["visible"].as_bool().unwrap_or(false),
            in_dialog: v["inDialog"].as_bool().unwrap_or(false),
        }
    }

    /// `#id`, or the tag and text.
    fn is(&self, target: &Target) -> bool {
        match target {
            Target::Id(id) => self.id == *id,
            Target::Text(tag, text) => self.tag == *tag && self.text == *text,
        }
    }
}

/// A control to reach by Tab: by its id, or by its tag and text ("button", "Sign in").
#[derive(Debug, Clone, Copy)]
pub enum Target<'a> {
    Id(&'a str),
    Text(&'a str, &'a str),
}

impl Browser {
    async fn keys(&self, chain: thirtyfour::action_chain::ActionChain) {
        chain.perform().await.expect("keys pressed");
    }

    pub async fn press(&self, key: Key) {
        self.keys(self.driver.action_chain().send_keys(key)).await;
    }

    pub async fn shift_tab(&self) {
        let chain =
            self.driver.action_chain().key_down(Key::Shift).key_down(Key::Tab).key_up(Key::Tab).key_up(Key::Shift);
        self.keys(chain).await;
    }

    /// Types `text` into whatever has the focus.
    pub async fn type_text(&self, text: &str) {
        self.keys(self.driver.action_chain().send_keys(text)).await;
    }

    pub async fn focused(&self) -> Focused {
        let v = self.driver.execute(FOCUSED, Vec::new()).await.expect("focus read");
        Focused::from(v.json())
    }

    /// Presses Tab until `target` has the focus, checking that every stop on the way shows
    /// where the focus is.
    pub async fn tab_to(&self, target: Target<'_>) {
        let mut path = Vec::new();
        for _ in 0..MAX_TABS {
            self.press(Key::Tab).await;
            let now = self.focused().await;
            assert!(now.visible, "the focus on {} {:?} ({}) is not visible", now.tag, now.text, now.id);
            if now.is(&target) {
                return;
            }
            path.push(format!("{} {:?}", now.tag, now.text));
        }
        panic!("{target:?} is not reachable with Tab; the focus went through:\n{}", path.join("\n"));
    }

    /// Waits until the focus is on `target` (a page moved it there itself).
    pub async fn wait_focus(&self, target: Target<'_>) {
        let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(30);
        loop {
            let now = self.focused().await;
            if now.is(&target) {
                return;
            }
            assert!(tokio::time::Instant::now() < deadline, "the focus stayed on {now:?}, not {target:?}");
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
    }

    /// Waits until the focus is on the page's `<h1>` reading `text` (a navigation landed).
    pub async fn wait_heading_focus(&self, text: &str) {
        self.wait_focus(Target::Text("h1", text)).await;
    }
}
