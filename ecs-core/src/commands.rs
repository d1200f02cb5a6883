//! Commands: spawn, despawn, insert and remove (and the hierarchy's set_parent,
//! remove_parent and despawn_recursive) deferred to a sync point.
//!
//! Systems see the world through a shared reference, so they cannot change its structure.
//! They queue [`Commands`] instead; the queue is applied at the *sync point*: the end of
//! [`Schedule::run`](crate::Schedule::run) (every system's queue, in the order the systems
//! were added), or an explicit [`World::apply`]. Spawning hands out the new entity at once,
//! reserved through `&World` ([`World::reserve_entity`]), so later commands can target it.
//!
//! Commands are applied in the order they were queued. One that cannot do what it says (it
//! targets an entity that no longer exists, removes components the entity lacks, would make
//! a cycle of parents) does nothing, drops its values, and is reported as a
//! [`SkippedCommand`]: [`World::apply`] returns them, and a schedule hands them, with the
//! system that queued them, to its error handler (see
//! [`Schedule::set_error_handler`](crate::Schedule::set_error_handler); by default each is
//! written to standard error) or returns them from
//! [`Schedule::try_run`](crate::Schedule::try_run).
//!
//! A queued bundle (of [`Commands::spawn`] or [`Commands::insert`]) goes into its entity at
//! once: on a table backend the entity's row moves one time, straight into the table of its
//! final set of components, as [`World::spawn`] places a whole bundle.
//!
//! Queues are type-erased over the backend: a command names components by their Rust type,
//! registered when it is applied.

use std::any::{type_name, Any, TypeId};
use std::fmt;
use std::mem::ManuallyDrop;
use std::ptr::NonNull;

use crate::bundle::{Bundle, BundleType};
use crate::component::{ComponentId, Components};
use crate::entities::Entities;
use crate::entity::Entity;
use crate::error::EcsError;
use crate::resource::Resource;
use crate::storage::Storage;
use crate::world::World;

/// A queued command that did nothing when it was applied, and why.
///
/// ```
/// # use ecs_core::{World, EcsError, commands::{CommandQueue, Commands}, testing::VecStorage};
/// let mut world = World::<VecStorage>::new();
/// let e = world.spawn(());
/// let mut queue = CommandQueue::new();
/// let mut commands = Commands::new(&mut queue, &world);
/// commands.despawn(e);
/// commands.despawn(e); // already gone when its turn comes
/// let skipped = world.apply(&mut queue);
/// assert_eq!(skipped.len(), 1);
/// assert_eq!(skipped[0].command, "despawn");
/// assert_eq!(skipped[0].error, EcsError::NoSuchEntity(e));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkippedCommand {
    /// What the command was: `"spawn"`, `"insert"`, `"remove"`, `"despawn"`,
    /// `"set_parent"`, `"remove_parent"` or `"despawn_recursive"`.
    pub command: &'static str,
    /// Why it did nothing (what the world's method of the same name would have answered).
    pub error: EcsError,
}

impl fmt::Display for SkippedCommand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "command {} did nothing: {}", self.command, self.error)
    }
}

/// A queue of deferred world changes (what a system's [`Commands`] fill).
#[derive(Default)]
pub struct CommandQueue {
    commands: Vec<Command>,
}

