//! Reading a snapshot into staging: serde visitors that check what can be checked as the
//! input arrives (the layout version, known names, rows in range, value counts) and keep
//! the values in type-erased buffers.
//!
//! # Untrusted lengths
//! No buffer is sized from a length the input states beyond [`PREALLOC_BYTES`]; lists grow
//! as their elements actually arrive. A column's values are the exception, for speed: its
//! buffer is made for its rows at once, and the rows are checked first to be distinct
//! entities of the entity list already read (each of which took input), so that size is
//! what a snapshot with that many entities holds, never a length the input merely states.
//! The same bound keeps even zero-sized values (which take no input) from making a loop run
//! longer than the input's entities allow.
//!
//! # Where an error is
//! Visitors do no bookkeeping on the success path. When an inner read fails, each level it
//! passes through on the way out adds its part of the path ([`Part`]): the element index,
//! the field, the column's name. Errors found by the loader itself are kept in the context
//! with their kind, since a format may carry only its own message (or none) through its
//! error type.

use std::alloc::Layout;
use std::cell::RefCell;
use std::fmt::{self, Write as _};
use std::marker::PhantomData;
use std::ptr::NonNull;

use hashbrown::HashSet;
use serde::de::{self, DeserializeOwned, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};

use super::{Run, Staged, StagedColumn, StagedResource};
use crate::blob::BlobVec;
use crate::component::Component;
use crate::entity::Entity;
use crate::resource::Resource;
use crate::snapshot::error::{SnapshotError, SnapshotErrorKind};
use crate::snapshot::map::{Handles, HandlesBuilder, OldIndex};
use crate::snapshot::nonfinite::{NonFiniteDe, NonFiniteSeed};
use crate::snapshot::registry::{
    Codec, ComponentKind, DynamicInfo, Entries, SnapshotRegistry, TypedVisitor,
};
use crate::snapshot::FORMAT;

/// The most bytes a buffer is given before its elements arrive.
pub(super) const PREALLOC_BYTES: usize = 1 << 20;

/// Room to reserve for `expected` items of `size` bytes: at most [`PREALLOC_BYTES`] worth.
fn cautious(expected: usize, size: usize) -> usize {
    expected.min(PREALLOC_BYTES / size.max(1))
}

/// One step of the path to an error.
#[derive(Debug)]
pub(super) enum Part {
    /// A field: `.entities`.
    Field(&'static str),
    /// An element: `[3]`.
    Index(usize),
    /// A column's or resource's name: ` ("Position")`.
    Name(String),
}

/// Renders parts (outermost first) as `components[2] ("Position").values[17]`.
pub(super) fn render(parts: &[Part]) -> String {
    let mut out = String::new();
    for part in parts {
        let _ = match part {
            Part::Field(name) if out.is_empty() => write!(out, "{name}"),
            Part::Field(name) => write!(out, ".{name}"),
            Part::Index(i) => write!(out, "[{i}]"),
            Part::Name(name) => write!(out, " ({name:?})"),
        };
    }
    out
}

/// What the visitors share: the registry, the loader's own error, the path to a failure.
pub(super) struct Ctx<'r, L> {
    registry: &'r SnapshotRegistry<L>,
    error: RefCell<Option<SnapshotErrorKind>>,
    /// Innermost first (parts are added as an error travels outwards).
    trail: RefCell<Vec<Part>>,
}

impl<'r, L: Entries> Ctx<'r, L> {
    pub(super) fn new(registry: &'r SnapshotRegistry<L>) -> Self {
        Ctx {
            registry,
            error: RefCell::new(None),
            trail: RefCell::new(Vec::new()),
        }
    }

    /// Records the loader's own error (the first one wins) and makes the format's error
    /// to unwind with.
    fn fail<E: de::Error>(&self, kind: SnapshotErrorKind) -> E {
        let message = kind.to_string();
        self.error.borrow_mut().get_or_insert(kind);
        E::custom(message)
    }

    /// Adds a part of the path to an error on its way out.
    fn at(&self, part: Part) {
        self.trail.borrow_mut().push(part);
    }

