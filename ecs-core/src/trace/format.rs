//! The trace file: a header, the tables the ops refer to, then the op stream.
//!
//! ```text
//!   "ECSTRACE"  version (u16, little-endian)
//!   components: count, then per component: name, size, align, flags (1 sparse, 2 tracked)
//!   systems:    count, then names
//!   sets:       count, then per set: length, component indices
//!   shapes:     count, then per query shape: slots (component, role and access in one
//!               byte), then its filter: a count of conditions, each a kind byte (0 with,
//!               1 without, 2 added, 3 changed: then a component; 4 any, 5 all: then
//!               its parts the same way, at most 16 levels deep)
//!   ops:        frames, op count, byte length, then the op bytes
//! ```
//!
//! Every number is an unsigned LEB128 varint and every name a varint length and UTF-8
//! bytes. An op is one tag byte (the kind in the low four bits, a small operand in the high
//! four: a component, set, shape or system index below 15, or 15 when the operand follows
//! as a varint), then its operands. Entities are *spawn ordinals* (the n-th entity the
//! trace spawned is `n`, from 1; 0 names a handle the trace never spawned), written as the
//! zigzag-coded difference from the previous entity an op named, so a run of ops on
//! neighbouring entities costs a byte an entity.
//!
//! Reading validates everything before anything is handed out: every length against the
//! bytes that remain (no allocation is sized by a number the file states), every index
//! against its table, every entity against the entities spawned so far, the op count and
//! the end of the file. An error names what is wrong and the byte offset where.

use std::fmt;

use super::recorder::GetSlot;
use crate::component::StorageKind;
use crate::storage::SlotRole;

/// The first bytes of every trace file.
pub const MAGIC: [u8; 8] = *b"ECSTRACE";

/// The format version this build writes (it reads every version from 1 to this one;
/// version 2 added [`Op::Align`]).
pub const VERSION: u16 = 2;

/// One component a trace names: its layout and declared storage, never its values.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TraceComponent {
    /// The type's name (a named instance's as `Type (Name)`).
    pub name: String,
    /// Size of one value in bytes (padded to the alignment).
    pub size: u32,
    /// Alignment in bytes (a power of two).
    pub align: u32,
    /// Where the program declared it lives in a hybrid world.
    pub storage: StorageKind,
    /// Whether the program tracks its changes.
    pub tracks_changes: bool,
}

/// How a query slot uses its component.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SlotAccess {
    /// Only for matching (`With`, `Without`, a change filter's presence).
    Filter,
    /// Fetched for reading.
    Read,
    /// Fetched for writing.
    Write,
}

/// One slot of a recorded query.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TraceSlot {
    /// Index into [`Trace::components`].
    pub component: u32,
    /// How the slot affects matching.
    pub role: SlotRole,
    /// How the query uses the component.
    pub access: SlotAccess,
}

/// A change filter of a query.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TraceChange {
    /// `Added<T>`.
    Added,
    /// `Changed<T>`.
    Changed,
}

/// A condition of a query's filter, on trace components (the counterpart of a run-time
/// query's [`DynFilter`](crate::query::DynFilter)).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TraceFilter {
    /// `With<T>`.
    With(u32),
    /// `Without<T>`.
    Without(u32),
    /// `Added<T>` or `Changed<T>`.
    Change(u32, TraceChange),
    /// `Or<(..)>`: any part holds.
    Any(Vec<TraceFilter>),
    /// A tuple of filters inside an `Or`: every part holds.
    All(Vec<TraceFilter>),
}

impl TraceFilter {
    /// Calls `f` with every change filter in this condition, nested ones too.
    pub fn for_each_change(&self, f: &mut impl FnMut(u32, TraceChange)) {
        match self {
            TraceFilter::Change(c, kind) => f(*c, *kind),
            TraceFilter::Any(parts) | TraceFilter::All(parts) => {
                parts.iter().for_each(|p| p.for_each_change(f))
            }
            TraceFilter::With(_) | TraceFilter::Without(_) => {}
        }
    }
}

/// A query as recorded: the slots it fetches and matches by, and its filter.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct QueryShape {
    /// The slots, in the query's order (a slot only filters when its access says so).
    pub slots: Vec<TraceSlot>,
    /// The filter, as conditions that must all hold (empty: every entity the slots
    /// match).
    pub filter: Vec<TraceFilter>,
}

impl QueryShape {
    /// The change filters anywhere in the filter: component index and kind.
    pub fn changes(&self) -> Vec<(u32, TraceChange)> {
        let mut out = Vec::new();
        for part in &self.filter {
            part.for_each_change(&mut |c, kind| out.push((c, kind)));
        }
        out
    }
}