enum Command {
    Spawn(Entity, Box<dyn QueuedBundle>),
    Insert(Entity, Box<dyn QueuedBundle>),
    /// Registers the bundle's components and appends their ids (`Bundle::component_ids`).
    Remove(Entity, fn(&mut Components, &mut Vec<ComponentId>)),
    Despawn(Entity),
    /// `(child, parent)`: [`World::set_parent`].
    SetParent(Entity, Entity),
    RemoveParent(Entity),
    DespawnRecursive(Entity),
    InsertResource(TypeId, &'static str, Box<dyn Any + Send + Sync>),
    RemoveResource(TypeId),
    /// An event for observers (see [`crate::observer`]): target, value, type name.
    #[cfg(feature = "schedule")]
    Trigger(Option<Entity>, Box<dyn Any + Send + Sync>, &'static str),
}

impl CommandQueue {
    /// An empty queue.
    pub fn new() -> CommandQueue {
        CommandQueue::default()
    }

    /// Number of queued commands.
    pub fn len(&self) -> usize {
        self.commands.len()
    }

    /// True when nothing is queued.
    pub fn is_empty(&self) -> bool {
        self.commands.is_empty()
    }

    /// Moves every command of `other` to the end of this queue, in order.
    pub fn append(&mut self, other: &mut CommandQueue) {
        self.commands.append(&mut other.commands);
    }

    /// Drops every queued command without applying it; entities reserved by queued spawns
    /// are despawned (they exist, empty, once the world flushes), so nothing is left behind.
    /// The schedule does this for a system that panicked.
    pub fn discard<S: Storage>(&mut self, world: &mut World<S>) {
        world.flush();
        for command in self.commands.drain(..) {
            if let Command::Spawn(entity, _) = command {
                // It may already be gone; either way it is gone now.
                let _ = world.despawn(entity);
            }
        }
    }
}

impl fmt::Debug for CommandQueue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CommandQueue")
            .field("len", &self.commands.len())
            .finish()
    }
}

/// Queues deferred changes to a world; see the [module docs](self).
///
/// As a system parameter it needs no declaration: it conflicts with nothing, and its queue
/// is applied at the schedule's sync point.
///
/// ```
/// # use ecs_core::{World, Component, commands::{CommandQueue, Commands}, testing::VecStorage};
/// #[derive(Component)]
/// struct Hp(u32);
/// let mut world = World::<VecStorage>::new();
/// let mut queue = CommandQueue::new();
/// let mut commands = Commands::new(&mut queue, &world);
/// let e = commands.spawn((Hp(3),));
/// assert!(!world.contains(e), "nothing happens before the sync point");
/// world.apply(&mut queue);
/// assert_eq!(world.get::<Hp>(e).map(|hp| hp.0), Some(3));
/// ```
pub struct Commands<'w, 's> {
    queue: &'s mut CommandQueue,
    entities: &'w Entities,
}

impl<'w, 's> Commands<'w, 's> {
    /// Commands for `world`, queued into `queue`.
    pub fn new<S: Storage>(queue: &'s mut CommandQueue, world: &'w World<S>) -> Self {
        Commands {
            queue,
            entities: world.entities(),
        }
    }

    /// Commands into `queue`, reserving spawned entities from `entities` (a hook's queue).
    pub(crate) fn from_parts(queue: &'s mut CommandQueue, entities: &'w Entities) -> Self {
        Commands { queue, entities }
    }

    /// Queues triggering user event `event` for the whole world (see
    /// [`World::trigger`]); its observers run when the command is applied.
    #[cfg(feature = "schedule")]
    pub fn trigger<E: crate::observer::Event>(&mut self, event: E) {
        self.queue
            .commands
            .push(Command::Trigger(None, Box::new(event), type_name::<E>()));
    }

    /// Queues triggering user event `event` for `entity` (see [`World::trigger_for`]).
    #[cfg(feature = "schedule")]
    pub fn trigger_for<E: crate::observer::Event>(&mut self, entity: Entity, event: E) {
        self.queue.commands.push(Command::Trigger(
            Some(entity),
            Box::new(event),
            type_name::<E>(),
        ));
    }

    /// Queues spawning an entity with `bundle`; the returned entity exists after the sync
    /// point (other commands may target it before).
    pub fn spawn<B: Bundle>(&mut self, bundle: B) -> Entity {
        let entity = self.entities.reserve_entity();
        self.queue
            .commands
            .push(Command::Spawn(entity, Box::new(bundle)));
        entity
    }

    /// Queues inserting (or replacing) the bundle's components on `entity` (a component, a
    /// tuple or a `#[derive(Bundle)]` struct); replaced values are dropped.
    ///
    /// ```
    /// # use ecs_core::{World, Component, Bundle, testing::VecStorage};
    /// # use ecs_core::commands::{CommandQueue, Commands};
    /// #[derive(Component)]
    /// struct Hp(u32);
    /// #[derive(Component)]
    /// struct Armor(u32);
    /// #[derive(Bundle)]
    /// struct Stats { hp: Hp, armor: Armor }
    /// let mut world = World::<VecStorage>::new();
    /// let e = world.spawn(Hp(1));
    /// let mut queue = CommandQueue::new();
    /// let mut commands = Commands::new(&mut queue, &world);
    /// commands.insert(e, Stats { hp: Hp(5), armor: Armor(2) });
    /// world.apply(&mut queue);
    /// assert_eq!(world.get::<Hp>(e).map(|hp| hp.0), Some(5));
    /// assert!(world.has::<Armor>(e));
    /// ```
    pub fn insert<B: Bundle>(&mut self, entity: Entity, bundle: B) {
        self.queue
            .commands
            .push(Command::Insert(entity, Box::new(bundle)));
    }

