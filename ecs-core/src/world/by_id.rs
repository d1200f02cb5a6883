//! The by-id API: components reached by [`ComponentId`] and raw pointers or bytes (run-time
//! components, scripting, property systems).

use std::alloc::Layout;
use std::ptr::NonNull;

use super::World;
use crate::blob::ValueBuffer;
use crate::bundle::BundleType;
use crate::component::{ComponentId, ComponentInfo, Components};
use crate::entity::Entity;
use crate::error::EcsError;
use crate::storage::{ColumnValues, Storage};

impl<S: Storage> World<S> {
    /// Sets `entity`'s component `id` from a raw value, taking ownership; an old value is
    /// dropped.
    ///
    /// # Safety
    /// `value` points to an initialised value of the component's registered layout that is
    /// valid for it (for a Rust type, a valid value of that type), and the caller does not use
    /// or drop it afterwards once `Ok` is returned (on `Err` it was neither read nor moved and
    /// is still the caller's). It does not point into this world's storage (a pointer from
    /// [`World::get_by_id`] must be copied out first: storing may move the storage's buffers).
    /// For a plain-data run-time component (no drop function) all `layout().size()` bytes
    /// are initialised, padding included ([`World::get_bytes`] hands them out as `&[u8]`).
    /// The value may be used from any thread, as a `Send + Sync` type's may: the world moves
    /// it to, and shares it with, the threads of parallel queries and schedules, and drops it
    /// with the component's drop function on whichever thread drops or clears the world.
    ///
    /// # Errors
    /// [`EcsError::NoSuchEntity`], [`EcsError::UnknownComponent`],
    /// [`EcsError::HierarchyComponent`] for a relationship component (see
    /// [`crate::hierarchy`]), and for a named instance ([`World::register_instance`]) the
    /// entity lacks, [`EcsError::NameTaken`] when another of its components holds the name;
    /// on error the value is neither dropped nor moved.
    ///
    /// ```
    /// # use ecs_core::{World, Component, testing::VecStorage};
    /// # use std::ptr::NonNull;
    /// #[derive(Component)]
    /// struct Hp(u32);
    /// let mut world = World::<VecStorage>::new();
    /// let id = world.register_component::<Hp>();
    /// let e = world.spawn(());
    /// let mut value = std::mem::ManuallyDrop::new(Hp(5));
    /// // SAFETY: `value` is a valid `Hp`, handed over and never used again.
    /// unsafe { world.insert_by_id(e, id, NonNull::from(&mut *value).cast()).unwrap() };
    /// assert_eq!(world.get::<Hp>(e).unwrap().0, 5);
    /// ```
    pub unsafe fn insert_by_id(
        &mut self,
        entity: Entity,
        id: ComponentId,
        value: NonNull<u8>,
    ) -> Result<(), EcsError> {
        if self.needs_attention() && self.attend() {
            // SAFETY: forwarded contract.
            return unsafe { self.insert_by_id_reacting(entity, id, value) };
        }
        self.check_by_id(entity, id)?;
        // SAFETY: forwarded contract.
        unsafe { self.insert_by_id_now(entity, id, value) }
    }

    /// The checks every by-id insert and removal makes first: `entity` live, `id`
    /// registered here and not a relationship component.
    #[inline(always)]
    fn check_by_id(&self, entity: Entity, id: ComponentId) -> Result<(), EcsError> {
        self.check(entity)?;
        self.refuse_link_component(entity, id)?;
        self.components
            .get(id)
            .ok_or(EcsError::UnknownComponent(id))?;
        Ok(())
    }

    /// [`World::insert_by_id`] where something reacts: `on_replace` before, `on_add` and
    /// `on_insert` after.
    ///
    /// # Safety
    /// As [`World::insert_by_id`].
    #[cold]
    #[inline(never)]
    unsafe fn insert_by_id_reacting(
        &mut self,
        entity: Entity,
        id: ComponentId,
        value: NonNull<u8>,
    ) -> Result<(), EcsError> {
        self.check_by_id(entity, id)?;
        let held = self.before_store(entity, &[id]);
        // SAFETY: forwarded contract (hooks change no structure, so `value` still points
        // outside the storage).
        let stored = unsafe { self.insert_by_id_now(entity, id, value) };
        if stored.is_ok() {
            self.after_store(entity, &[id], &held);
        }
        stored
    }

