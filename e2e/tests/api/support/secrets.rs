//! Where a one-time code may and may not be: its digest is stored, the code itself and
//! its bytes never are.

use super::TestApp;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The SHA-256 of a code's 32 decoded bytes, in hex (what `token_sha256` must hold).
pub fn sha256_hex(code: &str) -> String {
    let bytes = URL_SAFE_NO_PAD.decode(code).expect("a code is unpadded base64url");
    assert_eq!(bytes.len(), 32);
    hex(ring::digest::digest(&ring::digest::SHA256, &bytes).as_ref())
}

/// Every row of every table of the app's database, as JSON text.
pub async fn database_text(app: &TestApp) -> String {
    let tables: Vec<String> =
        app.column("SELECT tablename::text FROM pg_tables WHERE schemaname = 'public'", &[]).await;
    assert!(tables.len() >= 14, "every table is dumped");
    let mut out = String::new();
    for name in tables {
        for row in app.column::<String>(&format!("SELECT row_to_json(t)::text FROM \"{name}\" t"), &[]).await {
            out.push_str(&row);
            out.push('\n');
        }
    }
    out
}

/// Asserts that `code` appears nowhere in the database, neither as text nor as raw bytes.
pub async fn assert_not_stored(app: &TestApp, code: &str) {
    let dump = database_text(app).await;
    assert!(!dump.contains(code), "the code is in a database column");
    let bytes = URL_SAFE_NO_PAD.decode(code).unwrap();
    assert!(!dump.contains(&hex(&bytes)), "the code's bytes are in a database column");
}
