//! The built SPA's files (`web/dist`) as bytes for the SPA route. Policy: by default
//! they come from inside the binary. `rust-embed` includes `web/dist` as it was when the
//! server was compiled, in every profile (`debug-embed`), so the binary the tests run is
//! the binary that ships, and a release binary needs no file beside it. Build the SPA
//! first (`scripts/build-web`), then the server; `api/build.rs` rebuilds the server when
//! `web/dist` changes. `STATIC_DIR` overrides the embedded copy with a directory read at
//! request time (`scripts/dev` uses it, so a rebuilt SPA shows without a server rebuild).
//!
//! Compression happens once, at build time: `scripts/build-web` writes `NAME.br` and
//! `NAME.gz` beside each compressible file. The SPA route picks one by
//! `Accept-Encoding`; the variants are never served under their own names.

use std::borrow::Cow;
use std::path::PathBuf;

#[derive(rust_embed::Embed)]
#[folder = "../web/dist/"]
#[allow_missing = true]
struct Embedded;

/// A content coding a file may be stored in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Coding {
    Brotli,
    Gzip,
    Identity,
}

impl Coding {
    /// Best first: brotli is smallest for text and WebAssembly.
    pub const PREFERENCE: [Coding; 3] = [Coding::Brotli, Coding::Gzip, Coding::Identity];

    /// The `Content-Encoding` / `Accept-Encoding` token.
    pub fn token(self) -> &'static str {
        match self {
            Coding::Brotli => "br",
            Coding::Gzip => "gzip",
            Coding::Identity => "identity",
        }
    }

    fn suffix(self) -> &'static str {
        match self {
            Coding::Brotli => ".br",
            Coding::Gzip => ".gz",
            Coding::Identity => "",
        }
    }
}

/// One stored file: its bytes in one coding and a validator for that representation.
pub struct File {
    pub bytes: Cow<'static, [u8]>,
    /// Hex SHA-256 of `bytes`: each coding of a file has its own.
    pub etag: String,
}

/// Where the files come from.
#[derive(Debug, Clone)]
pub enum Assets {
    Embedded,
    Dir(PathBuf),
}

impl Assets {
    /// The directory in `STATIC_DIR` when set, else the copy inside the binary.
    pub fn new(static_dir: Option<&str>) -> Assets {
        match static_dir {
            Some(dir) => Assets::Dir(PathBuf::from(dir)),
            None => Assets::Embedded,
        }
    }

    /// For the startup log.
    pub fn describe(&self) -> String {
        match self {
            Assets::Embedded => format!("embedded ({} files)", Embedded::iter().count()),
            Assets::Dir(dir) => format!("directory {}", dir.display()),
        }
    }

    /// The file at `name` (the URL path without its leading `/`) stored in `coding`, or
    /// `None` when there is none or `name` is not a plain asset name.
    pub async fn get(&self, name: &str, coding: Coding) -> Option<File> {
        if !is_asset_name(name) {
            return None;
        }
        let stored = format!("{name}{}", coding.suffix());
        match self {
            Assets::Embedded => {
                let file = Embedded::get(&stored)?;
                Some(File { etag: hex::encode(file.metadata.sha256_hash()), bytes: file.data })
            }
            Assets::Dir(dir) => {
                let path = dir.join(&stored);
                let bytes = actix_web::web::block(move || std::fs::read(path)).await.ok()?.ok()?;
                let etag = hex::encode(ring::digest::digest(&ring::digest::SHA256, &bytes));
                Some(File { bytes: Cow::Owned(bytes), etag })
            }
        }
    }
}

/// A path the SPA may serve: `/`-separated segments of ASCII letters, digits, `.`, `_`
/// and `-`, none empty or starting with `.` (so no `..`, no hidden files), and not a
/// stored compressed variant. Anything else is a 404 without touching the disk.
pub fn is_asset_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 200
        && !name.ends_with(".gz")
        && !name.ends_with(".br")
        && name.split('/').all(|segment| {
            !segment.is_empty()
                && !segment.starts_with('.')
                && segment.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
        })
}

/// Whether the file name carries Trunk's content hash (`web-1a2b3c4d5e6f7a8b.js`,
/// `web-1a2b3c4d5e6f7a8b_bg.wasm`, `style-1a2b3c4d5e6f7a8b.css`): such a name never
/// changes meaning, so it may be cached for ever.
pub fn is_content_hashed(name: &str) -> bool {
    let file = name.rsplit('/').next().unwrap_or(name);
    let stem = file.split('.').next().unwrap_or(file);
    let stem = stem.strip_suffix("_bg").unwrap_or(stem);
    stem.rsplit_once('-').is_some_and(|(base, hash)| {
        !base.is_empty() && (8..=64).contains(&hash.len()) && hash.bytes().all(|b| b.is_ascii_hexdigit())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn asset_names_are_plain_relative_paths() {
        for ok in ["index.html", "web-0123abcd4567ef89.js", "snippets/web-1/inline0.js", "a_b-c.css"] {
            assert!(is_asset_name(ok), "{ok}");
        }
        for bad in
            ["", "../etc/passwd", "a/../b", ".env", "a//b", "/abs", "a%2e%2e", "a\\b", "web.js.br", "web.js.gz", "ä.js"]
        {
            assert!(!is_asset_name(bad), "{bad}");
        }
    }

    #[test]
    fn hashed_names_are_recognised() {
        for hashed in ["web-0123abcd4567ef89.js", "web-0123abcd4567ef89_bg.wasm", "style-9f8e7d6c5b4a3921.css"] {
            assert!(is_content_hashed(hashed), "{hashed}");
        }
        for plain in ["index.html", "favicon.ico", "web.js", "my-app.js", "-0123abcd.js"] {
            assert!(!is_content_hashed(plain), "{plain}");
        }
    }
}
