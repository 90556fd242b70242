//! The subset, read back as HTML-like text: tags for elements, and text with `<`, `>` and
//! `&` written as entities — so a raw tag that stayed text reads `&lt;script&gt;`, while a
//! `<script>` in the outline would be an element (which the tree cannot express).

use super::*;

fn outline(nodes: &[Node]) -> String {
    let mut out = String::new();
    for node in nodes {
        match node {
            Node::Text(t) => out.push_str(&t.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")),
            Node::Element(Element::Break, _) => out.push_str("<br>"),
            Node::Element(e, children) => {
                let (open, close) = match e {
                    Element::Paragraph => ("<p>".to_owned(), "</p>"),
                    Element::Heading(n) => {
                        (format!("<h{n}>"), ["", "", "</h2>", "</h3>", "</h4>", "</h5>", "</h6>"][*n as usize])
                    }
                    Element::List(None) => ("<ul>".to_owned(), "</ul>"),
                    Element::List(Some(start)) => (format!("<ol start={start}>"), "</ol>"),
                    Element::Item => ("<li>".to_owned(), "</li>"),
                    Element::Emphasis => ("<em>".to_owned(), "</em>"),
                    Element::Strong => ("<strong>".to_owned(), "</strong>"),
                    Element::Code => ("<code>".to_owned(), "</code>"),
                    Element::Link(href) => (format!("<a {href}>"), "</a>"),
                    Element::Break => unreachable!(),
                };
                out.push_str(&open);
                out.push_str(&outline(children));
                out.push_str(close);
            }
        }
    }
    out
}

fn md(source: &str) -> String {
    outline(&parse(source))
}

fn depth(nodes: &[Node]) -> usize {
    nodes
        .iter()
        .map(|n| match n {
            Node::Element(_, children) => 1 + depth(children),
            Node::Text(_) => 0,
        })
        .max()
        .unwrap_or(0)
}

#[test]
fn plain_text_keeps_its_paragraphs_and_line_breaks() {
    assert_eq!(md("Welcome.\n\nFirst line\nsecond line\n"), "<p>Welcome.</p><p>First line<br>second line</p>");
    assert_eq!(md(""), "");
    assert_eq!(md("  \n\n \t\n"), "");
}

#[test]
fn headings_start_below_the_page_title_and_never_skip_a_level() {
    assert_eq!(md("# Start\n## Then\n#### Deep"), "<h2>Start</h2><h3>Then</h3><h4>Deep</h4>");
    assert_eq!(md("### Only this"), "<h2>Only this</h2>");
    assert_eq!(md("Setext\n======"), "<h2>Setext</h2>");
    assert_eq!(
        md("# a\n## b\n### c\n#### d\n##### e\n###### f"),
        "<h2>a</h2><h3>b</h3><h4>c</h4><h5>d</h5><h6>e</h6><h6>f</h6>"
    );
}

#[test]
fn lists_emphasis_and_code() {
    assert_eq!(md("- one\n- *two*\n"), "<ul><li>one</li><li><em>two</em></li></ul>");
    assert_eq!(md("3. three\n4. four\n"), "<ol start=3><li>three</li><li>four</li></ol>");
    assert_eq!(md("- loose\n\n- items\n"), "<ul><li><p>loose</p></li><li><p>items</p></li></ul>");
    assert_eq!(
        md("Run `npm ci`, **then** _wait_."),
        "<p>Run <code>npm ci</code>, <strong>then</strong> <em>wait</em>.</p>"
    );
}

#[test]
fn links_to_http_https_and_mailto_are_links() {
    assert_eq!(md("[Docs](https://docs.example/start)"), "<p><a https://docs.example/start>Docs</a></p>");
    assert_eq!(md("[Old](HTTP://old.example)"), "<p><a HTTP://old.example>Old</a></p>");
    assert_eq!(md("[Write](mailto:team@example.com)"), "<p><a mailto:team@example.com>Write</a></p>");
    assert_eq!(md("<https://auto.example>"), "<p><a https://auto.example>https://auto.example</a></p>");
    assert_eq!(md("<team@example.com>"), "<p><a mailto:team@example.com>team@example.com</a></p>");
    assert_eq!(md("[ref]\n\n[ref]: https://ref.example"), "<p><a https://ref.example>ref</a></p>");
}

#[test]
fn any_other_link_target_is_its_text_only() {
    for source in [
        "[Run](javascript:alert(1))",
        "[Run](JavaScript:alert(1))",
        "[Run](java&#x73;cript:alert(1))",
        "[Run](  javascript:alert(1) )",
        "[Run](java\\\nscript:alert(1))",
        "[Run](<java script:alert(1)>)",
        "[Run](data:text/html;base64,PHNjcmlwdD4=)",
        "[Run](vbscript:msgbox)",
        "[Run](/relative/path)",
        "[Run](//other.example)",
        "[Run](#top)",
        "[Run]( )",
    ] {
        let out = md(source);
        assert!(!out.contains("<a"), "{source:?} became a link: {out}");
        assert!(out.contains("Run"), "{source:?} lost its text: {out}");
    }
    assert_eq!(md("<javascript:alert(1)>"), "<p>javascript:alert(1)</p>");
}

#[test]
fn raw_html_stays_text() {
    assert_eq!(md("<script>alert(1)</script>"), "<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>");
    assert_eq!(md("Look <img src=x onerror=alert(1)> here"), "<p>Look &lt;img src=x onerror=alert(1)&gt; here</p>");
    assert_eq!(
        md("<div>\n<b>bold?</b>\n</div>\n\nAfter"),
        "<p>&lt;div&gt;<br>&lt;b&gt;bold?&lt;/b&gt;<br>&lt;/div&gt;</p><p>After</p>"
    );
    assert_eq!(md("&lt;b&gt; and &amp;"), "<p>&lt;b&gt; and &amp;</p>");
    assert_eq!(md("<!-- hidden? -->"), "<p>&lt;!-- hidden? --&gt;</p>");
}

#[test]
fn images_quotes_and_code_blocks_become_plain_blocks() {
    assert_eq!(md("![A chart](https://img.example/x.png)"), "<p>A chart</p>");
    assert_eq!(md("> quoted\n> text"), "<p>quoted<br>text</p>");
    assert_eq!(md("```\nline one\nline two\n```"), "<p>line one<br>line two</p>");
    assert_eq!(md("    indented\n    code"), "<p>indented<br>code</p>");
    assert_eq!(md("above\n\n---\n\nbelow"), "<p>above</p><p>below</p>");
}

#[test]
fn nesting_is_bounded_and_items_stay_inside_lists() {
    for source in [
        "- ".repeat(2_000) + "deep `code`  \nbreak",
        "> ".repeat(2_000) + "deep",
        "*".repeat(5_000) + "x" + &"*".repeat(5_000),
    ] {
        let tree = parse(&source);
        // Containers, plus the innermost line break or code span.
        assert!(depth(&tree) <= MAX_DEPTH + 1, "depth {}", depth(&tree));
        assert!(outline(&tree).contains("deep") || outline(&tree).contains('x'));
        let out = outline(&tree);
        assert_eq!(out.matches("<li>").count(), out.matches("<ul>").count(), "one item per nested list: {out}");
    }
}
