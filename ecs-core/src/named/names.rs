//! [`Names`]: the interned instance names of one world.

use hashbrown::HashMap;

/// An interned name: the same text always gets the same id within one world.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NameId(u32);

impl NameId {
    /// The id as an array index.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The raw number, for hashing.
    #[inline]
    pub const fn get(self) -> u32 {
        self.0
    }
}

/// The names instances and component types are found by, interned once.
///
/// Looking a name up by text (`get`) hashes the text and compares it; nothing is allocated,
/// so a find by name on a hot path costs one string hash.
///
/// # Invariant
/// `texts[ids[t].index()] == t` for every key `t`, and `ids` has one key per `texts` entry.
#[derive(Default, Debug, Clone)]
pub struct Names {
    ids: HashMap<Box<str>, NameId>,
    texts: Vec<Box<str>>,
}

impl Names {
    /// The id of `text`, interning it on first use.
    pub fn intern(&mut self, text: &str) -> NameId {
        if let Some(&id) = self.ids.get(text) {
            return id;
        }
        let id = NameId(u32::try_from(self.texts.len()).expect("more than 2^32 names"));
        self.texts.push(text.into());
        self.ids.insert(text.into(), id);
        id
    }

    /// The id of `text` if it was ever interned.
    #[inline]
    pub fn get(&self, text: &str) -> Option<NameId> {
        self.ids.get(text).copied()
    }

    /// The text of `id`.
    ///
    /// # Panics
    /// If `id` is not from this interner.
    pub fn text(&self, id: NameId) -> &str {
        &self.texts[id.index()]
    }

    /// Number of names interned.
    pub fn len(&self) -> usize {
        self.texts.len()
    }

    /// True when nothing was interned.
    pub fn is_empty(&self) -> bool {
        self.texts.is_empty()
    }

    /// Heap bytes held (tables and texts).
    pub fn memory_usage(&self) -> usize {
        let texts: usize = self.texts.iter().map(|t| t.len()).sum();
        self.ids.capacity() * (size_of::<(Box<str>, NameId)>() + 1)
            + self.texts.capacity() * size_of::<Box<str>>()
            + 2 * texts
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interning_is_stable_and_lookup_does_not_intern() {
        let mut names = Names::default();
        assert_eq!(names.get("Fog"), None);
        let fog = names.intern("Fog");
        let vignette = names.intern("Vignette");
        assert_ne!(fog, vignette);
        assert_eq!(names.intern("Fog"), fog);
        assert_eq!(names.get("Fog"), Some(fog));
        assert_eq!(names.text(vignette), "Vignette");
        assert_eq!(names.len(), 2);
        assert!(names.memory_usage() > 0);
    }
}
