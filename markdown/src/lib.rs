//! The safe Markdown subset of early-access content: an owner's source text becomes a small
//! tree of allowed elements, which the SPA turns into DOM nodes for the recipient's page and
//! for the editor's preview alike (so the preview is what recipients see).
//!
//! Policy — how SPEC §6.4's "rendered as escaped text" is read: the body is CommonMark
//! (parsed by pulldown-cmark, no extensions), but only these elements come out of it:
//! paragraphs, headings, bulleted and numbered lists, emphasis and strong emphasis, inline
//! code, line breaks and links to `http:`, `https:` and `mailto:` addresses. Everything else
//! is text:
//!
//! * raw HTML (a block or an inline tag) stays its own source text, so `<script>` shows as
//!   the characters `<script>` and never becomes an element;
//! * a link to any other target (`javascript:`, `data:`, a relative path) is its link text
//!   only, and an image is its alt text only — the tree never holds an image address;
//! * block quotes, rules and the like are their contents as plain blocks; code blocks are
//!   paragraphs that keep their lines.
//!
//! The tree holds text as [`Node::Text`], which the SPA only ever writes as DOM text nodes,
//! so nothing in it is markup by construction. Two choices keep the page well formed: a line
//! break inside a paragraph stays a line break (as plain-text content always showed it), and
//! headings start at `h2` below the page's own `h1` and never skip a level. Nesting is
//! bounded ([`MAX_DEPTH`]), so a hostile body cannot make the SPA recurse deeply.

use pulldown_cmark::{Event, LinkType, Parser, Tag};

/// The most elements that hold others, open inside each other (a line break or a code
/// span may sit in the innermost); deeper markup is flattened into its parent.
pub const MAX_DEPTH: usize = 12;

/// The link schemes that make a link (compared without regard to case).
const ALLOWED_SCHEMES: [&str; 3] = ["http", "https", "mailto"];

/// An element of the subset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Element {
    Paragraph,
    /// `h2`–`h6`: the level to render, not the number of `#`.
    Heading(u8),
    /// A list; `Some(start)` for a numbered one.
    List(Option<u64>),
    Item,
    Emphasis,
    Strong,
    Code,
    /// A link whose target uses an allowed scheme.
    Link(String),
    Break,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Node {
    Element(Element, Vec<Node>),
    Text(String),
}

/// Parses `source` into the subset's tree.
pub fn parse(source: &str) -> Vec<Node> {
    let mut builder = Builder { open: vec![(None, Vec::new())], last_heading: 1 };
    for event in Parser::new(source) {
        builder.event(event);
    }
    while builder.open.len() > 1 {
        builder.close();
    }
    builder.open.pop().map(|(_, nodes)| nodes).unwrap_or_default()
}

/// The link target `url` if it may be a link: an allowed scheme (an email autolink is a
/// `mailto:` address).
pub fn safe_href(link_type: LinkType, url: &str) -> Option<String> {
    if link_type == LinkType::Email {
        return Some(format!("mailto:{url}"));
    }
    let (scheme, _) = url.split_once(':')?;
    ALLOWED_SCHEMES.iter().any(|s| s.eq_ignore_ascii_case(scheme)).then(|| url.to_owned())
}

struct Builder {
    /// The open elements, outermost first (the root at 0): what each becomes (`None`: its
    /// children join its parent) and its children so far.
    open: Vec<(Option<Element>, Vec<Node>)>,
    /// The level of the last heading rendered (1: the page's own `h1`).
    last_heading: u8,
}

impl Builder {
    fn event(&mut self, event: Event<'_>) {
        match event {
            Event::Start(tag) => {
                let element = self.element(tag);
                self.open.push((element, Vec::new()));
            }
            Event::End(_) => self.close(),
            Event::Text(t) | Event::Html(t) | Event::InlineHtml(t) => self.text(&t),
            Event::Code(t) => self.push(Node::Element(Element::Code, vec![Node::Text(t.into_string())])),
            Event::SoftBreak | Event::HardBreak => self.push(Node::Element(Element::Break, Vec::new())),
            // Not enabled in the parser's options; their source text, should one appear.
            Event::InlineMath(t) | Event::DisplayMath(t) | Event::FootnoteReference(t) => self.text(&t),
            Event::Rule | Event::TaskListMarker(_) => {}
        }
    }

    /// What a start tag becomes here; `None` keeps only its contents.
    fn element(&mut self, tag: Tag<'_>) -> Option<Element> {
        // An item is one exactly when it is directly inside a list that is one.
        if let Tag::Item = tag {
            return matches!(self.open.last(), Some((Some(Element::List(_)), _))).then_some(Element::Item);
        }
        // A list is opened with room for its items too.
        let depth = self.open.iter().filter(|(e, _)| e.is_some()).count();
        if depth + 2 > MAX_DEPTH {
            return None;
        }
        match tag {
            Tag::Paragraph | Tag::CodeBlock(_) | Tag::HtmlBlock => Some(Element::Paragraph),
            Tag::Heading { level, .. } => {
                let level = (level as u8 + 1).min(self.last_heading + 1).min(6);
                self.last_heading = level;
                Some(Element::Heading(level))
            }
            Tag::List(start) => Some(Element::List(start)),
            Tag::Emphasis => Some(Element::Emphasis),
            Tag::Strong => Some(Element::Strong),
            Tag::Link { link_type, dest_url, .. } => safe_href(link_type, &dest_url).map(Element::Link),
            // Images (their alt text stays), quotes and whatever the options do not enable.
            _ => None,
        }
    }

    fn close(&mut self) {
        let Some((element, mut children)) = self.open.pop() else { return };
        match element {
            Some(element) => {
                if element == Element::Paragraph {
                    // A code or HTML block's last line ends in a line feed.
                    while matches!(children.last(), Some(Node::Element(Element::Break, _))) {
                        children.pop();
                    }
                }
                self.push(Node::Element(element, children));
            }
            None => children.into_iter().for_each(|n| self.push(n)),
        }
    }

    /// Text, its line feeds (code and HTML blocks) as line breaks.
    fn text(&mut self, text: &str) {
        for (i, line) in text.split('\n').enumerate() {
            if i > 0 {
                self.push(Node::Element(Element::Break, Vec::new()));
            }
            if !line.is_empty() {
                self.push(Node::Text(line.to_owned()));
            }
        }
    }

    /// Appends to the innermost open element, joining adjacent text.
    fn push(&mut self, node: Node) {
        let Some((_, children)) = self.open.last_mut() else { return };
        match (children.last_mut(), node) {
            (Some(Node::Text(last)), Node::Text(more)) => last.push_str(&more),
            (_, node) => children.push(node),
        }
    }
}

#[cfg(test)]
mod tests;
