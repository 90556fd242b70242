//! The signup form's page as the server writes it (issue 27 item 2): the SPA's public shell
//! with the program's own title and description in `<title>`, the meta description, Open
//! Graph and Twitter card tags (so a link shared in a chat or a post shows the program), a
//! first paint of the whole first screen — heading, pitch and the form itself, disabled —
//! that shows before the WASM has loaded (Lighthouse's LCP element is in it), and the
//! program's public answer (`GET /api/public/programs/{slug}`'s body) as a JSON data block
//! the SPA reads instead of asking again, so the form renders as soon as the WASM starts.
//!
//! Policy: every piece of the owner's text is HTML-escaped (`&`, `<`, `>`, `"`, `'`); the
//! JSON block escapes `<`, `>` and `&` as `\u003c`-style sequences, so no text can close it.
//! A data block (`type="application/json"`) is never executed, so the page still has no
//! inline script for the Content-Security-Policy to allow. A program without a title or a
//! description keeps the shell's own for that piece ("falls back as today"). The first
//! paint is the page's `<main>` (and on the form's page its footer) as the SPA renders it,
//! from the same words (`shared::signup_form`); the SPA removes it as it mounts
//! (`web/src/main.rs`), in the same frame, so nothing moves and the app's copy is no
//! larger paint than the one already shown. Nothing in the first paint can be sent: its
//! controls are disabled and unnamed until the app's form takes its place. A form that
//! joins with an account (issue 31) depends on the session: its first paint stops after
//! the pitch.

use shared::api::PublicProgram;
use shared::questions::{JoinWith, Question, QuestionKind};
use shared::signup_form as words;

use shared::signup_form::{DATA_ID, FIRST_PAINT_FOOTER_ID, FIRST_PAINT_ID};
/// Before every id in the first paint: the app's own elements keep theirs, unshared.
const ID_PREFIX: &str = "fp-";

/// Which page: the form at `/waitlist/{slug}`, or its framed copy with the host page's
/// choices (`web/embed.js`: `data-theme`, `data-hide-title`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Page,
    Embed { theme: Theme, hide_title: bool },
}

/// The embedded form's colours: `light` (the default: most host pages are light), `dark`, or
/// `auto` (the visitor's system setting).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Theme {
    Light,
    Dark,
    Auto,
}

impl Theme {
    /// The `?theme=` of the frame's address; anything else is the default.
    pub fn parse(value: Option<&str>) -> Theme {
        match value {
            Some("dark") => Theme::Dark,
            Some("auto") => Theme::Auto,
            _ => Theme::Light,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Theme::Light => "light",
            Theme::Dark => "dark",
            Theme::Auto => "auto",
        }
    }
}

impl Mode {
    /// The embed's choices from the frame's query string (`theme=…&hideTitle=1`).
    pub fn embed_from_query(query: &str) -> Mode {
        let mut theme = None;
        let mut hide_title = false;
        for pair in query.split('&') {
            match pair.split_once('=') {
                Some(("theme", value)) => theme = Some(value),
                Some(("hideTitle", "1")) => hide_title = true,
                _ => {}
            }
        }
        Mode::Embed { theme: Theme::parse(theme), hide_title }
    }
}

