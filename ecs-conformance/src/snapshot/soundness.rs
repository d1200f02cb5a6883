//! Regressions of snapshot soundness and lost saves, each on every backend and under Miri
//! (CI's `snapshot-soundness` job runs the tests named `soundness_*`):
//!
//! * a run-time component's codec is made through an `unsafe` constructor, and an honest one
//!   round-trips (a codec that could lie from safe code once committed uninitialised memory);
//! * a registry entry whose drop nature differs from the world's run-time component of the
//!   same name and layout is refused by a load and by a save, world unchanged (a plain-data
//!   entry once filled a component whose drop function then read an invalid `bool`);
//! * a named instance called like an unnamed component's type, in either order, saves and
//!   loads back (the loader once refused a state the world builds);
//! * non-finite floats round-trip through JSON (they were written as `null`, which no
//!   float reads back).

use std::alloc::Layout;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::kit::snapshot::Fingerprint;
use ecs_core::snapshot::{DynamicCodec, SnapshotErrorKind, SnapshotRegistry};
use ecs_core::{Component, ComponentDescriptor, ComponentId, Storage, StorageKind, World};
use serde::{Deserialize, Serialize};

/// A `bool` written as one byte by [`bool_codec`].
fn flag(drop: Option<ecs_core::component::DropFn>) -> ComponentDescriptor {
    ComponentDescriptor {
        name: "Flag".into(),
        layout: Layout::new::<bool>(),
        drop,
        storage: StorageKind::Table,
    }
}

/// How many flags [`read_flag_on_drop`] dropped, and how many of them held `true`.
static DROPPED: AtomicUsize = AtomicUsize::new(0);

/// A drop function that reads the value as a `bool` (undefined behaviour on any byte but 0
/// and 1, which Miri reports).
///
/// # Safety
/// `ptr` points to an initialised `bool`.
unsafe fn read_flag_on_drop(ptr: *mut u8) {
    // SAFETY: the caller passes an initialised `bool`.
    let value = unsafe { ptr.cast::<bool>().read() };
    DROPPED.fetch_add(usize::from(value) + 1, Ordering::Relaxed);
}

/// An honest codec for a `bool`: one byte, 0 or 1, anything else refused.
fn bool_codec() -> DynamicCodec {
    /// # Safety
    /// `value` points to an initialised `bool`.
    unsafe fn save(value: NonNull<u8>, out: &mut Vec<u8>) {
        // SAFETY: the caller passes an initialised `bool`.
        out.push(u8::from(unsafe { value.cast::<bool>().read() }));
    }
    /// # Safety
    /// `out` is writable for one `bool`.
    unsafe fn load(bytes: &[u8], out: NonNull<u8>) -> Result<(), String> {
        let value = match bytes {
            [0] => false,
            [1] => true,
            other => return Err(format!("{other:?} is not a bool")),
        };
        // SAFETY: `out` is writable for one `bool` (caller).
        unsafe { out.cast::<bool>().write(value) };
        Ok(())
    }
    // SAFETY: `save` only reads a `bool`; `load` writes a valid `bool` before every `Ok`;
    // every "Flag" component these tests make holds `bool`s.
    unsafe { DynamicCodec::functions(save, load, None) }
}

/// The id of the world's run-time "Flag", registered from `descriptor` if missing.
fn flag_id<S: Storage>(world: &mut World<S>, descriptor: ComponentDescriptor) -> ComponentId {
    let found = world.components().iter().find(|c| c.name() == "Flag");
    match found.map(|info| info.id()) {
        Some(id) => id,
        None => world.register_dynamic(descriptor),
    }
}

/// A run-time component saved and loaded through an honest codec reads back valid values in
/// both formats, and a byte the codec refuses fails the load with the world unchanged.
pub fn soundness_codec_functions_round_trip<S: Storage>() {
    let registry =
        SnapshotRegistry::new().dynamic("Flag", flag(Some(read_flag_on_drop)), bool_codec());
    let mut world = World::<S>::new();
    let id = flag_id(&mut world, flag(Some(read_flag_on_drop)));
    let (yes, no) = (world.spawn(()), world.spawn(()));
    let value = std::mem::ManuallyDrop::new(true);
    // SAFETY: a valid `bool`, handed over and never used again.
    unsafe { world.insert_by_id(yes, id, NonNull::from(&*value).cast()) }.unwrap();
    let value = std::mem::ManuallyDrop::new(false);
    // SAFETY: as above.
    unsafe { world.insert_by_id(no, id, NonNull::from(&*value).cast()) }.unwrap();
    let json = serde_json::to_string(&registry.save(&world)).unwrap();
    let bytes = postcard::to_allocvec(&registry.save(&world)).unwrap();

    let mut copy = World::<S>::new();
    let map = registry
        .load(&mut copy, &mut serde_json::Deserializer::from_str(&json))
        .unwrap();
    let id = flag_id(&mut copy, flag(Some(read_flag_on_drop)));
    let read = |world: &World<S>, e| {
        // SAFETY: "Flag" values are `bool`s, and the world is not mutated while reading.
        world
            .get_by_id(e, id)
            .map(|p| unsafe { p.cast::<bool>().read() })
    };
    assert_eq!(read(&copy, map.get(yes).unwrap()), Some(true));
    assert_eq!(read(&copy, map.get(no).unwrap()), Some(false));
    let mut again = World::<S>::new();
    registry
        .load(&mut again, &mut postcard::Deserializer::from_bytes(&bytes))
        .unwrap();
    let before = DROPPED.load(Ordering::Relaxed);
    drop(again);
    // Two flags dropped (1 + 1), one of them `true` (+1): each drop read a valid `bool`.
    assert!(DROPPED.load(Ordering::Relaxed) >= before + 3);

    // A byte the codec refuses fails the load with the codec's message, world unchanged.
    let bad = json.replacen("[1]", "[2]", 1);
    let mut target = World::<S>::new();
    target.spawn(());
    let fingerprint = Fingerprint::of(&target);
    let err = registry
        .load(&mut target, &mut serde_json::Deserializer::from_str(&bad))
        .unwrap_err();
    assert!(matches!(err.kind(), SnapshotErrorKind::Codec(_)), "{err}");
    assert_eq!(Fingerprint::of(&target), fingerprint);
}

