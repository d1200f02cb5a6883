//! One fuzz input through a snapshot loader, with everything a load promises checked.
//!
//! The input's first byte picks the format (bit 0: JSON or postcard) and the backend of the
//! target world (bits 1-2); the rest is the snapshot. The target world is not empty (the
//! load merges into it). A load that fails must leave the world exactly as it was
//! ([`Fingerprint`]); one that succeeds must have added exactly the listed entities, and the
//! loaded part must survive another save and load unchanged. Any panic is a failure too
//! (the caller catches it: libFuzzer, or [`super::mutate`]'s runner).

use ecs_archetype::ArchetypeStorage;
use ecs_core::testing::VecStorage;
use ecs_core::{Storage, World};
use ecs_hybrid::HybridStorage;
use ecs_sparse::SparseStorage;

use super::kit::{build, dump, registry, Fingerprint, Step};

/// The world every input is loaded into: a few entities with links, instances and a
/// resource, so a merge meets a non-empty world.
pub fn target_steps() -> Vec<Step> {
    vec![
        Step::Spawn {
            pos: Some((1, 2)),
            tag: true,
            label: Some(1),
            fx: None,
            raw: None,
            secret: true,
        },
        Step::Spawn {
            pos: None,
            tag: false,
            label: None,
            fx: Some(3),
            raw: Some([1, 2, 3, 4]),
            secret: false,
        },
        Step::Named {
            entity: 0,
            name: 0,
            value: 9,
        },
        Step::Parent {
            child: 1,
            parent: 0,
        },
        Step::Target {
            entity: 1,
            primary: 0,
            others: vec![1],
            backup: None,
        },
        Step::Link { entity: 0, to: 1 },
        Step::Score(5),
    ]
}

/// The format byte for JSON (bit 0 clear) or postcard, on backend `backend` (0..4).
pub fn selector(json: bool, backend: u8) -> u8 {
    (backend << 1) | u8::from(!json)
}

/// Checks one input (see the module docs): `Ok(true)` when it loaded, `Ok(false)` when it
/// was refused as it should be, `Err` saying which promise broke.
pub fn check_input(data: &[u8]) -> Result<bool, String> {
    let Some((&selector, body)) = data.split_first() else {
        return Ok(false);
    };
    let json = selector & 1 == 0;
    match (selector >> 1) & 3 {
        0 => check_on::<VecStorage>(json, body),
        1 => check_on::<SparseStorage>(json, body),
        2 => check_on::<ArchetypeStorage>(json, body),
        _ => check_on::<HybridStorage>(json, body),
    }
}

/// Loads `body` into the target world on `S` and checks the outcome.
fn check_on<S: Storage>(json: bool, body: &[u8]) -> Result<bool, String> {
    let mut world: World<S> = build(&target_steps());
    let before = Fingerprint::of(&world);
    let registry = registry();
    let result = if json {
        registry.load(&mut world, &mut serde_json::Deserializer::from_slice(body))
    } else {
        registry.load(&mut world, &mut postcard::Deserializer::from_bytes(body))
    };
    let map = match result {
        Err(err) => {
            if err.to_string().is_empty() {
                return Err("an error without a message".into());
            }
            return if Fingerprint::of(&world) == before {
                Ok(false)
            } else {
                Err(format!("a failed load changed the world ({err})"))
            };
        }
        Ok(map) => map,
    };
    let added = world.len() - before.len();
    if added != map.len() || map.loaded().any(|e| !world.contains(e)) {
        return Err(format!("{} entities listed, {added} added", map.len()));
    }
    let again = postcard::to_allocvec(&registry.save(&world)).map_err(|e| format!("save: {e}"))?;
    let mut copy = World::<S>::new();
    let copy_map = registry
        .load(&mut copy, &mut postcard::Deserializer::from_bytes(&again))
        .map_err(|e| format!("reloading a loaded world: {e}"))?;
    let whole = dump(&world, world.entities().alive(), true);
    if dump(&copy, &copy_map.loaded().collect::<Vec<_>>(), true) != whole {
        return Err("a loaded world did not survive another save and load".into());
    }
    Ok(true)
}