    /// [`Ctx::at`] for a result.
    fn within<T, E>(&self, result: Result<T, E>, part: impl FnOnce() -> Part) -> Result<T, E> {
        if result.is_err() {
            self.at(part());
        }
        result
    }

    /// The error of a failed read: the loader's own, else the format's message.
    pub(super) fn into_error(self, format_message: String) -> SnapshotError {
        let mut parts = self.trail.into_inner();
        parts.reverse();
        let kind = self
            .error
            .into_inner()
            .unwrap_or(SnapshotErrorKind::Format(format_message));
        SnapshotError::new(kind, render(&parts))
    }
}

/// Reads a struct's fields in their fixed order, from a sequence (binary formats write
/// structs so) or a map (self-describing formats; each key must be the expected one).
trait Fields<'de> {
    type Error: de::Error;
    /// The field `name`, read with `seed`.
    fn next<Sd: DeserializeSeed<'de>>(
        &mut self,
        name: &'static str,
        seed: Sd,
    ) -> Result<Sd::Value, Self::Error>;
    /// Checks that no field follows.
    fn finish(self) -> Result<(), Self::Error>;
}

struct SeqFields<A> {
    seq: A,
    read: usize,
}

impl<'de, A: SeqAccess<'de>> Fields<'de> for SeqFields<A> {
    type Error = A::Error;

    fn next<Sd: DeserializeSeed<'de>>(
        &mut self,
        name: &'static str,
        seed: Sd,
    ) -> Result<Sd::Value, A::Error> {
        let value = self.seq.next_element_seed(seed)?;
        self.read += 1;
        value.ok_or_else(|| de::Error::custom(format_args!("field `{name}` is missing")))
    }

    fn finish(mut self) -> Result<(), A::Error> {
        match self.seq.next_element::<Unexpected>()? {
            None => Ok(()),
            Some(_) => Err(de::Error::custom(format_args!(
                "more than {} fields",
                self.read
            ))),
        }
    }
}

struct MapFields<A>(A);

impl<'de, A: MapAccess<'de>> Fields<'de> for MapFields<A> {
    type Error = A::Error;

    fn next<Sd: DeserializeSeed<'de>>(
        &mut self,
        name: &'static str,
        seed: Sd,
    ) -> Result<Sd::Value, A::Error> {
        match self.0.next_key_seed(Key(name))? {
            Some(()) => self.0.next_value_seed(seed),
            None => Err(de::Error::custom(format_args!("field `{name}` is missing"))),
        }
    }

    fn finish(mut self) -> Result<(), A::Error> {
        match self.0.next_key_seed(Key(""))? {
            None => Ok(()),
            Some(()) => Err(de::Error::custom("an unexpected field")),
        }
    }
}

/// Reads a map key and checks it is the expected field name (no allocation).
struct Key(&'static str);

impl<'de> DeserializeSeed<'de> for Key {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_identifier(self)
    }
}

impl Visitor<'_> for Key {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the field `{}`", self.0)
    }
    fn visit_str<E: de::Error>(self, key: &str) -> Result<(), E> {
        if key == self.0 {
            Ok(())
        } else if self.0.is_empty() {
            Err(E::custom(format_args!("unexpected field `{key}`")))
        } else {
            Err(E::custom(format_args!(
                "expected field `{}`, found `{key}` (fields come in a fixed order)",
                self.0
            )))
        }
    }
}

/// An element that must not be there (any value, read only to report it).
struct Unexpected;

impl<'de> Deserialize<'de> for Unexpected {
    fn deserialize<D: Deserializer<'de>>(_: D) -> Result<Self, D::Error> {
        Ok(Unexpected)
    }
}

/// Implements `DeserializeSeed` (a serde struct named `$name` with `$fields`) and `Visitor`
/// (from a sequence or a map, both read through [`Fields`] by the seed's `read`) for a seed.
macro_rules! struct_seed {
    ($seed:ident, $value:ty, $name:literal, $fields:ident, $expecting:literal) => {
        impl<'de, L: Entries> DeserializeSeed<'de> for $seed<'_, '_, L> {
            type Value = $value;
            fn deserialize<D: Deserializer<'de>>(
                self,
                deserializer: D,
            ) -> Result<$value, D::Error> {
                deserializer.deserialize_struct($name, $fields, self)
            }
        }

        impl<'de, L: Entries> Visitor<'de> for $seed<'_, '_, L> {
            type Value = $value;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str($expecting)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<$value, A::Error> {
                self.read(SeqFields { seq, read: 0 })
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<$value, A::Error> {
                self.read(MapFields(map))
            }
        }
    };
}

