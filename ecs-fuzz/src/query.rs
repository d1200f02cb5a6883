//! How the fuzzer reads query items and how the model answers the same query.
//!
//! [`FuzzData`] is implemented for the fetches the fuzzer uses (`Entity`, `&T`, `&mut T`,
//! `Mut<T>`, `Option<&T>`, `Option<&mut T>` and tuples of them) and [`FuzzFilter`] for the
//! filters (`()`, `With`, `Without`, `Added`, `Changed`, `Or` and tuples). Each turns a
//! backend's item into a [`Record`] and computes the model's record for an entity, so one
//! generic body compares any query type on every backend; every mutable fetch performs
//! [`PoolComponent::write`] on the backend and the model alike.

use ecs_core::component::{tracks_changes, TrackedComponent, Write};
use ecs_core::query::{QueryData, QueryFilter};
use ecs_core::{Added, Changed, Entity, Mut, Or, With, Without};

use crate::components::{written, PoolComponent, Row};
use crate::model::{Kind, Reader};

/// Most values one record holds.
const RECORD_LEN: usize = 6;

/// One query item as comparable numbers: the entity's bits for `Entity`, the model number
/// for `&T`, and `u64::MAX` for an absent `Option`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Record {
    values: [u64; RECORD_LEN],
    len: u8,
}

impl Record {
    /// Appends one value.
    ///
    /// # Panics
    /// Past six values (a query shape with too many fetches).
    pub fn push(&mut self, value: u64) {
        self.values[self.len as usize] = value;
        self.len += 1;
    }
}

/// The model-side state a fetch or filter needs for one entity.
pub struct ModelEntity<'a> {
    /// The entity.
    pub entity: Entity,
    /// Its components (written by mutable fetches).
    pub row: &'a mut Row,
    /// Slots written through a tracking `Mut<T>`: the runner marks them changed afterwards.
    pub marks: &'a mut Vec<usize>,
}

/// A query's fetch as the fuzzer uses it.
pub trait FuzzData: QueryData + 'static {
    /// Whether an entity holding `row` has every component the fetch requires.
    fn matches(row: &Row) -> bool;
    /// The `(slot, writes)` components the fetch touches, for the aliasing check.
    fn access(out: &mut Vec<(usize, bool)>);
    /// Records a backend's item (writing through mutable fetches).
    fn record(item: Self::Item<'_>, out: &mut Record);
    /// Records the model's item for a matching entity (writing as `record` does).
    fn model(e: &mut ModelEntity<'_>, out: &mut Record);
}

/// How a change filter is answered in the model: by a reader, or "everything passes".
#[derive(Clone, Copy)]
pub enum Probe<'a> {
    /// A fresh state (never run): every change filter passes.
    AllPass,
    /// The reader's latest run.
    Reader(&'a Reader),
}

impl Probe<'_> {
    fn passes(&self, slot: usize, kind: Kind, entity: Entity) -> bool {
        match self {
            Probe::AllPass => true,
            Probe::Reader(reader) => reader.passes(slot, kind, entity),
        }
    }
}

/// A query's filter as the fuzzer uses it.
pub trait FuzzFilter: QueryFilter + 'static {
    /// Whether `entity` holding `row` passes.
    fn matches(row: &Row, entity: Entity, probe: Probe<'_>) -> bool;
    /// The change logs the filter reads.
    fn watches(out: &mut Vec<(usize, Kind)>);
}

impl FuzzData for Entity {
    fn matches(_: &Row) -> bool {
        true
    }
    fn access(_: &mut Vec<(usize, bool)>) {}
    fn record(item: Entity, out: &mut Record) {
        out.push(item.to_bits());
    }
    fn model(e: &mut ModelEntity<'_>, out: &mut Record) {
        out.push(e.entity.to_bits());
    }
}

impl<T: PoolComponent> FuzzData for &'static T {
    fn matches(row: &Row) -> bool {
        row[T::SLOT].is_some()
    }
    fn access(out: &mut Vec<(usize, bool)>) {
        out.push((T::SLOT, false));
    }
    fn record(item: &T, out: &mut Record) {
        out.push(u64::from(item.value()));
    }
    fn model(e: &mut ModelEntity<'_>, out: &mut Record) {
        out.push(u64::from(e.row[T::SLOT].expect("matched")));
    }
}

impl<T: PoolComponent> FuzzData for &'static mut T {
    fn matches(row: &Row) -> bool {
        row[T::SLOT].is_some()
    }
    fn access(out: &mut Vec<(usize, bool)>) {
        out.push((T::SLOT, true));
    }
    fn record(mut item: Write<'_, T>, out: &mut Record) {
        item.write();
        out.push(u64::from(item.value()));
    }
    fn model(e: &mut ModelEntity<'_>, out: &mut Record) {
        let v = e.row[T::SLOT].as_mut().expect("matched");
        *v = written::<T>(*v);
        out.push(u64::from(*v));
        if tracks_changes::<T>() {
            // A tracked type's `&mut T` is a `Mut<T>`: the write is recorded.
            e.marks.push(T::SLOT);
        }
    }
}

/// Writes through `Mut<T>` only when the value is even, so some items are read through the
/// guard without a write (which must not count as a change).
impl<T: PoolComponent> FuzzData for Mut<'static, T> {
    fn matches(row: &Row) -> bool {
        row[T::SLOT].is_some()
    }
    fn access(out: &mut Vec<(usize, bool)>) {
        out.push((T::SLOT, true));
    }
    fn record(mut item: Mut<'_, T>, out: &mut Record) {
        if item.value() % 2 == 0 {
            item.write();
        }
        out.push(u64::from(item.value()));
    }
    fn model(e: &mut ModelEntity<'_>, out: &mut Record) {
        let v = e.row[T::SLOT].as_mut().expect("matched");
        if *v % 2 == 0 {
            *v = written::<T>(*v);
            e.marks.push(T::SLOT);
        }
        out.push(u64::from(*v));
    }
}

