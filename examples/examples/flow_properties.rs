//! A tiny line-based script working with entities by name, as a visual-scripting layer
//! would: component instances found by name, their properties read and written by name.
//!
//! ```text
//! cargo run -p examples --example flow_properties            # runs the built-in script
//! cargo run -p examples --example flow_properties -- FILE    # runs a script file
//! ```
//!
//! The world is built from a template, `fogbox`: an unnamed `Transform` (found by its type's
//! name), two `RenderData` instances named "Fog" and "Vignette", and a `Label`. Commands:
//!
//! ```text
//! spawn fogbox                 creates entity 1, 2, ... from the template
//! set 1 Fog density 0.25       writes a property: the text is parsed as the property's type;
//!                              "quoted" text is always a string
//! get 1 Vignette intensity     reads a property
//! remove 1 Fog                 removes a named instance
//! list 1                       the entity's named instances
//! changed                      the RenderData instances written since the last `changed`
//! despawn 2
//! ```
//!
//! Every line prints one answer; mistakes (an unknown entity, instance or property, a value
//! of the wrong type, text that does not parse) print an `error:` line and change nothing.
//! The output is the same on every backend.

use ecs::prelude::*;

/// Where the entity is and how it looks: found as "Transform" (its type's name).
#[derive(Component)]
#[component(properties)]
struct Transform {
    position: [f32; 3],
    visible: bool,
}

/// A screen effect; a fogbox has two, named "Fog" and "Vignette". Writes are tracked.
#[derive(Component)]
#[component(properties, track_changes)]
struct RenderData {
    density: f32,
    intensity: f32,
    tint: [f32; 3],
}

/// A caption.
#[derive(Component)]
#[component(properties)]
struct Label {
    text: String,
}

/// A component without properties.
#[derive(Component)]
struct Collider;

/// The built-in script.
pub const SCRIPT: &str = "\
spawn fogbox
spawn fogbox
set 1 Fog density 0.25
get 1 Fog density
get 2 Fog density
get 1 Vignette intensity
set 2 Transform position 1,2,3
get 2 Transform position
set 1 Label text \"fog bank\"
get 1 Label text
set 1 Transform visible false
changed
set 2 Vignette tint 0.5,0.5,1
changed
changed
set 1 Fog density thick
set 1 Fog density \"thick\"
set 1 Smoke density 0.5
get 1 Fog colour
get 1 Collider size
remove 1 Fog
get 1 Fog density
list 1
list 2
despawn 2
get 2 Transform position
spawn crate
";

/// The script's state: the world and the entities by script number.
struct Flow {
    world: World,
    entities: Vec<Entity>,
    render_changes: Vec<(&'static str, DynQueryState)>,
}

impl Flow {
    fn new() -> Flow {
        let mut world = World::new();
        let render_changes = ["Fog", "Vignette"]
            .into_iter()
            .map(|name| {
                let id = world.instance_id::<RenderData>(name);
                let query = DynQuery::new().filter(DynFilter::Changed(id));
                let mut state = world.dyn_query(&query).expect("a tracked instance");
                state.entities(&world); // first run: from now on, only changes
                (name, state)
            })
            .collect();
        Flow {
            world,
            entities: Vec::new(),
            render_changes,
        }
    }

    /// Runs one line; the answer, or the error, as text.
    fn line(&mut self, line: &str) -> Result<String, String> {
        let mut words = line.splitn(5, ' ');
        let command = words.next().unwrap_or("");
        let mut arg = || {
            words
                .next()
                .ok_or_else(|| format!("`{command}` needs more words"))
        };
        match command {
            "spawn" => self.spawn(arg()?),
            "set" => {
                let (e, instance, property, text) = (arg()?, arg()?, arg()?, arg()?);
                self.set(e, instance, property, text)
            }
            "get" => {
                let (e, instance, property) = (arg()?, arg()?, arg()?);
                let entity = self.entity(e)?;
                let value = self
                    .world
                    .get_property(entity, instance, property)
                    .map_err(|err| self.describe(err, e))?;
                Ok(format!("{instance}.{property} = {value}"))
            }
            "remove" => {
                let (e, instance) = (arg()?, arg()?);
                let entity = self.entity(e)?;
                self.world
                    .remove_named::<RenderData>(entity, instance)
                    .map_err(|err| self.describe(err, e))?;
                Ok(format!("removed {instance} from {e}"))
            }
            "list" => {
                let e = arg()?;
                let entity = self.entity(e)?;
                let mut names: Vec<&str> =
                    self.world.named_instances(entity).map(|i| i.name).collect();
                names.sort_unstable();
                Ok(format!("{e}: {}", names.join(", ")))
            }
            "changed" => Ok(self.changed()),
            "despawn" => {
                let e = arg()?;
                let entity = self.entity(e)?;
                self.world
                    .despawn(entity)
                    .map_err(|err| self.describe(err, e))?;
                Ok(format!("despawned {e}"))
            }
            other => Err(format!("unknown command `{other}`")),
        }
    }

