//! Every failure the fuzzer found, as the shortest operation sequence that showed it. Each
//! test names the bug; the comment says what was wrong and where it was fixed.
//!
//! To add one: run `ecs-fuzz` until it reports a mismatch, paste the shrunk `vec![...]` it
//! prints into a new test here, and name the test after the bug.

use ecs_fuzz::{run, Command, Op};

fn assert_agrees(ops: Vec<Op>) {
    if let Err(mismatch) = run(&ops) {
        panic!("{mismatch}");
    }
}

/// Hybrid: a query fetching a table component no entity ever stored (`(&A0, &mut G0)`)
/// planned the slot as optional and built a null reference (a debug assertion, "dense backend
/// answered no column for a required slot"; a segfault in release). Found by the fuzzer's
/// first run (seed 1), before the fix. Fixed on main: hybrid query plans take every slot's
/// kind from the registry.
#[test]
fn hybrid_fetch_of_never_stored_table_component() {
    assert_agrees(vec![
        Op::Spawn { bundle: 1, seed: 0 },
        Op::Query {
            shape: 12,
            style: 0,
        },
    ]);
}

/// Hybrid: `query_filtered::<&A0, With<G0>>()`, `G0` a table component never stored,
/// counted every `A0` entity instead of none (seed 8, op 9).
#[test]
fn hybrid_with_never_stored_table_component_matches_nothing() {
    assert_agrees(vec![
        Op::Spawn {
            bundle: 131,
            seed: 59,
        },
        Op::Query {
            shape: 49426,
            style: 16,
        },
    ]);
}

/// Hybrid: the same bug reached from a system (`Query<(&A0, Option<&G1>), With<T0>>` before
/// any `T0` was stored): the schedule's `sum_a0` panicked (seed 1, op 12) or summed every
/// `A0` (seed 4).
#[test]
fn hybrid_system_filtering_on_never_stored_table_tag() {
    assert_agrees(vec![
        Op::Spawn {
            bundle: 177,
            seed: 0,
        },
        Op::RunSchedule {
            parallel: false,
            toggle: 69,
        },
    ]);
}

/// Not a bug: keeps `Command` in use so new regressions can paste sequences with commands.
#[test]
fn commands_round_trip() {
    assert_agrees(vec![
        Op::Queue(Command::Spawn { bundle: 5, seed: 3 }),
        Op::Spawn { bundle: 2, seed: 1 },
        Op::ApplyCommands,
        Op::Compare,
    ]);
}

/// ecs-core change logs: `QueryState::get` on a change-filtered state answers from its latest
/// run's window ("counting changes made since it began", as documented), but another reader
/// of the same log advancing past that window trimmed its entries, and `get` then answered
/// `None` for an entity the latest run had reported. Found by seed 2 (episode 12, op 534).
/// Fixed on main: a reader's cursor is the start of its latest window.
#[test]
fn change_get_after_another_reader_trimmed_the_window() {
    assert_agrees(vec![
        Op::Spawn { bundle: 6, seed: 0 },
        Op::RunReader { reader: 2 },
        Op::RunReader { reader: 0 },
        Op::GetMut {
            target: 0,
            component: 8,
            how: 0,
        },
        Op::RunReader { reader: 2 },
        Op::RunReader { reader: 0 },
        Op::RunReader { reader: 0 },
        Op::ReaderGet {
            reader: 2,
            target: 0,
        },
    ]);
}

/// Not a fuzzer find, the bug it guards against: `Children` could be borrowed mutably and
/// rewritten to a stale handle, after which `despawn_recursive` acted on the handle (fixed
/// by making the link components immutable). Every run-time write path to them must be
/// refused the same way on every backend, with the links exactly as the model says, before
/// and after a recursive despawn through the links.
#[test]
fn link_components_refuse_every_run_time_write() {
    let mut ops = vec![
        Op::Spawn { bundle: 0, seed: 1 },
        Op::Spawn { bundle: 3, seed: 2 },
        Op::Spawn { bundle: 5, seed: 3 },
        Op::Link {
            child: 1,
            parent: 0,
            how: 0,
        },
        Op::Link {
            child: 2,
            parent: 1,
            how: 0,
        },
    ];
    for target in 0..3 {
        for how in 0..6 {
            ops.push(Op::TamperLinks { target, how });
        }
    }
    ops.extend([
        Op::Despawn { target: 1 },
        Op::Link {
            child: 2,
            parent: 0,
            how: 0,
        },
        Op::Link {
            child: 0,
            parent: 2,
            how: 0,
        },
        Op::Link {
            child: 0,
            parent: 0,
            how: 3,
        },
        Op::Compare,
    ]);
    assert_agrees(ops);
}
