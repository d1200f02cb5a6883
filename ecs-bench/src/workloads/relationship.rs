//! Seed 000's RelationshipAddWriteDelete (`relationship`) and a traversal workload beside it
//! (`relationship_traversal`), on every backend and, with the `peers` feature, on bevy_ecs's
//! `ChildOf`/`Children` hierarchy.
//!
//! `relationship`: 10 roots with (Position, Rotation), 10 children each with Velocity, 20
//! grandchildren each with Health; every component written once; the roots despawned
//! recursively; repeated on one world. The seed's best revision kept a vector of children in
//! every parent's relationship component (105,074 allocations); here the children are linked
//! through their own components, so a repetition allocates nothing once the world has grown.
//! On the last repetition each root's descendants are hashed in depth-first order before the
//! despawn, so the checksum sees the trees' shape and order, not only their values.
//!
//! `relationship_traversal`: 100 entities under each root (even roots a chain of 99, odd
//! roots 9 children of 10 children each), every descendant visited depth-first and its `Data`
//! hashed in visiting order. Only the walk is timed.

use ecs_core::{Entity, Storage, World};

use super::{info, sizes, Builtin, InfoExt};
use crate::components::{mix, Data, Health, Position, Rotation, Velocity};
use crate::workload::{prepared, DynWorkload, Prepared, Workload, WorkloadInfo};

const SOURCE: &str = "seed 000, revision new_1, Ryzen 5 2600X, mean of 50 (Tracy)";

/// Roots per repetition of `relationship`.
pub const ROOTS: usize = 10;
/// Children per root.
pub const CHILDREN: usize = 10;
/// Grandchildren per child.
pub const GRANDCHILDREN: usize = 20;
/// Entities under each root of `relationship_traversal` (the root included).
pub const TREE: usize = 100;

/// The relationship workloads.
pub fn workloads() -> Vec<Box<dyn DynWorkload>> {
    vec![
        Box::new(Relationship(
            info(
                Builtin::Relationship,
                "10 roots × 10 children × 20 grandchildren, write all, despawn the roots \
                 recursively; repeated on one world",
                sizes(500, 50, 2),
                "reps of 2,110 entities",
            )
            .anchor("961.27 ms, 364.52 KB, 105,074 allocs", SOURCE),
        )),
        Box::new(Traversal(
            info(
                Builtin::RelationshipTraversal,
                "visit every descendant of each root depth-first (100 entities per root, \
                 chains and wide trees), hashing each one's Data in order",
                sizes(100, 100, 4),
                "roots of 100 entities",
            )
            .repeatable()
            .note("not a seed workload: added beside relationship to time traversal"),
        )),
    ]
}

/// One ECS with a parent/child hierarchy as the relationship bodies drive it: our
/// `World<S>` here and, with the `peers` feature, bevy_ecs.
pub(crate) trait HierarchyWorld: 'static {
    /// The ECS's entity handle.
    type Entity: Copy + 'static;
    /// An empty world.
    fn new_world() -> Self;
    /// Spawns one repetition's tree under a new root: the root with (Position, Rotation)
    /// of `i`, [`CHILDREN`] children with Velocity `j`, each with [`GRANDCHILDREN`]
    /// children with Health `k`, in that order.
    fn spawn_tree(&mut self, i: usize) -> Self::Entity;
    /// Adds 1 to every Position, Rotation, Velocity and Health; returns how many it wrote.
    fn write_all(&mut self) -> u64;
    /// The order-dependent hash of `root`'s descendants, depth-first (see
    /// [`descendant_hash`]).
    fn descendants_hash(&mut self, root: Self::Entity) -> u64;
    /// Despawns `root` and its descendants.
    fn despawn_recursive(&mut self, root: Self::Entity);
    /// Live entities.
    fn live(&mut self) -> u64;
}

/// Folds one descendant into an order-dependent hash: a Velocity or a Health (every
/// descendant in `relationship` has exactly one of the two).
pub(crate) fn descendant_hash(h: u64, v: Option<&Velocity>, hp: Option<&Health>) -> u64 {
    let item = match (v, hp) {
        (Some(v), _) => u64::from(v.0[2].to_bits()),
        (None, Some(hp)) => u64::from(hp.0) << 32,
        (None, None) => u64::MAX,
    };
    mix(h ^ item)
}

/// The `relationship` body on any [`HierarchyWorld`]; its checksum.
pub(crate) fn relationship<W: HierarchyWorld>(reps: usize) -> Box<dyn Prepared> {
    prepared(
        0u64,
        move |out: &mut u64| {
            let mut world = W::new_world();
            let mut roots = [None; ROOTS];
            let mut events = 0u64;
            for rep in 0..reps {
                for (i, root) in roots.iter_mut().enumerate() {
                    *root = Some(world.spawn_tree(i));
                }
                events = events.wrapping_add(world.write_all());
                for root in roots.iter().flatten() {
                    if rep + 1 == reps {
                        events = mix(events ^ world.descendants_hash(*root));
                    }
                    world.despawn_recursive(*root);
                }
            }
            *out = mix(events ^ mix(world.live()));
            drop(world);
        },
        |out| *out,
    )
}