    fn spawn(&mut self, template: &str) -> Result<String, String> {
        if template != "fogbox" {
            return Err(format!("unknown template `{template}`"));
        }
        let transform = Transform {
            position: [0.0; 3],
            visible: true,
        };
        let e = self.world.spawn((transform, Collider));
        self.world
            .insert(
                e,
                Label {
                    text: String::from("box"),
                },
            )
            .expect("live");
        for (name, density, intensity) in [("Fog", 0.5, 1.0), ("Vignette", 0.0, 0.3)] {
            let effect = RenderData {
                density,
                intensity,
                tint: [1.0; 3],
            };
            self.world
                .insert_named(e, name, effect)
                .expect("fresh names");
        }
        self.entities.push(e);
        Ok(format!("spawned {}", self.entities.len()))
    }

    fn set(
        &mut self,
        e: &str,
        instance: &str,
        property: &str,
        text: &str,
    ) -> Result<String, String> {
        let entity = self.entity(e)?;
        let value = match text.strip_prefix('"').and_then(|t| t.strip_suffix('"')) {
            Some(quoted) => PropertyValue::Str(quoted),
            None => {
                // Parse by the property's type, which reading it tells.
                let current = self
                    .world
                    .get_property(entity, instance, property)
                    .map_err(|err| self.describe(err, e))?;
                current.kind().parse(text).ok_or_else(|| {
                    let kind = current.kind();
                    format!("`{text}` is not {} {kind}", kind.article())
                })?
            }
        };
        self.world
            .set_property(entity, instance, property, value)
            .map_err(|err| self.describe(err, e))?;
        Ok(format!("{instance}.{property} := {value}"))
    }

    /// The entities whose RenderData instances were written since the last call.
    fn changed(&mut self) -> String {
        let mut lines = Vec::new();
        for (name, state) in &mut self.render_changes {
            for entity in state.entities(&self.world) {
                let n = self
                    .entities
                    .iter()
                    .position(|&x| x == entity)
                    .map_or(0, |i| i + 1);
                lines.push(format!("{n} {name}"));
            }
        }
        lines.sort_unstable();
        if lines.is_empty() {
            "changed: nothing".to_owned()
        } else {
            format!("changed: {}", lines.join(", "))
        }
    }

    /// The entity with script number `e`.
    fn entity(&self, e: &str) -> Result<Entity, String> {
        let n: usize = e
            .parse()
            .map_err(|_| format!("`{e}` is not an entity number"))?;
        n.checked_sub(1)
            .and_then(|i| self.entities.get(i).copied())
            .ok_or_else(|| format!("no entity {e}"))
    }

    /// An error in the script's words (names and numbers, not Rust paths or handles).
    fn describe(&self, err: EcsError, e: &str) -> String {
        match err {
            EcsError::NoSuchEntity(_) => format!("entity {e} does not exist"),
            EcsError::UnknownInstance { name, .. } => {
                format!("entity {e} has no instance `{name}`")
            }
            EcsError::NoProperties(_) => "that component has no properties".to_owned(),
            EcsError::UnknownProperty { property, .. } => format!("no property `{property}` there"),
            EcsError::PropertyType {
                property,
                expected,
                found,
                ..
            } => {
                format!(
                    "`{property}` is {} {expected}, not {} {found}",
                    expected.article(),
                    found.article()
                )
            }
            other => other.to_string(),
        }
    }
}

/// Runs `script`, echoing each line and its answer; returns the whole output.
pub fn run(script: &str) -> String {
    let mut flow = Flow::new();
    let mut out = String::new();
    for line in script.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let answer = match flow.line(line) {
            Ok(text) => text,
            Err(text) => format!("error: {text}"),
        };
        out.push_str(&format!("> {line}\n{answer}\n"));
    }
    out
}

fn main() {
    let script = match std::env::args().nth(1) {
        Some(path) => std::fs::read_to_string(&path).unwrap_or_else(|err| panic!("{path}: {err}")),
        None => SCRIPT.to_owned(),
    };
    print!("{}", run(&script));
}
