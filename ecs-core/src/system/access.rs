//! [`SystemAccess`]: everything a system reads and writes, derived from its parameter types.

use std::any::{type_name, TypeId};

use crate::component::Components;
use crate::query::Access;
use crate::resource::Resource;

/// The components (read, written, watched) and resources (read, written) of one system,
/// collected from its parameters when it is initialised. Never written by hand: each
/// [`SystemParam`](super::SystemParam) adds what its type says.
#[derive(Clone, Debug, Default)]
pub struct SystemAccess {
    components: Access,
    resource_reads: Vec<(TypeId, &'static str)>,
    resource_writes: Vec<(TypeId, &'static str)>,
}

impl SystemAccess {
    /// The components read, written and watched by all the system's queries.
    pub fn components(&self) -> &Access {
        &self.components
    }

    /// Names of the resources read (not written).
    pub fn resource_reads(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.resource_reads.iter().map(|r| r.1)
    }

    /// Names of the resources written.
    pub fn resource_writes(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.resource_writes.iter().map(|r| r.1)
    }

    /// Adds a query's access.
    ///
    /// # Errors
    /// When it conflicts with a query added before (one writes what the other touches):
    /// the description of the conflict.
    pub fn add_query(&mut self, query: &Access, components: &Components) -> Result<(), String> {
        if let Some(id) = self.components.first_conflict(query) {
            return Err(format!(
                "two of its queries access {} and at least one writes it",
                components.info(id).name()
            ));
        }
        self.components.extend(query);
        Ok(())
    }

    /// Adds a shared read of resource `R`.
    ///
    /// # Errors
    /// When the system also writes `R`.
    pub fn add_resource_read<R: Resource>(&mut self) -> Result<(), String> {
        let key = (TypeId::of::<R>(), type_name::<R>());
        if self.resource_writes.contains(&key) {
            return Err(format!("it reads and writes resource {}", key.1));
        }
        if !self.resource_reads.contains(&key) {
            self.resource_reads.push(key);
        }
        Ok(())
    }

    /// Adds an exclusive write of resource `R`.
    ///
    /// # Errors
    /// When the system already reads or writes `R`.
    pub fn add_resource_write<R: Resource>(&mut self) -> Result<(), String> {
        let key = (TypeId::of::<R>(), type_name::<R>());
        if self.resource_writes.contains(&key) || self.resource_reads.contains(&key) {
            return Err(format!(
                "it accesses resource {} twice, once mutably",
                key.1
            ));
        }
        self.resource_writes.push(key);
        Ok(())
    }

    /// Whether two systems may not run at the same time: one writes a component or resource
    /// the other reads, watches or writes.
    pub fn conflicts_with(&self, other: &SystemAccess) -> bool {
        let writes_touched = |w: &[(TypeId, &str)], o: &SystemAccess| {
            w.iter().any(|r| {
                o.resource_reads.iter().any(|x| x.0 == r.0)
                    || o.resource_writes.iter().any(|x| x.0 == r.0)
            })
        };
        self.components.conflicts_with(&other.components)
            || writes_touched(&self.resource_writes, other)
            || writes_touched(&other.resource_writes, self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::component::Component;
    use crate::query::QueryBuilder;

    struct A;
    impl Component for A {}
    struct Score;

    fn access(components: &mut Components, write: bool) -> Access {
        let id = components.register::<A>();
        let mut b = QueryBuilder::new(components);
        if write {
            b.write(id);
        } else {
            b.read(id);
        }
        b.finish().unwrap().access
    }

    #[test]
    fn queries_in_one_system_must_not_alias() {
        let mut c = Components::default();
        let (read, write) = (access(&mut c, false), access(&mut c, true));
        let mut s = SystemAccess::default();
        s.add_query(&read, &c).unwrap();
        s.add_query(&read, &c).unwrap();
        let err = s.add_query(&write, &c).unwrap_err();
        assert!(err.contains("::A"), "{err}");
    }

    #[test]
    fn resources_conflict_like_components() {
        let mut reader = SystemAccess::default();
        reader.add_resource_read::<Score>().unwrap();
        let mut writer = SystemAccess::default();
        writer.add_resource_write::<Score>().unwrap();
        assert!(reader.conflicts_with(&writer) && writer.conflicts_with(&reader));
        assert!(!reader.conflicts_with(&reader));
        assert!(writer.add_resource_read::<Score>().is_err());
        assert!(reader.add_resource_write::<Score>().is_err());
        assert_eq!(writer.resource_writes().count(), 1);
        assert_eq!(reader.resource_reads().count(), 1);
    }

    #[test]
    fn component_conflicts_between_systems() {
        let mut c = Components::default();
        let mut r = SystemAccess::default();
        r.add_query(&access(&mut c, false), &c).unwrap();
        let mut w = SystemAccess::default();
        w.add_query(&access(&mut c, true), &c).unwrap();
        assert!(r.conflicts_with(&w));
        assert!(!r.conflicts_with(&r));
        assert!(w.conflicts_with(&w));
    }
}
