//! The lottery's arithmetic, shared by the server, `vestibule verify` and `vestibule
//! verify-draw` so that a record recomputes offline, without Vestibule's database. A
//! ticket is SHA-256(program id ‖ entry id) (16 + 16 bytes): it names no one.
//!
//! Two kinds of draw: [`beacon`] (format 3, issue 29), the only kind opened today, whose
//! randomness is a future drand round fixed at the opening; and [`seeded`] (formats 1 and
//! 2, issue 16), whose records — downloaded before the upgrade, or of draws opened before
//! it — verify exactly as they did.

pub mod beacon;
pub mod seeded;

use ring::digest;
use shared::draws::{AnyDrawRecord, BeaconDrawRecord, BEACON_DRAW_FORMAT};
use shared::trust::DrawRecord;
use uuid::Uuid;

pub type Hash = [u8; 32];

fn sha256(parts: &[&[u8]]) -> Hash {
    let mut ctx = digest::Context::new(&digest::SHA256);
    parts.iter().for_each(|p| ctx.update(p));
    ctx.finish().as_ref().try_into().expect("SHA-256 is 32 bytes")
}

pub fn ticket(program_id: Uuid, entry_id: Uuid) -> Hash {
    sha256(&[&program_id.as_bytes()[..], &entry_id.as_bytes()[..]])
}

fn parse(hex_text: &str) -> Option<Hash> {
    hex::decode(hex_text).ok()?.try_into().ok()
}

/// Recomputes a record of any format; returns what does not hold (empty: it verifies).
pub fn verify(record: &AnyDrawRecord) -> Vec<String> {
    match record {
        AnyDrawRecord::Beacon(r) => beacon::verify(r),
        AnyDrawRecord::Seeded(r) => seeded::verify(r),
    }
}

/// Reads a record file: its `format` says which shape the rest must have.
pub fn parse_record(text: &str) -> Result<AnyDrawRecord, String> {
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    let format = value.get("format").and_then(|f| f.as_str()).unwrap_or_default().to_owned();
    if format == BEACON_DRAW_FORMAT {
        let record: BeaconDrawRecord =
            serde_json::from_value(value).map_err(|e| format!("not a {format} record: {e}"))?;
        Ok(AnyDrawRecord::Beacon(Box::new(record)))
    } else {
        let record: DrawRecord = serde_json::from_value(value).map_err(|e| format!("not a draw record: {e}"))?;
        Ok(AnyDrawRecord::Seeded(Box::new(record)))
    }
}
