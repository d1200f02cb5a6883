//! What is about the facade itself: its derives (code naming `::ecs::ecs_core`, so a program
//! depending only on `ecs` compiles them), its prelude, and the backend its features pick.
//! Every behaviour of the world is the conformance suite's, which each backend's crate runs.

use ecs::prelude::*;

/// Tracks changes; the facade's derive.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
#[component(track_changes)]
struct Hp(u32);

/// Asks for a sparse set.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
#[component(storage = "sparse")]
struct Poison(u32);

/// Never borrowed mutably.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
#[component(immutable)]
struct Seed(u64);

#[derive(Bundle, Clone, Debug, PartialEq, Eq)]
struct Body {
    hp: Hp,
    poison: Poison,
}

/// Tuple fields and a nested bundle, the facade's derive.
#[derive(Bundle, Clone, Debug, PartialEq, Eq)]
struct Unit(Seed, #[bundle] Body);

#[test]
fn facade_derives_and_prelude_work_on_the_selected_backend() {
    use ecs::ecs_core::component::tracks_changes;
    const { assert!(tracks_changes::<Hp>() && !tracks_changes::<Poison>()) };
    assert_eq!(Poison::STORAGE, StorageKind::Sparse);
    let mut world = World::new();
    let e = world.spawn(Unit(
        Seed(7),
        Body {
            hp: Hp(3),
            poison: Poison(1),
        },
    ));
    let mut hurt = world.query_state::<Entity, Changed<Hp>>().unwrap();
    assert_eq!(hurt.iter(&world).count(), 1, "the first run sees the spawn");
    world.get_mut::<Hp>(e).unwrap().0 -= 1; // a `Mut<Hp>`: recorded
    assert_eq!(hurt.iter(&world).collect::<Vec<_>>(), [e]);
    assert_eq!(world.insert(e, Seed(8)), Ok(Some(Seed(7)))); // replaced whole
    let taken: Unit = world.take(e).unwrap();
    assert_eq!(
        taken,
        Unit(
            Seed(8),
            Body {
                hp: Hp(2),
                poison: Poison(1)
            }
        )
    );
    assert!(["archetype", "sparse", "hybrid"].contains(&BACKEND));
}
