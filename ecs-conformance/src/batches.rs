//! Batch spawns whatever the iterator promises, and values of every copy width survive row
//! moves: the fast paths (`Storage::spawn_batch`, inline item copies) against the reference.

use std::panic::{catch_unwind, AssertUnwindSafe};

use ecs_core::{Component, Storage, World};

use super::components::{size, Ledger, Tracked, A, B};

/// `spawn_batch` stores every bundle whatever lower bound the iterator's size hint gives, beside
/// single spawns into the same table, and an empty batch spawns nothing: the hint is advice for
/// reserving room, never a count.
pub fn spawn_batch_with_any_size_hint<S: Storage>() {
    let mut world = World::<S>::new();
    // `filter` reports a lower bound of 0: room is found row by row.
    let odd = world
        .spawn_batch(
            (0..300u32)
                .filter(|i| i % 2 == 1)
                .map(|i| (A(i), B(i.to_string()))),
        )
        .to_vec();
    assert_eq!(odd.len(), 150);
    let single = world.spawn((A(7), B("single".into())));
    // An exact hint, into the same table after a single spawn.
    let more = world
        .spawn_batch((0..100u32).map(|i| (A(1000 + i), B(format!("m{i}")))))
        .to_vec();
    // An empty batch spawns nothing.
    assert!(world.spawn_batch(std::iter::empty::<(A, B)>()).is_empty());
    for (k, &e) in odd.iter().enumerate() {
        let i = 2 * k as u32 + 1;
        assert_eq!(world.get::<A>(e), Some(&A(i)));
        assert_eq!(
            world.get::<B>(e).map(|b| b.0.as_str()),
            Some(i.to_string().as_str())
        );
    }
    for (i, &e) in more.iter().enumerate() {
        assert_eq!(world.get::<A>(e), Some(&A(1000 + i as u32)));
    }
    assert_eq!(world.get::<B>(single).map(|b| b.0.as_str()), Some("single"));
    assert_eq!(world.len(), 251);
    assert_eq!(world.query::<(&A, &B)>().count(), 251);
}

/// An iterator that panics partway through `spawn_batch` leaves the bundles it already yielded
/// spawned and reachable by handle, each dropped once later: a panic must not leak or half-store
/// entities.
pub fn panicking_batch_iterator_keeps_what_it_spawned<S: Storage>() {
    let ledger = Ledger::new();
    let mut world = World::<S>::new();
    let result = catch_unwind(AssertUnwindSafe(|| {
        world.spawn_batch((0..10u32).map(|i| {
            assert!(i != 6, "iterator failed (intentional)");
            (A(i), ledger.make())
        }));
    }));
    assert!(result.is_err());
    assert_eq!(world.len(), 6, "the six yielded bundles were spawned");
    let mut seen: Vec<(u32, ecs_core::Entity)> = world
        .query::<(ecs_core::Entity, &A, &Tracked)>()
        .map(|(e, a, _)| (a.0, e))
        .collect();
    seen.sort_unstable();
    assert_eq!(
        seen.iter().map(|&(a, _)| a).collect::<Vec<_>>(),
        (0..6).collect::<Vec<_>>()
    );
    // Each spawned entity is found by handle too (its location was recorded on unwind).
    for &(a, e) in &seen {
        assert_eq!(world.get::<A>(e), Some(&A(a)));
    }
    assert_eq!(ledger.dropped(), 0);
    assert!(world.despawn(seen[2].1).is_ok());
    assert_eq!(ledger.dropped(), 1);
    drop(world);
    ledger.assert_all_dropped();
}

#[derive(Clone, Copy, Debug, PartialEq)]
struct W12([u32; 3]);
impl Component for W12 {
    type Mutability = ecs_core::Mutable;
}
#[derive(Clone, Copy, Debug, PartialEq)]
struct W24([u64; 3]);
impl Component for W24 {
    type Mutability = ecs_core::Mutable;
}
#[derive(Clone, Copy, Debug, PartialEq)]
struct W32([u64; 4]);
impl Component for W32 {
    type Mutability = ecs_core::Mutable;
}
#[derive(Clone, Copy, Debug, PartialEq)]
struct W40([u64; 5]);
impl Component for W40 {
    type Mutability = ecs_core::Mutable;
}

