//! Arena: a small game written the way a bevy user writes one — derived components and
//! bundles, systems added as a chained tuple with a run condition, `&mut` queries on a
//! change-tracked type, commands through `commands.entity(e)`, resources, events, a
//! `Local`, a parameter set, an exclusive system, random access (one entity, several at
//! once, the only match of a query), removing and taking bundles, required components, an
//! observer, and drones that are children of their carrier — printing the same lines on
//! every backend.
//!
//! ```text
//! cargo run -p examples --example arena                    # archetype tables
//! cargo run -p examples --example arena --features sparse  # sparse sets
//! cargo run -p examples --example arena --features hybrid  # tags in sparse sets
//! cargo run --release -p examples --example arena -- --frames 20000 --trace arena.trace
//! ```
//!
//! `--sequential` runs the systems one after another, as a recording schedule does: timed
//! with and without `--trace`, the difference is what recording itself costs.
//!
//! Drones orbit their carrier (children follow their parent), fighters fly straight and shoot
//! the nearest enemy carrier every few frames (events), hits lower health (tracked: a
//! logger reports only what changed), carriers are repaired by their crews every fourth
//! frame, the dead are taken out of the world by an exclusive system, a carrier launches a
//! new drone (commands) every fifth frame, and when a carrier falls the fighters land.

use std::fmt::Write;

use ecs::prelude::*;

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Position(i32, i32);

#[derive(Component, Clone, Copy)]
struct Velocity(i32, i32);

#[derive(Component)]
#[component(track_changes)]
struct Health(i32);

/// Which side an entity fights for. Sparse in a hybrid world: teams never change, but the
/// tag is small and rarely iterated alone.
#[derive(Component, Clone, Copy, PartialEq, Eq, Debug)]
#[component(storage = "sparse")]
enum Team {
    Red,
    Blue,
}

#[derive(Component)]
struct Name(String);

/// Where a drone sits relative to its carrier (its parent, through `ChildOf`). Whatever
/// orbits has a position (set by `follow`) and starts with 3 health: required components,
/// added by the world to an entity that gets an `Orbit` without them.
#[derive(Component, Clone, Copy)]
#[component(requires(Position = Position(0, 0), Health = Health(3)))]
struct Orbit {
    offset: (i32, i32),
}

/// Marks carriers (the targets fighters shoot at).
#[derive(Component)]
struct Carrier;

/// A fighter that landed when the shooting stopped, and how fast it was flying.
#[derive(Component)]
struct Landed {
    speed: i32,
}

#[derive(Bundle)]
struct Fighter {
    name: Name,
    team: Team,
    position: Position,
    velocity: Velocity,
    health: Health,
}

/// The frame being simulated.
struct Frame(u32);

/// Whether the battle is over (a team lost its carrier): the fighters stop shooting.
struct Ceasefire(bool);

/// A shot that landed.
struct Hit {
    target: Entity,
    damage: i32,
}

/// What the game printed.
#[derive(Default)]
struct Log(String);

fn fly(mut q: Query<(&mut Position, &Velocity), Without<Orbit>>) {
    q.for_each(|(p, v)| {
        p.0 += v.0;
        p.1 += v.1;
    });
}

/// Children follow their parents: `With<Orbit>` / `Without<Orbit>` keep the two queries on
/// `Position` apart, so one writes while the other reads.
fn follow(
    mut children: Query<(&mut Position, &Orbit, &ChildOf)>,
    parents: Query<&Position, Without<Orbit>>,
) {
    children.for_each(|(p, orbit, link)| {
        if let Some(parent) = parents.get(link.parent()) {
            *p = Position(parent.0 + orbit.offset.0, parent.1 + orbit.offset.1);
        }
    });
}

/// Every third frame each fighter hits the enemy carrier nearest to it.
fn shoot(
    fighters: Query<(&Position, &Team), With<Velocity>>,
    carriers: Query<(Entity, &Position, &Team), With<Carrier>>,
    frame: Res<Frame>,
    mut hits: EventWriter<Hit>,
) {
    if frame.0 % 3 != 0 {
        return;
    }
    for (p, team) in fighters.iter() {
        let nearest = carriers
            .iter()
            .filter(|(_, _, t)| *t != team)
            .min_by_key(|(e, c, _)| ((c.0 - p.0).abs() + (c.1 - p.1).abs(), *e));
        if let Some((target, _, _)) = nearest {
            hits.send(Hit { target, damage: 4 });
        }
    }
}

/// `Health` tracks changes, so `&mut Health` hands out a guard that records the write for
/// `report_health`'s `Changed<Health>`.
fn take_hits(mut hits: EventReader<Hit>, mut health: Query<&mut Health>) {
    for hit in hits.read() {
        if let Some(mut h) = health.get_mut(hit.target) {
            h.0 -= hit.damage;
        }
    }
}

/// The fighters' teams and health (read).
type Crews = Query<'static, 'static, (&'static Team, &'static Health), With<Velocity>>;
/// The carriers' teams and health (written).
type CarrierHealth = Query<'static, 'static, (&'static Team, &'static mut Health), With<Carrier>>;

