//! The SPA as the server serves it (issue 17 item 1, issue 12 item 14): the copy built
//! into the server from `web/dist`, its cache headers, the brotli and gzip variants chosen
//! by `Accept-Encoding`, revalidation, `HEAD`, and the `STATIC_DIR` override.

use crate::support::{Reply, TestApp};
use reqwest::Method;
use std::path::PathBuf;

fn dist() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../web/dist")
}

/// The built files whose names end with `suffix` (`.wasm`, `.js`), as the public shell links them.
fn built(suffix: &str) -> String {
    let index = std::fs::read_to_string(dist().join("index.html")).expect("web/dist is built (scripts/build-web)");
    std::fs::read_dir(dist())
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .find(|name| name.ends_with(suffix) && index.contains(name.split('_').next().unwrap()))
        .unwrap_or_else(|| panic!("no {suffix} in web/dist"))
}

async fn get(app: &TestApp, method: Method, path: &str, accept_encoding: Option<&str>) -> (Reply, Vec<u8>) {
    let mut rb = app.http.request(method, app.url(path));
    if let Some(ae) = accept_encoding {
        rb = rb.header("accept-encoding", ae);
    }
    let r = rb.send().await.expect("request sent");
    let status = r.status();
    let headers = r.headers().clone();
    let bytes = r.bytes().await.unwrap().to_vec();
    (Reply { status, headers, text: String::from_utf8_lossy(&bytes).into_owned() }, bytes)
}

/// Every client route and the shell of the bundle that holds its page (web/Cargo.toml).
const ROUTES: &[(&str, &str)] = &[
    ("/", "index.html"),
    ("/waitlist/some-program", "index.html"),
    ("/waitlist/some-program/draws", "index.html"),
    ("/early-access/some-program", "console.html"),
    ("/me", "index.html"),
    ("/redeem", "index.html"),
    ("/sign-in", "index.html"),
    ("/owner", "console.html"),
    ("/owner/programs/123/queue", "console.html"),
    ("/owner/programs/123/entries/456", "console.html"),
    ("/owner/programs/123", "console.html"),
    ("/owner/programs/123/notice", "console.html"),
    ("/owner/programs/123/audit", "console.html"),
    ("/owner/programs/123/draws", "console.html"),
    ("/owner/workspaces/123/owners", "console.html"),
    ("/owner/workspaces/123/integrations", "console.html"),
    ("/owner/programs/123/content", "console.html"),
];

#[tokio::test]
async fn the_shell_answers_every_client_route_from_the_copy_built_into_the_server() {
    let app = TestApp::spawn().await;
    for &(path, shell) in ROUTES {
        let on_disk = std::fs::read(dist().join(shell)).unwrap();
        let (r, body) = get(&app, Method::GET, path, None).await;
        r.assert(200);
        assert_eq!(body, on_disk, "{path} is not the built {shell}");
        assert_eq!(r.header("cache-control"), Some("no-cache"), "{path}");
        assert_eq!(r.header("content-type"), Some("text/html; charset=utf-8"));
        assert!(r.header("etag").is_some_and(|e| e.starts_with('"')), "{path} has no strong ETag");
    }
}