    /// Queues removing (and dropping) the components of bundle `B` from `entity`, all or
    /// nothing as [`World::remove`]: when applied to an entity that lacks one of them, the
    /// command does nothing.
    ///
    /// ```
    /// # use ecs_core::{World, Component, testing::VecStorage};
    /// # use ecs_core::commands::{CommandQueue, Commands};
    /// #[derive(Component)]
    /// struct Hp(u32);
    /// #[derive(Component)]
    /// struct Armor(u32);
    /// let mut world = World::<VecStorage>::new();
    /// let both = world.spawn((Hp(1), Armor(1)));
    /// let hp_only = world.spawn(Hp(1));
    /// let mut queue = CommandQueue::new();
    /// let mut commands = Commands::new(&mut queue, &world);
    /// commands.remove::<(Hp, Armor)>(both);
    /// commands.remove::<(Hp, Armor)>(hp_only);
    /// world.apply(&mut queue);
    /// assert!(!world.has::<Hp>(both) && !world.has::<Armor>(both));
    /// assert!(world.has::<Hp>(hp_only), "lacked Armor: nothing removed");
    /// ```
    pub fn remove<B: Bundle>(&mut self, entity: Entity) {
        self.queue
            .commands
            .push(Command::Remove(entity, B::component_ids));
    }

    /// Queues despawning `entity`.
    pub fn despawn(&mut self, entity: Entity) {
        self.queue.commands.push(Command::Despawn(entity));
    }

    /// Commands about one entity, chained: `commands.entity(e).insert(a).remove::<B>()`.
    /// The entity is not checked now; a command on an entity that is gone when it is
    /// applied is skipped and reported, as every command is.
    ///
    /// ```
    /// # use ecs_core::{World, Component, commands::{CommandQueue, Commands}, testing::VecStorage};
    /// #[derive(Component)]
    /// struct Hp(u32);
    /// #[derive(Component)]
    /// struct Stunned;
    /// let mut world = World::<VecStorage>::new();
    /// let parent = world.spawn(());
    /// let e = world.spawn(Stunned);
    /// let mut queue = CommandQueue::new();
    /// let mut commands = Commands::new(&mut queue, &world);
    /// commands.entity(e).insert(Hp(3)).remove::<Stunned>().set_parent(parent);
    /// let spawned = commands.spawn(Hp(1));
    /// commands.entity(spawned).insert(Stunned);
    /// world.apply(&mut queue);
    /// assert_eq!(world.get::<Hp>(e).map(|hp| hp.0), Some(3));
    /// assert!(!world.has::<Stunned>(e) && world.has::<Stunned>(spawned));
    /// assert_eq!(world.parent(e), Ok(Some(parent)));
    /// ```
    pub fn entity(&mut self, entity: Entity) -> EntityCommands<'_, 'w, 's> {
        EntityCommands {
            commands: self,
            entity,
        }
    }

    /// Queues making `child` the last child of `parent` ([`World::set_parent`]). When
    /// applied, a stale handle or a would-be cycle makes the command do nothing.
    ///
    /// ```
    /// # use ecs_core::{World, commands::{CommandQueue, Commands}, testing::VecStorage};
    /// let mut world = World::<VecStorage>::new();
    /// let parent = world.spawn(());
    /// let mut queue = CommandQueue::new();
    /// let mut commands = Commands::new(&mut queue, &world);
    /// let child = commands.spawn(());
    /// commands.set_parent(child, parent);
    /// commands.set_parent(parent, child); // a cycle once applied: skipped
    /// world.apply(&mut queue);
    /// assert_eq!(world.parent(child), Ok(Some(parent)));
    /// assert_eq!(world.parent(parent), Ok(None));
    /// ```
    pub fn set_parent(&mut self, child: Entity, parent: Entity) {
        self.queue.commands.push(Command::SetParent(child, parent));
    }

    /// Queues making `child` a root ([`World::remove_parent`]).
    pub fn remove_parent(&mut self, child: Entity) {
        self.queue.commands.push(Command::RemoveParent(child));
    }

    /// Queues despawning `entity` and all its descendants ([`World::despawn_recursive`]).
    ///
    /// ```
    /// # use ecs_core::{World, commands::{CommandQueue, Commands}, testing::VecStorage};
    /// let mut world = World::<VecStorage>::new();
    /// let root = world.spawn(());
    /// let leaf = world.spawn_child(root, ()).unwrap();
    /// let mut queue = CommandQueue::new();
    /// Commands::new(&mut queue, &world).despawn_recursive(root);
    /// world.apply(&mut queue);
    /// assert!(!world.contains(root) && !world.contains(leaf));
    /// ```
    pub fn despawn_recursive(&mut self, entity: Entity) {
        self.queue.commands.push(Command::DespawnRecursive(entity));
    }

    /// Queues storing a resource (replacing one of the same type).
    pub fn insert_resource<R: Resource>(&mut self, value: R) {
        self.queue.commands.push(Command::InsertResource(
            TypeId::of::<R>(),
            type_name::<R>(),
            Box::new(value),
        ));
    }

    /// Queues removing the resource of type `R`.
    pub fn remove_resource<R: Resource>(&mut self) {
        self.queue
            .commands
            .push(Command::RemoveResource(TypeId::of::<R>()));
    }
}

