//! [`SystemAccess`]: everything a system reads and writes, derived from its parameter types.

use std::any::{type_name, TypeId};

use crate::component::Components;
use crate::query::Access;
use crate::resource::Resource;

/// The components (read, written, watched) and resources (read, written) of one system,
/// collected from its parameters when it is initialised. Each
/// [`SystemParam`](super::SystemParam) adds what its type says.
///
/// Each query's access is kept apart as well, so that two queries whose filters prove they
/// never meet the same entity (one requires a component the other excludes, see
/// [`Access::is_disjoint`]) do not conflict, within a system or between two systems.
///
/// An *exclusive* access ([`SystemAccess::exclusive`]) conflicts with every other access:
/// an exclusive system takes `&mut World` and runs alone.
///
/// # Invariant
/// `components` is the union of `queries` (reads, writes and watches).
#[derive(Clone, Debug, Default)]
pub struct SystemAccess {
    components: Access,
    queries: Vec<Access>,
    resource_reads: Vec<(TypeId, &'static str)>,
    resource_writes: Vec<(TypeId, &'static str)>,
    exclusive: bool,
    /// What the system observes, when it is an observer (its `On` parameter).
    observes: Option<crate::observer::EventKey>,
}

impl SystemAccess {
    /// What the system observes: `Some` for an observer (a system with an
    /// [`On`](crate::observer::On) parameter), which runs through
    /// [`World::observe`](crate::World::observe) and not in a schedule.
    pub fn observes(&self) -> Option<crate::observer::EventKey> {
        self.observes
    }

    /// Records the event an `On` parameter observes.
    ///
    /// # Errors
    /// A message when the system already observes something (two `On` parameters).
    pub(crate) fn observe(&mut self, key: crate::observer::EventKey) -> Result<(), String> {
        if self.observes.is_some() {
            return Err("an observer takes one `On<..>` parameter".to_owned());
        }
        self.observes = Some(key);
        Ok(())
    }

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

    /// The access of a system that takes the whole world (`&mut World`): it conflicts with
    /// every other system, so it runs alone.
    pub fn exclusive() -> SystemAccess {
        SystemAccess {
            exclusive: true,
            ..SystemAccess::default()
        }
    }

    /// Whether this is an exclusive system's access.
    pub fn is_exclusive(&self) -> bool {
        self.exclusive
    }

    /// Each query's access, in the order they were added.
    pub fn queries(&self) -> &[Access] {
        &self.queries
    }

    /// Adds a query's access.
    ///
    /// # Errors
    /// When it conflicts with a query added before (one writes what the other touches, and
    /// their filters do not keep them apart): the description of the conflict.
    pub fn add_query(&mut self, query: &Access, components: &Components) -> Result<(), String> {
        if let Some(id) = self.queries.iter().find_map(|q| q.first_conflict(query)) {
            return Err(format!(
                "two of its queries access {} and at least one writes it (a `Without` filter \
                 on one and the component required by the other keeps them apart; or hold \
                 them in a `ParamSet` and use one at a time)",
                components.info(id).name()
            ));
        }
        self.push_query(query);
        Ok(())
    }

    fn push_query(&mut self, query: &Access) {
        self.components.extend(query);
        self.queries.push(query.clone());
    }

    /// Adds the accesses of a [`ParamSet`](super::ParamSet)'s members: each is checked
    /// against what the system holds already, but not against the other members (they are
    /// used one at a time).
    ///
    /// # Errors
    /// When a member conflicts with another parameter of the system.
    pub fn add_set(&mut self, members: &[SystemAccess]) -> Result<(), String> {
        for member in members {
            if let Some(reason) = self.conflict_within_system(member) {
                return Err(format!("a parameter set member conflicts: {reason}"));
            }
        }
        for member in members {
            for q in &member.queries {
                self.push_query(q);
            }
            for r in &member.resource_reads {
                if !self.resource_reads.contains(r) {
                    self.resource_reads.push(*r);
                }
            }
            for w in &member.resource_writes {
                if !self.resource_writes.contains(w) {
                    self.resource_writes.push(*w);
                }
            }
        }
        Ok(())
    }

    /// Why `other` (another parameter of the same system) cannot sit beside this access.
    fn conflict_within_system(&self, other: &SystemAccess) -> Option<String> {
        let query = self
            .queries
            .iter()
            .flat_map(|mine| other.queries.iter().map(move |theirs| (mine, theirs)))
            .find_map(|(mine, theirs)| mine.first_conflict(theirs));
        if query.is_some() {
            return Some("two queries access one component, one of them mutably".into());
        }
        let resource = |w: &[(TypeId, &'static str)], o: &SystemAccess| {
            w.iter()
                .find(|r| o.resource_reads.contains(r) || o.resource_writes.contains(r))
                .map(|r| r.1)
        };
        resource(&self.resource_writes, other)
            .or_else(|| resource(&other.resource_writes, self))
            .map(|name| format!("resource {name} is accessed twice, once mutably"))
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

    /// Whether two systems may not run at the same time: either is exclusive, or one writes
    /// a resource the other reads or writes, or a query of one writes a component a query of
    /// the other reads, watches or writes (unless their filters keep them apart).
    pub fn conflicts_with(&self, other: &SystemAccess) -> bool {
        let writes_touched = |w: &[(TypeId, &str)], o: &SystemAccess| {
            w.iter().any(|r| {
                o.resource_reads.iter().any(|x| x.0 == r.0)
                    || o.resource_writes.iter().any(|x| x.0 == r.0)
            })
        };
        self.exclusive
            || other.exclusive
            || writes_touched(&self.resource_writes, other)
            || writes_touched(&other.resource_writes, self)
            || (self.components.conflicts_with(&other.components)
                && self.queries.iter().any(|mine| {
                    other
                        .queries
                        .iter()
                        .any(|theirs| mine.conflicts_with(theirs))
                }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::component::Component;
    use crate::query::QueryBuilder;

    struct A;
    impl Component for A {
        type Mutability = crate::component::Mutable;
    }
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