/// `shell` (the built `index.html`) written for `program`'s form page in `mode`.
pub fn write(shell: &str, program: &PublicProgram, mode: Mode) -> String {
    let mut page = shell.to_owned();
    let title = program.title.as_deref();
    let description = program.description.as_deref();
    if let Some(title) = title {
        replace_element(&mut page, "<title", "</title>", &format!("<title>{}</title>", escape(title)));
    }
    if let Some(description) = description {
        replace_tag(
            &mut page,
            &["name=description", "name=\"description\""],
            &meta("name", "description", description),
        );
    }
    let mut head = String::new();
    if let Some(title) = title {
        head.push_str(&meta("property", "og:title", title));
        head.push_str(&meta("name", "twitter:title", title));
    }
    if let Some(description) = description {
        head.push_str(&meta("property", "og:description", description));
        head.push_str(&meta("name", "twitter:description", description));
    }
    if title.is_some() || description.is_some() {
        head.push_str(&meta("property", "og:type", "website"));
        head.push_str(&meta("name", "twitter:card", "summary"));
    }
    insert_before(&mut page, "</head>", &head);
    let mut body = String::new();
    let heading = title.unwrap_or("Join the waitlist");
    let (class, heading_class) = match mode {
        Mode::Page => ("wrap", ""),
        Mode::Embed { theme, hide_title } => {
            if let Some(at) = page.find("<html") {
                page.insert_str(at + "<html".len(), &format!(" data-theme=\"{}\"", theme.name()));
            }
            if let Some(at) = page.find("<body") {
                page.insert_str(at + "<body".len(), " class=\"embed\"");
            }
            ("embed", if hide_title { " class=\"sr-only\"" } else { "" })
        }
    };
    body.push_str(&format!(
        "<main id=\"{FIRST_PAINT_ID}\" class=\"{class}\" aria-busy=\"true\"><h1{heading_class}>{}</h1>",
        escape(heading)
    ));
    if title.is_none() {
        body.push_str(&format!(
            "<p class=\"muted\">{}<strong>{}</strong></p>",
            escape(words::PROGRAM_PREFIX),
            escape(&program.slug)
        ));
    }
    if let Some(description) = description {
        body.push_str(&format!("<p class=\"lead pitch\">{}</p>", escape(description)));
    }
    // Joining with an account shows the session's addresses, which only the app knows.
    if program.join_with == JoinWith::Email {
        write_form(&mut body, program);
    }
    body.push_str("</main>");
    if mode == Mode::Page {
        body.push_str(&format!(
            "<footer id=\"{FIRST_PAINT_FOOTER_ID}\" class=\"site-footer wrap\"><p>{}</p></footer>",
            escape(words::FOOTER)
        ));
    }
    body.push_str(&format!("<script type=\"application/json\" id=\"{DATA_ID}\">{}</script>", json(program)));
    insert_after_open(&mut page, "<body", &body);
    page
}

/// The signup form as the app first renders it (`web/src/routes/waitlist.rs`: the same
/// elements, classes and words, `shared::signup_form`), but inert until the app replaces
/// it: every control disabled, no field named, no `method` — nothing can be sent from it,
/// with or without JavaScript — and ids prefixed, so no id is on the page twice while the
/// app mounts.
fn write_form(out: &mut String, program: &PublicProgram) {
    let notice = &program.notice;
    let id = |name: &str| format!("{ID_PREFIX}{name}");
    if !program.signup_open {
        out.push_str(&format!("<div class=\"alert alert-warn\"><p>{}</p></div>", escape(words::CLOSED)));
    }
    out.push_str("<form class=\"card form\" novalidate>");
    out.push_str(&format!("<h2>{}</h2>", escape(words::EMAIL_HEADING)));
    let email = id("signup-email");
    out.push_str(&format!(
        "<label for=\"{email}\">{}</label><input id=\"{email}\" type=\"email\" inputmode=\"email\" \
         autocomplete=\"email\" spellcheck=\"false\" maxlength=\"254\" disabled><p class=\"field-error\"></p>",
        escape(words::EMAIL_LABEL)
    ));
    write_questions(out, &notice.questions);
    let heading = id("notice-summary-heading");
    out.push_str(&format!(
        "<section class=\"notice compact\" aria-labelledby=\"{heading}\"><h3 id=\"{heading}\">{}</h3>\
         <p class=\"exact\">{}</p><details class=\"notice-full\"><summary>{}</summary>\
         <section class=\"notice\" aria-label=\"{full}\"><h2>{full}</h2><p class=\"muted small\">{}</p>\
         <h3>{}</h3><p class=\"exact\">{}</p><h3>{}</h3><p class=\"exact\">{}</p>{}</section></details></section>",
        escape(words::NOTICE_HEADING),
        escape(&notice.purpose),
        escape(&words::full_notice_summary(notice.version)),
        escape(&words::published_line(notice.version, &notice.published_at)),
        escape(words::CONTACT_HEADING),
        escape(&notice.contact_text),
        escape(words::RETENTION_HEADING),
        escape(&notice.retention_text),
        questions_asked(&notice.questions),
        full = escape(words::FULL_NOTICE_HEADING),
    ));
    let permission = id("signup-permission");
    out.push_str(&format!(
        "<div class=\"check\"><input id=\"{permission}\" type=\"checkbox\" disabled>\
         <label for=\"{permission}\">{}</label></div>",
        escape(words::PERMISSION)
    ));
    let blocked = if program.signup_open { words::BLOCKED_EMAIL } else { words::BLOCKED_CLOSED };
    out.push_str(&format!(
        "<button type=\"submit\" disabled>{}</button><p class=\"help\">{}</p></form>",
        escape(words::SUBMIT),
        escape(blocked)
    ));
}

