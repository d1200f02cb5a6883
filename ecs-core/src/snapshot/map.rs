//! Remapping entity handles held inside components: [`MapEntities`], [`EntityMapper`], and
//! the old → new [`EntityMap`] a load returns.

use std::collections::VecDeque;

use hashbrown::HashMap;

use crate::entity::Entity;

/// Rewrites one entity handle (what a load gives [`MapEntities::map_entities`]: the handle
/// of the same entity in the world loaded into).
///
/// Any `FnMut(Entity) -> Entity` is a mapper.
pub trait EntityMapper {
    /// The handle `entity` becomes.
    fn map(&mut self, entity: Entity) -> Entity;
}

impl<F: FnMut(Entity) -> Entity> EntityMapper for F {
    fn map(&mut self, entity: Entity) -> Entity {
        self(entity)
    }
}

/// A value that holds entity handles, which a load must rewrite: a saved handle names an
/// entity of the saving world, and the loaded copy of that entity has another handle.
///
/// `#[derive(MapEntities)]` maps every field of type `Entity`, `Option<Entity>` or
/// `Vec<Entity>`, and every field marked `#[entities]` (whose type implements this trait);
/// other fields are left alone. Register such a component with
/// [`SnapshotRegistry::component_with_entities`](super::SnapshotRegistry::component_with_entities).
///
/// ```
/// use ecs_core::{Component, Entity, MapEntities};
///
/// #[derive(Component, MapEntities)]
/// struct Targets {
///     primary: Entity,
///     backup: Option<Entity>,
///     seen: Vec<Entity>,
///     damage: f32, // not a handle: untouched
/// }
/// let e = |i| Entity::new(i, 1).unwrap();
/// let mut t = Targets { primary: e(1), backup: Some(e(2)), seen: vec![e(3)], damage: 1.0 };
/// t.map_entities(&mut |old: Entity| Entity::new(old.index() + 10, 1).unwrap());
/// assert_eq!((t.primary, t.backup, t.seen), (e(11), Some(e(12)), vec![e(13)]));
/// ```
pub trait MapEntities {
    /// Replaces every handle the value holds with `mapper`'s answer for it.
    fn map_entities(&mut self, mapper: &mut dyn EntityMapper);
}

impl MapEntities for Entity {
    fn map_entities(&mut self, mapper: &mut dyn EntityMapper) {
        *self = mapper.map(*self);
    }
}

impl<T: MapEntities> MapEntities for Option<T> {
    fn map_entities(&mut self, mapper: &mut dyn EntityMapper) {
        if let Some(value) = self {
            value.map_entities(mapper);
        }
    }
}

impl<T: MapEntities> MapEntities for Vec<T> {
    fn map_entities(&mut self, mapper: &mut dyn EntityMapper) {
        self.iter_mut().for_each(|value| value.map_entities(mapper));
    }
}

impl<T: MapEntities> MapEntities for VecDeque<T> {
    fn map_entities(&mut self, mapper: &mut dyn EntityMapper) {
        self.iter_mut().for_each(|value| value.map_entities(mapper));
    }
}

impl<T: MapEntities, const N: usize> MapEntities for [T; N] {
    fn map_entities(&mut self, mapper: &mut dyn EntityMapper) {
        self.iter_mut().for_each(|value| value.map_entities(mapper));
    }
}

impl<T: MapEntities + ?Sized> MapEntities for Box<T> {
    fn map_entities(&mut self, mapper: &mut dyn EntityMapper) {
        (**self).map_entities(mapper);
    }
}

impl<T: MapEntities> MapEntities for [T] {
    fn map_entities(&mut self, mapper: &mut dyn EntityMapper) {
        self.iter_mut().for_each(|value| value.map_entities(mapper));
    }
}

/// A list of handles, kept as a run when it is one: consecutive indices of one generation
/// (a world filled without despawns lists its entities so, and a load into a fresh world
/// gives its entities so), which costs nothing however long it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Handles {
    /// `len` handles from `first`, each index one more than the last, one generation.
    Run { first: Entity, len: usize },
    /// Any handles.
    List(Vec<Entity>),
}