    /// [`World::insert_by_id`] into live `entity` of registered `id`, checked.
    ///
    /// # Safety
    /// As [`World::insert_by_id`].
    #[inline(always)]
    unsafe fn insert_by_id_now(
        &mut self,
        entity: Entity,
        id: ComponentId,
        value: NonNull<u8>,
    ) -> Result<(), EcsError> {
        let info = self.components.info(id);
        let tracked = info.tracks_changes();
        match self.storage.get_ptr(entity, id) {
            Some(slot) => {
                // Move the old value aside before dropping it, so a panicking Drop cannot leave
                // a dropped value in the storage.
                let old = ValueBuffer::new(info.layout());
                // SAFETY: `slot` holds the old initialised value; `old` is a disjoint buffer
                // of the same layout; `value` is a valid new value (caller).
                unsafe {
                    std::ptr::copy_nonoverlapping(
                        slot.as_ptr(),
                        old.ptr.as_ptr(),
                        info.layout().size(),
                    );
                    std::ptr::copy_nonoverlapping(
                        value.as_ptr(),
                        slot.as_ptr(),
                        info.layout().size(),
                    );
                    old.drop_value(info.drop_fn());
                }
                if tracked {
                    self.changes.on_changed(id, entity);
                }
            }
            None => {
                let name = match info.instance() {
                    Some(_) => Some(self.claim_name(entity, id)?),
                    None => None,
                };
                // SAFETY: the entity is live (so in the storage) and lacks `id`; the value is
                // owned.
                unsafe { self.storage.insert_new(entity, id, value, &self.components) };
                if let Some(name) = name {
                    self.index.add(entity.index(), id, name);
                }
                if tracked {
                    self.changes.on_added(id, entity);
                }
            }
        }
        Ok(())
    }

    /// A pointer to `entity`'s component `id`; `None` if stale or absent.
    ///
    /// Reading through it is `unsafe`: the caller must know the component's layout, and the
    /// pointer is valid until the world is next mutated.
    ///
    /// ```
    /// # use ecs_core::{World, Component, testing::VecStorage};
    /// #[derive(Component)]
    /// struct Hp(u32);
    /// let mut world = World::<VecStorage>::new();
    /// let e = world.spawn((Hp(9),));
    /// let id = world.component_id::<Hp>().unwrap();
    /// let ptr = world.get_by_id(e, id).unwrap();
    /// // SAFETY: component `id` is `Hp`, and the world is not mutated while reading.
    /// assert_eq!(unsafe { ptr.cast::<Hp>().as_ref() }.0, 9);
    /// ```
    pub fn get_by_id(&self, entity: Entity, id: ComponentId) -> Option<NonNull<u8>> {
        if !self.entities.contains(entity) || self.components.get(id).is_none() {
            return None;
        }
        if S::TRACED && self.is_tracing() {
            self.trace_get_by_id(entity, id, false);
        }
        self.storage.get_ptr(entity, id)
    }

    /// Removes and drops `entity`'s component `id`.
    ///
    /// # Errors
    /// [`EcsError::NoSuchEntity`], [`EcsError::UnknownComponent`],
    /// [`EcsError::MissingComponent`], [`EcsError::HierarchyComponent`] for a relationship
    /// component (see [`crate::hierarchy`]).
    ///
    /// ```
    /// # use ecs_core::{World, Component, testing::VecStorage};
    /// #[derive(Component)]
    /// struct Hp(u32);
    /// let mut world = World::<VecStorage>::new();
    /// let e = world.spawn((Hp(9),));
    /// let id = world.component_id::<Hp>().unwrap();
    /// world.remove_by_id(e, id).unwrap();
    /// assert!(!world.has::<Hp>(e));
    /// ```
    pub fn remove_by_id(&mut self, entity: Entity, id: ComponentId) -> Result<(), EcsError> {
        if self.needs_attention() && self.attend() {
            return self.remove_by_id_reacting(entity, id);
        }
        self.check_by_id(entity, id)?;
        self.remove_by_id_now(entity, id)
    }