/// The whole snapshot.
pub(super) struct SnapshotSeed<'c, 'r, L>(pub(super) &'c Ctx<'r, L>);

const SNAPSHOT_FIELDS: &[&str] = &["format", "entities", "components", "hierarchy", "resources"];

struct_seed!(
    SnapshotSeed,
    Staged,
    "Snapshot",
    SNAPSHOT_FIELDS,
    "a world snapshot"
);

impl<L: Entries> SnapshotSeed<'_, '_, L> {
    fn read<'de, F: Fields<'de>>(self, mut fields: F) -> Result<Staged, F::Error> {
        let ctx = self.0;
        let format: u32 =
            ctx.within(fields.next("format", PhantomData), || Part::Field("format"))?;
        if format != FORMAT {
            ctx.at(Part::Field("format"));
            return Err(ctx.fail(SnapshotErrorKind::Version {
                found: format,
                supported: FORMAT,
            }));
        }
        let entities = ctx.within(fields.next("entities", EntitiesSeed(ctx)), || {
            Part::Field("entities")
        })?;
        let index = match OldIndex::build(&entities) {
            Ok(index) => index,
            Err((_, repeat)) => {
                ctx.at(Part::Index(repeat));
                ctx.at(Part::Field("entities"));
                return Err(ctx.fail(SnapshotErrorKind::DuplicateEntity(entities.get(repeat))));
            }
        };
        let n = entities.len();
        let columns = ctx.within(fields.next("components", ColumnsSeed { ctx, n }), || {
            Part::Field("components")
        })?;
        let links = ctx.within(fields.next("hierarchy", PairsSeed { ctx }), || {
            Part::Field("hierarchy")
        })?;
        let resources = ctx.within(fields.next("resources", ResourcesSeed(ctx)), || {
            Part::Field("resources")
        })?;
        fields.finish()?;
        Ok(Staged {
            entities,
            index,
            columns,
            links,
            resources,
        })
    }
}

/// The entity list.
struct EntitiesSeed<'c, 'r, L>(&'c Ctx<'r, L>);

impl<'de, L: Entries> DeserializeSeed<'de> for EntitiesSeed<'_, '_, L> {
    type Value = Handles;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Handles, D::Error> {
        if deserializer.is_human_readable() {
            deserializer.deserialize_seq(self)
        } else {
            deserializer.deserialize_bytes(self)
        }
    }
}

impl<'de, L: Entries> Visitor<'de> for EntitiesSeed<'_, '_, L> {
    type Value = Handles;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of entity handles (a byte string of packed handles in binary formats)")
    }

    /// The packed form of binary formats (see `snapshot::packed`); its buffer exists in the
    /// input, so the list's size is bounded by it.
    fn visit_bytes<E: de::Error>(self, bytes: &[u8]) -> Result<Handles, E> {
        crate::snapshot::packed::unpack(bytes).map_err(|(i, why)| {
            self.0.at(Part::Index(i));
            E::custom(why)
        })
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Handles, A::Error> {
        let hint = seq.size_hint().unwrap_or(0);
        let mut entities = HandlesBuilder::new(cautious(hint, size_of::<Entity>()));
        loop {
            let i = entities.len();
            match self
                .0
                .within(seq.next_element::<Entity>(), || Part::Index(i))?
            {
                Some(entity) => entities.push(entity),
                None => return Ok(entities.finish()),
            }
            if entities.len() == u32::MAX as usize {
                return Err(de::Error::custom("more than 2^32 - 1 entities"));
            }
        }
    }
}

/// `[a, b]` pairs of `u32`: a column's runs of rows, the hierarchy's `(child, parent)`
/// rows (checked against the entity list by their readers).
struct PairsSeed<'c, 'r, L> {
    ctx: &'c Ctx<'r, L>,
}

