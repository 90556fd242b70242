//! Early-access content on screen: the safe Markdown subset of the `markdown` crate (its
//! module doc holds the policy: which elements, raw HTML stays text, only http/https/mailto
//! links) turned into DOM nodes through Leptos views. The recipient's page and the owner's
//! editor preview both render through [`Markdown`], so the preview is what recipients see.
//!
//! Policy: no `inner_html` anywhere here. Every piece of the owner's text becomes a DOM text
//! node; elements come only from the crate's fixed list, and the one attribute taken from
//! the text is a link's `href`, which the crate has already limited to allowed schemes.

use leptos::prelude::*;
use markdown::{Element, Node};

/// What the editor tells the owner about the subset (each piece of syntax kept on one line).
#[component]
pub fn SyntaxHelp() -> impl IntoView {
    view! {
        "Markdown: a blank line starts a paragraph; " <code>"# Heading"</code> "; " <code>"- item"</code> " or "
        <code>"1. item"</code> " for lists; " <code>"*emphasis*"</code> ", " <code>"**strong**"</code> "; "
        <code>"[text](https://…)"</code> " for links (http, https and mailto only). HTML is shown as text."
    }
}

/// `text` as the subset's elements, in one `div.markdown`.
#[component]
pub fn Markdown(#[prop(into)] text: String) -> impl IntoView {
    let nodes: Vec<AnyView> = markdown::parse(&text).into_iter().map(node).collect();
    view! { <div class="markdown">{nodes}</div> }
}

fn node(node: Node) -> AnyView {
    let (element, children) = match node {
        Node::Text(text) => return text.into_any(),
        Node::Element(element, children) => (element, children),
    };
    let inner: Vec<AnyView> = children.into_iter().map(self::node).collect();
    match element {
        Element::Paragraph => view! { <p class="para">{inner}</p> }.into_any(),
        Element::Heading(2) => view! { <h2>{inner}</h2> }.into_any(),
        Element::Heading(3) => view! { <h3>{inner}</h3> }.into_any(),
        Element::Heading(4) => view! { <h4>{inner}</h4> }.into_any(),
        Element::Heading(5) => view! { <h5>{inner}</h5> }.into_any(),
        Element::Heading(_six) => view! { <h6>{inner}</h6> }.into_any(),
        Element::List(None) => view! { <ul>{inner}</ul> }.into_any(),
        Element::List(Some(start)) => view! { <ol start=start.to_string()>{inner}</ol> }.into_any(),
        Element::Item => view! { <li>{inner}</li> }.into_any(),
        Element::Emphasis => view! { <em>{inner}</em> }.into_any(),
        Element::Strong => view! { <strong>{inner}</strong> }.into_any(),
        Element::Code => view! { <code>{inner}</code> }.into_any(),
        Element::Link(href) => view! { <a href=href rel="noopener noreferrer">{inner}</a> }.into_any(),
        Element::Break => view! { <br/> }.into_any(),
    }
}
