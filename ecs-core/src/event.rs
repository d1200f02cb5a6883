//! Events: messages from one system to others, double-buffered and cleared by the schedule.
//!
//! [`World::add_event`] makes a resource [`Events<E>`] holding two buffers. An
//! [`EventWriter<E>`] appends to the newer one; an [`EventReader<E>`] reads both, from where
//! *that* reader stopped last time, so each reader sees each event once. At the end of every
//! [`Schedule::run`](crate::Schedule::run) the older buffer is dropped and the newer becomes
//! the older:
//!
//! ```text
//!   run 1: writer sends a, b      older: []       newer: [a b]     reader sees a b
//!   end of run 1                  older: [a b]    newer: []
//!   run 2: writer sends c         older: [a b]    newer: [c]       reader sees c
//!   end of run 2                  older: [c]      newer: []        (a, b dropped)
//! ```
//!
//! So an event lives for the run it was sent in and the next one: a reader that runs before
//! the writer in the schedule still sees it, one run later. A reader that does not run for
//! two whole runs (disabled, or its condition said no) misses the events of the first.
//!
//! A writer writes the `Events<E>` resource and a reader reads it, so the schedule orders
//! them like any resource access: writers of one event type run one at a time.

use std::any::type_name;

use crate::error::EcsError;
use crate::storage::Storage;
#[cfg(feature = "schedule")]
use crate::system::{SystemAccess, SystemParam};
use crate::world::World;

/// The two buffers of one event type (see the [module docs](self)).
///
/// # Invariant
/// `older` holds the events with ids `older_start..newer_start`, `newer` those with ids
/// `newer_start..newer_start + newer.len()`: ids count every event ever sent.
#[derive(Debug)]
pub struct Events<E> {
    older: Vec<E>,
    newer: Vec<E>,
    older_start: u64,
    newer_start: u64,
}

impl<E> Default for Events<E> {
    fn default() -> Self {
        Events {
            older: Vec::new(),
            newer: Vec::new(),
            older_start: 0,
            newer_start: 0,
        }
    }
}

impl<E> Events<E> {
    /// Sends an event: readers see it from now until the end of the next schedule run.
    pub fn send(&mut self, event: E) {
        self.newer.push(event);
    }

    /// The id the next event will get (every event ever sent counts).
    fn end(&self) -> u64 {
        self.newer_start + self.newer.len() as u64
    }

    /// Events still held, oldest first.
    pub fn len(&self) -> usize {
        self.older.len() + self.newer.len()
    }

    /// Whether no event is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every event still held, oldest first: how a program that runs no schedule reads
    /// them (a system's `EventReader` sees each event once instead).
    ///
    /// ```
    /// use ecs_core::{event::Events, World};
    /// # use ecs_core::testing::VecStorage;
    /// struct Hit(u32);
    /// let mut world = World::<VecStorage>::new();
    /// world.add_event::<Hit>();
    /// world.send_event(Hit(1)).unwrap();
    /// world.update_events();
    /// world.send_event(Hit(2)).unwrap();
    /// let hits: Vec<u32> = world.resource::<Events<Hit>>().unwrap().iter().map(|h| h.0).collect();
    /// assert_eq!(hits, [1, 2]);
    /// ```
    pub fn iter(&self) -> impl Iterator<Item = &E> {
        self.since(0).0
    }

    /// Drops the older buffer; the newer one becomes the older. The schedule calls this at
    /// the end of each run.
    pub fn update(&mut self) {
        std::mem::swap(&mut self.older, &mut self.newer);
        self.newer.clear();
        self.older_start = self.newer_start;
        self.newer_start = self.end_of_older();
    }

    fn end_of_older(&self) -> u64 {
        self.older_start + self.older.len() as u64
    }

    /// The events with ids from `from` on (those still held), with where the next read
    /// starts.
    fn since(&self, from: u64) -> (impl Iterator<Item = &E>, u64) {
        let skip_older = from
            .saturating_sub(self.older_start)
            .min(self.older.len() as u64);
        let skip_newer = from
            .saturating_sub(self.newer_start)
            .min(self.newer.len() as u64);
        let events = self.older[skip_older as usize..]
            .iter()
            .chain(&self.newer[skip_newer as usize..]);
        (events, self.end())
    }
}

/// What the schedule calls at the end of a run: [`Events::update`] for every event type
/// added to the world.
struct EventUpdaters<S: Storage>(Vec<fn(&mut World<S>)>);

