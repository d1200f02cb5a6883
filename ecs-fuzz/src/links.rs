//! Parent links in the fuzzer: the model's forest, the link operations (`set_parent`,
//! `remove_parent`, `despawn_recursive`) checked on every backend, and tampering attempts:
//! every run-time path that could write the link components (a run-time query writing
//! `ChildOf` or `Children`, `insert_by_id` of a copied link, `remove_by_id`) must be refused
//! on every backend with the world unchanged.

use ecs_core::hierarchy::{ChildOf, Children};
use ecs_core::query::DynQuery;
use ecs_core::{EcsError, Entity, Storage, World};

use crate::on_lanes;
use crate::runner::{Failure, Runner};

/// Each live entity's parent and children, sorted by entity.
type LinkView = Vec<(Entity, Option<Entity>, Vec<Entity>)>;

/// `world`'s links as the hierarchy API reports them, for `alive`.
fn links_of<S: Storage>(world: &World<S>, alive: &[Entity]) -> Result<LinkView, EcsError> {
    alive
        .iter()
        .map(|&e| Ok((e, world.parent(e)?, world.children(e)?.collect())))
        .collect()
}

/// A tampering attempt's outcome, comparable across backends: which error refused it
/// (`None` when there was nothing to tamper with).
fn refusal(result: Result<(), EcsError>) -> Result<Option<&'static str>, String> {
    match result {
        Ok(()) => Err("a write to a link component was accepted".into()),
        Err(EcsError::Immutable(_)) => Ok(Some("immutable")),
        Err(EcsError::HierarchyComponent { .. }) => Ok(Some("hierarchy component")),
        Err(EcsError::NoSuchEntity(_)) => Ok(Some("no such entity")),
        Err(EcsError::MissingComponent { .. }) => Ok(Some("missing component")),
        Err(other) => Err(format!("refused with an unexpected error: {other}")),
    }
}

/// One tampering attempt on `entity` in `world` (see [`Runner::tamper`]).
fn tamper_once<S: Storage>(
    world: &mut World<S>,
    entity: Entity,
    how: u8,
) -> Result<Option<&'static str>, String> {
    let ids = (
        world.component_id::<ChildOf>(),
        world.component_id::<Children>(),
    );
    let (Some(child_of), Some(children)) = ids else {
        return Ok(None); // nothing was ever linked
    };
    let id = if how & 1 == 0 { child_of } else { children };
    match how / 2 % 3 {
        0 => refusal(world.dyn_query(&DynQuery::new().write(id)).map(|_| ())),
        1 => refusal(world.remove_by_id(entity, id)),
        _ => {
            // A copy of some live child's link (or none), offered to `entity` by id.
            let holder = world.query::<(Entity, &ChildOf)>().map(|(e, _)| e).next();
            let Some(holder) = holder else {
                return Ok(None);
            };
            let ptr = world
                .get_by_id(holder, child_of)
                .expect("the holder has a ChildOf");
            // SAFETY: component `child_of` is `ChildOf` (plain handles), read while the world
            // is not mutated; the copy is never dropped (`ManuallyDrop`).
            let link = std::mem::ManuallyDrop::new(unsafe { ptr.cast::<ChildOf>().read() });
            // SAFETY: a valid `ChildOf` value; the world refuses it before reading it.
            refusal(unsafe {
                world.insert_by_id(entity, child_of, std::ptr::NonNull::from(&*link).cast())
            })
        }
    }
}

impl Runner {
    /// `set_parent` (`how % 4` of 0 or 1), `remove_parent` (2) or `despawn_recursive` (3).
    pub(crate) fn link(&mut self, child: u16, parent: u16, how: u8) -> Result<(), Failure> {
        let (child, parent) = (self.target(child), self.target(parent));
        self.model.flush();
        let rows = &self.model.rows;
        let (child_live, parent_live) = (rows.contains_key(&child), rows.contains_key(&parent));
        match how % 4 {
            0 | 1 => {
                let want = match (child_live, parent_live) {
                    (false, _) => Err(EcsError::NoSuchEntity(child)),
                    (_, false) => Err(EcsError::NoSuchEntity(parent)),
                    _ if self.model.links.set_parent(child, parent) => Ok(()),
                    _ => Err(EcsError::HierarchyCycle { child, parent }),
                };
                let got = on_lanes!(self.lanes, self.current, lane => {
                    lane.world.set_parent(child, parent)
                });
                self.agree("set_parent", &want, got)
            }
            2 => {
                let want = if child_live {
                    Ok(self.model.links.unlink(child))
                } else {
                    Err(EcsError::NoSuchEntity(child))
                };
                let got = on_lanes!(self.lanes, self.current, lane => {
                    lane.world.remove_parent(child)
                });
                self.agree("remove_parent", &want, got)
            }
            _ => {
                let want = if child_live {
                    for e in self.model.links.subtree(child) {
                        self.model.despawn(e);
                    }
                    Ok(())
                } else {
                    Err(EcsError::NoSuchEntity(child))
                };
                let got = on_lanes!(self.lanes, self.current, lane => {
                    lane.world.despawn_recursive(child)
                });
                self.agree("despawn_recursive", &want, got)
            }
        }
    }

    /// A run-time attempt to write a link component of `entity`, picked by `how`: a run-time
    /// query writing `ChildOf` or `Children`, `remove_by_id` of one, or `insert_by_id` of a
    /// copied `ChildOf`. Every backend must refuse it the same way; the links must be as
    /// the model says afterwards.
    pub(crate) fn tamper(&mut self, target: u16, how: u8) -> Result<(), Failure> {
        let entity = self.target(target);
        self.model.flush();
        let got = on_lanes!(self.lanes, self.current, lane => {
            lane.world.flush();
            tamper_once(&mut lane.world, entity, how)
        });
        for (backend, outcome) in crate::lanes::BACKENDS.iter().zip(&got) {
            if let Err(message) = outcome {
                return Err((backend, message.clone()));
            }
        }
        let want = got[0].clone();
        self.agree("tampering refused", &want, got)?;
        self.compare_links()
    }

    /// Compares every live entity's parent and children with the model.
    pub(crate) fn compare_links(&mut self) -> Result<(), Failure> {
        let mut alive: Vec<Entity> = self.model.rows.keys().copied().collect();
        alive.sort_unstable();
        let links = &self.model.links;
        let want: Result<LinkView, EcsError> = Ok(alive
            .iter()
            .map(|&e| (e, links.parent(e), links.children(e).to_vec()))
            .collect());
        let got = on_lanes!(self.lanes, self.current, lane => links_of(&lane.world, &alive));
        self.agree("parent links", &want, got)
    }
}
