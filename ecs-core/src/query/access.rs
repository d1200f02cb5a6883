//! What a query reads and writes, and the builder that records it.

use crate::component::{ComponentId, Components};
use crate::error::EcsError;
use crate::storage::{QueryDescriptor, SlotRole};

/// The components a query reads and writes.
///
/// Used to reject aliasing queries (`(&mut A, &A)`) and, later, to decide which systems may
/// run in parallel.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Access {
    reads: Vec<ComponentId>,
    writes: Vec<ComponentId>,
}

impl Access {
    /// Components read (and not written).
    pub fn reads(&self) -> &[ComponentId] {
        &self.reads
    }

    /// Components written.
    pub fn writes(&self) -> &[ComponentId] {
        &self.writes
    }

    /// Whether two accesses may not run at the same time (one writes what the other touches).
    pub fn conflicts_with(&self, other: &Access) -> bool {
        self.writes
            .iter()
            .any(|c| other.reads.contains(c) || other.writes.contains(c))
            || other.writes.iter().any(|c| self.reads.contains(c))
    }
}

/// Collects a query's slots and access while its parts are initialised.
pub struct QueryBuilder<'c> {
    components: &'c mut Components,
    descriptor: QueryDescriptor,
    access: Access,
    conflict: Option<EcsError>,
}

impl<'c> QueryBuilder<'c> {
    /// A builder registering components in `components`.
    pub fn new(components: &'c mut Components) -> QueryBuilder<'c> {
        QueryBuilder {
            components,
            descriptor: QueryDescriptor::default(),
            access: Access::default(),
            conflict: None,
        }
    }

    /// The registry (to register the query's component types).
    pub fn components(&mut self) -> &mut Components {
        self.components
    }

    /// Adds a storage slot, returning its index.
    pub fn slot(&mut self, component: ComponentId, role: SlotRole) -> usize {
        self.descriptor.push(component, role)
    }

    /// Records a shared read of `component`.
    pub fn read(&mut self, component: ComponentId) {
        if self.access.writes.contains(&component) {
            self.record_conflict(component);
        } else if !self.access.reads.contains(&component) {
            self.access.reads.push(component);
        }
    }

    /// Records an exclusive write of `component`.
    pub fn write(&mut self, component: ComponentId) {
        if self.access.writes.contains(&component) || self.access.reads.contains(&component) {
            self.record_conflict(component);
        } else {
            self.access.writes.push(component);
        }
    }

    fn record_conflict(&mut self, component: ComponentId) {
        if self.conflict.is_none() {
            let name = self.components.info(component).name().to_owned();
            self.conflict = Some(EcsError::QueryConflict { component: name });
        }
    }

    /// The descriptor and access, or the first aliasing conflict found.
    pub fn finish(self) -> Result<(QueryDescriptor, Access), EcsError> {
        match self.conflict {
            Some(err) => Err(err),
            None => Ok((self.descriptor, self.access)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::component::Component;

    struct A;
    impl Component for A {}
    struct B;
    impl Component for B {}

    #[test]
    fn read_after_write_conflicts() {
        let mut c = Components::default();
        let a = c.register::<A>();
        let mut b = QueryBuilder::new(&mut c);
        b.write(a);
        b.read(a);
        let err = b.finish().unwrap_err();
        assert!(err.to_string().contains("A"), "{err}");
    }

    #[test]
    fn disjoint_access_is_fine() {
        let mut c = Components::default();
        let (a, bid) = (c.register::<A>(), c.register::<B>());
        let mut b = QueryBuilder::new(&mut c);
        b.read(a);
        b.read(a);
        b.write(bid);
        let (_, access) = b.finish().unwrap();
        assert_eq!((access.reads(), access.writes()), (&[a][..], &[bid][..]));
        let mut other = Access::default();
        other.reads.push(bid);
        assert!(access.conflicts_with(&other) && other.conflicts_with(&access));
        assert!(!access.conflicts_with(&Access::default()));
    }
}
