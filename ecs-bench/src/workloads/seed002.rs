//! Seed 002 (Fallgate's crates, "dirty component optimization"): 100,000 static crates with
//! (`CratePos`, `Animation`, `Collision`) and 100 moving ones (the same plus `Velocity`).
//! Every frame the 100 move, untimed, through `Mut<CratePos>` (a mover system); then the
//! render system runs, timed, in two variants with the same per-crate body:
//!
//! * `crates_render_changed`: `Query<(&CratePos, &Animation), Or<(Changed<CratePos>,
//!   Changed<Animation>)>>`. Driven by the change logs, it visits the 100 that moved.
//! * `crates_render_scan`: the same query without the change filter: all 100,100 crates.
//!
//! The seed's point: the render's cost must follow what changed, not what exists. The report
//! prints changed/scan per backend under the seed 002 table and marks the issue's target
//! (changed ≤ 1/[`TARGET_FRACTION`] of scan on every backend) met or missed
//! ([`ratio_line`]).
//!
//! Timing starts with the second render: setup runs a warm-up render, because the first run
//! of a change-filtered query is a full scan by design (a system that never ran has seen
//! nothing). Each checksum covers what the last render drew: for `changed`, the 100 movers
//! at their new positions; for `scan`, every crate.
//!
//! ```text
//!   setup (untimed):  spawn 100,000 + 100 · init mover and render systems · warm-up render
//!   per run:          mover moves 100 (untimed step) ──► render (timed) ──► checksum (untimed)
//! ```
//!
//! The baseline is the seed's own design, hand-written: component columns in `Vec`s and one
//! dirty list that the mover appends to (once per crate per frame) and the changed render
//! drains; the scan render walks every column.

use ecs_core::{Changed, IntoSystem, Or, Query, ResMut, Storage, System, World};

use super::{info, sizes, Builtin, InfoExt};
use crate::components::*;
use crate::report::model::WorkloadReport;
use crate::workload::{DynWorkload, Family, Prepared, Workload, WorkloadInfo};

/// Moving crates per world (the seed's 100).
pub const MOVING: usize = 100;

/// The issue's target: a changed render takes at most 1/`TARGET_FRACTION` of a full scan.
pub const TARGET_FRACTION: f64 = 50.0;

/// Name of the log-driven variant.
pub const CHANGED: &str = Builtin::CratesRenderChanged.name();
/// Name of the full-scan variant.
pub const SCAN: &str = Builtin::CratesRenderScan.name();

const NOTE: &str = "both crates rows: per frame, 100 crates move (an untimed step through \
                    `Mut<CratePos>`), then the render system runs (timed); a warm-up render \
                    (the changed query's first run, a full scan) precedes timing";

/// The seed 002 workloads: the two render variants.
pub fn workloads() -> Vec<Box<dyn DynWorkload>> {
    let unit = "static crates + 100 moving";
    vec![
        Box::new(CratesRender {
            render: Render::Changed,
            info: info(
                Builtin::CratesRenderChanged,
                "render system over Or<(Changed<CratePos>, Changed<Animation>)>: the 100 that \
                 moved, found through the change logs",
                sizes(100_000, 100_000, 1_000),
                unit,
            )
            .repeatable()
            .stepped()
            .baseline()
            .note(NOTE),
        }),
        Box::new(CratesRender {
            render: Render::Scan,
            info: info(
                Builtin::CratesRenderScan,
                "the same render system without a change filter: every crate, every frame",
                sizes(100_000, 100_000, 1_000),
                unit,
            )
            .repeatable()
            .stepped()
            .baseline(),
        }),
    ]
}

/// Static crate number `i`: on a 512-wide grid, animation frame and speed varying with `i`.
pub fn crate_bundle(i: usize) -> (CratePos, Animation, Collision) {
    let (x, y) = ((i % 512) as f32, (i / 512) as f32);
    (
        CratePos([x * 1.5, y * 1.5, 0.0]),
        Animation {
            frame: (i % 8) as u32,
            speed: 0.25 * (1 + i % 4) as f32,
        },
        Collision {
            half_extents: [0.5, 0.5],
            layers: 0b101,
        },
    )
}

