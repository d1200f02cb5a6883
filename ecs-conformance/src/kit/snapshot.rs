//! What snapshot tests share: a component pool covering every kind of column, the registry
//! naming it, worlds built from a recipe of random steps, and dumps that compare worlds.
//!
//! | component | what it exercises |
//! |---|---|
//! | [`Pos`] | plain table data |
//! | [`Tag`] | zero-sized, sparse |
//! | [`Label`] | heap data (a `String`), tracks changes |
//! | [`Target`] | handles inside a value (`Entity`, `Vec<Entity>`, `Option<Entity>`), sparse |
//! | [`Fx`] | named instances |
//! | `Raw` | run-time, plain bytes |
//! | `Link` | run-time, a handle inside, through codec functions |
//! | [`Secret`] | not in the registry: never saved |
//! | [`Score`] | a resource |

use std::alloc::Layout;
use std::fmt::Write as _;
use std::ptr::NonNull;

use arbitrary::Arbitrary;
use ecs_core::snapshot::{DynamicCodec, EntityMapper, Entries, SnapshotRegistry};
use ecs_core::{
    Component, ComponentDescriptor, ComponentId, Entity, MapEntities, Storage, StorageKind, World,
};
use hashbrown::HashMap;
use serde::{Deserialize, Serialize};

/// A position (table).
#[derive(Component, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Pos {
    /// x.
    pub x: f32,
    /// y.
    pub y: f32,
}

/// A zero-sized tag (sparse).
#[derive(Component, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[component(storage = "sparse")]
pub struct Tag;

/// Heap data that tracks changes.
#[derive(Component, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[component(track_changes)]
pub struct Label(pub String);

/// Handles inside a value (sparse).
#[derive(Component, Serialize, Deserialize, MapEntities, Debug, Clone, PartialEq)]
#[component(storage = "sparse")]
pub struct Target {
    /// Always set.
    pub primary: Entity,
    /// Any number.
    pub others: Vec<Entity>,
    /// Maybe.
    pub backup: Option<Entity>,
}

/// Held as named instances (and plain).
#[derive(Component, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Fx(pub u16);

/// Not in the registry: a save leaves it out.
#[derive(Component, Debug, Clone, PartialEq)]
pub struct Secret(pub u8);

/// A resource.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Score(pub u64);

/// The instance names recipes use (`Pos` collides with the unnamed `Pos`'s short name).
pub const NAMES: [&str; 4] = ["Fog", "Glow", "Mist", "Pos"];

/// The run-time component `Raw`: four plain bytes.
pub fn raw_descriptor() -> ComponentDescriptor {
    ComponentDescriptor {
        name: "Raw".into(),
        layout: Layout::new::<[u8; 4]>(),
        drop: None,
        storage: StorageKind::Table,
    }
}

/// The run-time component `Link`: one entity handle (its packed bits), sparse.
pub fn link_descriptor() -> ComponentDescriptor {
    ComponentDescriptor {
        name: "Link".into(),
        layout: Layout::new::<u64>(),
        drop: None,
        storage: StorageKind::Sparse,
    }
}

/// `Link`'s codec: the handle's bits, little-endian.
pub fn link_codec() -> DynamicCodec {
    /// # Safety
    /// `value` points to a `Link` value (a `u64`).
    unsafe fn save(value: NonNull<u8>, out: &mut Vec<u8>) {
        // SAFETY: the caller passes a `Link` value.
        let bits = unsafe { value.cast::<u64>().as_ptr().read_unaligned() };
        out.extend_from_slice(&bits.to_le_bytes());
    }
    /// # Safety
    /// `out` is writable for a `u64`.
    unsafe fn load(bytes: &[u8], out: NonNull<u8>) -> Result<(), String> {
        let bits: [u8; 8] = bytes
            .try_into()
            .map_err(|_| format!("a Link is 8 bytes, not {}", bytes.len()))?;
        let bits = u64::from_le_bytes(bits);
        Entity::from_bits(bits).ok_or_else(|| format!("{bits:#x} is not a handle"))?;
        // SAFETY: `out` is writable for a `u64` (caller).
        unsafe { out.cast::<u64>().as_ptr().write_unaligned(bits) };
        Ok(())
    }
    /// # Safety
    /// `value` points to a `Link` value, writable.
    unsafe fn map(value: NonNull<u8>, mapper: &mut dyn EntityMapper) {
        let ptr = value.cast::<u64>().as_ptr();
        // SAFETY: a `Link` value, checked to be a handle when it was loaded or inserted.
        let bits = unsafe { ptr.read_unaligned() };
        if let Some(entity) = Entity::from_bits(bits) {
            // SAFETY: as above, writable (caller).
            unsafe { ptr.write_unaligned(mapper.map(entity).to_bits()) };
        }
    }
    // SAFETY: `save` only reads the `u64`; `load` writes all 8 bytes of one before `Ok`
    // (any bits are a valid `u64`, and `Link` has no drop function); `map` replaces the bits
    // with another handle's; every "Link" component these tests make holds `u64`s.
    unsafe { DynamicCodec::functions(save, load, Some(map)) }
}