/// The full notice's list of its questions (`components::notice::NoticeView`), if any.
fn questions_asked(questions: &[Question]) -> String {
    if questions.is_empty() {
        return String::new();
    }
    let items: String = questions.iter().map(|q| format!("<li>{}</li>", escape(&words::question_line(q)))).collect();
    format!("<h3>{}</h3><ul class=\"notice-questions\">{items}</ul>", escape(words::QUESTIONS_ASKED_HEADING))
}

/// The notice's questions as `components::questions::QuestionFields` renders them.
fn write_questions(out: &mut String, questions: &[Question]) {
    if questions.is_empty() {
        return;
    }
    let heading = format!("{ID_PREFIX}question-heading");
    out.push_str(&format!(
        "<section class=\"questions\" aria-labelledby=\"{heading}\"><h3 id=\"{heading}\">{}</h3>",
        escape(words::QUESTIONS_HEADING)
    ));
    for q in questions {
        let id = escape(&format!("{ID_PREFIX}question-{}", q.id));
        let label = escape(&words::question_label(&q.label, q.required));
        let required = if q.required { " required" } else { "" };
        out.push_str("<div class=\"question\">");
        match q.kind {
            QuestionKind::ShortText | QuestionKind::Url => {
                let kind = if q.kind == QuestionKind::Url { "url" } else { "text" };
                let max = q.limit().unwrap_or(200);
                out.push_str(&format!(
                    "<label for=\"{id}\">{label}</label><input id=\"{id}\" type=\"{kind}\" maxlength=\"{max}\" disabled{required}>"
                ));
            }
            QuestionKind::LongText => {
                let max = q.limit().unwrap_or(2000);
                out.push_str(&format!(
                    "<label for=\"{id}\">{label}</label><textarea id=\"{id}\" rows=\"4\" maxlength=\"{max}\" disabled{required}></textarea>"
                ));
            }
            QuestionKind::OneChoice | QuestionKind::ManyChoices => {
                let kind = if q.kind == QuestionKind::ManyChoices { "checkbox" } else { "radio" };
                out.push_str(&format!("<fieldset class=\"choices\"><legend>{label}</legend>"));
                for (i, choice) in q.choices().iter().enumerate() {
                    out.push_str(&format!(
                        "<div class=\"check\"><input id=\"{id}-{i}\" type=\"{kind}\" disabled><label for=\"{id}-{i}\">{}</label></div>",
                        escape(choice)
                    ));
                }
                out.push_str("</fieldset>");
            }
        }
        out.push_str("</div>");
    }
    out.push_str("</section>");
}

fn meta(attribute: &str, name: &str, content: &str) -> String {
    format!("<meta {attribute}=\"{name}\" content=\"{}\">", escape(content))
}

/// Text for HTML (element content and quoted attribute values alike).
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The program as JSON that no text inside it can end the `<script>` block around it.
fn json(program: &PublicProgram) -> String {
    let text = serde_json::to_string(program).unwrap_or_else(|_| "null".into());
    text.replace('<', "\\u003c").replace('>', "\\u003e").replace('&', "\\u0026")
}

/// Replaces the element from `open` up to and including `close` (the first of each).
fn replace_element(page: &mut String, open: &str, close: &str, with: &str) {
    if let Some(start) = page.find(open) {
        if let Some(end) = page[start..].find(close) {
            page.replace_range(start..start + end + close.len(), with);
        }
    }
}

/// Replaces the first tag holding one of `markers` (a minifier may drop the quotes);
/// adds `with` to the head when there is none.
fn replace_tag(page: &mut String, markers: &[&str], with: &str) {
    for marker in markers {
        if let Some(at) = page.find(marker) {
            let start = page[..at].rfind('<').unwrap_or(at);
            if let Some(end) = page[at..].find('>') {
                page.replace_range(start..at + end + 1, with);
                return;
            }
        }
    }
    insert_before(page, "</head>", with);
}

fn insert_before(page: &mut String, marker: &str, text: &str) {
    if let Some(at) = page.find(marker) {
        page.insert_str(at, text);
    }
}

