use ecs::prelude::*;

// The one requirement cycle a single derive can see: refused at compile time. (A longer
// cycle, `A` -> `B` -> `A`, spans two derives; registering either type reports it.)
#[derive(Component, Default)]
#[component(requires(Node))]
struct Node;

#[derive(Component, Default)]
#[component(requires(Self))]
struct Leaf;

fn main() {}
