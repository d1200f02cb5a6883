//! [`Entity`] as serde data: `"3v1"` (index `v` generation, as `Debug` prints it) in
//! human-readable formats, the packed `u64` ([`Entity::to_bits`]) in binary ones.
//!
//! A saved handle means nothing in another world: a component that holds handles is
//! registered with [`SnapshotRegistry::component_with_entities`](super::SnapshotRegistry::component_with_entities)
//! so a load rewrites them ([`MapEntities`](super::MapEntities)).

use std::fmt;

use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::entity::Entity;

impl Serialize for Entity {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if serializer.is_human_readable() {
            serializer.collect_str(self)
        } else {
            serializer.serialize_u64(self.to_bits())
        }
    }
}

impl<'de> Deserialize<'de> for Entity {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Entity, D::Error> {
        if deserializer.is_human_readable() {
            deserializer.deserialize_any(EntityVisitor)
        } else {
            deserializer.deserialize_u64(EntityVisitor)
        }
    }
}

/// Reads `"IvG"` or the packed bits.
struct EntityVisitor;

impl Visitor<'_> for EntityVisitor {
    type Value = Entity;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an entity handle (\"<index>v<generation>\" or its packed u64)")
    }

    fn visit_u64<E: de::Error>(self, bits: u64) -> Result<Entity, E> {
        Entity::from_bits(bits).ok_or_else(|| E::custom(format!("{bits} has generation 0")))
    }

    fn visit_i64<E: de::Error>(self, bits: i64) -> Result<Entity, E> {
        let bits = u64::try_from(bits).map_err(|_| E::custom("a negative entity handle"))?;
        self.visit_u64(bits)
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<Entity, E> {
        parse(text).ok_or_else(|| E::custom(format!("{text:?} is not an entity handle")))
    }
}

/// `"IvG"` with `G > 0`.
fn parse(text: &str) -> Option<Entity> {
    let (index, generation) = text.split_once('v')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(index) || !digits(generation) {
        return None;
    }
    Entity::new(index.parse().ok()?, generation.parse().ok()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_in_json_and_bits_in_postcard() {
        let e = Entity::new(3, 7).unwrap();
        assert_eq!(serde_json::to_string(&e).unwrap(), "\"3v7\"");
        assert_eq!(serde_json::from_str::<Entity>("\"3v7\"").unwrap(), e);
        assert_eq!(
            serde_json::from_str::<Entity>(&e.to_bits().to_string()).unwrap(),
            e
        );
        let bytes = postcard::to_allocvec(&e).unwrap();
        assert_eq!(postcard::from_bytes::<Entity>(&bytes).unwrap(), e);
    }

    #[test]
    fn malformed_handles_are_errors() {
        for bad in [
            "\"3v0\"", "\"v1\"", "\"3v\"", "\"3x1\"", "\"-3v1\"", "\"3v1v\"", "0", "-1",
        ] {
            assert!(serde_json::from_str::<Entity>(bad).is_err(), "{bad}");
        }
        assert!(
            postcard::from_bytes::<Entity>(&[5]).is_err(),
            "generation 0"
        );
        assert!(postcard::from_bytes::<Entity>(&[]).is_err(), "truncated");
    }
}