#[tokio::test]
async fn hashed_assets_are_immutable_and_each_coding_is_chosen_by_accept_encoding() {
    let app = TestApp::spawn().await;
    let wasm = built(".wasm");
    let path = format!("/{wasm}");
    let raw = std::fs::read(dist().join(&wasm)).unwrap();
    let cases = [
        (None, None, raw.clone()),
        (Some("gzip, deflate, br"), Some("br"), std::fs::read(dist().join(format!("{wasm}.br"))).unwrap()),
        (Some("gzip"), Some("gzip"), std::fs::read(dist().join(format!("{wasm}.gz"))).unwrap()),
        (Some("br;q=0, gzip;q=0.5"), Some("gzip"), std::fs::read(dist().join(format!("{wasm}.gz"))).unwrap()),
        (Some("identity"), None, raw.clone()),
    ];
    let mut etags = Vec::new();
    for (accept, encoding, expected) in cases {
        let (r, body) = get(&app, Method::GET, &path, accept).await;
        r.assert(200);
        assert_eq!(r.header("content-encoding"), encoding, "Accept-Encoding: {accept:?}");
        assert!(body == expected, "Accept-Encoding {accept:?}: not the stored {encoding:?} variant");
        assert_eq!(r.header("cache-control"), Some("public, max-age=31536000, immutable"));
        assert_eq!(r.header("vary"), Some("Accept-Encoding"));
        assert_eq!(r.header("content-type"), Some("application/wasm"));
        etags.push((encoding, r.header("etag").unwrap().to_owned()));
    }
    // Each coding is its own representation with its own validator.
    let (none, br, gz) = (&etags[0].1, &etags[1].1, &etags[2].1);
    assert!(none != br && br != gz && none != gz, "{etags:?}");
    assert!(raw.len() > 4 * std::fs::read(dist().join(format!("{wasm}.br"))).unwrap().len() / 3);
}

#[tokio::test]
async fn a_known_etag_is_answered_304_without_the_body() {
    let app = TestApp::spawn().await;
    let js = format!("/{}", built(".js"));
    for path in ["/", js.as_str()] {
        let (first, _) = get(&app, Method::GET, path, Some("br")).await;
        let etag = first.header("etag").unwrap().to_owned();
        let r = app.http.get(app.url(path)).header("accept-encoding", "br").header("if-none-match", &etag);
        let r = Reply::from(r.send().await.unwrap()).await;
        r.assert(304);
        assert!(r.text.is_empty());
        assert_eq!(r.header("etag"), Some(etag.as_str()));
        // Another coding is another representation: its body comes back.
        let r = app.http.get(app.url(path)).header("accept-encoding", "gzip").header("if-none-match", &etag);
        Reply::from(r.send().await.unwrap()).await.assert(200);
    }
}

#[tokio::test]
async fn head_answers_like_get_without_a_body() {
    let app = TestApp::spawn().await;
    let js = format!("/{}", built(".js"));
    for path in ["/waitlist/some-program", "/", js.as_str()] {
        let (got, body) = get(&app, Method::GET, path, Some("gzip")).await;
        let (head, head_body) = get(&app, Method::HEAD, path, Some("gzip")).await;
        head.assert(200);
        assert!(head_body.is_empty(), "HEAD {path} sent a body");
        for name in ["content-type", "content-encoding", "cache-control", "etag", "vary"] {
            assert_eq!(head.header(name), got.header(name), "HEAD {path}: {name}");
        }
        assert_eq!(head.header("content-length"), Some(body.len().to_string().as_str()), "HEAD {path}");
    }
    let (r, _) = get(&app, Method::HEAD, "/no-such-file.js", None).await;
    r.assert(404);
}

#[tokio::test]
async fn unknown_files_stored_variants_and_odd_paths_are_plain_404s() {
    let app = TestApp::spawn().await;
    let wasm = built(".wasm");
    for path in [
        "/no-such-file.js".to_owned(),
        format!("/{wasm}.br"),
        format!("/{wasm}.gz"),
        "/%2e%2e/Cargo.toml".to_owned(),
        "/.env".to_owned(),
        "/waitlist/a/b".to_owned(),
    ] {
        let (r, body) = get(&app, Method::GET, &path, Some("br, gzip")).await;
        r.assert(404);
        assert!(!String::from_utf8_lossy(&body).contains("<html"), "{path} answered the shell");
    }
    // Only GET and HEAD reach the SPA.
    let r = app.http.post(app.url("/waitlist/some-program")).send().await.unwrap();
    assert!(r.status().is_client_error(), "{}", r.status());
}

