//! What the world trusts of your code, and why each trust is sound.
//!
//! The world's `unsafe` code reads and writes type-erased memory, so it depends on what code
//! outside this crate does: functions you hand it, traits you implement, your types' `Drop`.
//! Every such place is listed here. Where the world *relies* on a promise that the type
//! system cannot check, making that promise takes `unsafe` (an `unsafe fn` to call, an
//! `unsafe trait` to implement), and the promise is written on it. Everywhere else the world
//! trusts nothing that safe code could get wrong: it checks, or it hands the code only what
//! it may do anything with. Backends have their own contract, on [`Storage`](crate::Storage).
//!
//! # Promises made with `unsafe`
//!
//! | what you provide | what the world relies on | written on |
//! |---|---|---|
//! | a snapshot codec's `save`, `load`, `map_entities` | `load` writes a valid value (all bytes for plain data; usable on any thread) before `Ok`; `save` only reads; `map_entities` leaves a valid value | [`DynamicCodec::functions`](crate::snapshot::DynamicCodec::functions) |
//! | a value by pointer | it is a valid value of the component's layout and owned by the call | [`World::insert_by_id`](crate::World::insert_by_id) |
//! | a [`Bundle`](crate::Bundle) implemented by hand | `COUNT`, the ids and `visit`'s order and types agree; `component_ids` only registers | [`Bundle`](crate::Bundle) (the derive and tuples keep it) |
//! | query items and filters implemented by hand | the recorded access covers every read and write; rows are touched once | [`QueryData`](crate::query::QueryData), [`QueryFilter`](crate::query::QueryFilter) |
//! | system parameters and systems implemented by hand | the declared access is complete | [`SystemParam`](crate::system::SystemParam), [`System`](crate::System) |
//! | a property list written by hand | each entry names a field of that type at that offset, aligned | [`Property::new`](crate::properties::Property::new) (`#[component(properties)]` keeps it, and refuses `#[repr(packed)]` structs) |
//! | a storage backend | the whole backend contract | [`Storage`](crate::Storage) |
//!
//! # Safe to provide: what the world does not rely on
//!
//! * **A run-time component's descriptor**
//!   ([`World::register_dynamic`](crate::World::register_dynamic)). The layout is data the
//!   world sizes its buffers from (padded to its alignment). The drop function is an
//!   `unsafe fn` pointer: the world calls it only on an initialised value of that component,
//!   once; a safe function coerced to it cannot do anything unsafe with the pointer, and
//!   nothing it returns is used. The world never builds such a value from nothing: values
//!   come from [`World::insert_bytes`](crate::World::insert_bytes) (plain data only, every
//!   byte given), `insert_by_id` (`unsafe`) or a codec (`unsafe` to make).
//! * **A snapshot registry entry.** A loaded or saved run-time component is the world's only
//!   when its name, layout *and* drop nature match the entry's
//!   ([`SnapshotErrorKind::DropMismatch`](crate::snapshot::SnapshotErrorKind::DropMismatch)
//!   otherwise, world unchanged; a save through such an entry fails), so plain bytes never
//!   land in, or are read from, a component that drops its values.
//! * **[`MapEntities`](crate::MapEntities) implementations.** They are handed `&mut T` of a
//!   value in a staging buffer; whatever handles they write are looked up again on use
//!   (a stale one is an error or `None`, never an alias), and a panic there happens before
//!   the world is touched.
//! * **[`Serialize`](serde::Serialize) / [`Deserialize`](serde::Deserialize) of your
//!   components.** A loaded value is written into its slot only after it was built whole;
//!   a failure or panic midway leaves nothing half-written, and every value built is
//!   dropped once.
//! * **The kinds in [`Component`](crate::Component).** `STORAGE` is read from the same
//!   constant wherever a backend decides where a type lives; [`Component::Mutability`](crate::Component::Mutability)
//!   names one of three sealed kinds, so mutable access (and which writes are recorded) is
//!   decided by the type system. The relationship components are immutable: only the
//!   hierarchy API writes them, and despawn paths act only on handles they checked.
//! * **Your types' `Drop`.** A storage commits its state before running a value's drop
//!   (the length published, or the value moved out first), so a panicking `Drop` leaves
//!   every live entity intact and no value dropped twice; the conformance suite checks it on
//!   every backend.
//! * **Closures** passed to `for_each`, `par_for_each`, run conditions and systems: their
//!   bounds (`FnMut`, `Fn + Send + Sync`, higher-ranked lifetimes) keep items from escaping
//!   and from crossing threads unsafely; nothing they return is trusted.
//! * **Iterators handed to [`World::spawn_batch`](crate::World::spawn_batch).** Their
//!   `size_hint` is read once, before anything is allocated, and only sizes a reservation;
//!   a wrong hint costs memory or a later growth, and a panic in `next` leaves what was
//!   spawned so far stored.
//! * **[`Local`](crate::Local) defaults, resources and events** are `Send + Sync + 'static`
//!   values reached through checked downcasts and the schedule's access rules.