/// A registry entry whose drop function differs from the world's run-time component of that
/// name is refused by a load, world unchanged, and by a save: otherwise a drop function could
/// read bytes that are not a valid value.
pub fn soundness_drop_nature_mismatch_is_refused<S: Storage>() {
    // A snapshot holding the byte 2 under "Flag", saved by a world whose "Flag" is plain data.
    let plain = SnapshotRegistry::new().dynamic("Flag", flag(None), DynamicCodec::plain_bytes());
    let mut source = World::<S>::new();
    let id = flag_id(&mut source, flag(None));
    let e = source.spawn(());
    source.insert_bytes(e, id, &[2]).unwrap();
    let json = serde_json::to_string(&plain.save(&source)).unwrap();
    let bytes = postcard::to_allocvec(&plain.save(&source)).unwrap();

    // The target world's "Flag" reads its value when dropped: the plain entry is not its.
    let mut target = World::<S>::new();
    let flag_in_target = flag_id(&mut target, flag(Some(read_flag_on_drop)));
    let held = target.spawn(());
    let value = std::mem::ManuallyDrop::new(true);
    // SAFETY: a valid `bool`, handed over and never used again.
    unsafe { target.insert_by_id(held, flag_in_target, NonNull::from(&*value).cast()) }.unwrap();
    let fingerprint = Fingerprint::of(&target);
    let refused = |target: &mut World<S>| {
        let from_json = plain
            .load(target, &mut serde_json::Deserializer::from_str(&json))
            .unwrap_err();
        let from_bytes = plain
            .load(target, &mut postcard::Deserializer::from_bytes(&bytes))
            .unwrap_err();
        [from_json, from_bytes]
    };
    for err in refused(&mut target) {
        let want = SnapshotErrorKind::DropMismatch {
            component: "Flag".into(),
            registry_drops: false,
        };
        assert_eq!(err.kind(), &want, "{err}");
        assert_eq!(err.location(), "components[0] (\"Flag\")");
    }
    assert_eq!(
        Fingerprint::of(&target),
        fingerprint,
        "the world is unchanged"
    );
    target.despawn(held).unwrap(); // drops a valid `true`

    // A save through the mismatched entry is an error, not a file missing the component.
    let err = serde_json::to_string(&plain.save(&target)).unwrap_err();
    assert!(err.to_string().contains("drop function"), "{err}");

    // The other way round: an entry with a drop function, a plain-data world component.
    let dropping =
        SnapshotRegistry::new().dynamic("Flag", flag(Some(read_flag_on_drop)), bool_codec());
    let mut plain_world = World::<S>::new();
    let id = flag_id(&mut plain_world, flag(None));
    let kept = plain_world.spawn(());
    plain_world.insert_bytes(kept, id, &[1]).unwrap();
    let fingerprint = Fingerprint::of(&plain_world);
    let good = SnapshotRegistry::new().dynamic("Flag", flag(None), DynamicCodec::plain_bytes());
    let text = serde_json::to_string(&good.save(&plain_world)).unwrap();
    let err = dropping
        .load(
            &mut plain_world,
            &mut serde_json::Deserializer::from_str(&text),
        )
        .unwrap_err();
    assert!(
        matches!(
            err.kind(),
            SnapshotErrorKind::DropMismatch {
                registry_drops: true,
                ..
            }
        ),
        "{err}"
    );
    assert_eq!(Fingerprint::of(&plain_world), fingerprint);
}

#[derive(Component, Serialize, Deserialize, Debug, PartialEq)]
struct Pos(f32);

#[derive(Component, Serialize, Deserialize, Debug, PartialEq)]
struct Stat(u32);