/// Commands about one entity ([`Commands::entity`]); each method queues one command and
/// returns the builder for the next.
pub struct EntityCommands<'a, 'w, 's> {
    commands: &'a mut Commands<'w, 's>,
    entity: Entity,
}

impl EntityCommands<'_, '_, '_> {
    /// The entity the commands are about.
    pub fn id(&self) -> Entity {
        self.entity
    }

    /// Queues inserting (or replacing) the bundle's components ([`Commands::insert`]).
    pub fn insert<B: Bundle>(&mut self, bundle: B) -> &mut Self {
        self.commands.insert(self.entity, bundle);
        self
    }

    /// Queues removing bundle `B`'s components, all or nothing ([`Commands::remove`]).
    pub fn remove<B: Bundle>(&mut self) -> &mut Self {
        self.commands.remove::<B>(self.entity);
        self
    }

    /// Queues making the entity the last child of `parent` ([`Commands::set_parent`]).
    pub fn set_parent(&mut self, parent: Entity) -> &mut Self {
        self.commands.set_parent(self.entity, parent);
        self
    }

    /// Queues making the entity a root ([`Commands::remove_parent`]).
    pub fn remove_parent(&mut self) -> &mut Self {
        self.commands.remove_parent(self.entity);
        self
    }

    /// Queues spawning `bundle` as the entity's last child; returns the child.
    pub fn spawn_child<B: Bundle>(&mut self, bundle: B) -> Entity {
        let child = self.commands.spawn(bundle);
        self.commands.set_parent(child, self.entity);
        child
    }

    /// Queues despawning the entity ([`Commands::despawn`]).
    pub fn despawn(&mut self) {
        self.commands.despawn(self.entity);
    }

    /// Queues despawning the entity and its descendants ([`Commands::despawn_recursive`]).
    pub fn despawn_recursive(&mut self) {
        self.commands.despawn_recursive(self.entity);
    }
}

impl<S: Storage> World<S> {
    /// Applies (and empties) a command queue: the sync point of [`Commands`] used outside a
    /// schedule. Returns the commands that did nothing, with why (empty when every command
    /// did what it said), after what observers and hooks' commands reported since the last
    /// sync point (see [`crate::observer`]). If a command panics (a component's `Drop`), the rest are dropped
    /// unapplied; the world stays consistent.
    ///
    /// ```
    /// # use ecs_core::{World, commands::{CommandQueue, Commands}, testing::VecStorage};
    /// let mut world = World::<VecStorage>::new();
    /// let e = world.spawn(());
    /// let mut queue = CommandQueue::new();
    /// Commands::new(&mut queue, &world).despawn(e);
    /// assert!(world.apply(&mut queue).is_empty());
    /// assert!(!world.contains(e) && queue.is_empty());
    /// ```
    pub fn apply(&mut self, queue: &mut CommandQueue) -> Vec<SkippedCommand> {
        self.apply_recording(queue);
        std::mem::take(&mut self.skipped_commands)
    }

