//! Seed 002: the two render variants draw what they should, on every backend and the
//! baseline. The changed render draws exactly the 100 movers at their new positions; the
//! scan draws every crate; so scan = changed + the static crates, frame after frame. (Their
//! times are the report's business; this checks only what they compute.)

use ecs_bench::backend::StorageVisitor;
use ecs_bench::components::{Digest, Velocity};
use ecs_bench::report::model::{RunnerResult, WorkloadReport};
use ecs_bench::workload::{checksum_once, Family};
use ecs_bench::workloads::registry;
use ecs_bench::workloads::seed002::{
    crate_bundle, mover_bundle, ratio_line, step_position, Crates, Render, Rendered, CHANGED,
    MOVING, SCAN,
};
use ecs_bench::{Backend, Runner, Scale};
use ecs_core::Storage;

/// What the static crates draw (they never change).
fn statics_drawn(statics: usize) -> Rendered {
    let mut drawn = Rendered::default();
    for i in 0..statics {
        let (p, a, _) = crate_bundle(i);
        drawn.draw(&p, &a);
    }
    drawn
}

/// What the movers draw after `frames` steps, computed without an ECS.
fn movers_drawn(statics: usize, frames: usize) -> Rendered {
    let mut drawn = Rendered::default();
    for j in 0..MOVING {
        let (mut p, a, _, v): (_, _, _, Velocity) = mover_bundle(statics, j);
        for _ in 0..frames {
            step_position(&mut p, &v);
        }
        drawn.draw(&p, &a);
    }
    drawn
}

fn plus(a: Rendered, b: Rendered) -> Rendered {
    Rendered {
        sum: Digest(a.sum.0.wrapping_add(b.sum.0)),
        count: a.count + b.count,
    }
}

/// Both renders on one world, frame by frame.
struct BothRenders {
    statics: usize,
}

impl StorageVisitor for BothRenders {
    type Output = ();

    fn visit<S: Storage>(self) {
        let name = S::NAME;
        let statics = statics_drawn(self.statics);
        let mut crates = Crates::<S>::new(self.statics, &[Render::Changed, Render::Scan]);
        let everything = plus(statics, movers_drawn(self.statics, 0));
        assert_eq!(everything.count, self.statics + MOVING);
        assert_eq!(
            crates.rendered(Render::Changed),
            everything,
            "{name}: the warm-up (first) changed render sees every crate"
        );
        assert_eq!(crates.rendered(Render::Scan), everything, "{name}");

        for frame in 1..=3 {
            crates.step();
            crates.render(Render::Changed);
            crates.render(Render::Scan);
            let changed = crates.rendered(Render::Changed);
            let scan = crates.rendered(Render::Scan);
            let movers = movers_drawn(self.statics, frame);
            assert_eq!(changed.count, MOVING, "{name}, frame {frame}");
            assert_eq!(
                changed, movers,
                "{name}, frame {frame}: the changed render draws the movers where they are now"
            );
            assert_eq!(
                scan,
                plus(statics, changed),
                "{name}, frame {frame}: scan = changed + the static crates"
            );
            assert_ne!(changed.checksum(), scan.checksum());
        }

        // A frame where nothing moved: the changed render draws nothing, the scan the same.
        let scan_before = crates.rendered(Render::Scan);
        crates.render(Render::Changed);
        crates.render(Render::Scan);
        assert_eq!(
            crates.rendered(Render::Changed),
            Rendered::default(),
            "{name}"
        );
        assert_eq!(crates.rendered(Render::Scan), scan_before, "{name}");
    }
}

#[test]
fn changed_draws_the_movers_and_scan_draws_everything() {
    for &backend in Backend::ALL {
        backend.visit(BothRenders { statics: 2_000 });
    }
}

#[test]
fn workload_checksums_match_the_expected_renders() {
    let statics = registry()
        .into_iter()
        .find(|w| w.info().name == CHANGED)
        .expect("crates_render_changed registered")
        .info()
        .sizes
        .test;
    let changed = movers_drawn(statics, 1).checksum();
    let scan = plus(statics_drawn(statics), movers_drawn(statics, 1)).checksum();
    for workload in registry() {
        let info = workload.info();
        let expected = match info.name.as_str() {
            CHANGED => changed,
            SCAN => scan,
            _ => continue,
        };
        for runner in Runner::all().into_iter().filter(|&r| info.runs_on(r)) {
            assert_eq!(
                checksum_once(workload.as_ref(), runner, Scale::Test),
                Some(expected),
                "{} on {runner}",
                info.name
            );
        }
    }
}

fn row(name: &str, medians: &[(&str, f64)]) -> WorkloadReport {
    WorkloadReport {
        name: name.to_owned(),
        family: Family::Seed002,
        description: String::new(),
        size: 100_000,
        unit: String::new(),
        anchor: None,
        note: None,
        results: medians
            .iter()
            .map(|&(runner, median_ns)| RunnerResult {
                runner: runner.to_owned(),
                median_ns,
                min_ns: median_ns,
                max_ns: median_ns,
                samples: 1,
                batch: 1,
                peak_bytes: 0,
                allocations: 0,
                checksum: String::new(),
                checksum_stable: true,
                ratio_to_fastest: 1.0,
                bytes: None,
                samples_ns: Vec::new(),
            })
            .collect(),
        checksums_agree: true,
        seconds: 0.0,
    }
}

#[test]
fn ratio_line_marks_the_target() {
    let met = [
        row(CHANGED, &[("archetype", 2_000.0), ("baseline", 100.0)]),
        row(SCAN, &[("archetype", 246_000.0), ("baseline", 90_000.0)]),
    ];
    let line = ratio_line(&met).expect("both variants ran");
    assert!(line.contains("1/123 (archetype)"), "{line}");
    assert!(line.contains("1/900 (baseline)"), "{line}");
    assert!(line.ends_with("**met**"), "{line}");

    // The baseline does not count towards the target; a backend does.
    let missed = [
        row(CHANGED, &[("archetype", 2_000.0), ("sparse", 4_000.0)]),
        row(SCAN, &[("archetype", 246_000.0), ("sparse", 160_000.0)]),
    ];
    let line = ratio_line(&missed).expect("both variants ran");
    assert!(line.contains("1/40 (sparse)"), "{line}");
    assert!(line.ends_with("**missed** on sparse"), "{line}");

    assert_eq!(ratio_line(&met[..1]), None, "needs both variants");
}