impl<'de, L: Entries> DeserializeSeed<'de> for PairsSeed<'_, '_, L> {
    type Value = Vec<(u32, u32)>;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de, L: Entries> Visitor<'de> for PairsSeed<'_, '_, L> {
    type Value = Vec<(u32, u32)>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of [u32, u32] pairs")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let hint = seq.size_hint().unwrap_or(0);
        let mut pairs = Vec::with_capacity(cautious(hint, 8));
        loop {
            let i = pairs.len();
            match self
                .ctx
                .within(seq.next_element::<(u32, u32)>(), || Part::Index(i))?
            {
                Some(pair) => pairs.push(pair),
                None => return Ok(pairs),
            }
        }
    }
}

/// The `components` list.
struct ColumnsSeed<'c, 'r, L> {
    ctx: &'c Ctx<'r, L>,
    n: usize,
}

impl<'de, L: Entries> DeserializeSeed<'de> for ColumnsSeed<'_, '_, L> {
    type Value = Vec<StagedColumn>;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de, L: Entries> Visitor<'de> for ColumnsSeed<'_, '_, L> {
    type Value = Vec<StagedColumn>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of component columns")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let ctx = self.ctx;
        let hint = seq.size_hint().unwrap_or(0);
        let mut columns: Vec<StagedColumn> =
            Vec::with_capacity(cautious(hint, size_of::<StagedColumn>()));
        let mut seen: HashSet<(usize, Option<Box<str>>)> = HashSet::new();
        loop {
            let i = columns.len();
            let column = ctx
                .within(seq.next_element_seed(ColumnSeed { ctx, n: self.n }), || {
                    Part::Index(i)
                })?;
            let Some(column) = column else {
                return Ok(columns);
            };
            if !seen.insert((column.entry, column.instance.clone())) {
                ctx.at(Part::Index(i));
                let name = column_label(ctx.registry, &column);
                return Err(ctx.fail(SnapshotErrorKind::DuplicateColumn(name)));
            }
            columns.push(column);
        }
    }
}

/// `"Position"`, or `"Position" instance "Fog"`, for messages.
pub(super) fn column_label<L>(registry: &SnapshotRegistry<L>, column: &StagedColumn) -> String {
    let name = &registry.components[column.entry].name;
    match &column.instance {
        Some(instance) => format!("{name:?} instance {instance:?}"),
        None => format!("{name:?}"),
    }
}

/// One column: `{ name, instance, rows, values }`.
struct ColumnSeed<'c, 'r, L> {
    ctx: &'c Ctx<'r, L>,
    n: usize,
}

const COLUMN_FIELDS: &[&str] = &["name", "instance", "rows", "values"];

struct_seed!(
    ColumnSeed,
    StagedColumn,
    "Column",
    COLUMN_FIELDS,
    "a component column"
);

impl<L: Entries> ColumnSeed<'_, '_, L> {
    fn read<'de, F: Fields<'de>>(self, mut fields: F) -> Result<StagedColumn, F::Error> {
        let ctx = self.ctx;
        let name: String = ctx.within(fields.next("name", PhantomData), || Part::Field("name"))?;
        let Some(entry) = ctx.registry.component_named(&name) else {
            return Err(ctx.fail(SnapshotErrorKind::UnknownComponent(name)));
        };
        let result = self.read_rest(&mut fields, entry);
        let column = ctx.within(result, || Part::Name(name))?;
        fields.finish()?;
        Ok(column)
    }