/// The registry every snapshot test uses.
pub fn registry() -> SnapshotRegistry<impl Entries> {
    SnapshotRegistry::new()
        .component::<Pos>("Pos")
        .component::<Tag>("Tag")
        .component::<Label>("Label")
        .component_with_entities::<Target>("Target")
        .component::<Fx>("Fx")
        .dynamic("Raw", raw_descriptor(), DynamicCodec::plain_bytes())
        .dynamic("Link", link_descriptor(), link_codec())
        .resource::<Score>("Score")
}

/// The ids of the run-time components in `world` (registered if missing).
pub fn dynamic_ids<S: Storage>(world: &mut World<S>) -> (ComponentId, ComponentId) {
    let find = |world: &World<S>, name: &str| {
        world
            .components()
            .iter()
            .find(|c| c.type_id().is_none() && c.instance().is_none() && c.name() == name)
            .map(|c| c.id())
    };
    let raw = find(world, "Raw").unwrap_or_else(|| world.register_dynamic(raw_descriptor()));
    let link = find(world, "Link").unwrap_or_else(|| world.register_dynamic(link_descriptor()));
    (raw, link)
}

/// One step of a world recipe. Entity operands index the live entities (modulo their
/// number); steps that the world refuses (a cycle, a taken name) are skipped.
#[derive(Arbitrary, Debug, Clone, PartialEq)]
pub enum Step {
    /// Spawns an entity with a random composition.
    Spawn {
        /// `Pos` if any.
        pos: Option<(i16, i16)>,
        /// `Tag`.
        tag: bool,
        /// `Label` if any (its text is the number).
        label: Option<u8>,
        /// `Fx` (unnamed) if any.
        fx: Option<u16>,
        /// `Raw` if any.
        raw: Option<[u8; 4]>,
        /// `Secret`.
        secret: bool,
    },
    /// Despawns an entity (and every reference to it, so nothing dangles).
    Despawn(u8),
    /// Gives an entity a named `Fx`.
    Named {
        /// The entity.
        entity: u8,
        /// Index into [`NAMES`].
        name: u8,
        /// The value.
        value: u16,
    },
    /// Makes one entity the child of another.
    Parent {
        /// The child.
        child: u8,
        /// The parent.
        parent: u8,
    },
    /// Gives an entity a `Target` naming others.
    Target {
        /// The holder.
        entity: u8,
        /// `primary`.
        primary: u8,
        /// `others`.
        others: Vec<u8>,
        /// `backup`.
        backup: Option<u8>,
    },
    /// Gives an entity a `Link` to another.
    Link {
        /// The holder.
        entity: u8,
        /// The linked entity.
        to: u8,
    },
    /// Sets the `Score` resource.
    Score(u64),
    /// Inserts (or replaces) an entity's unnamed `Pos` with values from [`SPECIAL_FLOATS`]
    /// (non-finite ones included): a plain insert after any named instance, so an instance
    /// called `Pos` and the unnamed `Pos` meet in either order.
    SetPos {
        /// The entity.
        entity: u8,
        /// Index into [`SPECIAL_FLOATS`] for `x`.
        x: u8,
        /// Index into [`SPECIAL_FLOATS`] for `y`.
        y: u8,
    },
}

/// The floats [`Step::SetPos`] writes: the values a text format has no literal for (NaN,
/// the infinities), a negative zero, the extremes, and plain ones.
pub const SPECIAL_FLOATS: [f32; 9] = [
    f32::NAN,
    f32::INFINITY,
    f32::NEG_INFINITY,
    -0.0,
    f32::MAX,
    f32::MIN_POSITIVE,
    f32::EPSILON,
    1.5,
    -1e-40,
];