/// One recorded operation. Entities are spawn ordinals (see the module docs); a `0` names
/// a handle the trace never spawned (a stale or foreign one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// A frame ended (a schedule run, or [`World::trace_frame`](crate::World::trace_frame)).
    Frame,
    /// The ops that follow come from this system (index into [`Trace::systems`]), or from
    /// outside any system (`None`).
    System(Option<u32>),
    /// `count` entities spawned with the components of set `set`, one bundle each: the
    /// next `count` ordinals.
    Spawn {
        /// Index into [`Trace::sets`].
        set: u32,
        /// How many entities.
        count: u32,
    },
    /// `count` entities stored column by column (a snapshot load), each with set `set`.
    SpawnColumns {
        /// Index into [`Trace::sets`].
        set: u32,
        /// How many entities.
        count: u32,
    },
    /// A component added to an entity that lacked it.
    Insert {
        /// The entity's ordinal.
        entity: u32,
        /// Index into [`Trace::components`].
        component: u32,
    },
    /// Several components added at once (a queued bundle: one row move on tables).
    InsertMany {
        /// The entity's ordinal.
        entity: u32,
        /// Index into [`Trace::sets`].
        set: u32,
    },
    /// A component removed from an entity.
    Remove {
        /// The entity's ordinal.
        entity: u32,
        /// Index into [`Trace::components`].
        component: u32,
    },
    /// An entity and all its components removed.
    Despawn {
        /// The entity's ordinal.
        entity: u32,
    },
    /// Every entity removed.
    Clear,
    /// The program asked the world to align a component's values with the tables
    /// ([`World::align_with_tables`](crate::World::align_with_tables)); from version 2.
    Align {
        /// Index into [`Trace::components`].
        component: u32,
    },
    /// One run of a query.
    Query {
        /// Index into [`Trace::shapes`].
        shape: u32,
        /// The items the program took from the run.
        rows: u64,
        /// Whether it took all of them (a run left early replays as a full run).
        complete: bool,
        /// Which of the program's query states ran it, when its shape filters changes
        /// (what a change filter admits depends on when *that state* last ran): 1, 2, ...
        /// in the order the states first ran while recording. 0 when the shape filters no
        /// changes, so any state takes the same rows.
        state: u32,
        /// Whether the run iterated the window of its state's previous run again instead of
        /// starting a new one (a system's query iterated twice in one system run).
        repeat: bool,
    },
    /// A tracked component of one entity marked changed by a write the other ops do not
    /// show (through `Mut`, `get_mut`, a query's `&mut`): written before the next run of a
    /// query that filters changes, so a replay's change filters take the rows the
    /// program's took.
    Changed {
        /// The entity's ordinal.
        entity: u32,
        /// Index into [`Trace::components`].
        component: u32,
    },
    /// A look-up of one entity's component by the program (`get`, `get_mut`, a query's
    /// `get`, an entity reference's `get`).
    Get {
        /// The entity's ordinal (0: a handle the trace never spawned).
        entity: u32,
        /// Index into [`Trace::components`].
        component: u32,
        /// Whether the program could write through it.
        write: bool,
        /// Whether the entity had the component.
        found: bool,
    },
}

/// What is wrong with a trace file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TraceErrorKind {
    /// The file does not start with `ECSTRACE`.
    NotATrace,
    /// Written by another version of the format.
    Version {
        /// The file's version.
        found: u16,
    },
    /// The file ends in the middle of something.
    Truncated {
        /// What was being read.
        reading: &'static str,
    },
    /// A varint longer than 64 bits.
    BadNumber,
    /// A number out of its range (a length longer than the bytes that follow, an index
    /// past its table, a layout that is not one).
    OutOfRange {
        /// What the number is.
        what: &'static str,
        /// Its value.
        value: u64,
        /// The largest value allowed.
        max: u64,
    },
    /// A name that is not UTF-8.
    BadName,
    /// An op tag naming no op kind.
    BadOp {
        /// The tag byte.
        tag: u8,
    },
    /// The op stream holds another number of ops than the header says.
    OpCount {
        /// The header's count.
        stated: u64,
        /// The ops found.
        found: u64,
    },
    /// Bytes after the op stream.
    TrailingBytes,
    /// A query state that ran queries of two shapes.
    StateReshaped {
        /// The state.
        state: u32,
        /// The shape of this run.
        shape: u32,
        /// The shape of its first run.
        first: u32,
    },
}

/// A trace file that could not be read: what is wrong, and at which byte.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceError {
    /// Byte offset in the file (or in the op stream's bytes, for errors inside it: see
    /// `in_ops`).
    pub at: usize,
    /// Whether `at` counts from the start of the op bytes rather than of the file.
    pub in_ops: bool,
    /// What is wrong.
    pub kind: TraceErrorKind,
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let place = if self.in_ops { "op byte" } else { "byte" };
        write!(f, "trace {place} {}: ", self.at)?;
        match &self.kind {
            TraceErrorKind::NotATrace => write!(f, "not a trace file (no ECSTRACE header)"),
            TraceErrorKind::Version { found } => write!(
                f,
                "format version {found}, but this build reads versions 1 to {VERSION}"
            ),
            TraceErrorKind::Truncated { reading } => {
                write!(f, "the file ends in the middle of {reading}")
            }
            TraceErrorKind::BadNumber => write!(f, "a number longer than 64 bits"),
            TraceErrorKind::OutOfRange { what, value, max } => {
                write!(f, "{what} is {value}, at most {max} allowed")
            }
            TraceErrorKind::BadName => write!(f, "a name that is not UTF-8"),
            TraceErrorKind::BadOp { tag } => write!(f, "op tag {tag:#04x} names no operation"),
            TraceErrorKind::OpCount { stated, found } => write!(
                f,
                "the header states {stated} ops, the stream holds {found}"
            ),
            TraceErrorKind::TrailingBytes => write!(f, "bytes after the end of the trace"),
            TraceErrorKind::StateReshaped {
                state,
                shape,
                first,
            } => write!(
                f,
                "query state {state} runs shape {shape} after running shape {first}"
            ),
        }
    }
}