    /// [`World::remove_by_id`] where something reacts: `on_replace` and `on_remove` with
    /// the value still stored.
    #[cold]
    #[inline(never)]
    fn remove_by_id_reacting(&mut self, entity: Entity, id: ComponentId) -> Result<(), EcsError> {
        self.check_by_id(entity, id)?;
        if !self.storage.contains(entity, id) {
            return self.remove_by_id_now(entity, id);
        }
        self.before_remove(entity, &[id]);
        let removed = self.remove_by_id_now(entity, id);
        self.settle();
        removed
    }

    /// [`World::remove_by_id`] from live `entity` of registered `id`, checked.
    #[inline(always)]
    fn remove_by_id_now(&mut self, entity: Entity, id: ComponentId) -> Result<(), EcsError> {
        let info = self.components.info(id);
        if info.drop_fn().is_none() && info.layout().align() <= ZEROS_ALIGN {
            // Plain data is discarded without a drop: moved into a scratch buffer kept per
            // thread, so removing allocates nothing.
            let size = info.layout().size();
            // SAFETY: the scratch buffer holds `size` writable bytes aligned enough for the
            // component, outside the storage; nothing needs dropping afterwards.
            let removed = with_buffer(&SCRATCH, size, |scratch| unsafe {
                self.storage.remove_into(entity, id, scratch)
            });
            if !removed {
                return Err(EcsError::MissingComponent {
                    entity,
                    component: info.name().to_owned().into(),
                });
            }
            self.unindex(entity, id);
            return Ok(());
        }
        let out = ValueBuffer::new(info.layout());
        // SAFETY: `out` is a disjoint buffer for one value of `id`.
        if !unsafe { self.storage.remove_into(entity, id, out.ptr) } {
            return Err(EcsError::MissingComponent {
                entity,
                component: info.name().to_owned().into(),
            });
        }
        let drop = info.drop_fn();
        self.unindex(entity, id);
        // SAFETY: `remove_into` moved an initialised value of `id` into `out`.
        unsafe { out.drop_value(drop) };
        Ok(())
    }

    /// Sets a plain-data run-time component from bytes.
    ///
    /// # Errors
    /// [`EcsError::NotPlainData`] for Rust types and components with a drop function (bytes
    /// could break their invariants), [`EcsError::SizeMismatch`], and the errors of
    /// [`World::insert_by_id`].
    ///
    /// ```
    /// # use ecs_core::{World, ComponentDescriptor, StorageKind, testing::VecStorage};
    /// # use std::alloc::Layout;
    /// let mut world = World::<VecStorage>::new();
    /// let raw = world.register_dynamic(ComponentDescriptor {
    ///     name: "Raw".into(), layout: Layout::new::<[u8; 4]>(), drop: None, storage: StorageKind::Table,
    /// });
    /// let e = world.spawn(());
    /// world.insert_bytes(e, raw, &[1, 2, 3, 4]).unwrap();
    /// assert_eq!(world.get_bytes(e, raw), Some(&[1u8, 2, 3, 4][..]));
    /// ```
    pub fn insert_bytes(
        &mut self,
        entity: Entity,
        id: ComponentId,
        bytes: &[u8],
    ) -> Result<(), EcsError> {
        let info = self.plain_info(id)?;
        if bytes.len() != info.layout().size() {
            return Err(EcsError::SizeMismatch {
                component: info.name().to_owned(),
                expected: info.layout().size(),
                actual: bytes.len(),
            });
        }
        let temp = ValueBuffer::new(info.layout());
        // SAFETY: `temp` holds `bytes.len()` writable bytes, disjoint from `bytes`.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), temp.ptr.as_ptr(), bytes.len()) };
        // SAFETY: plain data (no type, no drop) is valid for any initialised bytes; the value
        // needs no drop, so whether it is moved or not nothing leaks.
        unsafe { self.insert_by_id(entity, id, temp.ptr) }
    }

