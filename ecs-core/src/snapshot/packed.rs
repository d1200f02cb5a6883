//! The entity list of a binary snapshot: one byte string holding, per handle, its index as
//! the difference from the previous handle's index (wrapping, modulo 2^32) and then its
//! generation, both as LEB128 varints. A world's handles mostly come in index order with
//! generation 1, so most take 2 bytes; the list is encoded and decoded in one tight loop
//! each, instead of one format call per handle.

use super::map::{Handles, HandlesBuilder};
use crate::entity::Entity;

/// Appends the packed form of `entities` to `out`.
pub(super) fn pack(entities: &[Entity], out: &mut Vec<u8>) {
    out.reserve(entities.len() * 2);
    let mut previous = 0u32;
    for entity in entities {
        varint(out, entity.index().wrapping_sub(previous));
        varint(out, entity.generation());
        previous = entity.index();
    }
}

fn varint(out: &mut Vec<u8>, mut value: u32) {
    while value >= 0x80 {
        out.push(value as u8 | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// The handles packed in `bytes`; on bad input, the index of the handle that could not be
/// read and why. Each handle takes at least 2 bytes, so the list's size is bounded by the
/// input's.
pub(super) fn unpack(bytes: &[u8]) -> Result<Handles, (usize, &'static str)> {
    let mut entities = HandlesBuilder::new(bytes.len() / 2);
    let mut at = 0usize;
    let mut previous = 0u32;
    while at < bytes.len() {
        let i = entities.len();
        if i == u32::MAX as usize - 1 {
            return Err((i, "more than 2^32 - 2 entities"));
        }
        let delta = read(bytes, &mut at).ok_or((i, "a truncated or overlong index"))?;
        let generation = read(bytes, &mut at).ok_or((i, "a truncated or overlong generation"))?;
        let index = previous.wrapping_add(delta);
        let entity = Entity::new(index, generation).ok_or((i, "a handle with generation 0"))?;
        entities.push(entity);
        previous = index;
        // The common case: a run of handles in index order with a small generation, each
        // the two bytes `[1, generation]`: counted in one pass, then added at once.
        if let Some(first) = entities.run_of(generation).filter(|_| generation < 0x80) {
            // Stay within the index space and the entity count the loop checks above.
            let len = entities.len();
            // (The next index is `first + len`, which may be at most `u32::MAX`.)
            let room = (u32::MAX as usize + 1)
                .saturating_sub(first.index() as usize + len)
                .min((u32::MAX as usize - 2).saturating_sub(len));
            let pair = [1, generation as u8];
            let more = bytes[at..]
                .chunks_exact(2)
                .take(room)
                .take_while(|&bytes| bytes == pair)
                .count();
            entities.extend_run(more);
            at += 2 * more;
            previous = previous.wrapping_add(more as u32);
        }
    }
    Ok(entities.finish())
}

/// One varint of at most 5 bytes fitting a `u32`, from `bytes[*at..]`.
#[inline]
fn read(bytes: &[u8], at: &mut usize) -> Option<u32> {
    let mut value = 0u32;
    for shift in (0..35).step_by(7) {
        let byte = *bytes.get(*at)?;
        *at += 1;
        let bits = u32::from(byte & 0x7F);
        if shift == 28 && bits > 0x0F {
            return None;
        }
        value |= bits << shift;
        if byte & 0x80 == 0 {
            return Some(value);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(index: u32, generation: u32) -> Entity {
        Entity::new(index, generation).unwrap()
    }

    #[test]
    fn round_trip_any_order_and_generation() {
        let list = [
            e(0, 1),
            e(1, 1),
            e(7, 3),
            e(2, 1),
            e(u32::MAX - 1, u32::MAX),
            e(5, 200),
        ];
        let mut bytes = Vec::new();
        pack(&list, &mut bytes);
        assert_eq!(unpack(&bytes).unwrap(), Handles::List(list.to_vec()));
        let mut run = Vec::new();
        pack(&(0..1000).map(|i| e(i, 1)).collect::<Vec<_>>(), &mut run);
        assert_eq!(run.len(), 2000, "two bytes per handle in order");
        assert_eq!(
            unpack(&run).unwrap(),
            Handles::Run {
                first: e(0, 1),
                len: 1000
            }
        );
        // Runs broken and resumed, generations that need two bytes, a run at the index end.
        let mixed: Vec<Entity> = (0..5)
            .map(|i| e(i, 1))
            .chain((9..12).map(|i| e(i, 1)))
            .chain((12..14).map(|i| e(i, 300)))
            .chain([e(u32::MAX - 1, 2), e(u32::MAX, 2), e(0, 2)])
            .collect();
        let mut bytes = Vec::new();
        pack(&mixed, &mut bytes);
        assert_eq!(unpack(&bytes).unwrap(), Handles::List(mixed));
    }

    #[test]
    fn bad_bytes_name_the_handle() {
        assert_eq!(
            unpack(&[1, 1, 1]),
            Err((1, "a truncated or overlong generation"))
        );
        assert_eq!(unpack(&[1, 0]), Err((0, "a handle with generation 0")));
        assert_eq!(
            unpack(&[0xFF, 0xFF, 0xFF, 0xFF, 0x1F, 1]),
            Err((0, "a truncated or overlong index"))
        );
        assert_eq!(
            unpack(&[0x80, 0x80, 0x80, 0x80, 0x80, 0, 1]).unwrap_err().0,
            0
        );
        assert_eq!(unpack(&[]).unwrap().len(), 0);
        // A run that starts at the last index cannot grow (found by the mutation fuzzer).
        let last = [0xFF, 0xFF, 0xFF, 0xFF, 0x0F, 1, 1, 1];
        assert_eq!(
            unpack(&last).unwrap(),
            Handles::List(vec![e(u32::MAX, 1), e(0, 1)])
        );
    }
}