impl std::error::Error for TraceError {}

/// A recorded trace: the tables and the encoded op stream (see the module docs).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Trace {
    pub(crate) components: Vec<TraceComponent>,
    pub(crate) systems: Vec<String>,
    pub(crate) sets: Vec<Vec<u32>>,
    pub(crate) shapes: Vec<QueryShape>,
    pub(crate) frames: u64,
    pub(crate) op_count: u64,
    pub(crate) ops: Vec<u8>,
}

impl Trace {
    /// The components the ops name, by index.
    pub fn components(&self) -> &[TraceComponent] {
        &self.components
    }

    /// The systems the ops name, by index.
    pub fn systems(&self) -> &[String] {
        &self.systems
    }

    /// The component sets spawns and multi-inserts name: component indices, sorted.
    pub fn sets(&self) -> &[Vec<u32>] {
        &self.sets
    }

    /// The query shapes query runs name.
    pub fn shapes(&self) -> &[QueryShape] {
        &self.shapes
    }

    /// How many frames ended in the trace.
    pub fn frames(&self) -> u64 {
        self.frames
    }

    /// How many ops the trace holds.
    pub fn op_count(&self) -> u64 {
        self.op_count
    }

    /// The encoded op stream's size in bytes.
    pub fn op_bytes(&self) -> usize {
        self.ops.len()
    }