/// The world every input is loaded into: a few entities with links, instances and a
/// resource, so a merge meets a non-empty world.
pub fn target_steps() -> Vec<Step> {
    vec![
        Step::Spawn {
            pos: Some((1, 2)),
            tag: true,
            label: Some(1),
            fx: None,
            raw: None,
            secret: true,
        },
        Step::Spawn {
            pos: None,
            tag: false,
            label: None,
            fx: Some(3),
            raw: Some([1, 2, 3, 4]),
            secret: false,
        },
        Step::Named {
            entity: 0,
            name: 0,
            value: 9,
        },
        Step::Parent {
            child: 1,
            parent: 0,
        },
        Step::Target {
            entity: 1,
            primary: 0,
            others: vec![1],
            backup: None,
        },
        Step::Link { entity: 0, to: 1 },
        Step::Score(5),
    ]
}

/// Builds a world from `steps` on backend `S`.
pub fn build<S: Storage>(steps: &[Step]) -> World<S> {
    let mut world = World::<S>::new();
    apply(&mut world, steps);
    world
}

/// Applies `steps` to `world`.
pub fn apply<S: Storage>(world: &mut World<S>, steps: &[Step]) {
    let (raw_id, link_id) = dynamic_ids(world);
    let pick = |world: &World<S>, i: u8| {
        let alive = world.entities().alive();
        (!alive.is_empty()).then(|| alive[i as usize % alive.len()])
    };
    for step in steps {
        match step {
            Step::Spawn {
                pos,
                tag,
                label,
                fx,
                raw,
                secret,
            } => {
                let e = world.spawn(());
                if let Some((x, y)) = pos {
                    world
                        .insert(
                            e,
                            Pos {
                                x: f32::from(*x),
                                y: f32::from(*y) / 4.0,
                            },
                        )
                        .unwrap();
                }
                if *tag {
                    world.insert(e, Tag).unwrap();
                }
                if let Some(l) = label {
                    world.insert(e, Label(format!("label {l}"))).unwrap();
                }
                if let Some(v) = fx {
                    world.insert(e, Fx(*v)).unwrap();
                }
                if let Some(bytes) = raw {
                    world.insert_bytes(e, raw_id, bytes).unwrap();
                }
                if *secret {
                    world.insert(e, Secret(7)).unwrap();
                }
            }
            Step::Despawn(i) => {
                if let Some(e) = pick(world, *i) {
                    forget(world, e, link_id);
                    world.despawn(e).unwrap();
                }
            }
            Step::Named {
                entity,
                name,
                value,
            } => {
                if let Some(e) = pick(world, *entity) {
                    let name = NAMES[*name as usize % NAMES.len()];
                    let _ = world.insert_named(e, name, Fx(*value));
                }
            }
            Step::Parent { child, parent } => {
                if let (Some(c), Some(p)) = (pick(world, *child), pick(world, *parent)) {
                    let _ = world.set_parent(c, p);
                }
            }
            Step::Target {
                entity,
                primary,
                others,
                backup,
            } => {
                if let Some(e) = pick(world, *entity) {
                    let target = Target {
                        primary: pick(world, *primary).unwrap(),
                        others: others.iter().filter_map(|&o| pick(world, o)).collect(),
                        backup: backup.and_then(|b| pick(world, b)),
                    };
                    world.insert(e, target).unwrap();
                }
            }
            Step::Link { entity, to } => {
                if let (Some(e), Some(to)) = (pick(world, *entity), pick(world, *to)) {
                    world
                        .insert_bytes(e, link_id, &to.to_bits().to_ne_bytes())
                        .unwrap();
                }
            }
            Step::Score(s) => {
                world.insert_resource(Score(*s));
            }
            Step::SetPos { entity, x, y } => {
                if let Some(e) = pick(world, *entity) {
                    let special = |i: u8| SPECIAL_FLOATS[i as usize % SPECIAL_FLOATS.len()];
                    let pos = Pos {
                        x: special(*x),
                        y: special(*y),
                    };
                    world.insert(e, pos).unwrap();
                }
            }
        }
    }
}

/// Removes every `Target` and `Link` naming `gone`, so a despawn leaves no handle to a dead
/// entity (a snapshot refuses those).
fn forget<S: Storage>(world: &mut World<S>, gone: Entity, link_id: ComponentId) {
    let holders: Vec<Entity> = world
        .query::<(Entity, &Target)>()
        .filter(|(_, t)| t.primary == gone || t.backup == Some(gone) || t.others.contains(&gone))
        .map(|(e, _)| e)
        .collect();
    for e in holders {
        world.remove::<Target>(e).unwrap();
    }
    let linked: Vec<Entity> = world
        .entities()
        .alive()
        .iter()
        .copied()
        .filter(|&e| link_of(world, e, link_id) == Some(gone))
        .collect();
    for e in linked {
        world.remove_by_id(e, link_id).unwrap();
    }
}

