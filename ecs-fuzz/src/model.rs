//! The plain model every backend is checked against: a hash map from entity to [`Row`],
//! plus what change tracking and deferred spawning add.
//!
//! The model never allocates entity handles itself: the allocator is shared code (in
//! `ecs-core`), so the runner takes each new handle from the reference backend, checks that
//! every backend handed out the same one, and tells the model.

use hashbrown::{HashMap, HashSet};

use ecs_core::Entity;

use crate::components::{tracked, Row, ROW_LEN};
use ecs_conformance::kit::links::Links;

/// Which of a tracked component's two change logs a filter reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// `Added<T>`: spawn, or insert of a component the entity lacked.
    Added,
    /// `Changed<T>`: everything `Added` sees, plus writes through `Mut<T>` and replacing
    /// inserts.
    Changed,
}

/// One change filter of a reader: the component slot and log it watches.
#[derive(Clone, Debug)]
struct Watch {
    slot: usize,
    kind: Kind,
    /// Entities marked since the reader's latest run began.
    current: HashSet<Entity>,
    /// Entities marked since the run before the latest one began: the latest run's window
    /// plus `current`. What `QueryState::get` answers from.
    previous: HashSet<Entity>,
}

/// The model of one query state with change filters (a reader of change logs).
///
/// A run moves the reader's window: the first run sees every matching entity, later runs
/// see the matching entities marked since the previous run began. `get` answers from the
/// latest run's window plus everything marked since (everything passes before the second
/// run).
#[derive(Clone, Debug, Default)]
pub struct Reader {
    runs: u32,
    watches: Vec<Watch>,
}

impl Reader {
    /// A reader watching these `(slot, kind)` logs.
    pub fn new(watched: &[(usize, Kind)]) -> Reader {
        let mut watches: Vec<Watch> = Vec::new();
        for &(slot, kind) in watched {
            if !watches.iter().any(|w| w.slot == slot && w.kind == kind) {
                watches.push(Watch {
                    slot,
                    kind,
                    current: HashSet::new(),
                    previous: HashSet::new(),
                });
            }
        }
        Reader { runs: 0, watches }
    }

    /// Begins a run: the marks since the last run become the window.
    pub fn begin_run(&mut self) {
        self.runs += 1;
        for w in &mut self.watches {
            w.previous = std::mem::take(&mut w.current);
        }
    }

    /// Whether `entity` passes the change filter on `(slot, kind)` in the latest run (or for
    /// `get` between runs).
    pub fn passes(&self, slot: usize, kind: Kind, entity: Entity) -> bool {
        if self.runs <= 1 {
            return true;
        }
        self.watches
            .iter()
            .find(|w| w.slot == slot && w.kind == kind)
            .is_some_and(|w| w.previous.contains(&entity))
    }

    fn mark(&mut self, slot: usize, kind: Kind, entity: Entity) {
        if self.runs == 0 {
            // No cursor yet: the first run sees everything anyway.
            return;
        }
        for w in &mut self.watches {
            let seen = match kind {
                Kind::Added => w.slot == slot,
                Kind::Changed => w.slot == slot && w.kind == Kind::Changed,
            };
            if seen {
                w.current.insert(entity);
                w.previous.insert(entity);
            }
        }
    }
}

/// What the model believes the world holds.
#[derive(Clone, Debug, Default)]
pub struct Model {
    /// Every live entity and its components.
    pub rows: HashMap<Entity, Row>,
    /// Entities reserved by `Commands::spawn` and not yet made live by a flushing operation.
    pub reserved: Vec<Entity>,
    /// Change readers, by the index the runner gave them.
    pub readers: Vec<Reader>,
    /// Parent links between live entities.
    pub links: Links,
    /// Entities disabled for the query being answered ([`crate::op::Op::Hidden`]): the
    /// model's query answers leave them out.
    pub hidden: Vec<Entity>,
}

impl Model {
    /// Makes reserved entities live with no components (what every structural `&mut` world
    /// operation does first).
    pub fn flush(&mut self) {
        for entity in self.reserved.drain(..) {
            let fresh = self.rows.insert(entity, [None; ROW_LEN]).is_none();
            assert!(fresh, "reserved {entity:?} was already live");
        }
    }

    /// Records a spawned entity.
    pub fn spawn(&mut self, entity: Entity, row: Row) {
        for (slot, value) in row.iter().enumerate() {
            if value.is_some() {
                self.mark(slot, Kind::Added, entity);
            }
        }
        let fresh = self.rows.insert(entity, row).is_none();
        assert!(fresh, "new handle {entity:?} aliases a live entity");
    }

    /// Despawns (its parent forgets it, its children become roots); false for an entity
    /// that is not live.
    pub fn despawn(&mut self, entity: Entity) -> bool {
        let live = self.rows.remove(&entity).is_some();
        if live {
            self.links.despawn(entity);
        }
        live
    }

    /// Despawns everything.
    pub fn clear(&mut self) {
        self.flush();
        self.rows.clear();
        self.links.clear();
    }

    /// Sets a component: `Err(())` for a dead entity, else the replaced value.
    #[allow(clippy::result_unit_err)]
    pub fn insert(&mut self, entity: Entity, slot: usize, value: u32) -> Result<Option<u32>, ()> {
        let row = self.rows.get_mut(&entity).ok_or(())?;
        let old = row[slot].replace(value);
        let kind = if old.is_some() {
            Kind::Changed
        } else {
            Kind::Added
        };
        self.mark(slot, kind, entity);
        Ok(old)
    }

    /// Removes a component: `Err(true)` for a dead entity, `Err(false)` when it lacks it.
    pub fn remove(&mut self, entity: Entity, slot: usize) -> Result<u32, bool> {
        let row = self.rows.get_mut(&entity).ok_or(true)?;
        row[slot].take().ok_or(false)
    }

    /// The value of a component, if the entity is live and has it.
    pub fn get(&self, entity: Entity, slot: usize) -> Option<u32> {
        self.rows.get(&entity)?[slot]
    }

    /// Records a write through `Mut<T>` (or `set_changed`).
    pub fn changed(&mut self, slot: usize, entity: Entity) {
        self.mark(slot, Kind::Changed, entity);
    }

    /// Adds a reader; returns its index.
    pub fn add_reader(&mut self, watched: &[(usize, Kind)]) -> usize {
        self.readers.push(Reader::new(watched));
        self.readers.len() - 1
    }

    fn mark(&mut self, slot: usize, kind: Kind, entity: Entity) {
        if tracked(slot) {
            for reader in &mut self.readers {
                reader.mark(slot, kind, entity);
            }
        }
    }
}