/// Every fourth frame each carrier is repaired by one point per living fighter of its team.
/// Counting the crews reads `Health` and repairing writes it, so the two queries conflict;
/// a `ParamSet` holds both and hands out one at a time (its members are written with
/// `'static` references).
fn repair(mut set: ParamSet<(Crews, CarrierHealth)>, frame: Res<Frame>) {
    if frame.0 % 4 != 0 {
        return;
    }
    let mut crews = [0; 2];
    for (team, health) in set.p0().iter() {
        if health.0 > 0 {
            crews[*team as usize] += 1;
        }
    }
    set.p1().for_each(|(team, mut health)| {
        if health.0 > 0 && crews[*team as usize] > 0 {
            health.0 += crews[*team as usize];
        }
    });
}

/// On frame 5 the first two red fighters swap places (two positions borrowed at once).
fn regroup(world: &mut World) {
    if world.resource::<Frame>().unwrap().0 != 5 {
        return;
    }
    let mut reds: Vec<(String, Entity)> = world
        .query_filtered::<(Entity, &Name, &Team), With<Velocity>>()
        .filter(|(_, _, team)| **team == Team::Red)
        .map(|(e, n, _)| (n.0.clone(), e))
        .collect();
    reds.sort();
    if let [(_, a), (_, b), ..] = reds[..] {
        let [pa, pb] = world.get_many_mut::<Position, 2>([a, b]).unwrap();
        std::mem::swap(pa, pb);
    }
}

/// Reports only the entities whose health changed since this system last ran.
fn report_health(
    changed: Query<(&Name, &Health), Changed<Health>>,
    frame: Res<Frame>,
    mut log: ResMut<Log>,
) {
    let mut lines: Vec<String> = changed
        .iter()
        .map(|(n, h)| format!("frame {}: {} at {}", frame.0, n.0, h.0))
        .collect();
    lines.sort();
    for line in lines {
        writeln!(log.0, "{line}").unwrap();
    }
}

/// Every fifth frame each carrier launches a drone into orbit, as its child (deferred:
/// applied at the end of the frame).
fn launch(
    carriers: Query<(Entity, &Name, &Team), With<Carrier>>,
    frame: Res<Frame>,
    mut launched: Local<u32>,
    mut commands: Commands,
) {
    if frame.0 % 5 != 0 {
        return;
    }
    let mut carriers: Vec<_> = carriers.iter().collect();
    carriers.sort_by(|a, b| a.1 .0.cmp(&b.1 .0));
    for (carrier, name, team) in carriers {
        *launched += 1;
        let n = *launched;
        // `Position` and `Health` come with the `Orbit` (its required components).
        commands.entity(carrier).spawn_child((
            Name(format!("{}-drone{}", name.0, n)),
            *team,
            Orbit {
                offset: (n as i32, 1),
            },
        ));
    }
}

/// Takes the dead out of the world (their name and health handed back for the log), and
/// their drones with them; when a carrier falls, declares a ceasefire and lands the fighters.
fn reap(world: &mut World) {
    let mut dead: Vec<(Entity, String, bool)> = world
        .query::<(Entity, &Health, &Name, Option<&Carrier>)>()
        .filter(|(_, h, _, _)| h.0 <= 0)
        .map(|(e, _, n, c)| (e, n.0.clone(), c.is_some()))
        .collect();
    dead.sort_by(|a, b| a.1.cmp(&b.1));
    let frame = world.resource::<Frame>().unwrap().0;
    for (e, _, carrier) in &dead {
        if !world.contains(*e) {
            continue; // a drone that went down with its carrier
        }
        // The drones go with their carrier; the carrier itself is taken (its values back).
        let drones: Vec<Entity> = world.children(*e).unwrap().collect();
        for drone in drones {
            world.despawn_recursive(drone).unwrap();
        }
        let (name, health) = world.take::<(Name, Health)>(*e).unwrap();
        writeln!(
            world.resource_mut::<Log>().unwrap().0,
            "frame {frame}: {} destroyed at {}",
            name.0,
            health.0
        )
        .unwrap();
        if *carrier && !world.resource::<Ceasefire>().unwrap().0 {
            world.resource_mut::<Ceasefire>().unwrap().0 = true;
            land_fighters(world);
        }
    }
}

/// Every fighter stops: its velocity and team come off together (a bundle, all or
/// nothing), and it is marked as landed.
fn land_fighters(world: &mut World) {
    let fighters: Vec<Entity> = world
        .query_filtered::<Entity, (With<Velocity>, Without<Orbit>)>()
        .collect();
    // In handle order, so the observer's lines come out alike on every backend.
    let mut fighters = fighters;
    fighters.sort();
    for e in fighters {
        let (velocity, _team) = world.remove::<(Velocity, Team)>(e).unwrap();
        world.entity_mut(e).unwrap().insert(Landed {
            speed: velocity.0.abs(),
        });
    }
}