    /// [`World::apply`], recording the skipped commands in the world for the schedule to
    /// collect (a system's sync point).
    pub(crate) fn apply_recording(&mut self, queue: &mut CommandQueue) {
        self.flush();
        let mut ids = Vec::new();
        for command in queue.commands.drain(..) {
            let spawn = matches!(command, Command::Spawn(..));
            match command {
                Command::Spawn(entity, bundle) | Command::Insert(entity, bundle) => {
                    let taken = bundle.insert_into(&mut WorldSink {
                        world: self,
                        entity,
                    });
                    if !taken {
                        let command = if spawn { "spawn" } else { "insert" };
                        self.skip(command, EcsError::NoSuchEntity(entity));
                    }
                }
                Command::Remove(entity, component_ids) => {
                    ids.clear();
                    component_ids(self.components_mut(), &mut ids);
                    self.sync_reactions();
                    // All or nothing, as `World::remove`: a missing entity or component makes
                    // the command do nothing (reported). Relationship components change only
                    // through the hierarchy commands.
                    if let Err(error) = self.check_removable(entity, &ids) {
                        self.skip("remove", error);
                        continue;
                    }
                    // One removal: what hooks and observers queue waits for all of it.
                    self.with_reactions_held(|world| {
                        for &id in &ids {
                            // Fails only for a second mention of one component (already
                            // gone): hooks change no structure, and their commands wait.
                            let _ = world.remove_by_id(entity, id);
                        }
                    });
                }
                Command::Despawn(entity) => {
                    if let Err(error) = self.despawn(entity) {
                        self.skip("despawn", error);
                    }
                }
                // As for the other commands, a stale handle (or a cycle) skips the command.
                Command::SetParent(child, parent) => {
                    if let Err(error) = self.set_parent(child, parent) {
                        self.skip("set_parent", error);
                    }
                }
                Command::RemoveParent(child) => {
                    if let Err(error) = self.remove_parent(child) {
                        self.skip("remove_parent", error);
                    }
                }
                Command::DespawnRecursive(entity) => {
                    if let Err(error) = self.despawn_recursive(entity) {
                        self.skip("despawn_recursive", error);
                    }
                }
                Command::InsertResource(type_id, name, value) => {
                    self.resources.insert_boxed(type_id, name, value);
                }
                Command::RemoveResource(type_id) => {
                    self.resources.remove_by_type_id(type_id);
                }
                #[cfg(feature = "schedule")]
                Command::Trigger(target, event, name) => {
                    if let Some(entity) = target {
                        if let Err(error) = self.check(entity) {
                            self.skip("trigger", error);
                            continue;
                        }
                    }
                    if let Err(error) = self.trigger_boxed(target, event, name, None) {
                        self.skip("trigger", error);
                    }
                }
            }
        }
    }

    /// Records a command that did nothing.
    #[cold]
    fn skip(&mut self, command: &'static str, error: EcsError) {
        self.skipped_commands
            .push(SkippedCommand { command, error });
    }

    /// Whether a queued removal of components `ids` from `entity` can happen: the entity is
    /// live, holds every one, and none is a relationship component.
    fn check_removable(&self, entity: Entity, ids: &[ComponentId]) -> Result<(), EcsError> {
        self.check(entity)?;
        for &id in ids {
            self.refuse_link_component(entity, id)?;
            if !self.storage().contains(entity, id) {
                return Err(EcsError::MissingComponent {
                    entity,
                    component: self.components().info(id).name().to_owned().into(),
                });
            }
        }
        Ok(())
    }
}

/// Where a queued bundle's values go: one world entity.
trait BundleSink {
    /// Moves the values of the bundle of type `ty` at `bundle` in; false when the target is
    /// gone (nothing read).
    ///
    /// # Safety
    /// `bundle` points to an initialised bundle of type `ty`; on `true` the caller must
    /// neither use nor drop its values again; on `false` they are untouched.
    unsafe fn take(&mut self, ty: &BundleType, bundle: NonNull<u8>) -> bool;
}