    /// The ops, in order. (A trace is validated when read, so decoding cannot fail.)
    pub fn ops(&self) -> Ops<'_> {
        Ops {
            reader: Reader::new(&self.ops, true),
            last: 0,
        }
    }

    /// The trace as a file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.ops.len() + 64);
        out.extend_from_slice(&MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        put(&mut out, self.components.len() as u64);
        for c in &self.components {
            put_name(&mut out, &c.name);
            put(&mut out, u64::from(c.size));
            put(&mut out, u64::from(c.align));
            let flags =
                u8::from(c.storage == StorageKind::Sparse) | (u8::from(c.tracks_changes) << 1);
            out.push(flags);
        }
        put(&mut out, self.systems.len() as u64);
        for s in &self.systems {
            put_name(&mut out, s);
        }
        put(&mut out, self.sets.len() as u64);
        for set in &self.sets {
            put(&mut out, set.len() as u64);
            for &c in set {
                put(&mut out, u64::from(c));
            }
        }
        put(&mut out, self.shapes.len() as u64);
        for shape in &self.shapes {
            put(&mut out, shape.slots.len() as u64);
            for slot in &shape.slots {
                put(&mut out, u64::from(slot.component));
                out.push(role_code(slot.role) | (access_code(slot.access) << 2));
            }
            put_filters(&mut out, &shape.filter);
        }
        put(&mut out, self.frames);
        put(&mut out, self.op_count);
        put(&mut out, self.ops.len() as u64);
        out.extend_from_slice(&self.ops);
        out
    }

    /// Reads a trace file's bytes, validating all of it (see the module docs).
    ///
    /// # Errors
    /// A [`TraceError`] naming what is wrong and where.
    pub fn from_bytes(bytes: &[u8]) -> Result<Trace, TraceError> {
        let mut r = Reader::new(bytes, false);
        if r.take(MAGIC.len(), "the header")? != MAGIC {
            return Err(r.error_at(0, TraceErrorKind::NotATrace));
        }
        let version = r.take(2, "the version")?;
        let version = u16::from_le_bytes([version[0], version[1]]);
        if !(1..=VERSION).contains(&version) {
            return Err(r.error_at(8, TraceErrorKind::Version { found: version }));
        }
        let mut trace = Trace::default();
        let count = r.count("the component count", 4)?;
        trace.components = Vec::with_capacity(count);
        for _ in 0..count {
            trace.components.push(read_component(&mut r)?);
        }
        let count = r.count("the system count", 1)?;
        trace.systems = Vec::with_capacity(count);
        for _ in 0..count {
            trace.systems.push(r.name()?);
        }
        let components = trace.components.len() as u64;
        let count = r.count("the set count", 1)?;
        trace.sets = Vec::with_capacity(count);
        for _ in 0..count {
            let len = r.count("a set's length", 1)?;
            let mut set = Vec::with_capacity(len);
            for _ in 0..len {
                set.push(r.index("a set's component", components)?);
            }
            trace.sets.push(set);
        }
        let count = r.count("the shape count", 2)?;
        trace.shapes = Vec::with_capacity(count);
        for _ in 0..count {
            trace.shapes.push(read_shape(&mut r, components)?);
        }
        trace.frames = r.number("the frame count")?;
        trace.op_count = r.number("the op count")?;
        let len = r.count("the op stream's length", 1)?;
        let start = r.at;
        trace.ops = r.take(len, "the op stream")?.to_vec();
        if r.at != bytes.len() {
            return Err(r.error_at(r.at, TraceErrorKind::TrailingBytes));
        }
        trace.validate_ops().map_err(|mut e| {
            e.at += start;
            e.in_ops = false;
            e
        })?;
        Ok(trace)
    }

    /// Decodes every op once, checking every index and entity and the op count.
    fn validate_ops(&self) -> Result<(), TraceError> {
        let mut ops = self.ops();
        let mut found = 0u64;
        let mut spawned = 0u64;
        let mut frames = 0u64;
        let mut state_shapes: Vec<u32> = Vec::new();
        while ops.reader.at < self.ops.len() {
            let at = ops.reader.at;
            let op = ops.decode()?;
            found += 1;
            let bad = |what, value: u64, max: u64| {
                Err(ops_error(
                    at,
                    TraceErrorKind::OutOfRange { what, value, max },
                ))
            };
            let entity_ok = |e: u32| u64::from(e) <= spawned;
            match op {
                Op::Frame => frames += 1,
                Op::System(Some(s)) if s as usize >= self.systems.len() => {
                    return bad(
                        "a system index",
                        u64::from(s),
                        (self.systems.len() as u64).saturating_sub(1),
                    )
                }
                Op::Spawn { set, count } | Op::SpawnColumns { set, count } => {
                    self.check_set(at, set)?;
                    spawned += u64::from(count);
                    if spawned > u64::from(u32::MAX - 1) {
                        return bad(
                            "the number of entities spawned",
                            spawned,
                            u64::from(u32::MAX - 1),
                        );
                    }
                }
                Op::InsertMany { entity, set } => {
                    self.check_set(at, set)?;
                    if !entity_ok(entity) {
                        return bad("an entity ordinal", u64::from(entity), spawned);
                    }
                }
                Op::Insert { entity, component }
                | Op::Remove { entity, component }
                | Op::Changed { entity, component }
                | Op::Get {
                    entity, component, ..
                } => {
                    self.check_component(at, component)?;
                    if !entity_ok(entity) {
                        return bad("an entity ordinal", u64::from(entity), spawned);
                    }
                }
                Op::Align { component } => self.check_component(at, component)?,
                Op::Despawn { entity } if !entity_ok(entity) => {
                    return bad("an entity ordinal", u64::from(entity), spawned)
                }
                Op::Query { shape, .. } if shape as usize >= self.shapes.len() => {
                    return bad(
                        "a shape index",
                        u64::from(shape),
                        (self.shapes.len() as u64).saturating_sub(1),
                    )
                }
                Op::Query { shape, state, .. } if state > 0 => {
                    // States are numbered in the order they first ran; each keeps its shape.
                    match state_shapes.get(state as usize - 1) {
                        Some(&first) if first != shape => {
                            return Err(ops_error(
                                at,
                                TraceErrorKind::StateReshaped {
                                    state,
                                    shape,
                                    first,
                                },
                            ))
                        }
                        Some(_) => {}
                        None if state as usize == state_shapes.len() + 1 => {
                            state_shapes.push(shape)
                        }
                        None => {
                            return bad(
                                "a query state",
                                u64::from(state),
                                state_shapes.len() as u64 + 1,
                            )
                        }
                    }
                }
                _ => {}
            }
        }
        if found != self.op_count {
            return Err(ops_error(
                self.ops.len(),
                TraceErrorKind::OpCount {
                    stated: self.op_count,
                    found,
                },
            ));
        }
        if frames != self.frames {
            return Err(ops_error(
                self.ops.len(),
                TraceErrorKind::OutOfRange {
                    what: "the frame count",
                    value: self.frames,
                    max: frames,
                },
            ));
        }
        Ok(())
    }

    fn check_set(&self, at: usize, set: u32) -> Result<(), TraceError> {
        if (set as usize) < self.sets.len() {
            return Ok(());
        }
        Err(ops_error(
            at,
            TraceErrorKind::OutOfRange {
                what: "a set index",
                value: u64::from(set),
                max: (self.sets.len() as u64).saturating_sub(1),
            },
        ))
    }

    fn check_component(&self, at: usize, component: u32) -> Result<(), TraceError> {
        if (component as usize) < self.components.len() {
            return Ok(());
        }
        Err(ops_error(
            at,
            TraceErrorKind::OutOfRange {
                what: "a component index",
                value: u64::from(component),
                max: (self.components.len() as u64).saturating_sub(1),
            },
        ))
    }
}

fn ops_error(at: usize, kind: TraceErrorKind) -> TraceError {
    TraceError {
        at,
        in_ops: true,
        kind,
    }
}

fn read_component(r: &mut Reader<'_>) -> Result<TraceComponent, TraceError> {
    let name = r.name()?;
    let at = r.at;
    let size = r.number("a component's size")?;
    let align = r.number("a component's alignment")?;
    let flags = r.byte("a component's flags")?;
    let max_align = 1u64 << 29;
    if align == 0 || !align.is_power_of_two() || align > max_align {
        return Err(r.error_at(
            at,
            TraceErrorKind::OutOfRange {
                what: "a component's alignment",
                value: align,
                max: max_align,
            },
        ));
    }
    let max_size = u64::from(u32::MAX) - (u64::from(u32::MAX) % align);
    if size > max_size || size % align != 0 {
        return Err(r.error_at(
            at,
            TraceErrorKind::OutOfRange {
                what: "a component's size (a multiple of its alignment)",
                value: size,
                max: max_size,
            },
        ));
    }
    if flags > 3 {
        return Err(r.error_at(
            r.at - 1,
            TraceErrorKind::OutOfRange {
                what: "a component's flags",
                value: u64::from(flags),
                max: 3,
            },
        ));
    }
    Ok(TraceComponent {
        name,
        size: size as u32,
        align: align as u32,
        storage: if flags & 1 == 1 {
            StorageKind::Sparse
        } else {
            StorageKind::Table
        },
        tracks_changes: flags & 2 == 2,
    })
}

