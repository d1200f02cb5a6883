//! [`Links`]: a model of parent links (each child's parent, each parent's children in
//! order) and of what the world's hierarchy operations and despawns do to them, for tests
//! and fuzzers that compare a world's links with what they should be.

use hashbrown::HashMap;

use ecs_core::Entity;

/// The model's parent links: each child's parent, each parent's children in order.
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

    /// Whether `entity` is `of` or one of its ancestors.
    fn is_self_or_ancestor(&self, entity: Entity, of: Entity) -> bool {
        let mut at = Some(of);
        while let Some(e) = at {
            if e == entity {
                return true;
            }
            at = self.parent(e);
        }
        false
    }

    /// `set_parent` on live entities: false for a cycle (nothing changes).
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

    /// Takes `child` out of its parent's list; returns the parent it had.
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
    pub fn detach(&mut self, entity: Entity) {
        self.unlink(entity);
        for child in self.children.remove(&entity).unwrap_or_default() {
            self.parent.remove(&child);
        }
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

    /// Forgets every link (`World::clear`).
    pub fn clear(&mut self) {
        self.parent.clear();
        self.children.clear();
    }
}