/// The handle a `Link` value holds.
fn link_of<S: Storage>(world: &World<S>, e: Entity, link_id: ComponentId) -> Option<Entity> {
    let bytes = world.get_bytes(e, link_id)?;
    Entity::from_bits(u64::from_ne_bytes(bytes.try_into().ok()?))
}

/// One line per entity of `list` (in order), every handle written as its position in
/// `list` (`#3`) or as itself when it is not listed, and a last line for the resources.
/// With `saved_only`, what a save leaves out (`Secret`) is left out here too.
pub fn dump<S: Storage>(world: &World<S>, list: &[Entity], saved_only: bool) -> Vec<String> {
    let components = world.components();
    let find = |name: &str| {
        components
            .iter()
            .find(|c| c.type_id().is_none() && c.instance().is_none() && c.name() == name)
            .map(|c| c.id())
    };
    let (raw_id, link_id) = (find("Raw"), find("Link"));
    let positions: HashMap<Entity, usize> = list.iter().enumerate().map(|(p, &e)| (e, p)).collect();
    let name = |e: Entity| match positions.get(&e) {
        Some(p) => format!("#{p}"),
        None => format!("{e:?}"),
    };
    let mut lines: Vec<String> = list
        .iter()
        .map(|&e| {
            let mut line = String::new();
            if let Some(p) = world.get::<Pos>(e) {
                let _ = write!(line, " Pos({}, {})", p.x, p.y);
            }
            if world.has::<Tag>(e) {
                line.push_str(" Tag");
            }
            if let Some(l) = world.get::<Label>(e) {
                let _ = write!(line, " Label({:?})", l.0);
            }
            if let Some(t) = world.get::<Target>(e) {
                let others: Vec<String> = t.others.iter().map(|&o| name(o)).collect();
                let _ = write!(
                    line,
                    " Target({}, [{}], {:?})",
                    name(t.primary),
                    others.join(","),
                    t.backup.map(name)
                );
            }
            if let Some(f) = world.get::<Fx>(e) {
                let _ = write!(line, " Fx({})", f.0);
            }
            let mut named: Vec<(String, u16)> = world
                .named_instances(e)
                .map(|i| {
                    (
                        i.name.to_owned(),
                        world.get_named::<Fx>(e, i.name).map_or(0, |f| f.0),
                    )
                })
                .collect();
            named.sort();
            for (n, v) in named {
                let _ = write!(line, " Fx[{n}]={v}");
            }
            if let Some(bytes) = raw_id.and_then(|id| world.get_bytes(e, id)) {
                let _ = write!(line, " Raw{bytes:?}");
            }
            if let Some(to) = link_id.and_then(|id| link_of(world, e, id)) {
                let _ = write!(line, " Link({})", name(to));
            }
            if !saved_only && world.has::<Secret>(e) {
                line.push_str(" Secret");
            }
            if let Ok(Some(parent)) = world.parent(e) {
                let _ = write!(line, " parent={}", name(parent));
            }
            if let Ok(children) = world.children(e) {
                let kids: Vec<String> = children.map(name).collect();
                if !kids.is_empty() {
                    let _ = write!(line, " children=[{}]", kids.join(","));
                }
            }
            line
        })
        .collect();
    lines.push(format!("resources: {:?}", world.resource::<Score>()));
    lines
}

/// Everything a failed load must leave as it was: the live entities in order, every
/// entity's components and links (handles as they are), the registry's size, resources.
#[derive(Debug, Clone, PartialEq)]
pub struct Fingerprint {
    alive: Vec<Entity>,
    dump: Vec<String>,
    components: usize,
    index_bound: usize,
}

impl Fingerprint {
    /// Takes the fingerprint of `world`.
    pub fn of<S: Storage>(world: &World<S>) -> Fingerprint {
        Fingerprint {
            alive: world.entities().alive().to_vec(),
            dump: dump(world, &[], false)
                .into_iter()
                .chain(
                    world
                        .entities()
                        .alive()
                        .iter()
                        .map(|&e| dump(world, &[e], false).remove(0) + &format!(" @{e:?}")),
                )
                .collect(),
            components: world.components().len(),
            index_bound: world.entities().index_bound(),
        }
    }

    /// How many entities were live.
    pub fn len(&self) -> usize {
        self.alive.len()
    }

    /// True when none was.
    pub fn is_empty(&self) -> bool {
        self.alive.is_empty()
    }
}
