//! The calibration: small programs, each doing one kind of work, recorded as traces and
//! replayed on the hybrid backend under a few layouts. Each (program, layout) is one
//! sample: its counted [`Features`] beside its measured time. The model's constants are
//! the non-negative least-squares fit of those samples (see [`super::model`]).
//!
//! Each program has a set-up frame (its entities) and a body; a sample is the body's
//! frames only: the body's features are those of the whole trace less those of the
//! set-up alone.

use ecs_archetype::ArchetypeStorage;
use ecs_core::component::StorageKind;
use ecs_core::trace::{Trace, Traced};
use ecs_core::{Component, Entity, Mutable, Schedule, World};

use super::kinds_of;
use super::profile::{Features, Profile};
use crate::backend::Backend;
use crate::replay::replay_kinds;

macro_rules! words {
    ($($(#[$doc:meta])* $name:ident = $words:literal;)*) => {$(
        $(#[$doc])*
        #[derive(Clone, Copy, Default)]
        pub struct $name(pub [u32; $words]);
        impl Component for $name {
            type Mutability = Mutable;
        }
    )*};
}

words! {
    /// 16 bytes.
    A16 = 4;
    /// 16 bytes.
    B16 = 4;
    /// 64 bytes.
    C64 = 16;
    /// 4 bytes: the component the structural programs add and take.
    D4 = 1;
}

macro_rules! tags {
    ($($name:ident),*) => {$(
        /// A tag splitting the fragmentation program's entities over tables.
        #[derive(Clone, Copy, Default)]
        pub struct $name;
        impl Component for $name {
            type Mutability = Mutable;
        }
    )*};
}

tags!(F0, F1, F2, F3, F4, F5, F6, F7, F8, F9, F10, F11);

type Recording = World<Traced<ArchetypeStorage>>;

/// One calibration program: its name, its set-up, its body, and the layouts it is
/// replayed under (the trace components to keep sparse, by name).
pub struct Program {
    /// What it exercises.
    pub name: &'static str,
    setup: fn(&mut Recording, usize) -> Vec<Entity>,
    body: fn(&mut Recording, &[Entity], usize),
    layouts: &'static [&'static [&'static str]],
}

/// One measured sample.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Sample {
    /// The program.
    pub program: String,
    /// The components kept sparse.
    pub sparse: Vec<String>,
    /// The body's features, in [`Features::to_array`]'s order.
    pub features: Vec<f64>,
    /// The body's measured replay time, in nanoseconds.
    pub measured_ns: f64,
}

fn abc(world: &mut Recording, n: usize) -> Vec<Entity> {
    world
        .spawn_batch((0..n).map(|_| (A16::default(), B16::default(), C64::default())))
        .to_vec()
}

fn abcd(world: &mut Recording, n: usize) -> Vec<Entity> {
    world
        .spawn_batch((0..n).map(|_| {
            (
                A16::default(),
                B16::default(),
                C64::default(),
                D4::default(),
            )
        }))
        .to_vec()
}

fn ab(world: &mut Recording, n: usize) -> Vec<Entity> {
    world
        .spawn_batch((0..n).map(|_| (A16::default(), B16::default())))
        .to_vec()
}

/// `passes` runs of the join of `A16` and `B16`.
fn join_passes(world: &mut Recording, passes: usize) {
    for _ in 0..passes {
        world
            .query::<(&mut A16, &B16)>()
            .for_each(|(a, b)| a.0[0] += b.0[0]);
    }
}

/// `n` entities given an `A16`, then a `B16` each in a scattered order, so that a sparse
/// set's order is not the table's.
fn scattered(world: &mut Recording, n: usize) -> Vec<Entity> {
    let es: Vec<Entity> = world.spawn_batch((0..n).map(|_| A16::default())).to_vec();
    for i in 0..n {
        world.insert(es[i * 7919 % n], B16::default()).unwrap();
    }
    es
}

/// `n` entities with `A16`, `B16` and `C64`; one in eight also gets a `D4`, in no order
/// the rows have.
fn driven_setup(world: &mut Recording, n: usize) -> Vec<Entity> {
    let es = abc(world, n);
    for i in (0..n).step_by(8) {
        world.insert(es[i * 7919 % n], D4::default()).unwrap();
    }
    es
}

/// `passes` runs of the join of `A16` with the few entities holding a `D4`.
fn driven_passes(world: &mut Recording, passes: usize) {
    for _ in 0..passes {
        world
            .query::<(&mut A16, &D4)>()
            .for_each(|(a, d)| a.0[0] += d.0[0]);
    }
}

macro_rules! spawn_tagged {
    ($world:expr, $per:expr, $($tag:ident),*) => {{
        let mut out = Vec::new();
        $(out.extend_from_slice($world.spawn_batch((0..$per).map(|_| (A16::default(), $tag))));)*
        out
    }};
}

macro_rules! systems {
    ($($name:ident),*) => {
        $(fn $name() {})*
        /// A schedule of systems that do nothing: each run is a frame mark and one system
        /// mark per system.
        fn eight_systems() -> Schedule<Traced<ArchetypeStorage>> {
            let mut schedule = Schedule::new();
            $(schedule.add_system($name);)*
            schedule
        }
    };
}

systems!(s0, s1, s2, s3, s4, s5, s6, s7);

const ALL_TABLES: &[&str] = &[];

/// The programs, in the order they are measured.
pub fn programs() -> Vec<Program> {
    vec![
        Program {
            name: "spawn",
            setup: |_, _| Vec::new(),
            body: |w, _, n| {
                abc(w, n);
            },
            layouts: &[ALL_TABLES, &["C64"], &["A16", "B16", "C64"]],
        },
        Program {
            name: "despawn",
            setup: abc,
            body: |w, es, _| es.iter().for_each(|&e| w.despawn(e).unwrap()),
            layouts: &[ALL_TABLES, &["C64"], &["A16", "B16", "C64"]],
        },
        Program {
            name: "insert",
            setup: abc,
            body: |w, es, _| {
                for &e in es {
                    w.insert(e, D4::default()).unwrap();
                }
            },
            layouts: &[ALL_TABLES, &["D4"], &["C64"], &["A16", "B16", "C64"]],
        },
        Program {
            name: "remove",
            setup: abcd,
            body: |w, es, _| {
                for &e in es {
                    w.remove::<D4>(e).unwrap();
                }
            },
            layouts: &[ALL_TABLES, &["D4"], &["C64"], &["A16", "B16", "C64"]],
        },
        Program {
            name: "iterate a join",
            setup: ab,
            body: |w, _, _| join_passes(w, 20),
            layouts: &[ALL_TABLES, &["B16"], &["A16", "B16"]],
        },
        Program {
            name: "iterate a join out of order",
            setup: scattered,
            body: |w, _, _| join_passes(w, 20),
            layouts: &[ALL_TABLES, &["B16"], &["A16", "B16"]],
        },
        Program {
            name: "iterate a small join out of order",
            setup: |w, n| scattered(w, n / 50),
            body: |w, _, _| {
                for _ in 0..1000 {
                    w.query::<(&mut A16, &B16)>()
                        .for_each(|(a, b)| a.0[0] += b.0[0]);
                }
            },
            layouts: &[ALL_TABLES, &["B16"], &["A16", "B16"]],
        },
        Program {
            name: "iterate a join driven by a small set",
            setup: |w, n| driven_setup(w, n / 10),
            body: |w, _, _| driven_passes(w, 200),
            layouts: &[ALL_TABLES, &["D4"], &["D4", "C64"]],
        },
        Program {
            name: "iterate a large join driven by a small set",
            setup: driven_setup,
            body: |w, _, _| driven_passes(w, 20),
            layouts: &[ALL_TABLES, &["D4"], &["D4", "C64"]],
        },
        Program {
            name: "iterate wide rows",
            setup: abc,
            body: |w, _, _| {
                for _ in 0..20 {
                    w.query::<&mut C64>().for_each(|c| c.0[0] += 1);
                }
            },
            layouts: &[ALL_TABLES, &["C64"]],
        },
        Program {
            name: "iterate fragmented",
            setup: |w, n| {
                let per = (n / 48).max(1);
                spawn_tagged!(w, per, F0, F1, F2, F3, F4, F5, F6, F7, F8, F9, F10, F11)
            },
            body: |w, _, _| {
                for _ in 0..200 {
                    w.query::<&mut A16>().for_each(|a| a.0[0] += 1);
                }
            },
            layouts: &[
                ALL_TABLES,
                &[
                    "F0", "F1", "F2", "F3", "F4", "F5", "F6", "F7", "F8", "F9", "F10", "F11",
                ],
            ],
        },
        Program {
            name: "get",
            setup: ab,
            body: |w, es, _| {
                for &e in es {
                    let a = w.get::<A16>(e).map_or(0, |a| a.0[0]);
                    if let Some(b) = w.get_mut::<B16>(e) {
                        b.0[0] += a;
                    }
                }
            },
            layouts: &[ALL_TABLES, &["A16", "B16"]],
        },
        Program {
            name: "gets between short runs",
            setup: |w, n| {
                let es = ab(w, n);
                w.spawn_batch((0..4).map(|_| C64::default()));
                es
            },
            body: |w, es, _| {
                for &e in es {
                    std::hint::black_box(w.get::<A16>(e));
                    w.query::<&C64>().for_each(|c| {
                        std::hint::black_box(c);
                    });
                }
            },
            layouts: &[ALL_TABLES, &["A16", "B16"]],
        },
        Program {
            name: "gets between frames",
            setup: ab,
            body: |w, es, _| {
                for &e in es {
                    std::hint::black_box(w.get::<A16>(e));
                    w.trace_frame();
                }
            },
            layouts: &[ALL_TABLES, &["A16"]],
        },
        Program {
            name: "a schedule of eight systems",
            setup: |w, _| ab(w, 4),
            body: |w, _, n| {
                let mut schedule = eight_systems();
                for _ in 0..n / 8 {
                    schedule.run(w);
                }
            },
            layouts: &[ALL_TABLES],
        },
        Program {
            name: "many short runs",
            setup: |w, _| ab(w, 4),
            body: |w, _, n| {
                for _ in 0..n / 2 {
                    w.query::<(&A16, &B16)>().for_each(|(a, b)| {
                        std::hint::black_box((a, b));
                    });
                }
            },
            layouts: &[ALL_TABLES, &["A16"]],
        },
    ]
}

/// Records `program` at size `n`: the set-up alone, and the set-up with the body.
fn record(program: &Program, n: usize) -> (Trace, Trace) {
    let trace = |with_body: bool| {
        let mut world = Recording::new();
        world.start_trace().expect("a traced storage records");
        let entities = (program.setup)(&mut world, n);
        world.trace_frame();
        if with_body {
            (program.body)(&mut world, &entities, n);
            world.trace_frame();
        }
        world.finish_trace().expect("recording")
    };
    (trace(false), trace(true))
}

/// Runs every program at size `n` under each of its layouts, `runs` replays each (the
/// median is kept), calling `progress` after each sample.
///
/// # Errors
/// A replay that could not be set up or that diverged (a bug: the programs are fixed).
pub fn measure(
    n: usize,
    runs: usize,
    progress: &mut dyn FnMut(&str),
) -> Result<Vec<Sample>, String> {
    let mut samples = Vec::new();
    // One replay first, unmeasured: the first one pays for cold caches and fresh pages.
    let warm = programs().swap_remove(0);
    let (_, whole) = record(&warm, n);
    let kinds = vec![StorageKind::Table; whole.components().len()];
    replay_kinds(&whole, Backend::Hybrid, &kinds, warm.name, 1, &mut |_| {})?;
    for program in programs() {
        let (setup, whole) = record(&program, n);
        let setup_profile = Profile::of(&setup);
        let whole_profile = Profile::of(&whole);
        for sparse in program.layouts {
            let is_sparse = named_sparse(&whole, sparse);
            let kinds = kinds_of(&is_sparse);
            let label = format!("{} ({})", program.name, sparse.join(","));
            let outcome = replay_kinds(&whole, Backend::Hybrid, &kinds, &label, runs, &mut |_| {})?;
            if !outcome.faithful() {
                return Err(format!(
                    "calibration program {label} diverged: {:?}",
                    outcome.divergences
                ));
            }
            // The set-up is frame 0; the body is every frame after it (decoding left out,
            // as in the advisor's measurements).
            let measured_ns = outcome.frame_ns.iter().skip(1).sum::<u64>() as f64;
            let body = difference(
                whole_profile.features(&is_sparse),
                setup_profile.features(&named_sparse(&setup, sparse)),
            );
            samples.push(Sample {
                program: program.name.to_owned(),
                sparse: sparse.iter().map(|s| (*s).to_owned()).collect(),
                features: body.to_array().to_vec(),
                measured_ns,
            });
            progress(&label);
        }
    }
    Ok(samples)
}

/// Whether each of `trace`'s components is one of the `sparse` names.
fn named_sparse(trace: &Trace, sparse: &[&str]) -> Vec<bool> {
    trace
        .components()
        .iter()
        .map(|c| sparse.contains(&c.name.as_str()))
        .collect()
}

fn difference(whole: Features, setup: Features) -> Features {
    let (w, s) = (whole.to_array(), setup.to_array());
    Features::from_array(std::array::from_fn(|i| (w[i] - s[i]).max(0.0)))
}
