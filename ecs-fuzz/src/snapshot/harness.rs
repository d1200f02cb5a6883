//! One fuzz input through a snapshot loader, with everything a load promises checked.
//!
//! The input's first byte picks the format (bit 0: JSON or postcard), the backend of the
//! target world (bits 1-2) and, with bit 3, a target world whose run-time `Raw` component
//! drops its values (the registry's `Raw` is plain data: a mismatch every load must refuse);
//! the rest is the snapshot. The target world is not empty (the load merges into it). A load
//! that fails must leave the world exactly as it was ([`Fingerprint`]); one that succeeds
//! must have added exactly the listed entities, and the loaded part must survive another
//! save and load unchanged (with the mismatched `Raw`, a load succeeds only for a snapshot
//! without `Raw` values, and a save must fail instead). Any panic is a failure too (the
//! caller catches it: libFuzzer, or [`super::mutate`]'s runner).

use ecs_archetype::ArchetypeStorage;
use ecs_core::testing::VecStorage;
use ecs_core::{Storage, World};
use ecs_hybrid::HybridStorage;
use ecs_sparse::SparseStorage;

use ecs_core::ComponentDescriptor;

use super::kit::{apply, build, dump, raw_descriptor, registry, target_steps, Fingerprint, Step};

/// The format byte for JSON (bit 0 clear) or postcard, on backend `backend` (0..4).
pub fn selector(json: bool, backend: u8) -> u8 {
    (backend << 1) | u8::from(!json)
}

/// The selector bit that makes the target world's `Raw` drop its values.
pub const MISMATCHED_RAW: u8 = 1 << 3;

/// A drop function for the mismatched `Raw`: reads the four bytes (any are valid), so a
/// value the loader wrongly let in is at least read where Miri or a sanitizer looks.
///
/// # Safety
/// `ptr` points to an initialised `[u8; 4]`.
unsafe fn drop_raw(ptr: *mut u8) {
    // SAFETY: the caller passes an initialised `[u8; 4]`.
    let bytes = unsafe { ptr.cast::<[u8; 4]>().read() };
    std::hint::black_box(bytes);
}

/// The target world, with `Raw` registered as plain data (the registry's) or, when
/// `mismatched`, with a drop function (then the steps' `Raw` values are left out: a world
/// refuses plain bytes for a component that drops).
fn target<S: Storage>(mismatched: bool) -> World<S> {
    if !mismatched {
        return build(&target_steps());
    }
    let mut world = World::<S>::new();
    world.register_dynamic(ComponentDescriptor {
        drop: Some(drop_raw),
        ..raw_descriptor()
    });
    let steps: Vec<Step> = target_steps()
        .into_iter()
        .map(|step| match step {
            Step::Spawn {
                pos,
                tag,
                label,
                fx,
                secret,
                ..
            } => Step::Spawn {
                pos,
                tag,
                label,
                fx,
                raw: None,
                secret,
            },
            other => other,
        })
        .collect();
    apply(&mut world, &steps);
    world
}

/// Checks one input (see the module docs): `Ok(true)` when it loaded, `Ok(false)` when it
/// was refused as it should be, `Err` saying which promise broke.
pub fn check_input(data: &[u8]) -> Result<bool, String> {
    let Some((&selector, body)) = data.split_first() else {
        return Ok(false);
    };
    let json = selector & 1 == 0;
    let mismatched = selector & MISMATCHED_RAW != 0;
    match (selector >> 1) & 3 {
        0 => check_on::<VecStorage>(json, mismatched, body),
        1 => check_on::<SparseStorage>(json, mismatched, body),
        2 => check_on::<ArchetypeStorage>(json, mismatched, body),
        _ => check_on::<HybridStorage>(json, mismatched, body),
    }
}

/// Loads `body` into the target world on `S` and checks the outcome.
fn check_on<S: Storage>(json: bool, mismatched: bool, body: &[u8]) -> Result<bool, String> {
    let mut world: World<S> = target(mismatched);
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
    if mismatched {
        let raw = world
            .components()
            .iter()
            .find(|c| c.type_id().is_none() && c.name() == "Raw")
            .map(|c| c.id());
        if let Some(id) = raw {
            if map.loaded().any(|e| world.get_by_id(e, id).is_some()) {
                return Err("plain bytes were loaded into a Raw that drops its values".into());
            }
        }
        // JSON keeps a save error's message (postcard drops custom messages).
        return match serde_json::to_vec(&registry.save(&world)) {
            Err(e) if e.to_string().contains("drop function") => Ok(true),
            Err(e) => Err(format!(
                "a save through the mismatched Raw failed oddly: {e}"
            )),
            Ok(_) => Err("a save through the mismatched Raw succeeded".into()),
        };
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