impl<S: Storage> World<S> {
    /// Makes the world carry events of type `E` (a resource [`Events<E>`], updated by every
    /// schedule run). Adding a type twice does nothing.
    ///
    /// ```
    /// # use ecs_core::{World, testing::VecStorage};
    /// # use ecs_core::event::Events;
    /// struct Hit(u32);
    /// let mut world = World::<VecStorage>::new();
    /// world.add_event::<Hit>();
    /// world.send_event(Hit(3));
    /// assert_eq!(world.resource::<Events<Hit>>().unwrap().len(), 1);
    /// ```
    pub fn add_event<E: Send + Sync + 'static>(&mut self) {
        if self.contains_resource::<Events<E>>() {
            return;
        }
        self.insert_resource(Events::<E>::default());
        fn update<E: Send + Sync + 'static, S: Storage>(world: &mut World<S>) {
            if let Some(events) = world.resource_mut::<Events<E>>() {
                events.update();
            }
        }
        match self.resource_mut::<EventUpdaters<S>>() {
            Some(updaters) => updaters.0.push(update::<E, S>),
            None => {
                self.insert_resource(EventUpdaters::<S>(vec![update::<E, S>]));
            }
        }
    }

    /// Sends an event from outside the systems.
    ///
    /// # Errors
    /// [`EcsError::MissingResource`] when `E` was not added with [`World::add_event`].
    pub fn send_event<E: Send + Sync + 'static>(&mut self, event: E) -> Result<(), EcsError> {
        match self.resource_mut::<Events<E>>() {
            Some(events) => {
                events.send(event);
                Ok(())
            }
            None => Err(missing::<E>(String::new())),
        }
    }
}

impl<S: Storage> World<S> {
    /// Ages every event type added with [`World::add_event`] by one frame, as the end of a
    /// schedule run does: events sent before the previous update are dropped, the newer
    /// ones become the older. A program that runs no schedule calls it once per frame.
    ///
    /// ```
    /// use ecs_core::{event::Events, World};
    /// # use ecs_core::testing::VecStorage;
    /// struct Hit(u32);
    /// let mut world = World::<VecStorage>::new();
    /// world.add_event::<Hit>();
    /// world.send_event(Hit(1)).unwrap();
    /// world.update_events(); // the hit is one frame old: still there
    /// assert_eq!(world.resource::<Events<Hit>>().unwrap().len(), 1);
    /// world.update_events(); // two frames: dropped
    /// assert_eq!(world.resource::<Events<Hit>>().unwrap().len(), 0);
    /// ```
    pub fn update_events(&mut self) {
        // By index: each update needs the world mutably, so the list cannot stay borrowed.
        let mut i = 0;
        while let Some(&update) = self
            .resource::<EventUpdaters<S>>()
            .and_then(|updaters| updaters.0.get(i))
        {
            update(self);
            i += 1;
        }
    }
}

fn missing<E>(system: String) -> EcsError {
    EcsError::MissingResource {
        system,
        resource: type_name::<Events<E>>().to_owned(),
    }
}

/// Sends events of type `E` from a system (feature `schedule`).
///
/// ```
/// # use ecs_core::prelude::*;
/// # use ecs_core::event::{EventReader, EventWriter};
/// # use ecs_core::testing::VecStorage;
/// struct Scored(u32);
/// #[derive(Default)]
/// struct Total(u32);
/// fn score(mut out: EventWriter<Scored>) {
///     out.send(Scored(10));
///     out.send(Scored(5));
/// }
/// fn tally(mut scores: EventReader<Scored>, mut total: ResMut<Total>) {
///     total.0 += scores.read().map(|s| s.0).sum::<u32>();
/// }
/// let mut world = World::<VecStorage>::new();
/// world.add_event::<Scored>();
/// world.insert_resource(Total::default());
/// let mut schedule = Schedule::<VecStorage>::new();
/// schedule.add_system(score);
/// schedule.add_system(tally);
/// schedule.run(&mut world);
/// schedule.run(&mut world);
/// assert_eq!(world.resource::<Total>().unwrap().0, 30, "each event counted once");
/// ```
#[cfg(feature = "schedule")]
pub struct EventWriter<'w, E: Send + Sync + 'static> {
    events: &'w mut Events<E>,
}

