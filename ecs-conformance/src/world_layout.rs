//! `World::layout` on every backend: its bytes are `memory_usage()`, and its units hold
//! exactly the entities the world says hold each component.

use ecs_core::layout::WorldLayout;
use ecs_core::{Component, Entity, Storage, StorageKind, World};

use crate::components::{size, A, B};

#[derive(Clone, Copy, Debug, PartialEq)]
struct Sp(u64);
impl Component for Sp {
    type Mutability = ecs_core::Mutable;
    const STORAGE: StorageKind = StorageKind::Sparse;
}

#[derive(Clone, Copy, Debug, PartialEq)]
struct Sp2(u16);
impl Component for Sp2 {
    type Mutability = ecs_core::Mutable;
    const STORAGE: StorageKind = StorageKind::Sparse;
}

#[derive(Clone, Copy, Debug, PartialEq)]
struct Hp(u32);
impl Component for Hp {
    type Mutability = ecs_core::Tracked;
}

/// Rows of the units holding `T`, summed.
fn rows_of<T: Component, S: Storage>(world: &World<S>, layout: &WorldLayout) -> usize {
    let Some(id) = world.component_id::<T>() else {
        return 0;
    };
    layout
        .storage
        .units
        .iter()
        .filter(|u| u.components.iter().any(|c| c.id == id))
        .map(|u| u.rows)
        .sum()
}

fn check<S: Storage>(world: &mut World<S>, when: &str) {
    // Count first: a query's first run registers its types and creates change logs.
    macro_rules! held {
        ($($t:ty),*) => { [$(world.query::<&$t>().count()),*] };
    }
    let held = held!(A, B, Sp, Sp2, Hp);
    let layout = world.layout();
    assert_eq!(layout.bytes(), world.memory_usage(), "{when}: bytes");
    assert_eq!(layout.backend, S::NAME);
    assert_eq!(layout.entities.live, world.len(), "{when}: live entities");
    let rows = [
        rows_of::<A, S>(world, &layout),
        rows_of::<B, S>(world, &layout),
        rows_of::<Sp, S>(world, &layout),
        rows_of::<Sp2, S>(world, &layout),
        rows_of::<Hp, S>(world, &layout),
    ];
    assert_eq!(rows, held, "{when}: rows of A, B, Sp, Sp2, Hp");
    for unit in &layout.storage.units {
        assert!(unit.capacity >= unit.rows, "{when}: {unit:?}");
        let values: usize = unit.components.iter().map(|c| c.bytes).sum();
        assert!(values <= unit.bytes, "{when}: {unit:?}");
    }
    let per_type: usize = layout.component_bytes().iter().map(|c| c.bytes).sum();
    let in_units: usize = layout
        .storage
        .units
        .iter()
        .map(|u| u.bytes - u.overhead())
        .sum();
    assert_eq!(per_type, in_units, "{when}: per-type totals");
    if world.component_id::<Hp>().is_some() {
        assert!(
            layout
                .change_logs
                .iter()
                .any(|l| l.component.name.ends_with("Hp")),
            "{when}: Hp's change logs are listed"
        );
    }
    let text = layout.to_string();
    assert!(text.starts_with(&layout.summary()), "{when}: {text}");
    assert!(text.ends_with("(= memory_usage)"), "{when}: {text}");
}

/// `World::layout` totals `memory_usage()` in bytes and its units hold exactly the entities the
/// queries find for each component, after spawns, churn and `clear`: the layout is what users
/// read to see where their memory goes.
pub fn layout_agrees_with_memory_and_counts<S: Storage>() {
    let mut world = World::<S>::new();
    check(&mut world, "empty");
    let grouped = world.group::<(Sp, Sp2)>().is_ok();
    let n = size(3_000, 60);
    let entities: Vec<Entity> = (0..n as u32)
        .map(|i| match i % 5 {
            0 => world.spawn((A(i),)),
            1 => world.spawn((A(i), B(i.to_string()))),
            2 => world.spawn((A(i), Sp(i.into()), Hp(i))),
            3 => world.spawn((Sp(i.into()), Sp2(i as u16))),
            _ => world.spawn(()),
        })
        .collect();
    check(&mut world, "spawned");
    for (i, &e) in entities.iter().enumerate() {
        if i % 3 == 0 {
            world.insert(e, Sp(7)).expect("live");
        }
        if i % 4 == 0 {
            world.insert(e, Sp2(1)).expect("live");
        }
        if i % 6 == 0 {
            let _ = world.remove::<A>(e);
        }
        if i % 7 == 0 {
            world.despawn(e).expect("live");
        }
    }
    check(&mut world, "churned");
    let layout = world.layout();
    if grouped {
        let both = world.query::<(&Sp, &Sp2)>().count();
        assert_eq!(layout.storage.groups.len(), 1);
        assert_eq!(layout.storage.groups[0].len, both);
    } else {
        assert!(layout.storage.groups.is_empty());
    }
    world.clear();
    check(&mut world, "cleared");
}

/// `QueryState::walk` counts what the backend hands a query: every match is among the
/// walked rows, and when no slot is looked up the walked rows are exactly the matches.
pub fn query_walks_cover_the_matches<S: Storage>() {
    let mut world = World::<S>::new();
    let n = size(2_000, 50) as u32;
    for i in 0..n {
        let e = world.spawn((A(i),));
        if i % 2 == 0 {
            world.insert(e, Sp(i.into())).expect("live");
        }
        if i % 3 == 0 {
            world.insert(e, B(String::new())).expect("live");
        }
    }
    let mut joined = world.query_state::<(&A, &Sp), ()>().expect("no aliasing");
    let mut alone = world.query_state::<&A, ()>().expect("no aliasing");
    for (walk, matches) in [
        (joined.walk(&world), joined.iter(&world).count()),
        (alone.walk(&world), alone.iter(&world).count()),
    ] {
        assert!(walk.rows >= matches, "{walk}");
        if walk.slots.iter().all(|s| s.looked_up == 0) {
            assert_eq!(walk.rows, matches, "{walk}");
        }
        for slot in &walk.slots {
            assert_eq!(slot.dense + slot.looked_up + slot.absent, walk.chunks);
            assert_eq!(slot.absent, 0, "a required slot is never absent: {walk}");
        }
    }
    assert_eq!(alone.walk(&world).rows, n as usize);
}

/// Named instances are told apart in the layout: `Front (Sp)` and `Rear (Sp)`, not the
/// type's name cut at its last path separator (`Sp)`), in the units, the change logs and
/// the printed table.
pub fn named_instances_print_by_name<S: Storage>() {
    let mut world = World::<S>::new();
    let e = world.spawn(A(1));
    world.insert_named(e, "Front", Sp(1)).unwrap();
    world.insert_named(e, "Rear", Sp(2)).unwrap();
    world.insert_named(e, "Shield", Hp(3)).unwrap();
    let layout = world.layout();
    let mut names: Vec<String> = layout
        .storage
        .units
        .iter()
        .flat_map(|u| u.components.iter().map(|c| c.name.clone()))
        .collect();
    names.sort();
    names.dedup();
    assert_eq!(names, ["A", "Front (Sp)", "Rear (Sp)", "Shield (Hp)"]);
    let logs: Vec<&str> = layout
        .change_logs
        .iter()
        .map(|l| l.component.name.as_str())
        .collect();
    assert!(
        logs.iter().all(|&l| l == "Shield (Hp)" || l == "Hp"),
        "{logs:?}"
    );
    let printed = layout.to_string();
    assert!(
        printed.contains("Front (Sp)") && printed.contains("Rear (Sp)"),
        "{printed}"
    );
}
