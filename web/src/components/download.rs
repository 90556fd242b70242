//! Saves text the API returned (CSV exports) as a file, through a short-lived object URL
//! that names no content.

use std::time::Duration;

use leptos::prelude::*;
use wasm_bindgen::{JsCast, JsValue};

pub fn save_text(filename: &str, text: &str, mime: &str) -> Result<(), JsValue> {
    let parts = js_sys::Array::of1(&JsValue::from_str(text));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options)?;
    let url = web_sys::Url::create_object_url_with_blob(&blob)?;
    let link: web_sys::HtmlAnchorElement = document().create_element("a")?.unchecked_into();
    link.set_href(&url);
    link.set_download(filename);
    link.click();
    set_timeout(move || drop(web_sys::Url::revoke_object_url(&url)), Duration::from_secs(5));
    Ok(())
}
