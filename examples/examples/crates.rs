//! Crates (seed 002): a level of 100,000 crates that never move and 100 that do. Each frame
//! the 100 move, then the render system draws what changed. It asks for
//! `Or<(Changed<CratePos>, Changed<Animation>)>`, so it touches the 100 crates that moved,
//! not the 100,000 that exist; the same system without the filter draws every crate. Both
//! costs are printed: the work (crates drawn) is the same on every backend, the time is this
//! machine's.
//!
//! Seed 002 is the story of a game whose render loop slowed down as levels filled with
//! static props: every frame it re-drew every crate to catch the few that moved. Its fix was
//! a "dirty" list per system; here it is opt-in change tracking (`#[component(track_changes)]`)
//! whose logs a `Changed<T>` query reads, so a system's cost follows what changed since *it*
//! last ran.
//!
//! The scene (components, systems, the render body) is the benchmark's seed 002 workload,
//! reused: `ecs_bench::workloads::seed002::Crates`.
//!
//! ```text
//! cargo run --release -p examples --example crates                    # archetype tables
//! cargo run --release -p examples --example crates --features sparse  # sparse sets
//! cargo run -p examples --example crates -- --small                   # 10,000 crates
//! ```

use std::time::{Duration, Instant};

use ecs::prelude::*;
use ecs_bench::report::markdown::format_time;
use ecs_bench::workloads::seed002::{Crates, Render, MOVING};
use examples::story::{Out, Size};

/// One render system timed, and how many crates it drew, per frame.
#[derive(Default)]
struct Cost {
    times: Vec<Duration>,
    drawn: Vec<usize>,
}

impl Cost {
    fn median(&self) -> Duration {
        let mut times = self.times.clone();
        times.sort();
        times[times.len() / 2]
    }

    /// The number of crates drawn, when it was the same every frame.
    fn drawn_every_frame(&self) -> Option<usize> {
        let first = *self.drawn.first()?;
        self.drawn.iter().all(|&d| d == first).then_some(first)
    }
}

fn render(crates: &mut Crates<Backend>, which: Render, cost: &mut Cost) {
    let start = Instant::now();
    crates.render(which);
    cost.times.push(start.elapsed());
    cost.drawn.push(crates.rendered(which).count);
}

/// Runs the story at `size` and returns its output (printed as it goes when `echo`).
pub fn run(size: Size, echo: bool) -> String {
    let statics = size.pick(100_000, 10_000);
    let frames = size.pick(200, 20);
    let mut out = Out::new(BACKEND, echo);
    out.line(format!(
        "{} static crates and {MOVING} moving ones; each frame the {MOVING} move, then:",
        count(statics)
    ));
    out.line("  changed render: Query<(&CratePos, &Animation), Or<(Changed<CratePos>, Changed<Animation>)>>");
    out.line("  full scan:      Query<(&CratePos, &Animation)>, every crate");
    let mut crates = Crates::<Backend>::new(statics, &[Render::Changed, Render::Scan]);
    let (mut changed, mut scan) = (Cost::default(), Cost::default());
    for _ in 0..frames {
        crates.step();
        render(&mut crates, Render::Changed, &mut changed);
        render(&mut crates, Render::Scan, &mut scan);
        ecs::ecs_core::trace::frame(); // a frame of the trace, when recording
    }
    let describe = |cost: &Cost| {
        cost.drawn_every_frame()
            .map_or_else(|| format!("{:?}", cost.drawn), count)
    };
    out.line(format!(
        "work per frame ({frames} frames): the changed render drew {} crates, the full scan {}",
        describe(&changed),
        describe(&scan)
    ));
    if let (Some(c), Some(s)) = (changed.drawn_every_frame(), scan.drawn_every_frame()) {
        out.line(format!(
            "the changed render does 1/{} of the scan's work: its cost follows what moved",
            count(s / c.max(1))
        ));
    }
    let (c, s) = (changed.median(), scan.median());
    out.measured(format!(
        "time per frame (median): changed render {}, full scan {}: 1/{:.0} of the scan",
        format_time(c.as_nanos() as f64),
        format_time(s.as_nanos() as f64),
        s.as_secs_f64() / c.as_secs_f64().max(1e-12)
    ));
    out.line("where the memory went (the change logs are what tracking costs):");
    out.backend(crates.world.layout());
    out.finish()
}

/// `1,234,567`.
fn count(n: usize) -> String {
    ecs::ecs_core::layout::format_count(n)
}

fn main() {
    // The world is built inside `Crates`: `--trace FILE` records it from its creation.
    examples::trace::capture(|| run(Size::from_env_and_args(), true));
}
