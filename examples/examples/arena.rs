//! Arena: a small game using what a newcomer reaches for first — derived components and
//! bundles, a parallel schedule with ordering and a run condition, change detection,
//! commands, resources, events, a `Local`, an exclusive system, random access, and a
//! parent/child link — printing the same lines on every backend.
//!
//! ```text
//! cargo run -p examples --example arena                    # archetype tables
//! cargo run -p examples --example arena --features sparse  # sparse sets
//! cargo run -p examples --example arena --features hybrid  # tags in sparse sets
//! ```
//!
//! Drones orbit their carrier (a child follows its parent), fighters fly straight and shoot
//! the nearest enemy carrier every few frames (events), hits lower health (tracked: a
//! logger reports only what changed), the dead are removed by an exclusive system, and a
//! carrier launches a new drone (commands) every fifth frame.

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

/// A child's link to its parent and where it sits relative to it.
#[derive(Component, Clone, Copy)]
struct Orbit {
    parent: Entity,
    offset: (i32, i32),
}

/// Marks carriers (the targets fighters shoot at).
#[derive(Component)]
struct Carrier;

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
fn follow(mut children: Query<(&mut Position, &Orbit)>, parents: Query<&Position, Without<Orbit>>) {
    children.for_each(|(p, orbit)| {
        if let Some(parent) = parents.get(orbit.parent) {
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

fn take_hits(mut hits: EventReader<Hit>, mut health: Query<Mut<Health>>) {
    for hit in hits.read() {
        if let Some(mut h) = health.get_mut(hit.target) {
            h.0 -= hit.damage;
        }
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

/// Every fifth frame each carrier launches a drone into orbit (deferred: applied at the end
/// of the frame).
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
        commands.spawn((
            Name(format!("{}-drone{}", name.0, n)),
            *team,
            Position(0, 0),
            Health(3),
            Orbit {
                parent: carrier,
                offset: (n as i32, 1),
            },
        ));
    }
}

/// Removes the dead, and their drones with them; declares a ceasefire when a carrier falls.
fn reap(world: &mut World) {
    let mut dead: Vec<(Entity, String, bool)> = world
        .query::<(Entity, &Health, &Name, Option<&Carrier>)>()
        .filter(|(_, h, _, _)| h.0 <= 0)
        .map(|(e, _, n, c)| (e, n.0.clone(), c.is_some()))
        .collect();
    dead.sort_by(|a, b| a.1.cmp(&b.1));
    let orphans: Vec<Entity> = world
        .query::<(Entity, &Orbit)>()
        .filter(|(_, o)| dead.iter().any(|d| d.0 == o.parent))
        .map(|(e, _)| e)
        .collect();
    let frame = world.resource::<Frame>().unwrap().0;
    for (e, name, carrier) in &dead {
        world.despawn(*e).unwrap();
        writeln!(
            world.resource_mut::<Log>().unwrap().0,
            "frame {frame}: {name} destroyed"
        )
        .unwrap();
        if *carrier {
            world.resource_mut::<Ceasefire>().unwrap().0 = true;
        }
    }
    for e in orphans {
        world.despawn(e).unwrap();
    }
}

fn tick(mut frame: ResMut<Frame>) {
    frame.0 += 1;
}

/// Plays `frames` frames and returns what the game printed.
pub fn run(frames: u32) -> String {
    let mut world = World::new();
    world.insert_resource(Frame(0));
    world.insert_resource(Ceasefire(false));
    world.insert_resource(Log::default());
    world.add_event::<Hit>();
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
    let tick = schedule.add_system(tick);
    let fly = schedule.add_system(fly);
    let follow = schedule.add_system(follow);
    let shoot = schedule.add_system(shoot);
    schedule.add_system(take_hits);
    schedule.add_system(report_health);
    schedule.add_system(launch);
    schedule.add_system(reap);
    schedule.configure(tick).before(fly).before(shoot);
    schedule.configure(follow).after(fly);
    schedule
        .configure(shoot)
        .run_if(|w: &World| !w.resource::<Ceasefire>().unwrap().0);

    for _ in 0..frames {
        schedule.run(&mut world);
    }
    let survivors = world.query::<&Name>().count();
    let mut log = std::mem::take(&mut world.resource_mut::<Log>().unwrap().0);
    writeln!(log, "after {frames} frames: {survivors} entities").unwrap();
    log
}

fn main() {
    print!("{}", run(40));
    // On stderr, so the printed game is byte-identical on every backend.
    eprintln!("(backend: {BACKEND})");
}
