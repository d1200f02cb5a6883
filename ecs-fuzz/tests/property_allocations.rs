//! Reading and writing a property by name, finding an instance by name, and a run of a
//! run-time query's items allocate nothing, on every backend: counted by a global allocator
//! that counts the calling thread's allocations (tests run on several threads at once).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use ecs_core::properties::PropertyValue;
use ecs_core::query::{DynFilter, DynQuery};
use ecs_core::{Changed, Storage, World};

#[path = "common/backends.rs"]
#[macro_use]
mod backends;

/// Counts allocations made by the current thread.
struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

// SAFETY: forwards every call to the system allocator unchanged; the counter is a
// const-initialised thread local, which never allocates.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.with(|n| n.set(n.get() + 1));
        // SAFETY: forwarded contract.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded contract.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.with(|n| n.set(n.get() + 1));
        // SAFETY: forwarded contract.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations_in(f: impl FnOnce()) -> u64 {
    let before = ALLOCATIONS.with(Cell::get);
    f();
    ALLOCATIONS.with(Cell::get) - before
}

#[derive(ecs_core::Component)]
#[component(properties, track_changes)]
struct RenderData {
    density: f32,
    tint: [f32; 4],
    label: String,
    layer: i64,
}

#[derive(ecs_core::Component)]
#[component(properties)]
struct Transform {
    position: [f32; 3],
}

fn no_allocation_by_name<S: Storage>() {
    let mut world = World::<S>::new();
    let entities: Vec<_> = (0..64)
        .map(|i| {
            let e = world.spawn((Transform {
                position: [i as f32; 3],
            },));
            for name in ["Fog", "Vignette", "Glow"] {
                let value = RenderData {
                    density: 0.5,
                    tint: [1.0; 4],
                    label: String::with_capacity(32),
                    layer: i,
                };
                world.insert_named(e, name, value).unwrap();
            }
            e
        })
        .collect();
    // A reader of the instance's changes, so sets are recorded (and the log warmed up).
    let fog = world.instance_id::<RenderData>("Fog");
    let mut changed = world
        .dyn_query(&DynQuery::new().filter(DynFilter::Changed(fog)))
        .unwrap();
    changed.entities(&world);
    let mut typed = world
        .query_state::<&Transform, Changed<RenderData>>()
        .unwrap();
    let _ = typed.iter(&world).count();
    let round = |world: &mut World<S>| {
        let mut sum = 0.0;
        for (i, &e) in entities.iter().enumerate() {
            let density = PropertyValue::F32(i as f32);
            world.set_property(e, "Fog", "density", density).unwrap();
            world
                .set_property(e, "Vignette", "label", PropertyValue::Str("mist"))
                .unwrap();
            world
                .set_property(e, "Glow", "tint", PropertyValue::Vec4([0.5; 4]))
                .unwrap();
            world
                .set_property(e, "Transform", "position", PropertyValue::Vec3([1.0; 3]))
                .unwrap();
            if let Ok(PropertyValue::F32(d)) = world.get_property(e, "Fog", "density") {
                sum += d;
            }
            if let Ok(PropertyValue::I64(layer)) = world.get_property(e, "Glow", "layer") {
                sum += layer as f32;
            }
            assert!(matches!(
                world.get_property(e, "Vignette", "label"),
                Ok(PropertyValue::Str("mist"))
            ));
            assert!(world.find(e, "Vignette").is_some());
        }
        sum
    };
    // Warm-up: the change log reaches the size a reader's window and a round of marks need.
    for _ in 0..2 {
        round(&mut world);
        changed.entities(&world);
    }
    let mut total = 0.0;
    let during = allocations_in(|| {
        for _ in 0..10 {
            total += round(&mut world);
        }
    });
    assert!(total > 0.0);
    assert_eq!(during, 0, "property get/set and find by name allocated");
    assert_eq!(
        changed.entities(&world).len(),
        entities.len(),
        "sets are tracked"
    );
    // A run of a run-time query allocates only its per-run buffers, not per item.
    let mut reader = world
        .dyn_query(
            &DynQuery::new()
                .read(fog)
                .read(world.component_id::<Transform>().unwrap()),
        )
        .unwrap();
    let mut seen = 0;
    reader.for_each(&world, |_| seen += 1);
    let mut per_run = 0;
    let run = allocations_in(|| {
        reader.for_each(&world, |item| {
            per_run += item.get::<RenderData>(0).map_or(0, |r| r.layer);
        })
    });
    assert_eq!(seen, entities.len());
    assert!(run <= 2, "{run} allocations for one run");
}

backends! { no_allocation_by_name }