    /// The fields after the name, for registry entry `entry`.
    fn read_rest<'de, F: Fields<'de>>(
        &self,
        fields: &mut F,
        entry: usize,
    ) -> Result<StagedColumn, F::Error> {
        let ctx = self.ctx;
        let instance: Option<String> = ctx.within(fields.next("instance", PhantomData), || {
            Part::Field("instance")
        })?;
        let pairs = ctx.within(fields.next("rows", PairsSeed { ctx }), || {
            Part::Field("rows")
        })?;
        let runs = self.check_rows(&pairs).map_err(|(i, kind)| {
            ctx.at(Part::Index(i));
            ctx.at(Part::Field("rows"));
            ctx.fail(kind)
        })?;
        let expected = runs.iter().map(|r| r.len as usize).sum();
        let values = match &ctx.registry.components[entry].kind {
            ComponentKind::Typed(info) => ctx.registry.list.dispatch(
                info.slot,
                ReadValues {
                    ctx,
                    fields: &mut *fields,
                    expected,
                    _input: PhantomData,
                },
            ),
            ComponentKind::Dynamic(info) => fields.next(
                "values",
                DynamicValuesSeed {
                    ctx,
                    info,
                    expected,
                },
            ),
        };
        let values = ctx.within(values, || Part::Field("values"))?;
        Ok(StagedColumn {
            entry,
            instance: instance.map(String::into_boxed_str),
            runs,
            values,
        })
    }

    /// The runs of `pairs` (`[first row, count]`), sorted by first row with the index of
    /// each run's first value; or the index of the offending pair and what is wrong.
    fn check_rows(&self, pairs: &[(u32, u32)]) -> Result<Vec<Run>, (usize, SnapshotErrorKind)> {
        let mut runs = Vec::with_capacity(pairs.len());
        let mut offset = 0u32;
        for (i, &(start, len)) in pairs.iter().enumerate() {
            if len == 0 {
                return Err((i, SnapshotErrorKind::EmptyRun));
            }
            let end = u64::from(start) + u64::from(len);
            if end > self.n as u64 {
                let row = u64::from(start).max(self.n as u64);
                return Err((
                    i,
                    SnapshotErrorKind::RowOutOfRange {
                        row,
                        entities: self.n,
                    },
                ));
            }
            runs.push((i, Run { start, len, offset }));
            // Cannot overflow: runs that fit `n` rows without overlapping sum to at most
            // `n`, and an overlap is reported below before the total is used.
            offset = offset.saturating_add(len);
        }
        runs.sort_unstable_by_key(|(_, run)| run.start);
        for pair in runs.windows(2) {
            let (before, (i, after)) = (&pair[0].1, &pair[1]);
            if before.start + before.len > after.start {
                return Err((*i, SnapshotErrorKind::DuplicateRow(after.start)));
            }
        }
        Ok(runs.into_iter().map(|(_, run)| run).collect())
    }
}

/// Reads the `values` field of a typed column with the entry's type.
struct ReadValues<'a, 'c, 'r, 'de, L, F> {
    ctx: &'c Ctx<'r, L>,
    fields: &'a mut F,
    expected: usize,
    _input: PhantomData<fn(&'de ())>,
}

impl<'de, L: Entries, F: Fields<'de>> TypedVisitor for ReadValues<'_, '_, '_, 'de, L, F> {
    type Output = Result<BlobVec, F::Error>;

    fn component<T: Component + Serialize + DeserializeOwned>(self) -> Self::Output {
        let seed = TypedValuesSeed::<L, T> {
            ctx: self.ctx,
            expected: self.expected,
            _type: PhantomData,
        };
        self.fields.next("values", seed)
    }