fn read_shape(r: &mut Reader<'_>, components: u64) -> Result<QueryShape, TraceError> {
    let len = r.count("a shape's slot count", 2)?;
    let mut shape = QueryShape {
        slots: Vec::with_capacity(len),
        filter: Vec::new(),
    };
    for _ in 0..len {
        let component = r.index("a slot's component", components)?;
        let at = r.at;
        let code = r.byte("a slot's role and access")?;
        let (Some(role), Some(access)) = (role_of(code & 3), access_of(code >> 2)) else {
            return Err(r.error_at(
                at,
                TraceErrorKind::OutOfRange {
                    what: "a slot's role and access code",
                    value: u64::from(code),
                    max: 10,
                },
            ));
        };
        shape.slots.push(TraceSlot {
            component,
            role,
            access,
        });
    }
    shape.filter = read_filters(r, components, 0)?;
    Ok(shape)
}

/// How deep `Or`s and tuples may nest in a file (a typed filter nests a few levels).
const FILTER_DEPTH: usize = 16;

const WITH: u8 = 0;
const WITHOUT: u8 = 1;
const ADDED: u8 = 2;
const CHANGED: u8 = 3;
const ANY: u8 = 4;
const ALL: u8 = 5;

/// Writes conditions: their count, then each as a kind byte and its component or parts.
fn put_filters(out: &mut Vec<u8>, filters: &[TraceFilter]) {
    put(out, filters.len() as u64);
    for filter in filters {
        match filter {
            TraceFilter::With(c) => put_filter_component(out, WITH, *c),
            TraceFilter::Without(c) => put_filter_component(out, WITHOUT, *c),
            TraceFilter::Change(c, TraceChange::Added) => put_filter_component(out, ADDED, *c),
            TraceFilter::Change(c, TraceChange::Changed) => put_filter_component(out, CHANGED, *c),
            TraceFilter::Any(parts) => {
                out.push(ANY);
                put_filters(out, parts);
            }
            TraceFilter::All(parts) => {
                out.push(ALL);
                put_filters(out, parts);
            }
        }
    }
}

fn put_filter_component(out: &mut Vec<u8>, kind: u8, component: u32) {
    out.push(kind);
    put(out, u64::from(component));
}

/// Reads what [`put_filters`] wrote, `depth` levels inside `Or`s and tuples.
fn read_filters(
    r: &mut Reader<'_>,
    components: u64,
    depth: usize,
) -> Result<Vec<TraceFilter>, TraceError> {
    let len = r.count("a filter's condition count", 2)?;
    let mut filters = Vec::with_capacity(len);
    for _ in 0..len {
        let at = r.at;
        let kind = r.byte("a filter condition's kind")?;
        let nested = |r: &mut Reader<'_>| {
            if depth + 1 >= FILTER_DEPTH {
                return Err(r.error_at(
                    at,
                    TraceErrorKind::OutOfRange {
                        what: "a filter's nesting depth",
                        value: depth as u64 + 1,
                        max: FILTER_DEPTH as u64 - 1,
                    },
                ));
            }
            read_filters(r, components, depth + 1)
        };
        let component = |r: &mut Reader<'_>| r.index("a filter's component", components);
        filters.push(match kind {
            WITH => TraceFilter::With(component(r)?),
            WITHOUT => TraceFilter::Without(component(r)?),
            ADDED => TraceFilter::Change(component(r)?, TraceChange::Added),
            CHANGED => TraceFilter::Change(component(r)?, TraceChange::Changed),
            ANY => TraceFilter::Any(nested(r)?),
            ALL => TraceFilter::All(nested(r)?),
            other => {
                return Err(r.error_at(
                    at,
                    TraceErrorKind::OutOfRange {
                        what: "a filter condition's kind",
                        value: u64::from(other),
                        max: u64::from(ALL),
                    },
                ))
            }
        });
    }
    Ok(filters)
}

fn role_code(role: SlotRole) -> u8 {
    match role {
        SlotRole::Required => 0,
        SlotRole::Optional => 1,
        SlotRole::Excluded => 2,
    }
}

fn role_of(code: u8) -> Option<SlotRole> {
    match code {
        0 => Some(SlotRole::Required),
        1 => Some(SlotRole::Optional),
        2 => Some(SlotRole::Excluded),
        _ => None,
    }
}

fn access_code(access: SlotAccess) -> u8 {
    match access {
        SlotAccess::Filter => 0,
        SlotAccess::Read => 1,
        SlotAccess::Write => 2,
    }
}

fn access_of(code: u8) -> Option<SlotAccess> {
    match code {
        0 => Some(SlotAccess::Filter),
        1 => Some(SlotAccess::Read),
        2 => Some(SlotAccess::Write),
        _ => None,
    }
}