    /// The bytes of a plain-data run-time component; `None` if stale, absent or not plain data.
    ///
    /// ```
    /// # use ecs_core::{World, Component, testing::VecStorage};
    /// #[derive(Component)]
    /// struct Typed(u8);
    /// let mut world = World::<VecStorage>::new();
    /// let e = world.spawn((Typed(1),));
    /// let id = world.component_id::<Typed>().unwrap();
    /// assert_eq!(world.get_bytes(e, id), None, "typed components are not exposed as bytes");
    /// ```
    pub fn get_bytes(&self, entity: Entity, id: ComponentId) -> Option<&[u8]> {
        let size = self.plain_info(id).ok()?.layout().size();
        let ptr = self.get_by_id(entity, id)?;
        // SAFETY: plain-data components are only written from whole byte slices (or by
        // `insert_by_id`, whose contract requires an initialised value), so all `size` bytes
        // are initialised; `&self` keeps them unchanged while borrowed.
        Some(unsafe { std::slice::from_raw_parts(ptr.as_ptr(), size) })
    }

    fn plain_info(&self, id: ComponentId) -> Result<&ComponentInfo, EcsError> {
        let info = self
            .components
            .get(id)
            .ok_or(EcsError::UnknownComponent(id))?;
        // `Disabled` counts as plain data: zero-sized, nothing to drop, no value it could
        // hold wrongly (a trace replay disables entities through this API).
        let typed = info.type_id().is_some() && self.components.disabled() != Some(id);
        if typed || info.drop_fn().is_some() {
            return Err(EcsError::NotPlainData(info.name().to_owned()));
        }
        Ok(info)
    }
}