/// Values of 4, 12, 24, 32 and 40 bytes, moved between tables, swap-removed and despawned.
pub fn every_copy_width_survives_moves<S: Storage>() {
    let mut world = World::<S>::new();
    let n = size(200, 30) as u32;
    let w12 = |i: u32| W12([i, i + 1, i + 2]);
    let w24 = |i: u32| W24([u64::from(i) << 40, 3, u64::from(i)]);
    let w32 = |i: u32| W32([u64::from(i); 4]);
    let w40 = |i: u32| W40([u64::from(i) * 7; 5]);
    let es: Vec<_> = (0..n)
        .map(|i| world.spawn((A(i), w12(i), w24(i))))
        .collect();
    for (i, &e) in es.iter().enumerate().filter(|(i, _)| i % 2 == 0) {
        let i = i as u32;
        world.insert(e, w32(i)).unwrap();
        world.insert(e, w40(i)).unwrap();
    }
    for (i, &e) in es.iter().enumerate().filter(|(i, _)| i % 3 == 0) {
        assert_eq!(world.remove::<W24>(e), Ok(w24(i as u32)));
    }
    for (i, &e) in es.iter().enumerate().filter(|(i, _)| i % 5 == 4) {
        assert_eq!(
            world.insert(e, A(i as u32 + 1)),
            Ok(Some(A(i as u32))),
            "replaced in place"
        );
        world.despawn(e).unwrap();
    }
    for (i, &e) in es.iter().enumerate() {
        let i32 = i as u32;
        if i % 5 == 4 {
            assert!(!world.contains(e));
            continue;
        }
        assert_eq!(world.get::<A>(e), Some(&A(i32)));
        assert_eq!(world.get::<W12>(e), Some(&w12(i32)));
        assert_eq!(world.get::<W24>(e).copied(), (i % 3 != 0).then(|| w24(i32)));
        assert_eq!(world.get::<W32>(e).copied(), (i % 2 == 0).then(|| w32(i32)));
        assert_eq!(world.get::<W40>(e).copied(), (i % 2 == 0).then(|| w40(i32)));
    }
}

/// An iterator whose `size_hint` panics after its first call, and one whose hint lies both
/// ways: the world reads the hint once, before spawning anything, so neither can interrupt
/// a spawn midway (an entity allocated but not stored) or make it spawn the wrong count.
pub fn spawn_batch_reads_the_size_hint_once<S: Storage>() {
    struct Hint<I> {
        inner: I,
        calls: std::cell::Cell<u32>,
        lower: usize,
    }
    impl<I: Iterator> Iterator for Hint<I> {
        type Item = I::Item;
        fn next(&mut self) -> Option<I::Item> {
            self.inner.next()
        }
        fn size_hint(&self) -> (usize, Option<usize>) {
            let calls = self.calls.get() + 1;
            self.calls.set(calls);
            assert!(calls == 1, "size_hint called twice (intentional panic)");
            (self.lower, Some(self.lower))
        }
    }
    for (count, lower) in [(10u32, 10usize), (3, 1000), (100, 0), (0, 5)] {
        let mut world = World::<S>::new();
        let hint = Hint {
            inner: (0..count).map(|i| (A(i), B(i.to_string()))),
            calls: std::cell::Cell::new(0),
            lower,
        };
        let spawned = world.spawn_batch(hint).len();
        assert_eq!(spawned, count as usize);
        assert_eq!(world.len(), count as usize);
        let mut values: Vec<u32> = world.query::<(&A, &B)>().map(|(a, _)| a.0).collect();
        values.sort_unstable();
        assert_eq!(values, (0..count).collect::<Vec<_>>());
    }
}