/// Appends `value` as an unsigned LEB128 varint.
#[inline]
pub(crate) fn put(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push(value as u8 | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

fn put_name(out: &mut Vec<u8>, name: &str) {
    put(out, name.len() as u64);
    out.extend_from_slice(name.as_bytes());
}

// Op tags: the kind in the low four bits.
pub(crate) const FRAME: u8 = 0;
pub(crate) const SYSTEM: u8 = 1;
pub(crate) const SPAWN: u8 = 2;
pub(crate) const SPAWN_COLUMNS: u8 = 3;
pub(crate) const INSERT: u8 = 4;
pub(crate) const INSERT_MANY: u8 = 5;
pub(crate) const REMOVE: u8 = 6;
pub(crate) const DESPAWN: u8 = 7;
pub(crate) const CLEAR: u8 = 8;
pub(crate) const QUERY: u8 = 9;
pub(crate) const GET: u8 = 10;
pub(crate) const GET_MUT: u8 = 11;
pub(crate) const GET_MISSING: u8 = 12;
pub(crate) const GET_MUT_MISSING: u8 = 13;
pub(crate) const MARKED: u8 = 14;
pub(crate) const ALIGN: u8 = 15;

/// The high nibble that says "the operand follows as a varint".
const WIDE: u8 = 15;

/// Writes ops (see the module docs for the encoding).
#[derive(Clone, Debug, Default)]
pub(crate) struct OpWriter {
    pub(crate) bytes: Vec<u8>,
    pub(crate) count: u64,
    pub(crate) frames: u64,
    last: u32,
}

impl OpWriter {
    /// A tag with its small operand, the operand following when it does not fit.
    #[inline]
    fn tag(&mut self, kind: u8, operand: u32) {
        self.count += 1;
        if operand < u32::from(WIDE) {
            self.bytes.push(kind | ((operand as u8) << 4));
        } else {
            self.bytes.push(kind | (WIDE << 4));
            put(&mut self.bytes, u64::from(operand));
        }
    }

    #[inline]
    fn entity(&mut self, ordinal: u32) {
        let delta = i64::from(ordinal) - i64::from(self.last);
        self.last = ordinal;
        put(&mut self.bytes, ((delta << 1) ^ (delta >> 63)) as u64);
    }

    /// Appends `op`.
    pub(crate) fn push(&mut self, op: Op) {
        match op {
            Op::Frame => {
                self.frames += 1;
                self.tag(FRAME, 0);
            }
            Op::System(s) => self.tag(SYSTEM, s.map_or(0, |s| s + 1)),
            Op::Spawn { set, count } | Op::SpawnColumns { set, count } => {
                let kind = if matches!(op, Op::Spawn { .. }) {
                    SPAWN
                } else {
                    SPAWN_COLUMNS
                };
                self.tag(kind, set);
                put(&mut self.bytes, u64::from(count));
            }
            Op::Insert { entity, component } => {
                self.tag(INSERT, component);
                self.entity(entity);
            }
            Op::InsertMany { entity, set } => {
                self.tag(INSERT_MANY, set);
                self.entity(entity);
            }
            Op::Remove { entity, component } => {
                self.tag(REMOVE, component);
                self.entity(entity);
            }
            Op::Despawn { entity } => {
                self.tag(DESPAWN, 0);
                self.entity(entity);
            }
            Op::Changed { entity, component } => {
                self.tag(MARKED, component);
                self.entity(entity);
            }
            Op::Clear => self.tag(CLEAR, 0),
            Op::Align { component } => self.tag(ALIGN, component),
            Op::Query {
                shape,
                rows,
                complete,
                state,
                repeat,
            } => {
                self.tag(QUERY, shape);
                put(&mut self.bytes, (rows << 1) | u64::from(!complete));
                put(&mut self.bytes, (u64::from(state) << 1) | u64::from(repeat));
            }
            Op::Get {
                entity,
                component,
                write,
                found,
            } => self.get(entity, component, write, found),
        }
    }

    /// Appends an [`Op::Get`]: the call a program makes most, so its bytes are written in
    /// place (pushing byte by byte, or copying a variable length, was most of a recorded
    /// look-up's cost).
    #[inline]
    pub(crate) fn get(&mut self, entity: u32, component: u32, write: bool, found: bool) {
        let kind = match (write, found) {
            (false, true) => GET,
            (true, true) => GET_MUT,
            (false, false) => GET_MISSING,
            (true, false) => GET_MUT_MISSING,
        };
        let mut batch = GetBatch::begin(self);
        batch.put(entity, component, kind);
        batch.end(self);
    }

    /// Appends, for each ordinal `entities` yields, one [`Op::Get`] that found its
    /// component per slot of `slots`: the buffered look-ups of one query state. The
    /// counters and the length live in locals for the whole batch (written back once), so
    /// the byte stores through the buffer's pointer do not make the compiler reload them
    /// for every op.
    pub(crate) fn found_gets(&mut self, entities: impl Iterator<Item = u32>, slots: &[GetSlot]) {
        let kind = |get: &GetSlot| if get.write { GET_MUT } else { GET };
        let mut batch = GetBatch::begin(self);
        match slots {
            // The usual look-up fetches one component: no inner loop.
            [get] => entities.for_each(|e| batch.put(e, get.component, kind(get))),
            _ => entities.for_each(|e| {
                for get in slots {
                    batch.put(e, get.component, kind(get));
                }
            }),
        }
        batch.end(self);
    }
}

/// Look-up ops being appended, with the writer's state in locals (see
/// [`OpWriter::found_gets`]).
///
/// # Invariants
/// The first `len` bytes of `bytes`' buffer are written ops (`bytes.len()` itself is stale
/// until [`GetBatch::end`]).
struct GetBatch {
    bytes: Vec<u8>,
    len: usize,
    count: u64,
    last: u32,
}

impl GetBatch {
    /// Takes `writer`'s bytes and counters (left empty until [`GetBatch::end`]).
    #[inline(always)]
    fn begin(writer: &mut OpWriter) -> GetBatch {
        GetBatch {
            len: writer.bytes.len(),
            bytes: std::mem::take(&mut writer.bytes),
            count: writer.count,
            last: writer.last,
        }
    }

    /// Hands the bytes and counters back to `writer`.
    #[inline(always)]
    fn end(mut self, writer: &mut OpWriter) {
        // SAFETY: every byte below `len` was written (type invariant).
        unsafe { self.bytes.set_len(self.len) };
        writer.bytes = self.bytes;
        (writer.count, writer.last) = (self.count, self.last);
    }

    /// Appends an [`Op::Get`] of tag kind `kind` for `component` on `entity`.
    #[inline(always)]
    fn put(&mut self, entity: u32, component: u32, kind: u8) {
        self.count += 1;
        let delta = i64::from(entity) - i64::from(self.last);
        self.last = entity;
        let zigzag = ((delta << 1) ^ (delta >> 63)) as u64;
        if self.bytes.capacity() - self.len < MAX_GET_BYTES {
            // SAFETY: the first `len` bytes are written (type invariant).
            unsafe { self.bytes.set_len(self.len) };
            self.bytes.reserve(MAX_GET_BYTES.max(self.len / 2));
        }
        // SAFETY: at least `MAX_GET_BYTES` bytes of capacity follow `len` (checked just
        // above); the op takes at most that many (a tag, a `u32` varint of at most 5 bytes,
        // a `u64` one of at most 10), and `len` then counts them (the type's invariant).
        unsafe {
            let at = self.bytes.as_mut_ptr().add(self.len);
            let mut n = 1;
            if component < u32::from(WIDE) {
                at.write(kind | ((component as u8) << 4));
            } else {
                at.write(kind | (WIDE << 4));
                n += write_varint(at.add(n), u64::from(component));
            }
            n += write_varint(at.add(n), zigzag);
            self.len += n;
        }
    }
}

/// The most bytes one [`OpWriter::get`] writes.
const MAX_GET_BYTES: usize = 16;

/// Writes `value` as an unsigned LEB128 varint at `at` and answers its length (at most 10).
///
/// # Safety
/// `at` must be valid for writes of as many bytes as the varint takes (10 always suffice).
#[inline(always)]
unsafe fn write_varint(at: *mut u8, mut value: u64) -> usize {
    let mut n = 0;
    while value >= 0x80 {
        // SAFETY: the caller's contract covers the varint's bytes.
        unsafe { at.add(n).write(value as u8 | 0x80) };
        value >>= 7;
        n += 1;
    }
    // SAFETY: as above.
    unsafe { at.add(n).write(value as u8) };
    n + 1
}

/// The ops of a trace, decoded in order.
pub struct Ops<'a> {
    reader: Reader<'a>,
    last: u32,
}

impl Ops<'_> {
    fn operand(&mut self, tag: u8) -> Result<u32, TraceError> {
        match tag >> 4 {
            WIDE => self.reader.small("an op's operand"),
            small => Ok(u32::from(small)),
        }
    }

    fn entity(&mut self) -> Result<u32, TraceError> {
        let at = self.reader.at;
        let zigzag = self.reader.number("an entity")?;
        let delta = (zigzag >> 1) as i64 ^ -((zigzag & 1) as i64);
        let ordinal = i64::from(self.last) + delta;
        let Ok(ordinal) = u32::try_from(ordinal) else {
            return Err(ops_error(
                at,
                TraceErrorKind::OutOfRange {
                    what: "an entity ordinal",
                    value: ordinal as u64,
                    max: u64::from(u32::MAX),
                },
            ));
        };
        self.last = ordinal;
        Ok(ordinal)
    }

    fn decode(&mut self) -> Result<Op, TraceError> {
        let at = self.reader.at;
        let tag = self.reader.byte("an op")?;
        let op = match tag & 15 {
            FRAME => Op::Frame,
            SYSTEM => Op::System(self.operand(tag)?.checked_sub(1)),
            SPAWN | SPAWN_COLUMNS => {
                let set = self.operand(tag)?;
                let count = self.reader.small("a spawn's count")?;
                if tag & 15 == SPAWN {
                    Op::Spawn { set, count }
                } else {
                    Op::SpawnColumns { set, count }
                }
            }
            INSERT => {
                let component = self.operand(tag)?;
                Op::Insert {
                    component,
                    entity: self.entity()?,
                }
            }
            INSERT_MANY => {
                let set = self.operand(tag)?;
                Op::InsertMany {
                    set,
                    entity: self.entity()?,
                }
            }
            REMOVE => {
                let component = self.operand(tag)?;
                Op::Remove {
                    component,
                    entity: self.entity()?,
                }
            }
            DESPAWN => Op::Despawn {
                entity: self.entity()?,
            },
            MARKED => {
                let component = self.operand(tag)?;
                Op::Changed {
                    component,
                    entity: self.entity()?,
                }
            }
            CLEAR => Op::Clear,
            ALIGN => Op::Align {
                component: self.operand(tag)?,
            },
            QUERY => {
                let shape = self.operand(tag)?;
                let rows = self.reader.number("a query's rows")?;
                let state = self.reader.number("a query's state")?;
                Op::Query {
                    shape,
                    rows: rows >> 1,
                    complete: rows & 1 == 0,
                    state: u32::try_from(state >> 1).map_err(|_| {
                        ops_error(
                            at,
                            TraceErrorKind::OutOfRange {
                                what: "a query's state",
                                value: state >> 1,
                                max: u64::from(u32::MAX),
                            },
                        )
                    })?,
                    repeat: state & 1 == 1,
                }
            }
            kind @ (GET | GET_MUT | GET_MISSING | GET_MUT_MISSING) => {
                let component = self.operand(tag)?;
                Op::Get {
                    component,
                    entity: self.entity()?,
                    write: kind == GET_MUT || kind == GET_MUT_MISSING,
                    found: kind == GET || kind == GET_MUT,
                }
            }
            _ => return Err(ops_error(at, TraceErrorKind::BadOp { tag })),
        };
        Ok(op)
    }
}

