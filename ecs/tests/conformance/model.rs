//! The seeded model test: random operations checked against a plain `HashMap` model.

use std::collections::HashMap;

use ecs_core::{EcsError, Entity, Storage, With, Without, World};

use crate::components::{size, Tag, A, B, D};
use crate::rng::Rng;

/// What the model believes one entity holds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Expected {
    a: Option<A>,
    b: Option<B>,
    tag: bool,
    d: Option<D>,
}

struct Harness<S: Storage> {
    world: World<S>,
    model: HashMap<Entity, Expected>,
    /// Every handle ever handed out (alive or not), to pick targets from.
    handles: Vec<Entity>,
    rng: Rng,
}

pub fn random_operations_match_hashmap_model<S: Storage>() {
    for seed in [1, 0xEC5] {
        let ops = size(100_000, 600);
        let mut h = Harness::<S> {
            world: World::new(),
            model: HashMap::new(),
            handles: Vec::new(),
            rng: Rng::new(seed),
        };
        for op in 0..ops {
            h.step(op == ops / 2);
            if op % size(10_000, 150) == 0 {
                h.compare_whole_world();
            }
        }
        h.compare_whole_world();
        assert_eq!(h.world.is_empty(), h.model.is_empty());
    }
}

impl<S: Storage> Harness<S> {
    fn step(&mut self, clear_now: bool) {
        if clear_now {
            self.world.clear();
            self.model.clear();
            return;
        }
        match self.rng.below(100) {
            0..=14 => self.spawn_one(),
            15..=17 => self.spawn_batch(),
            18..=27 => self.despawn(),
            28..=47 => self.insert(),
            48..=62 => self.remove(),
            63..=85 => self.check_one(),
            86..=97 => self.mutate(),
            _ => self.check_query(),
        }
    }

    fn pick(&mut self) -> Option<Entity> {
        if self.handles.is_empty() {
            return None;
        }
        // Prefer live entities, but keep probing stale handles too.
        let i = self.rng.below(self.handles.len());
        Some(self.handles[i])
    }

    fn random_expected(&mut self) -> Expected {
        let n = self.rng.next_u64();
        Expected {
            a: (n & 1 != 0).then_some(A(n as u32 >> 8)),
            b: (n & 2 != 0).then(|| B(format!("b{}", n % 1000))),
            tag: n & 4 != 0,
            d: (n & 8 != 0).then_some(D([n as u8, (n >> 8) as u8, 7])),
        }
    }

    fn spawn_one(&mut self) {
        let e = self.random_expected();
        let entity = match (&e.a, &e.b, e.tag, &e.d) {
            (None, None, false, None) => self.world.spawn(()),
            (Some(a), None, false, None) => self.world.spawn((*a,)),
            (Some(a), Some(b), false, None) => self.world.spawn((*a, b.clone())),
            (None, Some(b), true, None) => self.world.spawn((b.clone(), Tag)),
            (Some(a), Some(b), true, Some(d)) => self.world.spawn((*a, b.clone(), Tag, *d)),
            (a, b, tag, d) => {
                // Other shapes: spawn empty, then insert one by one (walks the layouts).
                let entity = self.world.spawn(());
                let w = &mut self.world;
                a.map(|v| w.insert(entity, v).unwrap());
                b.clone().map(|v| w.insert(entity, v).unwrap());
                tag.then(|| w.insert(entity, Tag).unwrap());
                d.map(|v| w.insert(entity, v).unwrap());
                entity
            }
        };
        assert!(
            !self.model.contains_key(&entity),
            "fresh handle {entity:?} aliases a live one"
        );
        self.model.insert(entity, e);
        self.handles.push(entity);
    }

    fn spawn_batch(&mut self) {
        let n = self.rng.below(8) + 1;
        let base = self.rng.next_u64() as u32;
        let spawned = self
            .world
            .spawn_batch((0..n as u32).map(|i| (A(base.wrapping_add(i)), D([i as u8; 3]))));
        assert_eq!(spawned.len(), n);
        for (i, entity) in spawned.into_iter().enumerate() {
            let e = Expected {
                a: Some(A(base.wrapping_add(i as u32))),
                d: Some(D([i as u8; 3])),
                ..Expected::default()
            };
            assert!(self.model.insert(entity, e).is_none());
            self.handles.push(entity);
        }
    }

    fn despawn(&mut self) {
        let Some(entity) = self.pick() else { return };
        let result = self.world.despawn(entity);
        match self.model.remove(&entity) {
            Some(_) => assert_eq!(result, Ok(())),
            None => assert_eq!(result, Err(EcsError::NoSuchEntity(entity))),
        }
    }

