//! Test components: plain data, heap-owning, zero-sized, and drop-tracked.

use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use ecs_core::Component;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct A(pub u32);
impl Component for A {
    type Mutability = ecs_core::Mutable;
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct B(pub String);
impl Component for B {
    type Mutability = ecs_core::Mutable;
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tag;
impl Component for Tag {
    type Mutability = ecs_core::Mutable;
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct D(pub [u8; 3]);
impl Component for D {
    type Mutability = ecs_core::Mutable;
}

/// Records its id in the ledger when dropped; a second drop of one id is a test failure.
#[derive(Debug)]
pub struct Tracked {
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
    pub fn new() -> Arc<Ledger> {
        Arc::new(Ledger::default())
    }

    pub fn make(self: &Arc<Self>) -> Tracked {
        Tracked {
            id: self.next.fetch_add(1, Ordering::Relaxed),
            ledger: self.clone(),
        }
    }

    pub fn made(&self) -> u64 {
        self.next.load(Ordering::Relaxed)
    }

    pub fn dropped(&self) -> usize {
        self.dropped.lock().unwrap().len()
    }

    pub fn is_dropped(&self, id: u64) -> bool {
        self.dropped.lock().unwrap().contains(&id)
    }

    /// Every value made so far has been dropped exactly once (double drops panic at once).
    pub fn assert_all_dropped(&self) {
        assert_eq!(self.dropped() as u64, self.made(), "some values leaked");
    }
}

/// Panics in `Drop` while armed (disarms first, so it panics once).
#[derive(Debug)]
pub struct Bomb {
    pub armed: bool,
}
impl Component for Bomb {
    type Mutability = ecs_core::Mutable;
}

impl Drop for Bomb {
    fn drop(&mut self) {
        if std::mem::take(&mut self.armed) {
            panic!("Bomb dropped while armed (intentional)");
        }
    }
}

/// Scales an operation count down under Miri, which is ~1000x slower.
pub fn size(full: usize, miri: usize) -> usize {
    if cfg!(miri) {
        miri
    } else {
        full
    }
}