#[tokio::test]
async fn static_dir_overrides_the_built_in_copy() {
    let dir = std::env::temp_dir().join(format!("vestibule-static-{}", uuid::Uuid::new_v4().simple()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("index.html"), "<!doctype html><title>from STATIC_DIR</title>").unwrap();
    std::fs::write(dir.join("app-0123456789abcdef.js"), "console.log(1)").unwrap();
    std::fs::write(dir.join("app-0123456789abcdef.js.gz"), b"not really gzip").unwrap();
    let app = TestApp::spawn_with(|s| s.static_dir = Some(dir.to_string_lossy().into_owned())).await;
    let (r, _) = get(&app, Method::GET, "/owner", None).await;
    r.assert(200);
    assert!(r.text.contains("from STATIC_DIR"));
    let (r, body) = get(&app, Method::GET, "/app-0123456789abcdef.js", Some("gzip")).await;
    r.assert(200);
    assert_eq!(r.header("content-encoding"), Some("gzip"));
    assert_eq!(body, b"not really gzip");
    let (r, _) = get(&app, Method::GET, &format!("/{}", built(".wasm")), None).await;
    r.assert(404);
    let _ = std::fs::remove_dir_all(dir);
}

/// Issue 27 item 2: the form's page is written for the program — its title and description
/// in the head (title, meta description, Open Graph, Twitter), a first paint of the heading
/// and pitch, and the program's public answer as a data block — all escaped; the embed takes
/// the host page's theme; an unknown program gets the plain shell.
#[tokio::test]
async fn the_form_page_is_written_for_the_program() {
    use crate::support::owner::changes;
    use shared::api::PatchProgramRequest;
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let program = owner.open_program(ws, "lumen").await;
    let title = "Lumen <beta> & \"friends\"";
    let pitch = "</script><script>alert(1)</script> Try it first.";
    let patch = PatchProgramRequest { title: Some(title.into()), description: Some(pitch.into()), ..changes() };
    owner.patch_program(program, patch).await;

    let (r, _) = get(&app, Method::GET, "/waitlist/lumen", Some("gzip, br")).await;
    r.assert(200);
    assert_eq!(r.header("content-type"), Some("text/html; charset=utf-8"));
    assert_eq!(r.header("cache-control"), Some("no-cache"));
    let page = &r.text;
    let escaped_title = "Lumen &lt;beta&gt; &amp; &quot;friends&quot;";
    for expected in [
        format!("<title>{escaped_title}</title>"),
        format!("<meta property=\"og:title\" content=\"{escaped_title}\">"),
        format!("<meta name=\"twitter:title\" content=\"{escaped_title}\">"),
        "<meta name=\"description\" content=\"&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt; Try it first.\">"
            .to_owned(),
        "<meta name=\"twitter:card\" content=\"summary\">".to_owned(),
        format!("<main id=\"first-paint\" class=\"wrap\" aria-busy=\"true\"><h1>{escaped_title}</h1><p class=\"lead pitch\">&lt;/script&gt;"),
        "<script type=\"application/json\" id=\"vestibule-program\">".to_owned(),
    ] {
        assert!(page.contains(&expected), "missing {expected}:\n{page}");
    }
    // One closing tag per script element: nothing in the data block ends it early.
    assert_eq!(page.matches("</script>").count(), page.matches("<script").count(), "{page}");
    assert!(!page.contains("<script>alert"), "{page}");
    let csp = r.header("content-security-policy").unwrap();
    assert!(csp.contains("script-src 'self' 'wasm-unsafe-eval'") && !csp.contains("unsafe-inline"), "{csp}");

    let embed = app.get("/embed/waitlist/lumen?theme=dark&hideTitle=1", None).await;
    embed.assert(200);
    assert!(embed.text.contains("data-theme=\"dark\""), "{}", embed.text);
    assert!(embed.text.contains(&format!("<h1 class=\"sr-only\">{escaped_title}</h1>")), "{}", embed.text);

    // Unknown (or unpublished) programs: the plain shell, byte for byte.
    let shell = std::fs::read(dist().join("index.html")).unwrap();
    let (r, body) = get(&app, Method::GET, "/waitlist/nobody-here", None).await;
    r.assert(200);
    assert_eq!(body, shell);
}