impl<T: PoolComponent> FuzzData for Option<&'static T> {
    fn matches(_: &Row) -> bool {
        true
    }
    fn access(out: &mut Vec<(usize, bool)>) {
        out.push((T::SLOT, false));
    }
    fn record(item: Option<&T>, out: &mut Record) {
        out.push(item.map_or(u64::MAX, |t| u64::from(t.value())));
    }
    fn model(e: &mut ModelEntity<'_>, out: &mut Record) {
        out.push(e.row[T::SLOT].map_or(u64::MAX, u64::from));
    }
}

impl<T: PoolComponent> FuzzData for Option<&'static mut T> {
    fn matches(_: &Row) -> bool {
        true
    }
    fn access(out: &mut Vec<(usize, bool)>) {
        out.push((T::SLOT, true));
    }
    fn record(item: Option<Write<'_, T>>, out: &mut Record) {
        out.push(item.map_or(u64::MAX, |mut t| {
            t.write();
            u64::from(t.value())
        }));
    }
    fn model(e: &mut ModelEntity<'_>, out: &mut Record) {
        let v = e.row[T::SLOT].as_mut().map(|v| {
            *v = written::<T>(*v);
            *v
        });
        if v.is_some() && tracks_changes::<T>() {
            e.marks.push(T::SLOT);
        }
        out.push(v.map_or(u64::MAX, u64::from));
    }
}

macro_rules! tuple_data {
    ($($name:ident),*) => {
        impl<$($name: FuzzData),*> FuzzData for ($($name,)*) {
            fn matches(row: &Row) -> bool {
                true $(&& $name::matches(row))*
            }
            fn access(out: &mut Vec<(usize, bool)>) {
                $($name::access(out);)*
            }
            #[allow(non_snake_case)]
            fn record(item: Self::Item<'_>, out: &mut Record) {
                let ($($name,)*) = item;
                $($name::record($name, out);)*
            }
            fn model(e: &mut ModelEntity<'_>, out: &mut Record) {
                $($name::model(e, out);)*
            }
        }
    };
}

tuple_data!(Q0);
tuple_data!(Q0, Q1);
tuple_data!(Q0, Q1, Q2);
tuple_data!(Q0, Q1, Q2, Q3);
tuple_data!(Q0, Q1, Q2, Q3, Q4);
tuple_data!(Q0, Q1, Q2, Q3, Q4, Q5);

impl FuzzFilter for () {
    fn matches(_: &Row, _: Entity, _: Probe<'_>) -> bool {
        true
    }
    fn watches(_: &mut Vec<(usize, Kind)>) {}
}

impl<T: PoolComponent> FuzzFilter for With<T> {
    fn matches(row: &Row, _: Entity, _: Probe<'_>) -> bool {
        row[T::SLOT].is_some()
    }
    fn watches(_: &mut Vec<(usize, Kind)>) {}
}

impl<T: PoolComponent> FuzzFilter for Without<T> {
    fn matches(row: &Row, _: Entity, _: Probe<'_>) -> bool {
        row[T::SLOT].is_none()
    }
    fn watches(_: &mut Vec<(usize, Kind)>) {}
}

impl<T: PoolComponent + TrackedComponent> FuzzFilter for Added<T> {
    fn matches(row: &Row, entity: Entity, probe: Probe<'_>) -> bool {
        row[T::SLOT].is_some() && probe.passes(T::SLOT, Kind::Added, entity)
    }
    fn watches(out: &mut Vec<(usize, Kind)>) {
        out.push((T::SLOT, Kind::Added));
    }
}

impl<T: PoolComponent + TrackedComponent> FuzzFilter for Changed<T> {
    fn matches(row: &Row, entity: Entity, probe: Probe<'_>) -> bool {
        row[T::SLOT].is_some() && probe.passes(T::SLOT, Kind::Changed, entity)
    }
    fn watches(out: &mut Vec<(usize, Kind)>) {
        out.push((T::SLOT, Kind::Changed));
    }
}

macro_rules! tuple_filter {
    ($($name:ident),*) => {
        impl<$($name: FuzzFilter),*> FuzzFilter for ($($name,)*) {
            fn matches(row: &Row, entity: Entity, probe: Probe<'_>) -> bool {
                true $(&& $name::matches(row, entity, probe))*
            }
            fn watches(out: &mut Vec<(usize, Kind)>) {
                $($name::watches(out);)*
            }
        }

        impl<$($name: FuzzFilter),*> FuzzFilter for Or<($($name,)*)> {
            fn matches(row: &Row, entity: Entity, probe: Probe<'_>) -> bool {
                false $(|| $name::matches(row, entity, probe))*
            }
            fn watches(out: &mut Vec<(usize, Kind)>) {
                $($name::watches(out);)*
            }
        }
    };
}

tuple_filter!(F0);
tuple_filter!(F0, F1);
tuple_filter!(F0, F1, F2);

/// Whether a fetch aliases a component it writes (`(&mut A, &A)`): the world must refuse it.
pub fn aliases<Q: FuzzData>() -> bool {
    let mut access = Vec::new();
    Q::access(&mut access);
    access.iter().enumerate().any(|(i, &(slot, write))| {
        access
            .iter()
            .enumerate()
            .any(|(j, &(other, other_writes))| i != j && slot == other && (write || other_writes))
    })
}