impl Handles {
    /// The handles of `slice` (a run is recognised in one pass of plain comparisons).
    pub(crate) fn of(slice: &[Entity]) -> Handles {
        let Some(&first) = slice.first() else {
            return Handles::List(Vec::new());
        };
        // The run's last index, `first + len - 1`, must fit a `u32`.
        let fits = first.index() as usize + slice.len() <= u32::MAX as usize + 1;
        // Within a run a handle's bits are the first's plus its position (the index is the
        // low half, and it does not overflow into the generation: `fits`).
        let base = first.to_bits();
        let run = fits
            && slice
                .iter()
                .zip(base..)
                .all(|(e, bits)| e.to_bits() == bits);
        if run {
            Handles::Run {
                first,
                len: slice.len(),
            }
        } else {
            Handles::List(slice.to_vec())
        }
    }

    /// How many handles.
    pub(crate) fn len(&self) -> usize {
        match self {
            Handles::Run { len, .. } => *len,
            Handles::List(list) => list.len(),
        }
    }

    /// Handle number `i` (`i < len`).
    #[inline]
    pub(crate) fn get(&self, i: usize) -> Entity {
        match self {
            Handles::Run { first, .. } => run_at(*first, i),
            Handles::List(list) => list[i],
        }
    }

    /// Every handle, in order.
    pub(crate) fn iter(&self) -> impl ExactSizeIterator<Item = Entity> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }
}

/// Handle `i` of the run from `first`.
#[inline]
fn run_at(first: Entity, i: usize) -> Entity {
    Entity::new(first.index() + i as u32, first.generation()).expect("a run keeps its generation")
}

/// Builds [`Handles`] one handle at a time, as a run while the handles allow it.
pub(crate) struct HandlesBuilder {
    run: Option<(Entity, usize)>,
    list: Vec<Entity>,
    /// Room to make once the handles stop being a run (a bound the input justifies).
    room: usize,
}

impl HandlesBuilder {
    /// A builder expecting about `room` handles (only reserved if they are not a run).
    pub(crate) fn new(room: usize) -> HandlesBuilder {
        HandlesBuilder {
            run: None,
            list: Vec::new(),
            room,
        }
    }

    /// How many handles so far.
    pub(crate) fn len(&self) -> usize {
        self.run.map_or(self.list.len(), |(_, len)| len)
    }

    /// If the handles so far are a run whose next handle has generation `generation` and
    /// its index one more than the last: the run's first handle, else `None`.
    #[inline]
    pub(crate) fn run_of(&self, generation: u32) -> Option<Entity> {
        self.run
            .map(|(first, _)| first)
            .filter(|first| first.generation() == generation)
    }

    /// Extends a run by `more` handles (each index one more than the last): what `more`
    /// pushes would do, in one step.
    ///
    /// # Panics
    /// Unless the handles so far are a run and the extended run's indices fit a `u32` (its
    /// last index, `first + len + more - 1`, is at most `u32::MAX`).
    pub(crate) fn extend_run(&mut self, more: usize) {
        let (first, len) = self.run.as_mut().expect("extends a run");
        assert!(first.index() as usize + *len + more <= u32::MAX as usize + 1);
        *len += more;
    }

    /// Appends `entity`.
    #[inline]
    pub(crate) fn push(&mut self, entity: Entity) {
        match &mut self.run {
            Some((first, len))
                if entity.generation() == first.generation()
                    && u32::try_from(*len)
                        .ok()
                        .and_then(|n| first.index().checked_add(n))
                        == Some(entity.index()) =>
            {
                *len += 1
            }
            Some(_) => self.become_list(entity),
            None if self.list.is_empty() => self.run = Some((entity, 1)),
            None => self.list.push(entity),
        }
    }

    #[cold]
    fn become_list(&mut self, next: Entity) {
        let (first, len) = self.run.take().expect("called on a run");
        self.list.reserve(self.room.max(len + 1));
        self.list.extend((0..len).map(|i| run_at(first, i)));
        self.list.push(next);
    }

    /// The handles pushed.
    pub(crate) fn finish(self) -> Handles {
        match self.run {
            Some((first, len)) => Handles::Run { first, len },
            None => Handles::List(self.list),
        }
    }
}

