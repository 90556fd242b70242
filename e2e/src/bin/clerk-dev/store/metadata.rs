//! User metadata updates with the merge Clerk documents for
//! `PATCH /v1/users/{id}/metadata`: a deep merge, where nested objects merge key by key,
//! any other value (arrays included) replaces what was there, and `null` deletes the key
//! at whatever depth it appears.

use serde_json::Value;

use crate::model::{Metadata, User};

/// The three metadata objects of a user, each optional; absent ones stay as they are.
#[derive(Debug, Default)]
pub struct MetadataPatch {
    pub public: Option<Metadata>,
    pub private: Option<Metadata>,
    pub unsafe_: Option<Metadata>,
}

impl MetadataPatch {
    /// Merges every given object into the user's metadata of the same kind.
    pub fn apply(self, user: &mut User) {
        for (patch, target) in [
            (self.public, &mut user.public_metadata),
            (self.private, &mut user.private_metadata),
            (self.unsafe_, &mut user.unsafe_metadata),
        ] {
            if let Some(patch) = patch {
                merge(target, patch);
            }
        }
    }
}

/// Deep-merges `patch` into `target`. Recursion is bounded by serde_json's nesting limit
/// on the parsed body.
pub fn merge(target: &mut Metadata, patch: Metadata) {
    for (key, value) in patch {
        match value {
            Value::Null => {
                target.remove(&key);
            }
            Value::Object(inner) => match target.get_mut(&key) {
                Some(Value::Object(existing)) => merge(existing, inner),
                _ => {
                    // A new object: its own nulls delete nothing, so they are dropped.
                    let mut fresh = Metadata::new();
                    merge(&mut fresh, inner);
                    target.insert(key, Value::Object(fresh));
                }
            },
            other => {
                target.insert(key, other);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn object(value: Value) -> Metadata {
        match value {
            Value::Object(map) => map,
            _ => unreachable!("test input is an object"),
        }
    }

    #[test]
    fn nested_objects_merge_and_nulls_delete_at_any_depth() {
        let mut target = object(json!({"a": {"b": 1, "c": {"d": 2, "e": 3}}, "keep": [1, 2], "gone": true}));
        merge(
            &mut target,
            object(json!({"a": {"c": {"d": null, "f": 4}}, "keep": [3], "gone": null, "new": {"x": null, "y": 1}})),
        );
        assert_eq!(Value::Object(target), json!({"a": {"b": 1, "c": {"e": 3, "f": 4}}, "keep": [3], "new": {"y": 1}}));
    }

    #[test]
    fn a_scalar_replaces_an_object_and_an_object_replaces_a_scalar() {
        let mut target = object(json!({"a": {"b": 1}, "s": "text"}));
        merge(&mut target, object(json!({"a": 5, "s": {"t": 1}})));
        assert_eq!(Value::Object(target), json!({"a": 5, "s": {"t": 1}}));
    }
}