#[cfg(feature = "schedule")]
impl<E: Send + Sync + 'static> EventWriter<'_, E> {
    /// Sends one event.
    pub fn send(&mut self, event: E) {
        self.events.send(event);
    }

    /// Sends every event of `events`, in order.
    pub fn send_batch(&mut self, events: impl IntoIterator<Item = E>) {
        self.events.newer.extend(events);
    }
}

// SAFETY: records a write of the resource `Events<E>`; the item touches only it.
#[cfg(feature = "schedule")]
unsafe impl<S: Storage, E: Send + Sync + 'static> SystemParam<S> for EventWriter<'_, E> {
    type State = ();
    type Item<'w, 's> = EventWriter<'w, E>;

    fn init(_: &mut World<S>, access: &mut SystemAccess) -> Result<(), EcsError> {
        access
            .add_resource_write::<Events<E>>()
            .map_err(crate::system::conflict)
    }

    fn validate(_: &(), world: &World<S>) -> Result<(), EcsError> {
        match world.contains_resource::<Events<E>>() {
            true => Ok(()),
            false => Err(missing::<E>(String::new())),
        }
    }

    unsafe fn fetch<'w>(_: &mut (), world: &'w World<S>) -> EventWriter<'w, E> {
        // SAFETY: the write of `Events<E>` was recorded; the caller guarantees nothing else
        // accesses it for `'w`.
        let events = unsafe { world.resources().get_mut_unchecked::<Events<E>>() };
        EventWriter {
            events: events.unwrap_or_else(|| panic!("{}", missing::<E>(String::new()))),
        }
    }
}

/// Reads the events of type `E` this system has not seen yet (feature `schedule`; see the
/// [module docs](self) and [`EventWriter`]'s example).
#[cfg(feature = "schedule")]
pub struct EventReader<'w, 's, E: Send + Sync + 'static> {
    events: &'w Events<E>,
    next: &'s mut u64,
}

#[cfg(feature = "schedule")]
impl<'w, E: Send + Sync + 'static> EventReader<'w, '_, E> {
    /// The unseen events, oldest first; they count as seen afterwards.
    pub fn read(&mut self) -> impl Iterator<Item = &'w E> {
        let (events, end) = self.events.since(*self.next);
        *self.next = end;
        events
    }

    /// How many unseen events there are.
    pub fn len(&self) -> usize {
        self.events.since(*self.next).0.count()
    }

    /// Whether there is no unseen event.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

// SAFETY: records a read of the resource `Events<E>`; the item reads only it, and the
// reader's position lives in the system's own state.
#[cfg(feature = "schedule")]
unsafe impl<S: Storage, E: Send + Sync + 'static> SystemParam<S> for EventReader<'_, '_, E> {
    type State = u64;
    type Item<'w, 's> = EventReader<'w, 's, E>;

    fn init(_: &mut World<S>, access: &mut SystemAccess) -> Result<u64, EcsError> {
        access
            .add_resource_read::<Events<E>>()
            .map_err(crate::system::conflict)?;
        Ok(0)
    }

    fn validate(_: &u64, world: &World<S>) -> Result<(), EcsError> {
        match world.contains_resource::<Events<E>>() {
            true => Ok(()),
            false => Err(missing::<E>(String::new())),
        }
    }

    unsafe fn fetch<'w, 's>(next: &'s mut u64, world: &'w World<S>) -> EventReader<'w, 's, E> {
        let events = world.resource::<Events<E>>();
        EventReader {
            events: events.unwrap_or_else(|| panic!("{}", missing::<E>(String::new()))),
            next,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_live_for_two_updates_and_readers_see_each_once() {
        let mut events = Events::<u32>::default();
        let mut seen = 0;
        let mut read = |events: &Events<u32>| {
            let (items, end) = events.since(seen);
            let items: Vec<u32> = items.copied().collect();
            seen = end;
            items
        };
        events.send(1);
        events.send(2);
        assert_eq!(read(&events), [1, 2]);
        events.update();
        events.send(3);
        assert_eq!(read(&events), [3]);
        assert_eq!(events.len(), 3);
        events.update();
        assert_eq!(events.len(), 1, "1 and 2 dropped");
        events.update();
        assert!(events.is_empty());
        events.send(4);
        assert_eq!(read(&events), [4]);
        // A reader that starts late sees what is still held.
        let (late, _) = events.since(0);
        assert_eq!(late.copied().collect::<Vec<_>>(), [4]);
    }
}
