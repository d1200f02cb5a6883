//! [`Links`]: a model of parent links (each child's parent, each parent's children in
//! order) and of what the world's hierarchy operations and despawns do to them, for tests
//! and fuzzers that compare a world's links with what they should be.

use hashbrown::HashMap;

use ecs_core::{Entity, Storage, World};

/// The model's parent links: each child's parent, each parent's children in order.
/// Entities without links are absent; which entities are live is the caller's to track.
#[derive(Clone, Debug, Default)]
pub struct Links {
    parent: HashMap<Entity, Entity>,
    children: HashMap<Entity, Vec<Entity>>,
}

impl Links {
    /// `entity`'s parent.
    pub fn parent(&self, entity: Entity) -> Option<Entity> {
        self.parent.get(&entity).copied()
    }

    /// `entity`'s children, in order.
    pub fn children(&self, entity: Entity) -> &[Entity] {
        self.children.get(&entity).map_or(&[], Vec::as_slice)
    }

    /// Whether `entity` is `of` or one of its ancestors: making `entity` a child of `of`
    /// would close a cycle.
    pub fn is_self_or_ancestor(&self, entity: Entity, of: Entity) -> bool {
        let mut at = Some(of);
        while let Some(e) = at {
            if e == entity {
                return true;
            }
            at = self.parent(e);
        }
        false
    }

    /// `set_parent` on live entities: `child` becomes `parent`'s last child, and the same
    /// parent again is a no-op. False for a cycle (nothing changes).
    pub fn set_parent(&mut self, child: Entity, parent: Entity) -> bool {
        if self.is_self_or_ancestor(child, parent) {
            return false;
        }
        if self.parent(child) == Some(parent) {
            return true;
        }
        self.unlink(child);
        self.parent.insert(child, parent);
        self.children.entry(parent).or_default().push(child);
        true
    }

    /// Takes `child` out of its parent's list, keeping its own children; returns the parent
    /// it had.
    pub fn unlink(&mut self, child: Entity) -> Option<Entity> {
        let parent = self.parent.remove(&child)?;
        let list = self
            .children
            .get_mut(&parent)
            .expect("a parent lists its children");
        list.retain(|&c| c != child);
        if list.is_empty() {
            self.children.remove(&parent);
        }
        Some(parent)
    }

    /// What a plain despawn of `entity` does to the links: it leaves its parent's list, and
    /// its children become roots.
    pub fn despawn(&mut self, entity: Entity) {
        self.unlink(entity);
        for child in self.children.remove(&entity).unwrap_or_default() {
            self.parent.remove(&child);
        }
    }

    /// What `despawn_recursive` of `entity` does to the links: its subtree leaves the model.
    /// Returns the entities it removes, children before parents.
    pub fn despawn_recursive(&mut self, entity: Entity) -> Vec<Entity> {
        let gone = self.subtree(entity);
        self.unlink(entity);
        for e in &gone {
            self.parent.remove(e);
            self.children.remove(e);
        }
        gone
    }

    /// `entity` and its descendants, children before parents.
    pub fn subtree(&self, entity: Entity) -> Vec<Entity> {
        let mut out = Vec::new();
        let mut stack = vec![(entity, false)];
        while let Some((e, expanded)) = stack.pop() {
            if expanded {
                out.push(e);
                continue;
            }
            stack.push((e, true));
            for &child in self.children(e).iter().rev() {
                stack.push((child, false));
            }
        }
        out
    }

    /// `entity` and its descendants depth-first, parents before children and children in
    /// order: `entity`, then what `World::descendants` yields.
    pub fn depth_first(&self, entity: Entity) -> Vec<Entity> {
        let mut out = Vec::new();
        let mut stack = vec![entity];
        while let Some(e) = stack.pop() {
            out.push(e);
            stack.extend(self.children(e).iter().rev());
        }
        out
    }

    /// Forgets every link (`World::clear`).
    pub fn clear(&mut self) {
        self.parent.clear();
        self.children.clear();
    }

    /// Asserts that the world's links of every entity in `live` are the model's, exactly:
    /// parent, children in order and depth-first descendants in order.
    pub fn compare<S: Storage>(&self, world: &World<S>, live: impl Iterator<Item = Entity>) {
        for e in live {
            assert_eq!(world.parent(e), Ok(self.parent(e)), "{e:?}'s parent");
            let children: Vec<Entity> = world.children(e).unwrap().collect();
            assert_eq!(children, self.children(e), "{e:?}'s children");
            let expected = self.depth_first(e);
            let walked: Vec<Entity> = world.descendants(e).unwrap().collect();
            assert_eq!(walked, expected[1..], "{e:?}'s descendants");
        }
    }
}