/// Finds a saved handle's position in the snapshot's entity list.
///
/// A run answers by arithmetic. Otherwise saved indices are usually dense (a world's
/// allocator hands out indices from 0), so a table indexed by entity index answers with one
/// read; it is used only when the largest index is small next to the number of entities
/// (so its size stays bounded by the input's), otherwise a hash map.
#[derive(Debug, Clone)]
pub(crate) enum OldIndex {
    /// The list is a run: no table.
    Run,
    /// `table[index]` is the position of the handle with that index, `u32::MAX` for none.
    Direct(Vec<u32>),
    /// Packed handle bits to position.
    Hashed(HashMap<u64, u32>),
}

/// No entity at this index of an [`OldIndex::Direct`] table.
const NONE: u32 = u32::MAX;

impl OldIndex {
    /// Indexes `handles`; on a repeated handle, the positions of its first and second
    /// occurrence.
    pub(crate) fn build(handles: &Handles) -> Result<OldIndex, (usize, usize)> {
        let entities = match handles {
            Handles::Run { .. } => return Ok(OldIndex::Run),
            Handles::List(list) => list,
        };
        let max = entities.iter().map(|e| e.index()).max().unwrap_or(0) as usize;
        if max <= entities.len().saturating_mul(2).saturating_add(1024) {
            let mut table = vec![NONE; max + 1];
            for (pos, e) in entities.iter().enumerate() {
                let slot = &mut table[e.index() as usize];
                if *slot != NONE && entities[*slot as usize] == *e {
                    return Err((*slot as usize, pos));
                }
                if *slot != NONE {
                    // Two generations of one index: a table cannot hold both.
                    return OldIndex::hashed(entities);
                }
                *slot = pos as u32;
            }
            return Ok(OldIndex::Direct(table));
        }
        OldIndex::hashed(entities)
    }

    fn hashed(entities: &[Entity]) -> Result<OldIndex, (usize, usize)> {
        let mut map = HashMap::with_capacity(entities.len());
        for (pos, e) in entities.iter().enumerate() {
            if let Some(&first) = map.get(&e.to_bits()) {
                return Err((first as usize, pos));
            }
            map.insert(e.to_bits(), pos as u32);
        }
        Ok(OldIndex::Hashed(map))
    }

    /// The position of `entity` in `handles` (the list this index was built from).
    #[inline]
    pub(crate) fn position(&self, handles: &Handles, entity: Entity) -> Option<usize> {
        match (self, handles) {
            (_, Handles::Run { first, len }) => {
                let offset = entity.index().checked_sub(first.index())? as usize;
                (offset < *len && entity.generation() == first.generation()).then_some(offset)
            }
            (OldIndex::Direct(table), Handles::List(entities)) => {
                let pos = *table.get(entity.index() as usize)?;
                (pos != NONE && entities[pos as usize] == entity).then_some(pos as usize)
            }
            (OldIndex::Hashed(map), Handles::List(_)) => {
                map.get(&entity.to_bits()).map(|&p| p as usize)
            }
            (OldIndex::Run, Handles::List(_)) => unreachable!("a run's index is for a run"),
        }
    }
}

/// Which entity of the loaded world each saved handle became (returned by
/// [`SnapshotRegistry::load`](super::SnapshotRegistry::load)).
///
/// ```
/// # use ecs_core::{World, Component, testing::VecStorage};
/// # use ecs_core::snapshot::SnapshotRegistry;
/// # use serde::{Serialize, Deserialize};
/// #[derive(Component, Serialize, Deserialize)]
/// struct Hp(u32);
/// let registry = SnapshotRegistry::new().component::<Hp>("Hp");
/// let mut saved = World::<VecStorage>::new();
/// let hero = saved.spawn(Hp(10));
/// let json = serde_json::to_string(&registry.save(&saved)).unwrap();
///
/// let mut world = World::<VecStorage>::new();
/// world.spawn(Hp(1)); // loading merges: the saved entities get new handles
/// let map = registry.load(&mut world, &mut serde_json::Deserializer::from_str(&json)).unwrap();
/// let loaded = map.get(hero).unwrap();
/// assert_ne!(loaded, hero);
/// assert_eq!(world.get::<Hp>(loaded).unwrap().0, 10);
/// assert_eq!(map.len(), 1);
/// ```
#[derive(Debug, Clone)]
pub struct EntityMap {
    old: Handles,
    new: Handles,
    index: OldIndex,
}

impl EntityMap {
    pub(crate) fn new(old: Handles, new: Handles, index: OldIndex) -> EntityMap {
        debug_assert_eq!(old.len(), new.len());
        EntityMap { old, new, index }
    }