/// A bundle whose type is forgotten until it is applied to some world.
trait QueuedBundle: Send + Sync {
    /// Hands the bundle to the sink; drops its values if the sink does not take them.
    /// Returns whether it took them.
    fn insert_into(self: Box<Self>, sink: &mut dyn BundleSink) -> bool;
}

impl<B: Bundle> QueuedBundle for B {
    fn insert_into(self: Box<Self>, sink: &mut dyn BundleSink) -> bool {
        let mut bundle = ManuallyDrop::new(*self);
        // SAFETY: a `B` on our stack, described by `B`'s own type; in a `ManuallyDrop`, so if
        // the sink takes its values we never drop them ourselves.
        let taken =
            unsafe { sink.take(&BundleType::of::<B>(), NonNull::from(&mut *bundle).cast()) };
        if !taken {
            // SAFETY: the sink left the values untouched; they are dropped once, here.
            unsafe { ManuallyDrop::drop(&mut bundle) };
        }
        taken
    }
}

/// Inserts a queued bundle into one entity of a world (none if it no longer exists).
struct WorldSink<'a, S: Storage> {
    world: &'a mut World<S>,
    entity: Entity,
}

impl<S: Storage> BundleSink for WorldSink<'_, S> {
    unsafe fn take(&mut self, ty: &BundleType, bundle: NonNull<u8>) -> bool {
        // SAFETY: forwarded contract.
        unsafe { self.world.insert_queued(self.entity, ty, bundle) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::component::Component;
    use crate::testing::VecStorage;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    #[derive(Debug, PartialEq)]
    struct Hp(u32);
    impl Component for Hp {
        type Mutability = crate::component::Mutable;
    }
    struct Counted(Arc<AtomicUsize>);
    impl Component for Counted {
        type Mutability = crate::component::Mutable;
    }
    impl Drop for Counted {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::Relaxed);
        }
    }

    #[test]
    fn commands_apply_in_order() {
        let mut world = World::<VecStorage>::new();
        let old = world.spawn((Hp(1),));
        let mut queue = CommandQueue::new();
        let mut c = Commands::new(&mut queue, &world);
        let a = c.spawn((Hp(10),));
        let b = c.spawn(());
        c.insert(b, (Hp(20),));
        c.insert(old, (Hp(2),));
        c.remove::<Hp>(a);
        c.despawn(b);
        c.insert_resource(7u32);
        assert_eq!(queue.len(), 7);
        world.apply(&mut queue);
        assert!(world.contains(a) && !world.has::<Hp>(a));
        assert!(!world.contains(b));
        assert_eq!(world.get::<Hp>(old), Some(&Hp(2)));
        assert_eq!(world.resource::<u32>(), Some(&7));
        let mut c = Commands::new(&mut queue, &world);
        c.remove_resource::<u32>();
        world.apply(&mut queue);
        assert!(!world.contains_resource::<u32>());
    }

    #[test]
    fn commands_on_missing_entities_drop_their_values() {
        let drops = Arc::new(AtomicUsize::new(0));
        let mut world = World::<VecStorage>::new();
        let gone = world.spawn(());
        world.despawn(gone).unwrap();
        let mut queue = CommandQueue::new();
        let mut c = Commands::new(&mut queue, &world);
        c.insert(gone, (Counted(drops.clone()),));
        c.remove::<Hp>(gone);
        c.despawn(gone);
        world.apply(&mut queue);
        assert_eq!(drops.load(Ordering::Relaxed), 1);
    }

    #[test]
    fn discarded_spawns_leave_nothing_behind() {
        let drops = Arc::new(AtomicUsize::new(0));
        let mut world = World::<VecStorage>::new();
        let mut queue = CommandQueue::new();
        let mut c = Commands::new(&mut queue, &world);
        let e = c.spawn((Counted(drops.clone()),));
        queue.discard(&mut world);
        assert!(!world.contains(e) && world.is_empty());
        assert_eq!(drops.load(Ordering::Relaxed), 1);
        assert!(queue.is_empty());
    }
}