/// Moving crate number `j` of a world with `statics` static crates: crate number
/// `statics + j` plus a velocity.
pub fn mover_bundle(statics: usize, j: usize) -> (CratePos, Animation, Collision, Velocity) {
    let (p, a, c) = crate_bundle(statics + j);
    let v = Velocity([0.125 * (1 + j % 5) as f32, -0.0625 * (j % 3) as f32, 0.0]);
    (p, a, c, v)
}

/// One frame of movement.
#[inline]
pub fn step_position(p: &mut CratePos, v: &Velocity) {
    p.0[0] += v.0[0];
    p.0[1] += v.0[1];
    p.0[2] += v.0[2];
}

/// The render body: place one crate's sprite (isometric screen position, depth key for
/// sorting, texture-atlas cell of its animation frame) and hash the placement.
#[inline]
pub fn sprite_hash(p: &CratePos, a: &Animation) -> u64 {
    const HALF_W: f32 = 32.0;
    const HALF_H: f32 = 16.0;
    const FRAMES: u32 = 8;
    let [x, y, z] = p.0;
    let screen_x = (x - y) * HALF_W;
    let screen_y = (x + y) * HALF_H - z * 2.0 * HALF_H;
    let depth = x + y + z;
    let u = (a.frame % FRAMES) as f32 / FRAMES as f32;
    let placement = u64::from(screen_x.to_bits()) | u64::from(screen_y.to_bits()) << 32;
    let texture = u64::from(depth.to_bits()) | u64::from(u.to_bits()) << 32;
    mix(placement) ^ texture
}

/// What one render drew: an order-independent sum of sprite hashes, and how many.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Rendered {
    /// Sum of the sprites' hashes ([`Digest`] is a wrapping sum, so renders of disjoint
    /// sets add up).
    pub sum: Digest,
    /// Sprites drawn.
    pub count: usize,
}

impl Rendered {
    /// Draws one crate.
    #[inline]
    pub fn draw(&mut self, p: &CratePos, a: &Animation) {
        self.sum.add(sprite_hash(p, a));
        self.count += 1;
    }

    /// The checksum a workload reports.
    pub fn checksum(&self) -> u64 {
        self.sum.finish(self.count)
    }
}

/// Which render system.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Render {
    /// Only crates whose position or animation changed since the system last ran.
    Changed,
    /// Every crate.
    Scan,
}

/// Output of the changed render (a resource).
#[derive(Default)]
struct ChangedOut(Rendered);
/// Output of the scan render (a resource).
#[derive(Default)]
struct ScanOut(Rendered);

type Watched = Or<(Changed<CratePos>, Changed<Animation>)>;

fn render_changed<S: Storage>(
    q: Query<'_, '_, (&CratePos, &Animation), Watched, S>,
    mut out: ResMut<ChangedOut>,
) {
    let mut drawn = Rendered::default();
    q.iter().for_each(|(p, a)| drawn.draw(p, a));
    out.0 = drawn;
}

fn render_scan<S: Storage>(
    q: Query<'_, '_, (&CratePos, &Animation), (), S>,
    mut out: ResMut<ScanOut>,
) {
    let mut drawn = Rendered::default();
    q.iter().for_each(|(p, a)| drawn.draw(p, a));
    out.0 = drawn;
}

fn move_crates<S: Storage>(mut q: Query<'_, '_, (ecs_core::Mut<CratePos>, &Velocity), (), S>) {
    q.for_each(|(mut p, v)| step_position(&mut p, v));
}

fn initialized<S: Storage>(
    mut system: Box<dyn System<S>>,
    world: &mut World<S>,
) -> Box<dyn System<S>> {
    system
        .initialize(world)
        .expect("the crates systems' parameters do not conflict");
    system
}

/// The crates scene on backend `S`: the world, the mover and the render systems asked for.
pub struct Crates<S: Storage> {
    /// The world.
    pub world: World<S>,
    mover: Box<dyn System<S>>,
    changed: Option<Box<dyn System<S>>>,
    scan: Option<Box<dyn System<S>>>,
}