    fn resource<R: Resource + Serialize + DeserializeOwned>(self) -> Self::Output {
        Err(de::Error::custom(
            "a resource entry used as a component column",
        ))
    }
}

/// A typed column's values, into a buffer of `T`s.
struct TypedValuesSeed<'c, 'r, L, T> {
    ctx: &'c Ctx<'r, L>,
    expected: usize,
    _type: PhantomData<fn() -> T>,
}

impl<'de, L: Entries, T: Component + DeserializeOwned> DeserializeSeed<'de>
    for TypedValuesSeed<'_, '_, L, T>
{
    type Value = BlobVec;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<BlobVec, D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de, L: Entries, T: Component + DeserializeOwned> Visitor<'de>
    for TypedValuesSeed<'_, '_, L, T>
{
    type Value = BlobVec;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a list of {} values", self.expected)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<BlobVec, A::Error> {
        let ctx = self.ctx;
        let drop =
            std::mem::needs_drop::<T>().then_some(drop_value::<T> as crate::component::DropFn);
        let mut values = BlobVec::new(Layout::new::<T>(), drop);
        // Exactly the rows: checked distinct rows of the entity list read (module docs).
        values.reserve_exact(self.expected);
        for i in 0..self.expected {
            let write = |slot: NonNull<u8>| {
                let slot = slot.cast::<T>();
                let mut written = false;
                // SAFETY: `slot` is the room after the buffer's last item, which nothing
                // else touches while `push_with_unchecked` runs this closure.
                let seed = unsafe { InPlace::new(slot, &mut written) };
                let read = ctx.within(seq.next_element_seed(seed), || Part::Index(i));
                if written && !matches!(read, Ok(Some(()))) {
                    // SAFETY: the seed wrote a `T` into the slot, and the format failed after
                    // it; the slot is not counted, so the value is dropped here, once.
                    unsafe { std::ptr::drop_in_place(slot.as_ptr()) };
                }
                match read {
                    Ok(Some(())) if written => Ok(()),
                    Ok(_) => Err(ctx.fail(SnapshotErrorKind::ValueCount {
                        rows: self.expected,
                        values: i,
                    })),
                    Err(e) => Err(e),
                }
            };
            // SAFETY: the buffer holds `T`s (made from `T`'s layout and drop), and a
            // component is `Send + Sync`; `write` answers `Ok` only once the seed wrote a
            // `T` into the slot, and leaves nothing there on `Err`; room for `expected`
            // values was reserved.
            unsafe { values.push_with_unchecked(write)? };
        }
        let extra = ctx.within(seq.next_element::<T>(), || Part::Index(self.expected))?;
        if extra.is_some() {
            return Err(ctx.fail(SnapshotErrorKind::ValueCount {
                rows: self.expected,
                values: self.expected + 1,
            }));
        }
        Ok(values)
    }
}

/// Decodes one `T` straight into an uninitialised slot (answering `()`), so a column's
/// values are not carried through an `Option<T>` on the way into the buffer.
///
/// `written` tells the caller whether the seed wrote a value, so that a format failing
/// after the value (a separator, say) does not leak it.
///
/// # Invariant
/// `slot` is writable, aligned room for one `T`, uninitialised or holding nothing that
/// needs dropping, which nothing else reads or writes until the seed has run: the slot
/// after a buffer's last item, from [`BlobVec::push_with_unchecked`]. On success the seed
/// leaves an initialised `T` there and sets `written`; on error, nothing.
struct InPlace<'w, T> {
    slot: NonNull<T>,
    written: &'w mut bool,
}

impl<'w, T> InPlace<'w, T> {
    /// A seed writing into `slot`.
    ///
    /// # Safety
    /// `slot` as the type's invariant says.
    #[inline]
    unsafe fn new(slot: NonNull<T>, written: &'w mut bool) -> Self {
        InPlace { slot, written }
    }
}

impl<'de, T: DeserializeOwned> DeserializeSeed<'de> for InPlace<'_, T> {
    type Value = ();
    #[inline]
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        // A text format reads the strings a save wrote for non-finite floats (`nonfinite`);
        // a binary one is read as it is.
        let value = if deserializer.is_human_readable() {
            T::deserialize(NonFiniteDe(deserializer))?
        } else {
            T::deserialize(deserializer)?
        };
        // SAFETY: the slot is writable room for one `T` that nothing else uses (type
        // invariant); writing does not drop what was there, which was nothing.
        unsafe { self.slot.as_ptr().write(value) };
        *self.written = true;
        Ok(())
    }
}

/// Drops a `T` in place (a staging buffer's drop function).
///
/// # Safety
/// `ptr` points to an initialised `T` not used afterwards.
unsafe fn drop_value<T>(ptr: *mut u8) {
    // SAFETY: as the caller promises.
    unsafe { std::ptr::drop_in_place(ptr.cast::<T>()) }
}

/// A run-time column's values: byte strings, each decoded by the codec into the buffer.
struct DynamicValuesSeed<'c, 'r, 'i, L> {
    ctx: &'c Ctx<'r, L>,
    info: &'i DynamicInfo,
    expected: usize,
}

