//! The signup form's page as the server writes it (issue 27 item 2): the SPA's public shell
//! with the program's own title and description in `<title>`, the meta description, Open
//! Graph and Twitter card tags (so a link shared in a chat or a post shows the program), a
//! first paint of the heading and pitch that shows before the WASM has loaded, and the
//! program's public answer (`GET /api/public/programs/{slug}`'s body) as a JSON data block
//! the SPA reads instead of asking again, so the form renders as soon as the WASM starts.
//!
//! Policy: every piece of the owner's text is HTML-escaped (`&`, `<`, `>`, `"`, `'`); the
//! JSON block escapes `<`, `>` and `&` as `\u003c`-style sequences, so no text can close it.
//! A data block (`type="application/json"`) is never executed, so the page still has no
//! inline script for the Content-Security-Policy to allow. A program without a title or a
//! description keeps the shell's own for that piece ("falls back as today"). The first
//! paint is the page's `<main>` as the SPA renders it; the SPA removes it as it mounts
//! (`web/src/main.rs`), in the same frame, so nothing moves.

use shared::api::PublicProgram;

/// The id of the data block, read by `web/src/routes/waitlist.rs`.
pub const DATA_ID: &str = "vestibule-program";
/// The id of the first paint, removed by `web/src/main.rs`.
pub const FIRST_PAINT_ID: &str = "first-paint";

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
        body.push_str(&format!("<p class=\"muted\">Program: <strong>{}</strong></p>", escape(&program.slug)));
    }
    if let Some(description) = description {
        body.push_str(&format!("<p class=\"lead pitch\">{}</p>", escape(description)));
    }
    body.push_str("</main>");
    body.push_str(&format!("<script type=\"application/json\" id=\"{DATA_ID}\">{}</script>", json(program)));
    insert_after_open(&mut page, "<body", &body);
    page
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
        assert!(body.starts_with("<body><main id=\"first-paint\" class=\"wrap\" aria-busy=\"true\"><h1>Aurora beta</h1><p class=\"lead pitch\">Try it first.</p></main>"), "{body}");
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
            page.contains("<h1>Join the waitlist</h1><p class=\"muted\">Program: <strong>aurora</strong></p></main>")
        );
        assert!(!page.contains("pitch"));
    }
}