    fn insert(&mut self) {
        let Some(entity) = self.pick() else { return };
        let value = self.random_expected();
        let alive = self.model.contains_key(&entity);
        let which = self.rng.below(4);
        let expected = self.model.get_mut(&entity);
        match which {
            0 => {
                let v = A(self.rng.next_u64() as u32);
                let r = self.world.insert(entity, v);
                match expected {
                    Some(e) => assert_eq!(r, Ok(e.a.replace(v))),
                    None => assert_eq!(r, Err(EcsError::NoSuchEntity(entity))),
                }
            }
            1 => {
                let v = value.b.unwrap_or(B(String::from("bb")));
                let r = self.world.insert(entity, v.clone());
                match expected {
                    Some(e) => assert_eq!(r, Ok(e.b.replace(v))),
                    None => assert!(r.is_err()),
                }
            }
            2 => {
                let r = self.world.insert(entity, Tag);
                match expected {
                    Some(e) => {
                        assert_eq!(r, Ok(std::mem::replace(&mut e.tag, true).then_some(Tag)))
                    }
                    None => assert!(r.is_err()),
                }
            }
            _ => {
                let v = D([which as u8, 1, 2]);
                let r = self.world.insert(entity, v);
                match expected {
                    Some(e) => assert_eq!(r, Ok(e.d.replace(v))),
                    None => assert!(r.is_err()),
                }
            }
        }
        assert_eq!(self.world.contains(entity), alive);
    }

    fn remove(&mut self) {
        let Some(entity) = self.pick() else { return };
        let which = self.rng.below(4);
        let expected = self.model.get_mut(&entity);
        let Some(e) = expected else {
            assert_eq!(
                self.world.remove::<A>(entity),
                Err(EcsError::NoSuchEntity(entity))
            );
            return;
        };
        match which {
            0 => assert_eq!(self.world.remove::<A>(entity).ok(), e.a.take()),
            1 => assert_eq!(self.world.remove::<B>(entity).ok(), e.b.take()),
            2 => assert_eq!(
                self.world.remove::<Tag>(entity).is_ok(),
                std::mem::take(&mut e.tag)
            ),
            _ => assert_eq!(self.world.remove::<D>(entity).ok(), e.d.take()),
        }
    }

    fn check_one(&mut self) {
        let Some(entity) = self.pick() else { return };
        let e = self.model.get(&entity).cloned();
        assert_eq!(self.world.contains(entity), e.is_some());
        let e = e.unwrap_or_default();
        assert_eq!(self.world.get::<A>(entity), e.a.as_ref());
        assert_eq!(self.world.get::<B>(entity), e.b.as_ref());
        assert_eq!(self.world.has::<Tag>(entity), e.tag);
        assert_eq!(self.world.get::<D>(entity), e.d.as_ref());
    }

    fn mutate(&mut self) {
        let Some(entity) = self.pick() else { return };
        let got = self.world.get_mut::<A>(entity).map(|a| {
            a.0 = a.0.wrapping_mul(3).wrapping_add(1);
            *a
        });
        let expected = self
            .model
            .get_mut(&entity)
            .and_then(|e| e.a.as_mut())
            .map(|a| {
                a.0 = a.0.wrapping_mul(3).wrapping_add(1);
                *a
            });
        assert_eq!(got, expected);
    }

    fn check_query(&mut self) {
        match self.rng.below(4) {
            0 => {
                let mut got: Vec<(Entity, u32)> = self
                    .world
                    .query::<(Entity, &A)>()
                    .map(|(e, a)| (e, a.0))
                    .collect();
                let mut want: Vec<(Entity, u32)> = self
                    .model
                    .iter()
                    .filter_map(|(e, x)| x.a.map(|a| (*e, a.0)))
                    .collect();
                got.sort_unstable();
                want.sort_unstable();
                assert_eq!(got, want);
            }
            1 => {
                let got: u64 = self
                    .world
                    .query_filtered::<&A, (With<B>, Without<Tag>)>()
                    .map(|a| a.0 as u64)
                    .sum();
                let want: u64 = self
                    .model
                    .values()
                    .filter(|x| x.b.is_some() && !x.tag)
                    .filter_map(|x| x.a.map(|a| a.0 as u64))
                    .sum();
                assert_eq!(got, want);
            }
            2 => {
                let mut got: Vec<(Entity, Option<B>, D)> = self
                    .world
                    .query::<(Entity, Option<&B>, &D)>()
                    .map(|(e, b, d)| (e, b.cloned(), *d))
                    .collect();
                let mut want: Vec<(Entity, Option<B>, D)> = self
                    .model
                    .iter()
                    .filter_map(|(e, x)| x.d.map(|d| (*e, x.b.clone(), d)))
                    .collect();
                got.sort_unstable_by_key(|x| x.0);
                want.sort_unstable_by_key(|x| x.0);
                assert_eq!(got, want);
            }
            _ => {
                self.world
                    .query_filtered::<&mut A, With<D>>()
                    .for_each(|a| a.0 = a.0.wrapping_add(5));
                for x in self.model.values_mut().filter(|x| x.d.is_some()) {
                    if let Some(a) = x.a.as_mut() {
                        a.0 = a.0.wrapping_add(5);
                    }
                }
            }
        }
    }

    fn compare_whole_world(&mut self) {
        assert_eq!(self.world.len(), self.model.len());
        let mut seen = HashMap::new();
        for (entity, a, b, tag, d) in
            self.world
                .query::<(Entity, Option<&A>, Option<&B>, Option<&Tag>, Option<&D>)>()
        {
            let got = Expected {
                a: a.copied(),
                b: b.cloned(),
                tag: tag.is_some(),
                d: d.copied(),
            };
            assert!(
                seen.insert(entity, got).is_none(),
                "{entity:?} yielded twice"
            );
        }
        assert_eq!(seen, self.model);
        for entity in &self.handles {
            assert_eq!(
                self.world.contains(*entity),
                self.model.contains_key(entity)
            );
        }
    }
}