/// An observer: runs each time an entity gets `Landed` (inserted by `land_fighters`), with
/// system parameters like any system, and logs the landing.
fn log_landing(
    landed: On<Add, Landed>,
    names: Query<&Name>,
    frame: Res<Frame>,
    mut log: ResMut<Log>,
) {
    if let Some(name) = names.get(landed.entity()) {
        writeln!(log.0, "frame {}: {} landed", frame.0, name.0).unwrap();
    }
}

/// What is left: read through `&World` (a read-only query beside per-entity reads), and the
/// one remaining carrier, if exactly one is left.
fn summary(world: &World, log: &mut String) {
    let mut survivors: Vec<(String, Entity)> = world
        .query_ref::<(Entity, &Name)>()
        .map(|(e, n)| (n.0.clone(), e))
        .collect();
    survivors.sort();
    for (name, e) in survivors {
        let entity = world.entity(e).unwrap();
        let health = entity.get::<Health>().map_or(0, |h| h.0);
        let Position(x, y) = *entity.get::<Position>().unwrap();
        let landed = entity
            .get::<Landed>()
            .map_or(String::new(), |l| format!(", landed at speed {}", l.speed));
        writeln!(log, "{name}: health {health} at ({x}, {y}){landed}").unwrap();
    }
}

fn tick(mut frame: ResMut<Frame>) {
    frame.0 += 1;
}

/// Plays `frames` frames and returns what the game printed.
pub fn run(frames: u32) -> String {
    play(frames, false).0
}

/// Plays `frames` frames (`sequential`: one system at a time): what the game printed and
/// how long its frames took (the schedule runs only, not building the world or writing a
/// trace).
fn play(frames: u32, sequential: bool) -> (String, std::time::Duration) {
    let mut world = World::new();
    examples::trace::start(&mut world);
    world.insert_resource(Frame(0));
    world.insert_resource(Ceasefire(false));
    world.insert_resource(Log::default());
    world.add_event::<Hit>();
    world
        .observe(log_landing)
        .expect("an observer of `Landed` with valid parameters");
    for (name, team, x) in [
        ("red-carrier", Team::Red, -20),
        ("blue-carrier", Team::Blue, 20),
    ] {
        world.spawn((Name(name.into()), team, Position(x, 0), Health(30), Carrier));
    }
    for i in 0..5 {
        let (team, x, vx) = if i % 2 == 0 {
            (Team::Red, -10, 1)
        } else {
            (Team::Blue, 10, -1)
        };
        world.spawn(Fighter {
            name: Name(format!("{team:?}-fighter{i}").to_lowercase()),
            team,
            position: Position(x, i),
            velocity: Velocity(vx, 0),
            health: Health(10),
        });
    }

    let mut schedule = Schedule::new();
    schedule.set_parallel(!sequential);
    // The clock, then movement: each before the next. The rest run as their accesses allow.
    let clock = schedule.add_systems((tick, fly, follow).chain())[0];
    let shoot = schedule.add_system(shoot);
    schedule.add_systems((take_hits, repair, report_health, launch, regroup, reap));
    schedule
        .configure(shoot)
        .after(clock)
        .run_if(|w: &World| !w.resource::<Ceasefire>().unwrap().0);
    // Every problem (a missing resource, a conflict, a bad constraint) before frame 1.
    if let Err(err) = schedule.build(&mut world) {
        panic!("the schedule cannot run: {err}");
    }

    let begun = std::time::Instant::now();
    for _ in 0..frames {
        schedule.run(&mut world); // a frame of the trace, when recording
    }
    let took = begun.elapsed();
    examples::trace::finish(&mut world);
    let mut log = std::mem::take(&mut world.resource_mut::<Log>().unwrap().0);
    match world.query_single_filtered::<&Name, With<Carrier>>() {
        Ok(name) => writeln!(log, "the last carrier standing: {}", name.0).unwrap(),
        Err(err) => writeln!(log, "no single carrier left: {err}").unwrap(),
    }
    summary(&world, &mut log);
    let survivors = world.query::<&Name>().count();
    writeln!(log, "after {frames} frames: {survivors} entities").unwrap();
    (log, took)
}

fn main() {
    // `--frames N` plays longer (40 by default): what a timing of the game, traced or
    // not, needs to rise above the noise.
    let frames = examples::story::frames_arg().unwrap_or(40);
    let begun = std::time::Instant::now();
    let sequential = std::env::args().any(|a| a == "--sequential");
    let (printed, took) = play(frames, sequential);
    let whole = begun.elapsed();
    print!("{printed}");
    // On stderr, so the printed game is byte-identical on every backend.
    eprintln!("(backend: {BACKEND})");
    eprintln!(
        "[measured] {frames} frames in {:.3} ms ({:.2} us a frame)",
        took.as_secs_f64() * 1e3,
        took.as_secs_f64() * 1e6 / f64::from(frames.max(1))
    );
    // Building the world, and writing the trace when recording, are not frames.
    eprintln!(
        "[measured] the whole run in {:.3} ms",
        whole.as_secs_f64() * 1e3
    );
}