/// A named instance called like an unnamed component's type, added before or after it, saves
/// and loads back in both formats, and the loaded world's save loads back to itself.
pub fn soundness_instance_shadowing_a_type_name_round_trips<S: Storage>() {
    let registry = SnapshotRegistry::new()
        .component::<Pos>("Pos")
        .component::<Stat>("Stat");
    let mut world = World::<S>::new();
    // The instance first, then the unnamed component (each accepted as it comes) ...
    let a = world.spawn(());
    assert_eq!(world.insert_named(a, "Pos", Stat(1)), Ok(None));
    assert_eq!(world.insert(a, Pos(2.0)), Ok(None));
    // ... and the other order.
    let b = world.spawn(Pos(3.0));
    assert_eq!(world.insert_named(b, "Pos", Stat(4)), Ok(None));
    let shadow = world.instance_id::<Stat>("Pos");
    for e in [a, b] {
        assert_eq!(world.find(e, "Pos"), Some(shadow), "the instance answers");
    }
    let json = serde_json::to_string(&registry.save(&world)).unwrap();
    let bytes = postcard::to_allocvec(&registry.save(&world)).unwrap();
    let mut from_json = World::<S>::new();
    let map_json = registry
        .load(
            &mut from_json,
            &mut serde_json::Deserializer::from_str(&json),
        )
        .unwrap();
    let mut from_bytes = World::<S>::new();
    let map_bytes = registry
        .load(
            &mut from_bytes,
            &mut postcard::Deserializer::from_bytes(&bytes),
        )
        .unwrap();
    for (copy, map) in [(&mut from_json, &map_json), (&mut from_bytes, &map_bytes)] {
        let shadow = copy.instance_id::<Stat>("Pos");
        for (e, pos, stat) in [(a, 2.0, 1), (b, 3.0, 4)] {
            let loaded = map.get(e).unwrap();
            assert_eq!(copy.get::<Pos>(loaded), Some(&Pos(pos)));
            assert_eq!(copy.get_named::<Stat>(loaded, "Pos"), Some(&Stat(stat)));
            assert_eq!(copy.find(loaded, "Pos"), Some(shadow));
        }
    }
    assert_eq!(
        serde_json::to_string(&registry.save(&from_json)).unwrap(),
        {
            // The loaded world's save loads back to itself.
            let mut again = World::<S>::new();
            let text = serde_json::to_string(&registry.save(&from_json)).unwrap();
            registry
                .load(&mut again, &mut serde_json::Deserializer::from_str(&text))
                .unwrap();
            serde_json::to_string(&registry.save(&again)).unwrap()
        }
    );
}

#[derive(Component, Serialize, Deserialize, Debug)]
struct Velocity {
    x: f32,
    y: f64,
    history: Vec<f32>,
}

#[derive(Serialize, Deserialize, Debug)]
struct Gravity(Option<f64>);

/// NaN, infinities and negative zero in components and resources round-trip through JSON and
/// the binary format, none written as `null`; a misspelled float string is a format error.
pub fn soundness_non_finite_floats_round_trip_through_json<S: Storage>() {
    let registry = SnapshotRegistry::new()
        .component::<Velocity>("Velocity")
        .resource::<Gravity>("Gravity");
    let mut world = World::<S>::new();
    let e = world.spawn(Velocity {
        x: f32::NAN,
        y: f64::NEG_INFINITY,
        history: vec![f32::INFINITY, -0.0, 1.5],
    });
    world.insert_resource(Gravity(Some(f64::NAN)));
    let json = serde_json::to_string(&registry.save(&world)).unwrap();
    let values = r#""values":[{"x":"NaN","y":"-inf","history":["inf",-0.0,1.5]}]"#;
    assert!(json.contains(values), "no float became null: {json}");
    assert!(
        json.contains(r#"{"name":"Gravity","value":"NaN"}"#),
        "{json}"
    );
    let bytes = postcard::to_allocvec(&registry.save(&world)).unwrap();
    let mut from_json = World::<S>::new();
    let map = registry
        .load(
            &mut from_json,
            &mut serde_json::Deserializer::from_str(&json),
        )
        .unwrap();
    let mut from_bytes = World::<S>::new();
    let map_bytes = registry
        .load(
            &mut from_bytes,
            &mut postcard::Deserializer::from_bytes(&bytes),
        )
        .unwrap();
    for (copy, loaded) in [
        (&from_json, map.get(e).unwrap()),
        (&from_bytes, map_bytes.get(e).unwrap()),
    ] {
        let v = copy.get::<Velocity>(loaded).unwrap();
        assert!(v.x.is_nan());
        assert_eq!(v.y, f64::NEG_INFINITY);
        assert_eq!(v.history[0], f32::INFINITY);
        assert!(v.history[1] == 0.0 && v.history[1].is_sign_negative());
        assert_eq!(v.history[2], 1.5);
        assert!(copy.resource::<Gravity>().unwrap().0.unwrap().is_nan());
    }
    // A string that is not one of the three is still an error, naming where it is.
    let bad = json.replacen(r#""NaN""#, r#""nan""#, 1);
    let mut target = World::<S>::new();
    let err = registry
        .load(&mut target, &mut serde_json::Deserializer::from_str(&bad))
        .unwrap_err();
    assert!(matches!(err.kind(), SnapshotErrorKind::Format(_)), "{err}");
    assert!(err.location().contains("Velocity"), "{err}");
    assert!(target.is_empty());
}
