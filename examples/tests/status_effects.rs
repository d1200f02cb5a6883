//! The status-effects example (the advisor's teaching game): the same statuses come and go
//! on every backend, and the hybrid keeps where the `advised` feature says.

#[allow(dead_code)] // the example's `main` is not called here
#[path = "../examples/status_effects.rs"]
mod status_effects;

use examples::story::{measured_lines, shared_lines, Size};

#[test]
fn statuses_come_and_go_alike_on_every_backend() {
    let text = status_effects::run(Size::Small, false);
    assert_eq!(
        shared_lines(&text),
        [
            "2000 units; each frame 100 catch fire and 100 are poisoned, for 1 to 4 frames",
            "frame    10:   183 burning,   235 poisoned, health 199724 in all",
            "frame    20:   181 burning,   225 poisoned, health 199733 in all",
            "frame    30:   178 burning,   236 poisoned, health 199698 in all",
            "frame    40:   183 burning,   227 poisoned, health 199725 in all",
        ]
    );
    assert_eq!(measured_lines(&text).len(), 1, "{text}");
    let layout = text
        .lines()
        .find_map(|l| l.strip_prefix(&format!("[{}] ", ecs::BACKEND)))
        .expect("a layout line");
    // Four components sparse with `advised` on the hybrid; every one sparse on the sparse
    // backend (eight sets), none on the archetype backend.
    let sets = match (ecs::BACKEND, cfg!(feature = "advised")) {
        ("hybrid", true) => "4 sparse sets",
        ("sparse", _) => "8 sparse sets",
        _ => "0 sparse sets",
    };
    assert!(layout.contains(sets), "{layout}");
}