impl<S: Storage> World<S> {
    /// Spawns `count` entities, each with the plain-data run-time components `ids` set to
    /// zero bytes, in one storage call (what a snapshot load does: one copy per column),
    /// and appends their handles to `out`. What a trace replay spawns with; also a quick
    /// way to fill a world for a benchmark of run-time components. Allocates nothing of
    /// its own for up to 16 components (the zero bytes come from a buffer kept per thread).
    ///
    /// # Errors
    /// [`EcsError::UnknownComponent`], [`EcsError::NotPlainData`] for a Rust type, a
    /// component with a drop function or one aligned to more than 64 bytes,
    /// [`EcsError::Group`] naming a component twice; the world is unchanged.
    ///
    /// ```
    /// # use ecs_core::{World, ComponentDescriptor, StorageKind, testing::VecStorage};
    /// # use std::alloc::Layout;
    /// let mut world = World::<VecStorage>::new();
    /// let raw = world.register_dynamic(ComponentDescriptor {
    ///     name: "Raw".into(), layout: Layout::new::<u32>(), drop: None, storage: StorageKind::Table,
    /// });
    /// let mut spawned = Vec::new();
    /// world.spawn_zeroed(&[raw], 3, &mut spawned).unwrap();
    /// assert_eq!(spawned.len(), 3);
    /// assert_eq!(world.get_bytes(spawned[2], raw), Some(&[0u8; 4][..]));
    /// ```
    pub fn spawn_zeroed(
        &mut self,
        ids: &[ComponentId],
        count: usize,
        out: &mut Vec<Entity>,
    ) -> Result<(), EcsError> {
        self.check_plain_set(ids)?;
        let widest = ids
            .iter()
            .map(|&id| self.components.info(id).layout().size())
            .max()
            .unwrap_or(0);
        let bytes = widest
            .checked_mul(count)
            .expect("a column larger than memory");
        let base = with_zeros(bytes, |zeros| {
            let column = |&component: &ComponentId| ColumnValues {
                component,
                values: zeros,
                buffer: None,
            };
            let mut inline: [ColumnValues<'_>; INLINE_VALUES] =
                std::array::from_fn(|_| ColumnValues {
                    component: ComponentId::new(0),
                    values: zeros,
                    buffer: None,
                });
            let mut heap = Vec::new();
            let columns: &mut [ColumnValues<'_>] = if ids.len() <= INLINE_VALUES {
                for (slot, id) in inline.iter_mut().zip(ids) {
                    *slot = column(id);
                }
                &mut inline[..ids.len()]
            } else {
                heap.extend(ids.iter().map(column));
                &mut heap[..]
            };
            let base = self.prepare_loaded(count);
            self.alloc_loaded(count);
            // SAFETY: the entities were just allocated (live, distinct, not stored); the
            // components are distinct registered plain data; every column points to
            // `count` values of zero bytes (`zeros` holds at least `count * widest`), valid
            // for plain data, which needs no drop, so handing them over leaks nothing; no
            // buffer is handed over, so the storage only reads them.
            unsafe { self.store_loaded(base..base + count, columns) };
            let spawned = &self.entities.alive()[base..base + count];
            for &id in ids {
                if self.components.info(id).tracks_changes() {
                    for &entity in spawned {
                        self.changes.on_added(id, entity);
                    }
                }
            }
            out.extend_from_slice(spawned);
            base
        });
        // Outside the zero buffer's borrow: hooks and the commands they queue run here.
        if self.reacts() {
            self.after_load(base, count);
        }
        Ok(())
    }

    /// Adds the plain-data run-time components `ids` that `entity` lacks, set to zero
    /// bytes, in one storage call (one row move on a table backend; a single component
    /// goes in as [`World::insert_bytes`] puts it); the ones it has keep their values.
    /// Allocates nothing of its own for up to 16 components.
    ///
    /// # Errors
    /// [`EcsError::NoSuchEntity`], and those of [`World::spawn_zeroed`]; the world is
    /// unchanged.
    pub fn insert_zeroed(&mut self, entity: Entity, ids: &[ComponentId]) -> Result<(), EcsError> {
        self.flush();
        self.check(entity)?;
        self.check_plain_set(ids)?;
        let widest = ids
            .iter()
            .map(|&id| self.components.info(id).layout().size())
            .max()
            .unwrap_or(0);
        // Nothing is replaced: no `on_replace` runs, but `held` tells what is new.
        let held = if self.reacts() {
            self.reactive_held(entity)
        } else {
            Vec::new()
        };
        with_zeros(widest, |zeros| {
            let mut inline = [(ComponentId::new(0), zeros); INLINE_VALUES];
            let mut heap = Vec::new();
            let all: &mut [(ComponentId, NonNull<u8>)] = if ids.len() <= INLINE_VALUES {
                &mut inline[..]
            } else {
                heap.resize(ids.len(), (ComponentId::new(0), zeros));
                &mut heap[..]
            };
            let mut missing = 0;
            for &id in ids {
                if !self.storage.contains(entity, id) {
                    all[missing] = (id, zeros);
                    missing += 1;
                }
            }
            let values = &mut all[..missing];
            // SAFETY: the entity is live (held) and lacks each of `values`, which are
            // distinct registered plain-data components; each value is zero bytes of its
            // size (`zeros` holds the widest), valid plain data needing no drop, handed
            // over and only read by the storage.
            unsafe {
                match values {
                    [(id, value)] => self
                        .storage
                        .insert_new(entity, *id, *value, &self.components),
                    _ => self
                        .storage
                        .insert_new_many(entity, values, &self.components),
                }
            }
            for &(id, _) in values.iter() {
                if self.components.info(id).tracks_changes() {
                    self.changes.on_added(id, entity);
                }
            }
        });
        if self.reacts() {
            let added: Vec<ComponentId> = ids
                .iter()
                .copied()
                .filter(|id| !held.contains(id))
                .collect();
            self.after_store(entity, &added, &held);
        }
        Ok(())
    }

    /// The bytes of a plain-data run-time component, writable; a tracked component records
    /// a change now. `None` if stale, absent or not plain data.
    ///
    /// ```
    /// # use ecs_core::{World, ComponentDescriptor, StorageKind, testing::VecStorage};
    /// # use std::alloc::Layout;
    /// let mut world = World::<VecStorage>::new();
    /// let raw = world.register_dynamic(ComponentDescriptor {
    ///     name: "Raw".into(), layout: Layout::new::<u16>(), drop: None, storage: StorageKind::Table,
    /// });
    /// let e = world.spawn(());
    /// world.insert_zeroed(e, &[raw]).unwrap();
    /// world.get_bytes_mut(e, raw).unwrap()[1] = 7;
    /// assert_eq!(world.get_bytes(e, raw), Some(&[0u8, 7][..]));
    /// ```
    pub fn get_bytes_mut(&mut self, entity: Entity, id: ComponentId) -> Option<&mut [u8]> {
        self.plain_info(id).ok()?;
        if S::TRACED && self.is_tracing() {
            self.trace_get_by_id(entity, id, true);
        }
        if self.components.info(id).tracks_changes() && self.storage.contains(entity, id) {
            self.changes.on_changed(id, entity);
        }
        self.get_bytes_mut_unmarked(entity, id)
    }

    /// [`World::get_bytes_mut`] without recording a change or a trace op (a trace replay
    /// marks the program's changes itself).
    pub(crate) fn get_bytes_mut_unmarked(
        &mut self,
        entity: Entity,
        id: ComponentId,
    ) -> Option<&mut [u8]> {
        let size = self.plain_info(id).ok()?.layout().size();
        let ptr = self.storage.get_ptr(entity, id)?;
        // SAFETY: plain-data components are always fully initialised (see `get_bytes`);
        // `&mut self` makes the borrow unique while it lives.
        Some(unsafe { std::slice::from_raw_parts_mut(ptr.as_ptr(), size) })
    }

    /// Checks that `ids` are distinct registered plain-data components aligned to at most
    /// 64 bytes.
    fn check_plain_set(&self, ids: &[ComponentId]) -> Result<(), EcsError> {
        for (i, &id) in ids.iter().enumerate() {
            let info = self.plain_info(id)?;
            if info.layout().align() > ZEROS_ALIGN {
                return Err(EcsError::NotPlainData(format!(
                    "{} (aligned to {} bytes; zeroed components may ask for at most {ZEROS_ALIGN})",
                    info.name(),
                    info.layout().align()
                )));
            }
            if ids[..i].contains(&id) {
                return Err(EcsError::Group {
                    reason: format!("component {} named twice", info.name()),
                });
            }
        }
        Ok(())
    }
}

/// The alignment of the per-thread zero buffer: the most a zeroed component may ask for.
const ZEROS_ALIGN: usize = 64;

/// A buffer kept per thread and grown to the largest request ([`ZEROS`], [`SCRATCH`]).
///
/// # Invariants
/// `ptr` is an allocation of `len` bytes aligned to [`ZEROS_ALIGN`] (dangling and unused
/// while `len` is 0), every byte initialised (zero when allocated, then only ever plain
/// data; [`ZEROS`] is only read, so it stays zero).
struct ThreadBuffer {
    ptr: NonNull<u8>,
    len: usize,
}

impl Drop for ThreadBuffer {
    fn drop(&mut self) {
        if self.len > 0 {
            // SAFETY: allocated by `with_zeros` with this layout (type invariants).
            unsafe {
                std::alloc::dealloc(
                    self.ptr.as_ptr(),
                    Layout::from_size_align_unchecked(self.len, ZEROS_ALIGN),
                )
            };
        }
    }
}

/// A per-thread buffer: [`ZEROS`] (zero bytes, only read) or [`SCRATCH`] (written).
type Buffer = std::thread::LocalKey<std::cell::RefCell<ThreadBuffer>>;

thread_local! {
    /// Zero bytes: the values of zeroed components.
    static ZEROS: std::cell::RefCell<ThreadBuffer> = const {
        std::cell::RefCell::new(ThreadBuffer { ptr: NonNull::<u64>::dangling().cast(), len: 0 })
    };
    /// Where removed plain data is moved to be forgotten.
    static SCRATCH: std::cell::RefCell<ThreadBuffer> = const {
        std::cell::RefCell::new(ThreadBuffer { ptr: NonNull::<u64>::dangling().cast(), len: 0 })
    };
}

/// Calls `f` with a pointer to at least `bytes` initialised bytes (zero unless a storage
/// wrote to them, which no backend does), aligned to [`ZEROS_ALIGN`]: the values of zeroed
/// components.
fn with_zeros<R>(bytes: usize, f: impl FnOnce(NonNull<u8>) -> R) -> R {
    with_buffer(&ZEROS, bytes, f)
}

/// Calls `f` with `buffer`'s pointer, grown first to at least `bytes`. `f` must not use the
/// same buffer again (it runs no user code: only plain data passes through).
fn with_buffer<R>(buffer: &'static Buffer, bytes: usize, f: impl FnOnce(NonNull<u8>) -> R) -> R {
    buffer.with(|zeros| {
        let mut zeros = zeros.borrow_mut();
        if zeros.len < bytes.max(1) {
            let len = bytes.next_power_of_two().max(256);
            let layout =
                Layout::from_size_align(len, ZEROS_ALIGN).expect("a buffer larger than memory");
            // SAFETY: the layout has a non-zero size.
            let ptr = NonNull::new(unsafe { std::alloc::alloc_zeroed(layout) })
                .unwrap_or_else(|| std::alloc::handle_alloc_error(layout));
            *zeros = ThreadBuffer { ptr, len };
        }
        f(zeros.ptr)
    })
}

/// The most components a queued bundle places without a heap buffer (one on the stack).
const INLINE_VALUES: usize = 16;

impl<S: Storage> World<S> {
    /// Moves every value of a queued bundle of type `ty` (at `bundle`) into `entity`: the
    /// components it lacks are added in one storage call (one row move on a table backend,
    /// straight into the table of the final set), the ones it has are replaced, and the
    /// replaced values are dropped once every new value is in. Returns false, reading
    /// nothing, when `entity` is not live. Allocates nothing for a bundle of up to 16
    /// components that replaces none.
    ///
    /// # Panics
    /// If the bundle names one component twice (as [`World::spawn`]), before anything
    /// changes. If an `on_replace` hook panics, the bundle's values are never read: they
    /// leak (the caller holds them in a `ManuallyDrop`), never dropped twice.
    ///
    /// # Safety
    /// `bundle` points to an initialised bundle of type `ty` (usable on any thread: bundles
    /// are `Send + Sync`); when this returns true its values were moved in and the caller
    /// must neither use nor drop them; when false they are untouched and still the caller's.
    pub(crate) unsafe fn insert_queued(
        &mut self,
        entity: Entity,
        ty: &BundleType,
        bundle: NonNull<u8>,
    ) -> bool {
        if !self.entities.contains(entity) {
            return false;
        }
        // Disjoint fields: the bundle's info borrows `bundles`; the rest is read and
        // written through the other fields.
        let info = self.bundles.info_erased(ty, &mut self.components);
        let bundle_id = info.id();
        if ty.hooked {
            // Resolving may have registered the world's first hooked type.
            self.sync_reactions();
        }
        let reacting = (self.reacts() && self.bundles.bundle_reacts(bundle_id)).then(|| {
            let ids = self.bundles.components_of(bundle_id).to_vec();
            let held = self.before_store(entity, &ids);
            (ids, held)
        });
        let ids = self.bundles.components_of(bundle_id);
        let mut inline = [(ComponentId::new(0), NonNull::<u8>::dangling()); INLINE_VALUES];
        let mut heap = Vec::new();
        let new: &mut [(ComponentId, NonNull<u8>)] = if ids.len() <= INLINE_VALUES {
            &mut inline[..]
        } else {
            heap.resize(ids.len(), (ComponentId::new(0), NonNull::dangling()));
            &mut heap[..]
        };
        let (mut added, mut next) = (0, 0);
        let mut replaced = PendingDrops::default();
        let (storage, components, changes) = (&self.storage, &self.components, &mut self.changes);
        let mut place = |value: NonNull<u8>| {
            let id = ids[next];
            next += 1;
            let info = components.info(id);
            let Some(slot) = storage.get_ptr(entity, id) else {
                new[added] = (id, value);
                added += 1;
                return;
            };
            let old = ValueBuffer::new(info.layout());
            // SAFETY: `slot` holds the entity's initialised value of `id`; `old` is a
            // disjoint buffer of its layout; `value` is the bundle's value of `id`'s type
            // (the pointers follow the bundle's component ids), moved in here and forgotten
            // by the caller on `true`.
            unsafe {
                let size = info.layout().size();
                std::ptr::copy_nonoverlapping(slot.as_ptr(), old.ptr.as_ptr(), size);
                std::ptr::copy_nonoverlapping(value.as_ptr(), slot.as_ptr(), size);
            }
            replaced.0.push((old, info.drop_fn()));
            if info.tracks_changes() {
                changes.on_changed(id, entity);
            }
        };
        // SAFETY: `bundle` points to a `ty` bundle (caller), valid while we use the pointers.
        unsafe { (ty.value_ptrs)(bundle, &mut place) };
        debug_assert_eq!(next, ids.len(), "one pointer per component");
        let new = &mut new[..added];
        // SAFETY: the entity is live (so held) and lacks each of `new` (`get_ptr` said so),
        // which are distinct (the bundle's info refused duplicates); each value is the
        // bundle's owned value of its component (`Send + Sync`), forgotten by the caller.
        unsafe { self.storage.insert_new_many(entity, new, &self.components) };
        for &(id, _) in new.iter() {
            if self.components.info(id).tracks_changes() {
                self.changes.on_added(id, entity);
            }
        }
        replaced.run();
        if ty.requires {
            self.add_required_of(entity, bundle_id);
        }
        if let Some((ids, held)) = reacting {
            self.after_store(entity, &ids, &held);
        }
        true
    }
}

/// Values moved out of the storage, to drop once everything else is done: if one's `Drop`
/// panics, the rest are still dropped while unwinding.
#[derive(Default)]
struct PendingDrops(Vec<(ValueBuffer, Option<crate::component::DropFn>)>);

impl PendingDrops {
    fn run(mut self) {
        while let Some((value, drop)) = self.0.pop() {
            // SAFETY: each buffer holds an initialised value moved out of the storage, of
            // the component whose drop function was recorded with it; popped, so dropped once.
            unsafe { value.drop_value(drop) };
        }
    }
}

impl Drop for PendingDrops {
    fn drop(&mut self) {
        while let Some((value, drop)) = self.0.pop() {
            // SAFETY: as in `run` (reached only when `run` was interrupted by a panic).
            unsafe { value.drop_value(drop) };
        }
    }
}

/// Values made for one entity (by required components' constructors, by clones), held until
/// [`World::store_made`] hands them to the storage in one call; dropped if making them is
/// interrupted by a panic.
///
/// # Invariants
/// `values[i]` holds an initialised value of component `ids[i]` (with that component's
/// drop function); the ids are distinct.
#[derive(Default)]
pub(crate) struct MadeValues {
    values: PendingDrops,
    ids: Vec<ComponentId>,
}

impl MadeValues {
    /// Makes a value of `id` with `make`, given a fresh aligned buffer of `id`'s layout.
    ///
    /// # Safety
    /// `make` writes an initialised value of component `id` (as registered in
    /// `components`) into the buffer; `id` is not among the ids made so far.
    pub(crate) unsafe fn make(
        &mut self,
        components: &Components,
        id: ComponentId,
        make: impl FnOnce(NonNull<u8>),
    ) {
        let info = components.info(id);
        let buffer = ValueBuffer::new(info.layout());
        make(buffer.ptr);
        self.values.0.push((buffer, info.drop_fn()));
        self.ids.push(id);
    }

