//! Every workload, one file per family, and the registry that lists them; their names are
//! [`Builtin`]'s.
//!
//! Each workload is one generic body over `S: Storage` (the `prepare` of its [`Workload`](crate::workload::Workload)
//! impl); where docs/workloads.md calls for it, a hand-written `Vec` baseline sits beside it.

mod builtin;
pub mod community;
pub mod matrix;
pub mod relationship;
pub mod seed000;
pub mod seed001;
pub mod seed002;
pub mod seed003;
pub mod seed004;
pub mod seed004_memory;
pub mod snapshot;

pub use builtin::Builtin;

use crate::workload::{Anchor, DynWorkload, Sizes, WorkloadInfo};

/// Every runnable workload, in report order (the order of [`Builtin::ALL`]).
pub fn registry() -> Vec<Box<dyn DynWorkload>> {
    let mut all = community::workloads();
    all.extend(snapshot::workloads());
    all.extend(seed000::workloads());
    all.extend(relationship::workloads());
    all.extend(seed001::workloads());
    all.extend(seed002::workloads());
    all.extend(seed003::workloads());
    all.extend(seed004::workloads());
    all
}

/// Starts the [`WorkloadInfo`] of built-in `workload` (its name and family from
/// [`Builtin`]) with the common defaults (backends only, not repeatable, no step, baseline,
/// anchor or note).
pub(crate) fn info(
    workload: Builtin,
    description: impl Into<String>,
    sizes: Sizes,
    unit: &'static str,
) -> WorkloadInfo {
    WorkloadInfo {
        name: workload.name().to_owned(),
        builtin: Some(workload),
        family: workload.family(),
        description: description.into(),
        sizes,
        unit,
        anchor: None,
        note: None,
        repeatable: false,
        stepped: false,
        on_backends: true,
        only_backends: &[],
        has_baseline: false,
    }
}

/// Builder-style setters for [`WorkloadInfo`], used by the family files.
pub(crate) trait InfoExt {
    fn repeatable(self) -> Self;
    fn stepped(self) -> Self;
    fn baseline(self) -> Self;
    fn baseline_only(self) -> Self;
    fn anchor(self, value: &'static str, source: &'static str) -> Self;
    fn note(self, note: &'static str) -> Self;
    fn only_on(self, backends: &'static [&'static str]) -> Self;
}

impl InfoExt for WorkloadInfo {
    fn repeatable(mut self) -> Self {
        self.repeatable = true;
        self
    }
    fn stepped(mut self) -> Self {
        self.stepped = true;
        self
    }
    fn baseline(mut self) -> Self {
        self.has_baseline = true;
        self
    }
    fn baseline_only(mut self) -> Self {
        self.has_baseline = true;
        self.on_backends = false;
        self
    }
    fn anchor(mut self, value: &'static str, source: &'static str) -> Self {
        self.anchor = Some(Anchor { value, source });
        self
    }
    fn note(mut self, note: &'static str) -> Self {
        self.note = Some(note);
        self
    }
    fn only_on(mut self, backends: &'static [&'static str]) -> Self {
        self.only_backends = backends;
        self
    }
}

/// Sizes that shrink by `quick` and `test` divisors from `full`.
pub(crate) const fn sizes(full: usize, quick: usize, test: usize) -> Sizes {
    Sizes { full, quick, test }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::{Backend, Runner};

    #[test]
    fn only_on_limits_the_backends_not_the_baseline() {
        let limited = info(Builtin::SimpleIter, "d", sizes(1, 1, 1), "entities")
            .baseline()
            .only_on(&["sparse"]);
        assert!(limited.runs_on(Runner::Backend(Backend::Sparse)));
        assert!(!limited.runs_on(Runner::Backend(Backend::Archetype)));
        assert!(limited.runs_on(Runner::Baseline));
        let everywhere = info(Builtin::SimpleIter, "d", sizes(1, 1, 1), "entities");
        assert!(everywhere.runs_on(Runner::Backend(Backend::Archetype)));
        assert!(!everywhere.runs_on(Runner::Baseline));
    }

    #[test]
    fn the_grouped_iteration_runs_only_where_groups_exist() {
        let grouped = registry()
            .into_iter()
            .find(|w| w.info().builtin == Some(Builtin::SimpleIterGrouped))
            .expect("registered");
        for &backend in Backend::ALL {
            let runs = grouped.info().runs_on(Runner::Backend(backend));
            assert_eq!(runs, backend == Backend::Sparse, "{}", backend.name());
        }
    }
}
