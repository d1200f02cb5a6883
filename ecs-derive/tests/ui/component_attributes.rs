use ecs_core::Component;

#[derive(Component)]
#[component(storage = "dense")]
struct UnknownStorage;

#[derive(Component)]
#[component(sparse)]
struct UnknownKey;

#[derive(Component)]
#[component(track_changes = true)]
struct FlagWithValue;

#[derive(Component)]
#[component(storage = "table", storage = "sparse")]
struct Twice;

#[derive(Component)]
#[component]
struct NoArguments;

#[derive(Component)]
#[component(properties)]
#[repr(C, packed)]
struct Packed {
    tag: u8,
    name: String,
}

fn main() {}