impl Iterator for Ops<'_> {
    type Item = Op;

    fn next(&mut self) -> Option<Op> {
        if self.reader.at >= self.reader.bytes.len() {
            return None;
        }
        // A trace is validated when read or built by the recorder, so this cannot fail.
        self.decode().ok()
    }
}

/// Reads numbers and names from bytes, with errors naming the offset.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
    in_ops: bool,
}

impl<'a> Reader<'a> {
    fn new(bytes: &'a [u8], in_ops: bool) -> Reader<'a> {
        Reader {
            bytes,
            at: 0,
            in_ops,
        }
    }

    fn error_at(&self, at: usize, kind: TraceErrorKind) -> TraceError {
        TraceError {
            at,
            in_ops: self.in_ops,
            kind,
        }
    }

    fn take(&mut self, len: usize, reading: &'static str) -> Result<&'a [u8], TraceError> {
        if self.bytes.len() - self.at < len {
            return Err(self.error_at(self.bytes.len(), TraceErrorKind::Truncated { reading }));
        }
        let out = &self.bytes[self.at..self.at + len];
        self.at += len;
        Ok(out)
    }

    fn byte(&mut self, reading: &'static str) -> Result<u8, TraceError> {
        Ok(self.take(1, reading)?[0])
    }

    fn number(&mut self, reading: &'static str) -> Result<u64, TraceError> {
        let start = self.at;
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let byte = self.byte(reading)?;
            let bits = u64::from(byte & 0x7f);
            if shift == 63 && bits > 1 {
                return Err(self.error_at(start, TraceErrorKind::BadNumber));
            }
            value |= bits << shift;
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(self.error_at(start, TraceErrorKind::BadNumber))
    }

    /// A number that must fit 32 bits.
    fn small(&mut self, what: &'static str) -> Result<u32, TraceError> {
        let at = self.at;
        let value = self.number(what)?;
        u32::try_from(value).map_err(|_| {
            self.error_at(
                at,
                TraceErrorKind::OutOfRange {
                    what,
                    value,
                    max: u64::from(u32::MAX),
                },
            )
        })
    }

    /// A count of items each at least `min_bytes` long: refused when the bytes left could
    /// not hold them, so a hostile count never sizes an allocation.
    fn count(&mut self, what: &'static str, min_bytes: usize) -> Result<usize, TraceError> {
        let at = self.at;
        let value = self.number(what)?;
        let max = ((self.bytes.len() - self.at) / min_bytes) as u64;
        if value > max {
            return Err(self.error_at(at, TraceErrorKind::OutOfRange { what, value, max }));
        }
        Ok(value as usize)
    }

    /// An index into a table of `len` entries.
    fn index(&mut self, what: &'static str, len: u64) -> Result<u32, TraceError> {
        let at = self.at;
        let value = self.number(what)?;
        if value >= len {
            return Err(self.error_at(
                at,
                TraceErrorKind::OutOfRange {
                    what,
                    value,
                    max: len.saturating_sub(1),
                },
            ));
        }
        Ok(value as u32)
    }

    fn name(&mut self) -> Result<String, TraceError> {
        let len = self.count("a name's length", 1)?;
        let at = self.at;
        let bytes = self.take(len, "a name")?;
        String::from_utf8(bytes.to_vec()).map_err(|_| self.error_at(at, TraceErrorKind::BadName))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Look-ups are written in place (see [`OpWriter::get`]): every kind, narrow and wide
    /// components, entities far before and after the last one, read back as written.
    #[test]
    fn look_ups_written_in_place_read_back() {
        let mut writer = OpWriter::default();
        let mut written = Vec::new();
        let entities = [1, 0, 5, 200_000, 3, u32::MAX, 0, 70];
        for (i, &entity) in entities.iter().enumerate() {
            for component in [0, 14, 15, 300, u32::MAX] {
                let op = Op::Get {
                    entity,
                    component,
                    write: i % 2 == 0,
                    found: i % 3 != 0,
                };
                writer.push(op);
                written.push(op);
            }
        }
        writer.push(Op::Despawn { entity: 9 });
        written.push(Op::Despawn { entity: 9 });
        assert_eq!(writer.count, written.len() as u64);
        let ops = Ops {
            reader: Reader::new(&writer.bytes, true),
            last: 0,
        };
        assert_eq!(ops.collect::<Vec<_>>(), written);
    }
}