    /// The handle the saved entity `old` has in the loaded world; `None` if the snapshot did
    /// not list it.
    pub fn get(&self, old: Entity) -> Option<Entity> {
        self.index
            .position(&self.old, old)
            .map(|position| self.new.get(position))
    }

    /// How many entities were loaded.
    pub fn len(&self) -> usize {
        self.old.len()
    }

    /// True when the snapshot listed no entity.
    pub fn is_empty(&self) -> bool {
        self.old.len() == 0
    }

    /// Every (saved handle, loaded handle) pair, in the snapshot's order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (Entity, Entity)> + '_ {
        self.old.iter().zip(self.new.iter())
    }

    /// The loaded entities, in the snapshot's order.
    pub fn loaded(&self) -> impl ExactSizeIterator<Item = Entity> + '_ {
        self.new.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(index: u32, generation: u32) -> Entity {
        Entity::new(index, generation).unwrap()
    }

    fn list(handles: &[Entity]) -> Handles {
        Handles::List(handles.to_vec())
    }

    #[test]
    fn dense_indices_use_a_table_and_sparse_ones_a_map() {
        let dense = list(&[e(2, 1), e(0, 3), e(1, 1)]);
        let index = OldIndex::build(&dense).unwrap();
        assert!(matches!(index, OldIndex::Direct(_)));
        assert_eq!(index.position(&dense, e(0, 3)), Some(1));
        assert_eq!(index.position(&dense, e(0, 2)), None, "another generation");
        assert_eq!(index.position(&dense, e(9, 1)), None, "beyond the table");
        let sparse = list(&[e(4_000_000_000, 1), e(7, 1)]);
        let index = OldIndex::build(&sparse).unwrap();
        assert!(matches!(index, OldIndex::Hashed(_)), "no 16 GB table");
        assert_eq!(index.position(&sparse, e(7, 1)), Some(1));
    }

    #[test]
    fn repeated_handles_are_found_and_generations_kept_apart() {
        let repeated = list(&[e(1, 1), e(2, 1), e(1, 1)]);
        assert_eq!(OldIndex::build(&repeated).unwrap_err(), (0, 2));
        let two_generations = list(&[e(1, 1), e(1, 2)]);
        let index = OldIndex::build(&two_generations).unwrap();
        assert_eq!(index.position(&two_generations, e(1, 2)), Some(1));
        let again = list(&[e(1, 1), e(1, 2), e(1, 1)]);
        assert_eq!(OldIndex::build(&again).unwrap_err(), (0, 2));
    }

    #[test]
    fn runs_cost_nothing_and_answer_by_arithmetic() {
        let run = Handles::of(&[e(5, 2), e(6, 2), e(7, 2)]);
        assert_eq!(
            run,
            Handles::Run {
                first: e(5, 2),
                len: 3
            }
        );
        let index = OldIndex::build(&run).unwrap();
        assert_eq!(index.position(&run, e(6, 2)), Some(1));
        assert_eq!(index.position(&run, e(6, 1)), None);
        assert_eq!(index.position(&run, e(8, 2)), None);
        assert_eq!(index.position(&run, e(4, 2)), None);
        let broken = Handles::of(&[e(5, 2), e(6, 2), e(9, 2), e(10, 2)]);
        assert_eq!(broken, list(&[e(5, 2), e(6, 2), e(9, 2), e(10, 2)]));
        assert_eq!(Handles::of(&[e(1, 1), e(2, 2)]), list(&[e(1, 1), e(2, 2)]));
        assert_eq!(Handles::of(&[]).len(), 0);
        let wrap = Handles::of(&[e(u32::MAX - 1, 1), e(0, 1)]);
        assert_eq!(wrap.len(), 2, "no index overflow in a run");
        assert_eq!(wrap.get(1), e(0, 1));
    }

    #[test]
    fn containers_map_every_handle() {
        let mut value = (vec![Some(e(1, 1)), None], [e(2, 1); 2]);
        value.0.map_entities(&mut |x: Entity| e(x.index() + 1, 1));
        value.1.map_entities(&mut |x: Entity| e(x.index() + 1, 1));
        assert_eq!(value.0, vec![Some(e(2, 1)), None]);
        assert_eq!(value.1, [e(3, 1); 2]);
    }
}