impl<S: Storage> HierarchyWorld for World<S> {
    type Entity = Entity;

    fn new_world() -> Self {
        World::new()
    }

    fn spawn_tree(&mut self, i: usize) -> Entity {
        let x = i as f32;
        let root = self.spawn((Position([x, 0.0, 0.0]), Rotation([0.0, x, 0.0])));
        for j in 0..CHILDREN {
            let child = self
                .spawn_child(root, Velocity([0.0, 0.0, j as f32]))
                .expect("live parent");
            for k in 0..GRANDCHILDREN {
                self.spawn_child(child, Health(k as u32))
                    .expect("live parent");
            }
        }
        root
    }

    fn write_all(&mut self) -> u64 {
        let mut writes = 0u64;
        self.query::<&mut Position>().for_each(|c| {
            c.0[0] += 1.0;
            writes += 1;
        });
        self.query::<&mut Rotation>().for_each(|c| {
            c.0[1] += 1.0;
            writes += 1;
        });
        self.query::<&mut Velocity>().for_each(|c| {
            c.0[2] += 1.0;
            writes += 1;
        });
        self.query::<&mut Health>().for_each(|c| {
            c.0 += 1;
            writes += 1;
        });
        writes
    }

    fn descendants_hash(&mut self, root: Entity) -> u64 {
        let world = &*self;
        world
            .descendants(root)
            .expect("live root")
            .fold(0, |h, e| descendant_hash(h, world.get(e), world.get(e)))
    }

    fn despawn_recursive(&mut self, root: Entity) {
        World::despawn_recursive(self, root).expect("live root");
    }

    fn live(&mut self) -> u64 {
        self.len() as u64
    }
}

/// The shape of `relationship_traversal`'s tree under root `r`: each entity's parent index
/// within the tree (entity 0 is the root), in spawn order. Even roots are a chain, odd roots
/// 9 children of 10 children each.
pub(crate) fn traversal_parent(r: usize, k: usize) -> usize {
    debug_assert!((1..TREE).contains(&k));
    if r % 2 == 0 {
        k - 1
    } else {
        // 1..=9 are the root's children; each child c (1..=9) then gets 10, spawned as a
        // block after the children: 10 + (c - 1) * 10 ..
        if k <= 9 {
            0
        } else {
            1 + (k - 10) / 10
        }
    }
}

/// The `Data` of entity `k` of the tree under root `r`.
pub(crate) fn traversal_data(r: usize, k: usize) -> Data {
    Data((r * TREE + k) as f32)
}

/// Folds one visited descendant's `Data` into a root's order-dependent hash.
#[inline]
pub(crate) fn traversal_step(h: u64, data: &Data) -> u64 {
    mix(h ^ u64::from(data.0.to_bits()))
}

/// The checksum of one traversal pass from its per-root hashes.
pub(crate) fn traversal_checksum(roots: usize, sum: u64) -> u64 {
    mix(sum ^ mix(roots as u64))
}

/// `relationship` (the seed's RelationshipAddWriteDelete).
pub struct Relationship(WorkloadInfo);

impl Workload for Relationship {
    fn info(&self) -> &WorkloadInfo {
        &self.0
    }

    fn prepare<S: Storage>(&self, reps: usize) -> Box<dyn Prepared> {
        relationship::<World<S>>(reps)
    }
}

/// `relationship_traversal`.
pub struct Traversal(WorkloadInfo);

impl Workload for Traversal {
    fn info(&self) -> &WorkloadInfo {
        &self.0
    }

    fn prepare<S: Storage>(&self, roots: usize) -> Box<dyn Prepared> {
        let mut world = World::<S>::new();
        let mut tree = Vec::with_capacity(TREE);
        let roots: Vec<Entity> = (0..roots)
            .map(|r| {
                tree.clear();
                tree.push(world.spawn(traversal_data(r, 0)));
                for k in 1..TREE {
                    let parent = tree[traversal_parent(r, k)];
                    let e = world.spawn_child(parent, traversal_data(r, k));
                    tree.push(e.expect("live parent"));
                }
                tree[0]
            })
            .collect();
        prepared(
            (world, roots, 0u64),
            |(world, roots, sum)| {
                let mut total = 0u64;
                for &root in roots.iter() {
                    let walk = world.descendants(root).expect("live root");
                    let h = walk.fold(0, |h, e| {
                        traversal_step(h, world.get::<Data>(e).expect("has Data"))
                    });
                    total = total.wrapping_add(h);
                }
                *sum = total;
            },
            |(_, roots, sum)| traversal_checksum(roots.len(), *sum),
        )
    }
}
