//! The storage-moves example: the hybrid moves `Heat` at each phase change, the other
//! backends refuse and run on, and every backend computes the same positions.

#[allow(dead_code)] // the example's `main` is not called here
#[path = "../examples/storage_moves.rs"]
mod storage_moves;

use examples::story::{measured_lines, shared_lines, Size};

#[test]
fn the_hybrid_moves_heat_and_every_backend_agrees() {
    let text = storage_moves::run(Size::Small, false);
    assert_eq!(
        shared_lines(&text),
        [
            "2000 entities, half with Heat; the build adds and removes Heat on the other half",
            "after 7 frames, positions sum to 2009500.0",
        ]
    );
    let said: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix(&format!("[{}] ", ecs::BACKEND)))
        .collect();
    if ecs::BACKEND == "hybrid" {
        assert_eq!(
            said,
            [
                "Heat moved to Sparse storage, 1000 values",
                "Heat moved to Table storage, 2000 values",
            ]
        );
        assert_eq!(measured_lines(&text).len(), 4, "{text}");
    } else {
        // One move is to the kind the backend has, the other is refused.
        assert_eq!(said.len(), 2, "{text}");
        assert_eq!(
            said.iter().filter(|l| l.contains("already in")).count(),
            1,
            "{text}"
        );
        let refused = said
            .iter()
            .filter(|l| l.contains("one kind of storage"))
            .count();
        assert_eq!(refused, 1, "{text}");
        assert_eq!(measured_lines(&text).len(), 2, "{text}");
    }
}