    /// The components made so far, in order.
    pub(crate) fn ids(&self) -> &[ComponentId] {
        &self.ids
    }
}

impl<S: Storage> World<S> {
    /// Stores the values of `made` on `entity` in one storage call (a table backend moves
    /// the row once) and logs the tracked ones as added; returns their ids.
    ///
    /// # Safety
    /// `entity` is live and lacks each component of `made`.
    pub(crate) unsafe fn store_made(
        &mut self,
        entity: Entity,
        mut made: MadeValues,
    ) -> Vec<ComponentId> {
        // Ownership passes to the storage with the call: from here on nothing drops the
        // values; the buffers are freed when this function returns (or unwinds).
        let buffers: Vec<ValueBuffer> = std::mem::take(&mut made.values.0)
            .into_iter()
            .map(|(buffer, _)| buffer)
            .collect();
        let mut values: Vec<(ComponentId, NonNull<u8>)> = made
            .ids
            .iter()
            .copied()
            .zip(buffers.iter().map(|b| b.ptr))
            .collect();
        // SAFETY: the entity is live, so held, and lacks each of `values` (caller), which
        // are distinct, each an initialised value of its component (`MadeValues`'
        // invariant; `Send + Sync`, as every component), never used again but by the
        // storage.
        unsafe {
            self.storage
                .insert_new_many(entity, &mut values, &self.components)
        };
        drop(buffers);
        for &id in &made.ids {
            if self.components.info(id).tracks_changes() {
                self.changes.on_added(id, entity);
            }
        }
        std::mem::take(&mut made.ids)
    }
}