impl<'de, L: Entries> DeserializeSeed<'de> for DynamicValuesSeed<'_, '_, '_, L> {
    type Value = BlobVec;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<BlobVec, D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de, L: Entries> Visitor<'de> for DynamicValuesSeed<'_, '_, '_, L> {
    type Value = BlobVec;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a list of {} byte strings", self.expected)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<BlobVec, A::Error> {
        let ctx = self.ctx;
        let mut values = BlobVec::new(self.info.layout, self.info.descriptor.drop);
        values.reserve_exact(self.expected);
        for i in 0..=self.expected {
            let seed = BytesSeed {
                ctx,
                info: self.info,
                values: &mut values,
            };
            let read = ctx.within(seq.next_element_seed(seed), || Part::Index(i))?;
            match (read, i == self.expected) {
                (Some(()), false) | (None, true) => {}
                (None, false) => {
                    return Err(ctx.fail(SnapshotErrorKind::ValueCount {
                        rows: self.expected,
                        values: i,
                    }))
                }
                (Some(()), true) => {
                    return Err(ctx.fail(SnapshotErrorKind::ValueCount {
                        rows: self.expected,
                        values: i + 1,
                    }))
                }
            }
        }
        Ok(values)
    }
}

/// One byte string, decoded into the next slot of `values`.
struct BytesSeed<'a, 'c, 'r, L> {
    ctx: &'c Ctx<'r, L>,
    info: &'a DynamicInfo,
    values: &'a mut BlobVec,
}

impl<'de, L: Entries> DeserializeSeed<'de> for BytesSeed<'_, '_, '_, L> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_bytes(self)
    }
}

impl<L: Entries> BytesSeed<'_, '_, '_, L> {
    fn decode<E: de::Error>(self, bytes: &[u8]) -> Result<(), E> {
        let size = self.info.layout.size();
        let result = match self.info.codec.0 {
            Codec::PlainBytes if bytes.len() != size => Err(format!(
                "{} bytes for a {size}-byte plain-data component",
                bytes.len()
            )),
            Codec::PlainBytes => {
                // SAFETY: a plain-data component (no drop function: the registry checked)
                // is valid for any `size` initialised bytes; the slot has room for them.
                unsafe {
                    self.values.push_with(|slot| {
                        std::ptr::copy_nonoverlapping(bytes.as_ptr(), slot.as_ptr(), size);
                        Ok::<(), String>(())
                    })
                }
            }
            // SAFETY: the slot is writable for one value of the component's layout; on
            // `Ok` the codec has written a valid value (the promise its maker gave to the
            // `unsafe` `DynamicCodec::functions`).
            Codec::Functions { load, .. } => unsafe {
                self.values.push_with(|slot: NonNull<u8>| load(bytes, slot))
            },
        };
        result.map_err(|message| self.ctx.fail(SnapshotErrorKind::Codec(message)))
    }
}

impl<'de, L: Entries> Visitor<'de> for BytesSeed<'_, '_, '_, L> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a byte string")
    }
    fn visit_bytes<E: de::Error>(self, bytes: &[u8]) -> Result<(), E> {
        self.decode(bytes)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let hint = seq.size_hint().unwrap_or(0);
        let mut bytes = Vec::with_capacity(cautious(hint, 1));
        while let Some(byte) = seq.next_element::<u8>()? {
            bytes.push(byte);
        }
        self.decode(&bytes)
    }
}

/// The `resources` list.
struct ResourcesSeed<'c, 'r, L>(&'c Ctx<'r, L>);

impl<'de, L: Entries> DeserializeSeed<'de> for ResourcesSeed<'_, '_, L> {
    type Value = Vec<StagedResource>;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de, L: Entries> Visitor<'de> for ResourcesSeed<'_, '_, L> {
    type Value = Vec<StagedResource>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of resources")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let ctx = self.0;
        let mut resources: Vec<StagedResource> = Vec::new();
        loop {
            let i = resources.len();
            let read = ctx.within(seq.next_element_seed(ResourceSeed(ctx)), || Part::Index(i))?;
            let Some(resource) = read else {
                return Ok(resources);
            };
            if resources.iter().any(|r| r.entry == resource.entry) {
                ctx.at(Part::Index(i));
                let name = ctx.registry.resources[resource.entry].name.to_string();
                return Err(ctx.fail(SnapshotErrorKind::DuplicateResource(name)));
            }
            resources.push(resource);
        }
    }
}