impl<S: Storage> Crates<S> {
    /// Spawns `statics` static crates and [`MOVING`] moving ones, initialises the mover and
    /// the `renders` systems, and runs each render once (the warm-up: a change-filtered
    /// query's first run sees everything).
    pub fn new(statics: usize, renders: &[Render]) -> Crates<S> {
        let mut world = World::<S>::new();
        world.insert_resource(ChangedOut::default());
        world.insert_resource(ScanOut::default());
        world.spawn_batch((0..statics).map(crate_bundle));
        world.spawn_batch((0..MOVING).map(|j| mover_bundle(statics, j)));
        let mover = initialized(Box::new(move_crates::<S>.into_system()), &mut world);
        let mut crates = Crates {
            changed: renders
                .contains(&Render::Changed)
                .then(|| initialized(Box::new(render_changed::<S>.into_system()), &mut world)),
            scan: renders
                .contains(&Render::Scan)
                .then(|| initialized(Box::new(render_scan::<S>.into_system()), &mut world)),
            world,
            mover,
        };
        for &render in renders {
            crates.render(render);
        }
        crates
    }

    /// Moves the moving crates one frame (through `Mut<CratePos>`).
    pub fn step(&mut self) {
        self.mover.run(&mut self.world).expect("initialised in new");
    }

    /// Runs a render system.
    ///
    /// # Panics
    /// If `render` was not asked for in [`Crates::new`].
    #[inline]
    pub fn render(&mut self, render: Render) {
        let system = match render {
            Render::Changed => self.changed.as_mut(),
            Render::Scan => self.scan.as_mut(),
        };
        system
            .expect("render system set up in Crates::new")
            .run(&mut self.world)
            .expect("initialised in new");
    }

    /// What the latest run of a render system drew.
    pub fn rendered(&self, render: Render) -> Rendered {
        match render {
            Render::Changed => self.world.resource::<ChangedOut>().map(|o| o.0),
            Render::Scan => self.world.resource::<ScanOut>().map(|o| o.0),
        }
        .unwrap_or_default()
    }
}

/// The hand-written baseline: columns in `Vec`s, movers at the end, and a dirty list.
struct CratesVec {
    pos: Vec<CratePos>,
    anim: Vec<Animation>,
    /// Part of every crate, as in the worlds; neither system reads it.
    _collision: Vec<Collision>,
    /// Velocities of the movers, which are crates `statics..`.
    velocity: Vec<Velocity>,
    statics: usize,
    /// Crates changed since the changed render last ran, each once.
    dirty: Vec<u32>,
    is_dirty: Vec<bool>,
    render: Render,
    rendered: Rendered,
}

impl CratesVec {
    fn new(statics: usize, render: Render) -> CratesVec {
        let total = statics + MOVING;
        let mut crates = CratesVec {
            pos: Vec::with_capacity(total),
            anim: Vec::with_capacity(total),
            _collision: Vec::with_capacity(total),
            velocity: Vec::with_capacity(MOVING),
            statics,
            dirty: Vec::new(),
            is_dirty: vec![false; total],
            render,
            rendered: Rendered::default(),
        };
        for i in 0..statics {
            let (p, a, c) = crate_bundle(i);
            crates.pos.push(p);
            crates.anim.push(a);
            crates._collision.push(c);
        }
        for j in 0..MOVING {
            let (p, a, c, v) = mover_bundle(statics, j);
            crates.pos.push(p);
            crates.anim.push(a);
            crates._collision.push(c);
            crates.velocity.push(v);
        }
        // Warm-up: everything is new to a render that never ran.
        crates.dirty = (0..total as u32).collect();
        crates.is_dirty.fill(true);
        crates.run();
        crates
    }
}

impl Prepared for CratesVec {
    fn step(&mut self) {
        for (j, v) in self.velocity.iter().enumerate() {
            let i = self.statics + j;
            step_position(&mut self.pos[i], v);
            if !self.is_dirty[i] {
                self.is_dirty[i] = true;
                self.dirty.push(i as u32);
            }
        }
    }

    fn run(&mut self) {
        let mut drawn = Rendered::default();
        match self.render {
            Render::Changed => {
                for &i in &self.dirty {
                    let i = i as usize;
                    self.is_dirty[i] = false;
                    drawn.draw(&self.pos[i], &self.anim[i]);
                }
                self.dirty.clear();
            }
            Render::Scan => {
                for (p, a) in self.pos.iter().zip(&self.anim) {
                    drawn.draw(p, a);
                }
            }
        }
        self.rendered = drawn;
    }

    fn checksum(&mut self) -> u64 {
        self.rendered.checksum()
    }
}