/// Inserts `text` right after the opening tag that starts with `open` (`<body`).
fn insert_after_open(page: &mut String, open: &str, text: &str) {
    if let Some(start) = page.find(open) {
        if let Some(end) = page[start..].find('>') {
            page.insert_str(start + end + 1, text);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHELL: &str = "<!DOCTYPE html><html lang=en><head><meta charset=utf-8>\
        <meta name=description content=\"Vestibule: waitlists and controlled early access.\">\
        <title>Vestibule</title></head><body><noscript>x</noscript></body></html>";

    /// Built from JSON, so fields added to the wire types later keep this compiling.
    fn program(title: Option<&str>, description: Option<&str>) -> PublicProgram {
        serde_json::from_value(serde_json::json!({
            "slug": "aurora", "title": title, "description": description, "signupOpen": true,
            "notice": {"version": 1, "purpose": "p</script><script>alert(1)</script>", "contactText": "c",
                "retentionText": "r", "publishedAt": "2026-01-01T00:00:00Z"},
            "proofOfWork": "normal", "embedOrigins": []
        }))
        .unwrap()
    }

    #[test]
    fn the_programs_words_are_in_the_head_and_the_first_paint() {
        let page = write(SHELL, &program(Some("Aurora beta"), Some("Try it first.")), Mode::Page);
        assert!(page.contains("<title>Aurora beta</title>"), "{page}");
        assert!(!page.contains("<title>Vestibule</title>"));
        assert!(page.contains("<meta name=\"description\" content=\"Try it first.\">"));
        assert!(!page.contains("controlled early access"));
        for tag in ["og:title\" content=\"Aurora beta", "twitter:description\" content=\"Try it first.", "twitter:card"]
        {
            assert!(page.contains(tag), "{tag} missing: {page}");
        }
        let body = &page[page.find("<body>").unwrap()..];
        assert!(body.starts_with("<body><main id=\"first-paint\" class=\"wrap\" aria-busy=\"true\"><h1>Aurora beta</h1><p class=\"lead pitch\">Try it first.</p><form class=\"card form\" novalidate><h2>Your email address</h2>"), "{body}");
        assert!(
            body.contains("</form></main><footer id=\"first-paint-footer\" class=\"site-footer wrap\"><p>Vestibule · "),
            "{body}"
        );
    }

    #[test]
    fn the_first_paint_is_the_whole_form_and_nothing_in_it_can_be_sent() {
        let page = write(SHELL, &program(Some("Aurora beta"), Some("Try it first.")), Mode::Page);
        let main = &page[page.find("<main").unwrap()..page.find("</main>").unwrap()];
        for part in [
            "<label for=\"fp-signup-email\">Email address</label><input id=\"fp-signup-email\" type=\"email\"",
            "<h3 id=\"fp-notice-summary-heading\">What you agree to</h3><p class=\"exact\">p&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;</p>",
            "<summary>Read the full notice (version 1)</summary>",
            "<p class=\"muted small\">Version 1, published 2026-01-01 00:00 UTC</p><h3>Contact</h3><p class=\"exact\">c</p>",
            "<input id=\"fp-signup-permission\" type=\"checkbox\" disabled><label for=\"fp-signup-permission\">I want to join",
            "<button type=\"submit\" disabled>Join the waitlist</button><p class=\"help\">Enter your email address.</p></form>",
        ] {
            assert!(main.contains(part), "{part} missing: {main}");
        }
        // Every control disabled, none named, the form without a method: nothing to send.
        let controls = main.matches("<input").count() + main.matches("<button").count();
        assert_eq!(controls, 3);
        assert_eq!(main.matches(" disabled").count(), controls, "{main}");
        assert!(!main.contains("name=") && !main.contains("method="), "{main}");
        // The app's ids stay the app's own.
        assert!(!main.contains("id=\"signup-") && !main.contains("alert-warn"), "{main}");
    }

    #[test]
    fn a_closed_form_says_so_and_questions_are_written_escaped() {
        let mut p = program(None, None);
        p.signup_open = false;
        p.notice.questions = serde_json::from_value(serde_json::json!([
            {"id": "team", "kind": "shortText", "label": "Team <size>", "required": true},
            {"id": "why", "kind": "longText", "label": "Why?", "required": false, "maxLength": 300},
            {"id": "role", "kind": "oneChoice", "label": "Role", "required": true, "choices": ["Dev", "<Ops>"]}
        ]))
        .unwrap();
        let page = write(SHELL, &p, Mode::embed_from_query(""));
        let main = &page[page.find("<main").unwrap()..page.find("</main>").unwrap()];
        for part in [
            "<div class=\"alert alert-warn\"><p>This waitlist is not taking sign-ups right now. Please check back later.</p></div><form",
            "<section class=\"questions\" aria-labelledby=\"fp-question-heading\"><h3 id=\"fp-question-heading\">A few questions</h3>",
            "<label for=\"fp-question-team\">Team &lt;size&gt; (required)</label><input id=\"fp-question-team\" type=\"text\" maxlength=\"200\" disabled required>",
            "<textarea id=\"fp-question-why\" rows=\"4\" maxlength=\"300\" disabled></textarea>",
            "<fieldset class=\"choices\"><legend>Role (required)</legend><div class=\"check\"><input id=\"fp-question-role-0\" type=\"radio\" disabled><label for=\"fp-question-role-0\">Dev</label></div>",
            "<label for=\"fp-question-role-1\">&lt;Ops&gt;</label>",
            "<p class=\"help\">Sign-ups are closed.</p>",
            "<h3>Questions it asks</h3><ul class=\"notice-questions\"><li>Team &lt;size&gt; (short text, required)</li>",
            "<li>Role (one choice, required): Dev · &lt;Ops&gt;</li></ul></section></details>",
        ] {
            assert!(main.contains(part), "{part} missing: {main}");
        }
        assert!(!page.contains("first-paint-footer"), "the embed has no footer: {page}");
    }

    #[test]
    fn an_account_join_is_painted_up_to_its_pitch() {
        let mut p = program(Some("Aurora beta"), Some("Try it first."));
        p.join_with = JoinWith::Account;
        let page = write(SHELL, &p, Mode::Page);
        assert!(page.contains("<p class=\"lead pitch\">Try it first.</p></main>"), "{page}");
        assert!(!page.contains("<form"), "{page}");
    }

    #[test]
    fn owner_text_is_escaped_everywhere() {
        let page = write(SHELL, &program(Some("<b>\"A\" & 'B'</b>"), Some("</script><img src=x>")), Mode::Page);
        assert!(page.contains("<title>&lt;b&gt;&quot;A&quot; &amp; &#39;B&#39;&lt;/b&gt;</title>"), "{page}");
        assert!(!page.contains("<img"), "{page}");
        assert!(!page.contains("<b>"), "{page}");
        // One script element only: the data block, which nothing in it closes early.
        assert_eq!(page.matches("<script").count(), 1, "{page}");
        assert_eq!(page.matches("</script>").count(), 1, "{page}");
        let start = page.find("id=\"vestibule-program\">").unwrap() + "id=\"vestibule-program\">".len();
        let end = page.find("</script>").unwrap();
        let back: PublicProgram = serde_json::from_str(&page[start..end]).unwrap();
        assert_eq!(back, program(Some("<b>\"A\" & 'B'</b>"), Some("</script><img src=x>")));
    }

    #[test]
    fn the_embed_takes_the_host_pages_theme_and_may_hide_its_title() {
        let p = program(Some("Aurora beta"), None);
        let page = write(SHELL, &p, Mode::embed_from_query("parent=https%3A%2F%2Fa.example&theme=dark&hideTitle=1"));
        assert!(page.starts_with("<!DOCTYPE html><html data-theme=\"dark\" lang=en>"), "{page}");
        assert!(page.contains("<body class=\"embed\"><main id=\"first-paint\" class=\"embed\" aria-busy=\"true\"><h1 class=\"sr-only\">Aurora beta</h1>"), "{page}");
        let page = write(SHELL, &p, Mode::embed_from_query("theme=%22%3E"));
        assert!(page.contains("<html data-theme=\"light\" lang=en>"), "an unknown theme is the default: {page}");
        assert!(page.contains("<h1>Aurora beta</h1>"));
        let page = write(SHELL, &p, Mode::embed_from_query("theme=auto"));
        assert!(page.contains("<html data-theme=\"auto\""));
    }

    #[test]
    fn a_program_without_title_or_description_keeps_the_shells_own() {
        let page = write(SHELL, &program(None, None), Mode::Page);
        assert!(page.contains("<title>Vestibule</title>"));
        assert!(page.contains("controlled early access"));
        assert!(!page.contains("og:"), "{page}");
        assert!(
            page.contains("<h1>Join the waitlist</h1><p class=\"muted\">Program: <strong>aurora</strong></p><form class=\"card form\"")
        );
        assert!(!page.contains("pitch"));
    }
}
