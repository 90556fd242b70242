//! Accessibility as a test (issue 19.9). Every page a browser test looks at is checked at
//! both widths, in the light and the dark theme, with:
//!
//! * axe-core (npm, pinned in package.json, injected through WebDriver): zero violations of
//!   WCAG 2.0/2.1 A and AA — plus 2.2's target size (24 px), which the design review asked for;
//! * checks axe cannot make: the borders of text fields and selects and the outline of meter
//!   tracks reach 3:1 against what they sit on (WCAG 1.4.11), disabled buttons stay readable
//!   (4.5:1, no fading), links with the same name go to the same place, every control has a
//!   label, and the page has a specific title.
//!
//! Exceptions are listed in [`AXE_EXCEPTIONS`] with their reason; today there are none.

use std::path::PathBuf;
use std::sync::OnceLock;

use serde_json::{json, Value};

/// The WCAG rule sets axe runs (its tag names).
const AXE_TAGS: [&str; 5] = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"];

/// axe rules switched off, each with the reason. Keep this empty unless a rule is wrong
/// for this app; a real finding is fixed, not listed.
pub const AXE_EXCEPTIONS: &[(&str, &str)] = &[];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Theme {
    Light,
    Dark,
}

impl Theme {
    pub const ALL: [Theme; 2] = [Theme::Light, Theme::Dark];

    pub fn name(self) -> &'static str {
        match self {
            Theme::Light => "light",
            Theme::Dark => "dark",
        }
    }
}

/// `node_modules/axe-core/axe.min.js`, read once per test binary.
fn axe_source() -> &'static str {
    static SOURCE: OnceLock<String> = OnceLock::new();
    SOURCE.get_or_init(|| {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../node_modules/axe-core/axe.min.js");
        std::fs::read_to_string(&path).unwrap_or_else(|e| {
            panic!("{}: {e}. Install the pinned axe-core with `npm ci` (scripts/test does)", path.display())
        })
    })
}

/// Script that loads axe into the page unless it is there already (a full navigation
/// drops it; the SPA's own navigations keep it).
pub fn inject_script() -> String {
    format!("if (typeof window.axe === 'undefined') {{ {} }} return typeof window.axe;", axe_source())
}

/// An async script (WebDriver `execute_async`): runs axe on the whole document and answers
/// the violations as `[{id, impact, help, nodes:[{target, summary}]}]`.
pub fn run_script() -> String {
    let disabled: serde_json::Map<String, Value> =
        AXE_EXCEPTIONS.iter().map(|(id, _)| ((*id).to_owned(), json!({"enabled": false}))).collect();
    let options = json!({
        "runOnly": {"type": "tag", "values": AXE_TAGS},
        "resultTypes": ["violations"],
        "rules": disabled,
    });
    format!(
        r#"const done = arguments[arguments.length - 1];
        window.axe.run(document, {options}).then(r => done(r.violations.map(v => ({{
            id: v.id, impact: v.impact, help: v.help,
            nodes: v.nodes.slice(0, 5).map(n => ({{ target: n.target.join(' '), summary: n.failureSummary }}))
        }})))).catch(e => done([{{ id: 'axe-error', impact: 'critical', help: String(e), nodes: [] }}]));"#
    )
}

/// Checks axe cannot make, as one script answering a list of findings (empty when clean).
pub const OWN_CHECKS: &str = r#"
const rgb = s => { const m = s.match(/rgba?\(([^)]+)\)/); if (!m) return null;
  const p = m[1].split(/[ ,\/]+/).filter(Boolean).map(Number); return { r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1 }; };
const lum = c => { const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
  return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b); };
const ratio = (a, b) => { const x = lum(a), y = lum(b); return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); };
const backdrop = el => { for (let e = el; e; e = e.parentElement) { const c = rgb(getComputedStyle(e).backgroundColor);
  if (c && c.a > 0.99) return c; } return { r: 255, g: 255, b: 255, a: 1 }; };
const visible = el => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== 'hidden'; };
const describe = el => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + (el.className && typeof el.className === 'string' ? '.' + el.className.trim().split(/\s+/).join('.') : '');
const found = [];
// Text fields, selects and meter tracks: their outline must stand out from what is behind them.
for (const el of document.querySelectorAll('input:not([type=checkbox]):not([type=radio]):not([type=hidden]), select, textarea, .meter, .funnel-track')) {
  if (!visible(el)) continue;
  const s = getComputedStyle(el); const border = rgb(s.borderTopColor);
  if (!border || parseFloat(s.borderTopWidth) < 1) { found.push(describe(el) + ': no visible border'); continue; }
  const r = ratio(border, backdrop(el.parentElement));
  if (r < 3) found.push(`${describe(el)}: border ${r.toFixed(2)}:1 against its background (needs 3:1)`);
}
// Disabled buttons: readable, not faded.
for (const el of document.querySelectorAll('button:disabled')) {
  if (!visible(el)) continue;
  let opacity = 1; for (let e = el; e; e = e.parentElement) opacity *= parseFloat(getComputedStyle(e).opacity);
  const r = ratio(rgb(getComputedStyle(el).color), backdrop(el));
  if (opacity < 1 || r < 4.5) found.push(`${describe(el)} "${el.innerText.trim()}": disabled text ${r.toFixed(2)}:1, opacity ${opacity} (needs 4.5:1, opaque)`);
}
// Links: one name, one destination.
const byName = new Map();
for (const a of document.querySelectorAll('a[href]')) {
  if (!visible(a)) continue;
  const name = (a.getAttribute('aria-label') || a.innerText).trim().replace(/\s+/g, ' ').toLowerCase();
  const href = new URL(a.href, location.href).href;
  if (byName.has(name) && byName.get(name) !== href) found.push(`two links named "${name}" go to different places`);
  byName.set(name, href);
}
// Every form control has a label.
for (const e of document.querySelectorAll('input, select, textarea')) {
  if (e.type === 'hidden' || e.getAttribute('aria-label') || e.getAttribute('aria-labelledby') || e.closest('label')) continue;
  if (e.id && document.querySelector(`label[for="${e.id}"]`)) continue;
  found.push(`${describe(e)}: no label`);
}
// A title that names the page, not just the site. A signup form is the owner's page (issue
// 27): its title is the program's own, as the server wrote it for sharing (og:title).
const title = document.title.trim();
const owners = document.querySelector('meta[property="og:title"]');
const ownTitle = owners && owners.content === title && title !== '';
if (!ownTitle && (!/^.+ · Vestibule$/.test(title) || /^(Entry|Queue|Program|Content|Notice) · Vestibule$/.test(title)))
  found.push(`the title "${title}" does not say which page this is`);
return found;
"#;

/// One line per axe violation, for the failure message.
pub fn describe_violations(violations: &Value) -> Vec<String> {
    violations
        .as_array()
        .map(|list| {
            list.iter()
                .map(|v| {
                    let nodes: Vec<String> = v["nodes"]
                        .as_array()
                        .map(|n| {
                            n.iter()
                                .map(|n| {
                                    let summary = n["summary"].as_str().unwrap_or_default().replace('\n', " ");
                                    format!("      {} — {summary}", n["target"].as_str().unwrap_or_default())
                                })
                                .collect()
                        })
                        .unwrap_or_default();
                    format!("  {} ({}): {}\n{}", v["id"], v["impact"], v["help"], nodes.join("\n"))
                })
                .collect()
        })
        .unwrap_or_default()
}