/// A [`Crates`] scene timed on one render system.
struct CratesPrepared<S: Storage> {
    crates: Crates<S>,
    render: Render,
}

impl<S: Storage> Prepared for CratesPrepared<S> {
    fn step(&mut self) {
        self.crates.step();
    }

    fn run(&mut self) {
        self.crates.render(self.render);
    }

    fn checksum(&mut self) -> u64 {
        self.crates.rendered(self.render).checksum()
    }
}

/// `crates_render_changed` and `crates_render_scan`.
pub struct CratesRender {
    render: Render,
    info: WorkloadInfo,
}

impl Workload for CratesRender {
    fn info(&self) -> &WorkloadInfo {
        &self.info
    }

    fn prepare<S: Storage>(&self, statics: usize) -> Box<dyn Prepared> {
        Box::new(CratesPrepared {
            crates: Crates::<S>::new(statics, &[self.render]),
            render: self.render,
        })
    }

    fn prepare_baseline(&self, statics: usize) -> Option<Box<dyn Prepared>> {
        Some(Box::new(CratesVec::new(statics, self.render)))
    }
}

/// One runner's changed and scan render times.
#[derive(Clone, Debug, PartialEq)]
pub struct CratesRatio {
    /// Runner name.
    pub runner: String,
    /// Median time per frame of the changed render.
    pub changed_ns: f64,
    /// Median time per frame of the scan render.
    pub scan_ns: f64,
}

impl CratesRatio {
    /// How many changed renders take as long as one scan (`scan / changed`; the ratio is
    /// `1/this`).
    pub fn scans_per_changed(&self) -> f64 {
        self.scan_ns / self.changed_ns
    }

    /// Whether the changed render takes at most 1/[`TARGET_FRACTION`] of the scan.
    pub fn met(&self) -> bool {
        self.changed_ns * TARGET_FRACTION <= self.scan_ns
    }

    /// Whether the issue's target applies (every runner but the hand-written baseline).
    pub fn is_backend(&self) -> bool {
        self.runner != "baseline"
    }
}

/// changed/scan for every runner that ran both variants, in the changed row's runner order.
pub fn crates_ratios<'a>(
    workloads: impl IntoIterator<Item = &'a WorkloadReport>,
) -> Vec<CratesRatio> {
    let workloads: Vec<&WorkloadReport> = workloads
        .into_iter()
        .filter(|w| w.family == Family::Seed002)
        .collect();
    let find = |name: &str| workloads.iter().find(|w| w.name == name);
    let (Some(changed), Some(scan)) = (find(CHANGED), find(SCAN)) else {
        return Vec::new();
    };
    changed
        .results
        .iter()
        .filter_map(|c| {
            let s = scan.results.iter().find(|s| s.runner == c.runner)?;
            Some(CratesRatio {
                runner: c.runner.clone(),
                changed_ns: c.median_ns,
                scan_ns: s.median_ns,
            })
        })
        .collect()
}

/// `1/123`.
fn fraction(scans_per_changed: f64) -> String {
    if scans_per_changed >= 10.0 {
        format!("1/{scans_per_changed:.0}")
    } else {
        format!("1/{scans_per_changed:.1}")
    }
}

/// The line printed under the seed 002 table: changed/scan per runner and whether the
/// target holds on every backend; `None` unless both variants ran.
pub fn ratio_line<'a>(workloads: impl IntoIterator<Item = &'a WorkloadReport>) -> Option<String> {
    let ratios = crates_ratios(workloads);
    if ratios.is_empty() {
        return None;
    }
    let parts: Vec<String> = ratios
        .iter()
        .map(|r| format!("{} ({})", fraction(r.scans_per_changed()), r.runner))
        .collect();
    let missed: Vec<String> = ratios
        .iter()
        .filter(|r| r.is_backend() && !r.met())
        .map(|r| r.runner.clone())
        .collect();
    let verdict = if !ratios.iter().any(CratesRatio::is_backend) {
        "no backend ran".to_owned()
    } else if missed.is_empty() {
        "**met**".to_owned()
    } else {
        format!("**missed** on {}", missed.join(", "))
    };
    Some(format!(
        "**crates: changed/scan** (time per frame) = {} · target ≤ 1/{TARGET_FRACTION:.0} on \
         every backend: {verdict}",
        parts.join(", ")
    ))
}
