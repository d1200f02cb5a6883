//! Drop counting: [`Ledger`] hands out [`Tracked`] values that record their drop, so a test
//! can check that every value made was dropped exactly once (a second drop panics at once).

use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use ecs_core::Component;

/// Records its id in the ledger when dropped; a second drop of one id is a test failure.
#[derive(Debug)]
pub struct Tracked {
    /// The value's number in its ledger.
    pub id: u64,
    ledger: Arc<Ledger>,
}
impl Component for Tracked {
    type Mutability = ecs_core::Mutable;
}

/// A second drop-tracked type, so entities can hold two tracked values.
#[derive(Debug)]
pub struct Tracked2(#[allow(dead_code)] pub Tracked);
impl Component for Tracked2 {
    type Mutability = ecs_core::Mutable;
}

impl Drop for Tracked {
    fn drop(&mut self) {
        let fresh = self.ledger.dropped.lock().unwrap().insert(self.id);
        assert!(fresh, "value {} dropped twice", self.id);
    }
}

/// Which tracked values were made and which dropped.
#[derive(Debug, Default)]
pub struct Ledger {
    next: AtomicU64,
    dropped: Mutex<HashSet<u64>>,
}

impl Ledger {
    /// An empty ledger.
    pub fn new() -> Arc<Ledger> {
        Arc::new(Ledger::default())
    }

    /// A new tracked value.
    pub fn make(self: &Arc<Self>) -> Tracked {
        Tracked {
            id: self.next.fetch_add(1, Ordering::Relaxed),
            ledger: self.clone(),
        }
    }

    /// How many values were made.
    pub fn made(&self) -> u64 {
        self.next.load(Ordering::Relaxed)
    }

    /// How many were dropped.
    pub fn dropped(&self) -> usize {
        self.dropped.lock().unwrap().len()
    }

    /// Whether value `id` was dropped.
    pub fn is_dropped(&self, id: u64) -> bool {
        self.dropped.lock().unwrap().contains(&id)
    }

    /// Every value made so far has been dropped exactly once (double drops panic at once).
    pub fn assert_all_dropped(&self) {
        assert_eq!(self.dropped() as u64, self.made(), "some values leaked");
    }
}
