use std::rc::Rc;

use ecs::prelude::*;

// Systems may run on any thread of the pool: a system's local state must be `Send`.
fn count(mut seen: Local<Rc<u32>>) {
    *seen = Rc::new(**seen + 1);
}

fn main() {
    let mut schedule = Schedule::new();
    schedule.add_system(count);
}