/// One resource: `{ name, value }`.
struct ResourceSeed<'c, 'r, L>(&'c Ctx<'r, L>);

const RESOURCE_FIELDS: &[&str] = &["name", "value"];

struct_seed!(
    ResourceSeed,
    StagedResource,
    "Resource",
    RESOURCE_FIELDS,
    "a resource"
);

impl<L: Entries> ResourceSeed<'_, '_, L> {
    fn read<'de, F: Fields<'de>>(self, mut fields: F) -> Result<StagedResource, F::Error> {
        let ctx = self.0;
        let name: String = ctx.within(fields.next("name", PhantomData), || Part::Field("name"))?;
        let Some(entry) = ctx.registry.resource_named(&name) else {
            return Err(ctx.fail(SnapshotErrorKind::UnknownResource(name)));
        };
        let slot = ctx.registry.resources[entry].slot;
        let value = ctx.registry.list.dispatch(
            slot,
            ReadResource {
                fields: &mut fields,
                _input: PhantomData,
            },
        );
        let value = ctx.within(ctx.within(value, || Part::Field("value")), || {
            Part::Name(name)
        })?;
        fields.finish()?;
        Ok(StagedResource { entry, value })
    }
}

/// Reads the `value` field of a resource with the entry's type.
struct ReadResource<'a, 'de, F> {
    fields: &'a mut F,
    _input: PhantomData<fn(&'de ())>,
}

impl<'de, F: Fields<'de>> TypedVisitor for ReadResource<'_, 'de, F> {
    type Output = Result<crate::snapshot::registry::BoxedResource, F::Error>;

    fn component<T: Component + Serialize + DeserializeOwned>(self) -> Self::Output {
        Err(de::Error::custom("a component entry used as a resource"))
    }

    fn resource<R: Resource + Serialize + DeserializeOwned>(self) -> Self::Output {
        let value: R = self.fields.next("value", NonFiniteSeed(PhantomData))?;
        Ok(Box::new(value))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicIsize, Ordering::SeqCst};

    use serde::de::value::{Error as ValueError, U32Deserializer};

    use super::*;

    /// Values of [`Counted`] alive.
    static LIVE: AtomicIsize = AtomicIsize::new(0);

    /// A component that counts its live values.
    struct Counted;
    impl Component for Counted {
        type Mutability = crate::component::Mutable;
    }
    impl Drop for Counted {
        fn drop(&mut self) {
            LIVE.fetch_sub(1, SeqCst);
        }
    }
    impl<'de> Deserialize<'de> for Counted {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            u32::deserialize(deserializer)?;
            LIVE.fetch_add(1, SeqCst);
            Ok(Counted)
        }
    }

    /// A list whose element `fail_at` decodes and then fails, as a format does when what
    /// follows a value is broken.
    struct FailsAfterValue {
        next: u32,
        fail_at: u32,
    }

    impl<'de> SeqAccess<'de> for FailsAfterValue {
        type Error = ValueError;
        fn next_element_seed<Sd: DeserializeSeed<'de>>(
            &mut self,
            seed: Sd,
        ) -> Result<Option<Sd::Value>, ValueError> {
            let i = self.next;
            self.next += 1;
            let value = seed.deserialize(U32Deserializer::<ValueError>::new(i))?;
            if i == self.fail_at {
                return Err(de::Error::custom("broken after the value"));
            }
            Ok(Some(value))
        }
    }

    #[test]
    fn a_value_the_format_fails_after_is_dropped_once() {
        let registry = SnapshotRegistry::new();
        let ctx = Ctx::new(&registry);
        let seed = TypedValuesSeed::<_, Counted> {
            ctx: &ctx,
            expected: 5,
            _type: PhantomData,
        };
        let err = seed
            .visit_seq(FailsAfterValue {
                next: 0,
                fail_at: 2,
            })
            .expect_err("the list fails");
        assert!(err.to_string().contains("broken after the value"), "{err}");
        assert_eq!(LIVE.load(SeqCst), 0, "every decoded value dropped, once");
    }
}
