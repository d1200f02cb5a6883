//! Required components: a component type naming others every entity holding it must hold
//! too, each made by a constructor when missing.
//!
//! A type declares them with the derive (`#[component(requires(Pos, Vel = Vel(1.0)))]`) or
//! by implementing [`Component::requirements`]. The registry
//! records each type's own list when the type is registered; a bundle's resolution
//! ([`BundleInfo`](crate::bundle::BundleInfo)) gathers the requirements of all its
//! components, transitively, nearest first, leaving out those the bundle carries itself.
//! The world then adds the missing ones when it spawns or inserts the bundle, never
//! replacing a value the entity holds or the bundle brings.

use std::fmt;
use std::ptr::NonNull;
use std::sync::Arc;

use super::{Component, ComponentId, Components};

/// Refuses a bundle whose components are in requirement cycle `cycle`.
///
/// # Panics
/// Always, naming the cycle.
#[cold]
pub(crate) fn refuse_cycle(cycle: &str) -> ! {
    panic!("a requirement cycle among components: {cycle}; no entity can be given them")
}

/// One component a type requires, with the constructor of its value.
///
/// # Invariants
/// `make` writes a new value of component `id` (as registered in the registry the
/// requirement was recorded in) into the buffer it is given; it is only called with a
/// pointer to an uninitialised buffer of that component's layout.
#[derive(Clone)]
pub struct Requirement {
    id: ComponentId,
    make: Arc<dyn Fn(NonNull<u8>) + Send + Sync>,
}

impl Requirement {
    /// The required component.
    pub fn id(&self) -> ComponentId {
        self.id
    }

    /// Writes a new value of the required component into `buffer`.
    ///
    /// # Safety
    /// `buffer` is valid for writes of the component's layout (as registered), aligned, and
    /// holds no value (what was there is overwritten, not dropped).
    pub(crate) unsafe fn make(&self, buffer: NonNull<u8>) {
        (self.make)(buffer)
    }
}

impl fmt::Debug for Requirement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Requirement").field("id", &self.id).finish()
    }
}

/// What [`Component::requirements`] fills: the components a type requires, each registered
/// in the world's registry as it is named.
pub struct Requirements<'a> {
    components: &'a mut Components,
    list: Vec<Requirement>,
}

impl Requirements<'_> {
    /// Requires `R`, made by `make` when an entity gets the requiring type without an `R`.
    /// Naming one type twice keeps the first constructor.
    pub fn require<R: Component>(&mut self, make: fn() -> R) -> &mut Self {
        let id = self.components.register::<R>();
        if self.list.iter().all(|r| r.id != id) {
            self.list.push(Requirement {
                id,
                make: Arc::new(move |buffer: NonNull<u8>| {
                    let value = make();
                    // SAFETY: `Requirement`'s invariant: the buffer is an uninitialised,
                    // aligned buffer of `R`'s layout (`id` being `R`'s id here).
                    unsafe { buffer.cast::<R>().as_ptr().write(value) }
                }),
            });
        }
        self
    }

    /// Requires `R`, made by `R::default()` when missing.
    pub fn require_default<R: Component + Default>(&mut self) -> &mut Self {
        self.require::<R>(R::default)
    }
}

impl Components {
    /// Records the requirements of `T`, just registered as `id`.
    ///
    /// # Panics
    /// If the requirements form a cycle (`A` requires `B`, which requires `A`), with a
    /// message naming the types: no entity could be given its components in an order.
    pub(super) fn register_requirements<T: Component>(&mut self, id: ComponentId) {
        let mut requirements = Requirements {
            components: self,
            list: Vec::new(),
        };
        T::requirements(&mut requirements);
        let list = requirements.list;
        if list.is_empty() {
            return;
        }
        self.requirements.push((id, list.into()));
        if let Some((members, cycle)) = self.requirement_cycle(id) {
            let cycle: Arc<str> = cycle.into();
            for member in members {
                self.requirement_cycles.push((member, cycle.clone()));
            }
            refuse_cycle(&cycle);
        }
    }

    /// The cycle named, if one of `ids` or of what they require is in a requirement cycle.
    pub(crate) fn requirement_cycle_among(
        &self,
        ids: &[ComponentId],
        required: &[Requirement],
    ) -> Option<&str> {
        self.requirement_cycles
            .iter()
            .find(|(c, _)| ids.contains(c) || required.iter().any(|r| r.id == *c))
            .map(|(_, cycle)| &**cycle)
    }

    /// The components `id` requires directly.
    pub fn requirements_of(&self, id: ComponentId) -> &[Requirement] {
        self.requirements
            .iter()
            .find(|(of, _)| *of == id)
            .map_or(&[], |(_, list)| &**list)
    }

    /// A path of requirements from `id` back to itself: its members and its name (`A
    /// requires B, which requires A`), if there is one.
    fn requirement_cycle(&self, id: ComponentId) -> Option<(Vec<ComponentId>, String)> {
        let mut path = vec![id];
        if !self.cycle_from(id, &mut path) {
            return None;
        }
        let names: Vec<String> = path
            .iter()
            .map(|&c| format!("`{}`", self.short_name(c)))
            .collect();
        let mut text = format!("{} requires {}", names[0], names[1]);
        for name in &names[2..] {
            text.push_str(&format!(", which requires {name}"));
        }
        path.pop();
        Some((path, text))
    }

    /// Depth-first: whether a requirement path from the end of `path` reaches `path[0]`
    /// (left in `path`, closed by `path[0]` again).
    fn cycle_from(&self, at: ComponentId, path: &mut Vec<ComponentId>) -> bool {
        for requirement in self.requirements_of(at) {
            let next = requirement.id;
            if next == path[0] {
                path.push(next);
                return true;
            }
            if path.contains(&next) {
                continue;
            }
            path.push(next);
            if self.cycle_from(next, path) {
                return true;
            }
            path.pop();
        }
        false
    }

    /// The requirements of a set of components (`ids`), transitively, nearest first (each
    /// component's own before those of what it requires), leaving out the components of
    /// `ids`: what the world adds when an entity gets them and lacks the rest.
    pub(crate) fn required_by(&self, ids: &[ComponentId]) -> Vec<Requirement> {
        let mut out: Vec<Requirement> = Vec::new();
        if self.requirements.is_empty() {
            return out;
        }
        let mut next = 0;
        let visit = |of: ComponentId, out: &mut Vec<Requirement>| {
            for requirement in self.requirements_of(of) {
                if !ids.contains(&requirement.id) && out.iter().all(|r| r.id != requirement.id) {
                    out.push(requirement.clone());
                }
            }
        };
        for &id in ids {
            visit(id, &mut out);
        }
        while next < out.len() {
            let of = out[next].id;
            visit(of, &mut out);
            next += 1;
        }
        out
    }
}
