//! Seed 002's demo: a system that logs an entity's health only when it changed.
//!
//! ```text
//! cargo run -p examples --example health_logger                  # prints 10/10, 8/10
//! cargo run -p examples --example health_logger -- --all-entities
//!                                 # logs every entity every frame: 10/10, 10/10, 8/10, 8/10
//! ```
//! The same program on every backend (`--features sparse`). `Health` opts in to change
//! tracking; `LatestHealthLogger` asks for `Changed<Health>`, so it only sees the entity when
//! it was added and when its health was written, exactly as in the seed:
//!
//! ```text
//! ecs.update(); // should print "10/10" (Component starts dirty)
//! ecs.update(); // should not print anything
//! health.current = 8;
//! ecs.update(); // should print "8/10"
//! ecs.update(); // should not print anything
//! ```

use ecs::prelude::*;

/// Hit points: the seed's `Health` component, which reports every write.
#[derive(Component)]
#[component(track_changes)]
struct Health {
    current: u32,
    maximum: u32,
}

/// Where the systems log to: standard output when `echo` is set, and a copy for checking.
#[derive(Default)]
pub struct Console {
    echo: bool,
    text: String,
}

impl Console {
    fn log(&mut self, line: String) {
        if self.echo {
            println!("{line}");
        }
        self.text.push_str(&line);
        self.text.push('\n');
    }
}

/// The seed's `LatestHealthLogger`: only entities whose `Health` changed since it last ran.
fn latest_health_logger(query: Query<&Health, Changed<Health>>, mut console: ResMut<Console>) {
    for health in query.iter() {
        console.log(format!("{}/{}", health.current, health.maximum));
    }
}

/// The variant that iterates all entities, every time.
fn all_health_logger(query: Query<&Health>, mut console: ResMut<Console>) {
    for health in query.iter() {
        console.log(format!("{}/{}", health.current, health.maximum));
    }
}

/// Runs the seed's `main` and returns what it logged (also printed when `echo`).
pub fn run(all_entities: bool, echo: bool) -> String {
    let mut world = World::new();
    world.insert_resource(Console {
        echo,
        text: String::new(),
    });
    let mut ecs = Schedule::new();
    if all_entities {
        ecs.add_system(all_health_logger);
    } else {
        ecs.add_system(latest_health_logger);
    }

    let entity = world.spawn((Health {
        maximum: 10,
        current: 10,
    },));

    ecs.run(&mut world); // prints "10/10" (the component starts changed)
    ecs.run(&mut world); // prints nothing
    let mut health = world
        .get_mut_tracked::<Health>(entity)
        .expect("the entity was just spawned");
    health.current = 8;
    ecs.run(&mut world); // prints "8/10"
    ecs.run(&mut world); // prints nothing

    world
        .remove_resource::<Console>()
        .expect("inserted above")
        .text
}

fn main() {
    let all_entities = std::env::args().skip(1).any(|arg| arg == "--all-entities");
    run(all_entities, true);
}
