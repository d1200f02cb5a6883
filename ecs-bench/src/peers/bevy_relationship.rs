//! bevy_ecs on `relationship` and `relationship_traversal`, through its `ChildOf` /
//! `Children` hierarchy and its fastest documented paths: trees spawned with
//! `with_children` (the helper its docs recommend for many children), writes through
//! `QueryState`s made once, `World::despawn` (recursive over `Children` since 0.16), and
//! traversal with `Query::iter_descendants_depth_first` plus a `Query::get` per descendant,
//! both from `QueryState`s made once.

use bevy_ecs::entity::Entity;
use bevy_ecs::hierarchy::{ChildOf, Children};
use bevy_ecs::query::{QueryState, Without};
use bevy_ecs::resource::IsResource;
use bevy_ecs::world::World;

use super::bevy::BevyPeer;
use super::bevy_b::BevyB;
use super::HierarchyPeer;
use crate::components::{Data, Health, Position, Rotation, Velocity};
use crate::workload::{prepared, Prepared};
use crate::workloads::relationship::{
    descendant_hash, traversal_checksum, traversal_data, traversal_parent, traversal_step,
    HierarchyWorld, CHILDREN, GRANDCHILDREN, TREE,
};

/// A bevy world with the query states the relationship body uses, made once.
pub(super) struct BevyHierarchy {
    world: World,
    positions: QueryState<&'static mut Position>,
    rotations: QueryState<&'static mut Rotation>,
    velocities: QueryState<&'static mut Velocity>,
    healths: QueryState<&'static mut Health>,
    children: QueryState<&'static Children>,
    payload: QueryState<(Option<&'static Velocity>, Option<&'static Health>)>,
    /// The entities spawned, not bevy's resource entities (`IsResource`).
    spawned: QueryState<(), Without<IsResource>>,
}

impl HierarchyWorld for BevyHierarchy {
    type Entity = Entity;

    fn new_world() -> Self {
        let mut world = World::new();
        BevyHierarchy {
            positions: world.query(),
            rotations: world.query(),
            velocities: world.query(),
            healths: world.query(),
            children: world.query(),
            payload: world.query(),
            spawned: world.query_filtered(),
            world,
        }
    }

    fn spawn_tree(&mut self, i: usize) -> Entity {
        let x = i as f32;
        self.world
            .spawn((Position([x, 0.0, 0.0]), Rotation([0.0, x, 0.0])))
            .with_children(|children| {
                for j in 0..CHILDREN {
                    children
                        .spawn(Velocity([0.0, 0.0, j as f32]))
                        .with_children(|grandchildren| {
                            for k in 0..GRANDCHILDREN {
                                grandchildren.spawn(Health(k as u32));
                            }
                        });
                }
            })
            .id()
    }

    fn write_all(&mut self) -> u64 {
        let mut writes = 0u64;
        for mut c in self.positions.iter_mut(&mut self.world) {
            c.0[0] += 1.0;
            writes += 1;
        }
        for mut c in self.rotations.iter_mut(&mut self.world) {
            c.0[1] += 1.0;
            writes += 1;
        }
        for mut c in self.velocities.iter_mut(&mut self.world) {
            c.0[2] += 1.0;
            writes += 1;
        }
        for mut c in self.healths.iter_mut(&mut self.world) {
            c.0 += 1;
            writes += 1;
        }
        writes
    }

    fn descendants_hash(&mut self, root: Entity) -> u64 {
        let children = self.children.query(&self.world);
        let payload = self.payload.query(&self.world);
        children.iter_descendants_depth_first(root).fold(0, |h, e| {
            let (v, hp) = payload.get(e).expect("live descendant");
            descendant_hash(h, v, hp)
        })
    }

    fn despawn_recursive(&mut self, root: Entity) {
        assert!(self.world.despawn(root), "live root");
    }

    fn live(&mut self) -> u64 {
        self.spawned.iter(&self.world).count() as u64
    }
}

impl<Bb: BevyB> HierarchyPeer for BevyPeer<Bb> {
    type World = BevyHierarchy;

    fn relationship_traversal(self, roots: usize) -> Box<dyn Prepared> {
        let mut world = World::new();
        let mut tree = Vec::with_capacity(TREE);
        let roots: Vec<Entity> = (0..roots)
            .map(|r| {
                tree.clear();
                tree.push(world.spawn(traversal_data(r, 0)).id());
                for k in 1..TREE {
                    let parent = tree[traversal_parent(r, k)];
                    tree.push(world.spawn((traversal_data(r, k), ChildOf(parent))).id());
                }
                tree[0]
            })
            .collect();
        let children = world.query::<&Children>();
        let data = world.query::<&Data>();
        prepared(
            (world, children, data, roots, 0u64),
            |(world, children, data, roots, sum)| {
                let children = children.query(world);
                let data = data.query(world);
                let mut total = 0u64;
                for &root in roots.iter() {
                    let h = children
                        .iter_descendants_depth_first(root)
                        .fold(0, |h, e| traversal_step(h, data.get(e).expect("has Data")));
                    total = total.wrapping_add(h);
                }
                *sum = total;
            },
            |(_, _, _, roots, sum)| traversal_checksum(roots.len(), *sum),
        )
    }
}
