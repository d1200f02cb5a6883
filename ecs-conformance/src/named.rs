//! Named component instances, the prototype-chain entity index, properties by name and
//! run-time queries, on every backend.

use std::alloc::Layout;

use ecs_core::properties::{PropertyKind, PropertyValue};
use ecs_core::query::{DynFilter, DynQuery};
use ecs_core::{
    Changed, Component, ComponentDescriptor, EcsError, Entity, Storage, StorageKind, World,
};

use crate::components::size;

/// A change-tracked component with properties, stored as several named instances per entity.
#[derive(ecs_core::Component, Debug, Clone, PartialEq)]
#[component(properties, track_changes)]
pub struct RenderData {
    /// A float property.
    pub intensity: f32,
    /// A three-float (vector) property.
    pub tint: [f32; 3],
    /// A string property.
    pub label: String,
}

/// A sparse component with properties, one of them skipped.
#[derive(ecs_core::Component, Debug, Clone, PartialEq)]
#[component(properties, storage = "sparse")]
pub struct Transform {
    /// A two-float property.
    pub position: [f32; 2],
    /// A signed integer property.
    pub layer: i32,
    /// A boolean property.
    pub visible: bool,
    /// Skipped: not reachable by name.
    #[property(skip)]
    pub cache: Vec<u8>,
}

/// A component without properties.
#[derive(ecs_core::Component, Debug, Clone, PartialEq)]
pub struct Plain(pub u64);

fn render(intensity: f32) -> RenderData {
    RenderData {
        intensity,
        tint: [1.0, 1.0, 1.0],
        label: String::from("fx"),
    }
}

fn transform(x: f32) -> Transform {
    Transform {
        position: [x, 0.0],
        layer: 1,
        visible: true,
        cache: Vec::new(),
    }
}

/// Several instances of one type, unique names, errors that change nothing.
pub fn named_instances_insert_get_remove<S: Storage>() {
    let mut world = World::<S>::new();
    let e = world.spawn((transform(1.0),));
    assert_eq!(world.insert_named(e, "Fog", render(0.5)), Ok(None));
    assert_eq!(world.insert_named(e, "Vignette", render(0.1)), Ok(None));
    assert_eq!(world.get_named::<RenderData>(e, "Fog"), Some(&render(0.5)));
    assert_eq!(
        world.get_named::<RenderData>(e, "Vignette"),
        Some(&render(0.1))
    );
    assert_eq!(world.get::<RenderData>(e), None, "no unnamed RenderData");
    assert_eq!(world.get::<Transform>(e), Some(&transform(1.0)));
    // Replacing the same instance hands the old value back.
    assert_eq!(
        world.insert_named(e, "Fog", render(0.6)),
        Ok(Some(render(0.5)))
    );
    // A name taken by another type's instance: refused, nothing changes.
    let before = world.named_instances(e).count();
    let err = world.insert_named(e, "Fog", Plain(1)).unwrap_err();
    assert!(
        matches!(&err, EcsError::NameTaken { name, .. } if name == "Fog"),
        "{err}"
    );
    assert_eq!(world.named_instances(e).count(), before);
    assert!(world.get_named::<Plain>(e, "Fog").is_none());
    // get_named_mut writes in place.
    world
        .get_named_mut::<RenderData>(e, "Vignette")
        .unwrap()
        .intensity = 0.2;
    assert_eq!(
        world
            .get_named::<RenderData>(e, "Vignette")
            .unwrap()
            .intensity,
        0.2
    );
    // has / find.
    assert!(world.has_named(e, "Fog") && world.has_named(e, "Transform"));
    let fog = world.instance_id::<RenderData>("Fog");
    assert_eq!(world.find(e, "Fog"), Some(fog));
    assert_eq!(
        world.find(e, "Transform"),
        world.component_id::<Transform>()
    );
    // An instance named like the unnamed Transform's type shadows it, whichever came
    // first; removing the instance uncovers the type again.
    assert_eq!(world.insert_named(e, "Transform", render(0.0)), Ok(None));
    let shadow = world.instance_id::<RenderData>("Transform");
    assert_eq!(world.find(e, "Transform"), Some(shadow));
    assert_eq!(world.get::<Transform>(e), Some(&transform(1.0)));
    let later = world.spawn(());
    assert_eq!(
        world.insert_named(later, "Transform", render(0.3)),
        Ok(None)
    );
    assert_eq!(world.insert(later, transform(2.0)), Ok(None));
    assert_eq!(world.find(later, "Transform"), Some(shadow));
    assert_eq!(
        world.remove_named::<RenderData>(e, "Transform"),
        Ok(render(0.0))
    );
    assert_eq!(
        world.find(e, "Transform"),
        world.component_id::<Transform>()
    );
    let info = world.component_info(fog).unwrap();
    assert_eq!(
        info.instance().unwrap().of(),
        world.component_id::<RenderData>().unwrap()
    );
    assert_eq!(info.layout(), Layout::new::<RenderData>());
    assert!(info.tracks_changes());
    let t = world.instance_id::<Transform>("T2");
    assert_eq!(
        world.component_info(t).unwrap().storage(),
        StorageKind::Sparse
    );
    // Remove frees the name.
    assert_eq!(world.remove_named::<RenderData>(e, "Fog"), Ok(render(0.6)));
    assert_eq!(world.find(e, "Fog"), None);
    assert!(matches!(
        world.remove_named::<RenderData>(e, "Fog"),
        Err(EcsError::UnknownInstance { .. })
    ));
    assert_eq!(
        world.insert_named(e, "Fog", Plain(7)),
        Ok(None),
        "the name is free again"
    );
    assert_eq!(
        world.find(e, "Fog"),
        Some(world.instance_id::<Plain>("Fog"))
    );
    // Stale handles.
    world.despawn(e).unwrap();
    assert_eq!(world.find(e, "Fog"), None);
    assert_eq!(world.get_named::<Plain>(e, "Fog"), None);
    assert_eq!(
        world.insert_named(e, "X", Plain(1)),
        Err(EcsError::NoSuchEntity(e))
    );
    assert_eq!(world.named_instances(e).count(), 0);
    // The slot's next entity starts with no names.
    let next = world.spawn(());
    assert_eq!(world.named_instances(next).count(), 0);
    assert_eq!(world.find(next, "Vignette"), None);
}

/// The index stays exact through removes, despawns, slot reuse, by-id access and clear,
/// and entities built alike share prototypes.
pub fn entity_index_stays_exact<S: Storage>() {
    let mut world = World::<S>::new();
    let n = size(500, 40);
    let names = ["Transform2", "Fog", "Vignette", "Glow"];
    let mut entities = Vec::new();
    for i in 0..n {
        let e = world.spawn(());
        for (k, name) in names.iter().enumerate().take(1 + i % 4) {
            world
                .insert_named(e, name, Plain((i * 10 + k) as u64))
                .unwrap();
        }
        entities.push(e);
    }
    // Four templates: 4 chains of lengths 1..=4 sharing prefixes = 4 prototypes.
    assert_eq!(world.entity_index().prototypes(), 4);
    for (i, &e) in entities.iter().enumerate() {
        for (k, name) in names.iter().enumerate() {
            let found = world.find(e, name);
            assert_eq!(found.is_some(), k <= i % 4, "entity {i} name {name}");
            if found.is_some() {
                assert_eq!(
                    world.get_named::<Plain>(e, name),
                    Some(&Plain((i * 10 + k) as u64))
                );
            }
        }
    }
    // Remove a middle link: the chain above it is rebuilt.
    let e = entities[3];
    world.remove_named::<Plain>(e, "Fog").unwrap();
    let listed: Vec<&str> = world.named_instances(e).map(|i| i.name).collect();
    assert_eq!(listed, ["Glow", "Vignette", "Transform2"]);
    // By id: removing a named instance's id updates the index; inserting one checks names.
    let vignette = world.instance_id::<Plain>("Vignette");
    world.remove_by_id(e, vignette).unwrap();
    assert_eq!(world.find(e, "Vignette"), None);
    let glow_render = world.instance_id::<RenderData>("Glow");
    let mut value = std::mem::ManuallyDrop::new(render(1.0));
    // SAFETY: `value` is a valid RenderData, the instance's type; not used again on Ok.
    let err =
        unsafe { world.insert_by_id(e, glow_render, std::ptr::NonNull::from(&mut *value).cast()) };
    assert!(matches!(err, Err(EcsError::NameTaken { .. })));
    // SAFETY: on error the value was not moved: drop it here.
    unsafe { std::mem::ManuallyDrop::drop(&mut value) };
    // Despawn and reuse.
    for &e in entities.iter().step_by(2) {
        world.despawn(e).unwrap();
    }
    for &e in entities.iter().step_by(2) {
        assert_eq!(world.named_instances(e).count(), 0);
    }
    let fresh: Vec<Entity> = (0..n / 2).map(|_| world.spawn(())).collect();
    for &f in &fresh {
        assert_eq!(
            world.named_instances(f).count(),
            0,
            "reused slot starts empty"
        );
    }
    // take() despawns too.
    let last = *entities.last().unwrap();
    if world.contains(last) {
        world.insert(last, Plain(0)).unwrap();
        world.take::<Plain>(last).unwrap();
        assert_eq!(world.find(last, "Transform2"), None);
    }
    world.clear();
    world.collect_prototypes();
    assert_eq!(world.entity_index().prototypes(), 0);
    let e = world.spawn(());
    world.insert_named(e, "Fog", Plain(1)).unwrap();
    assert_eq!(world.named_instances(e).count(), 1);
}

/// Named instances iterate next to typed components in run-time queries, with filters.
pub fn dynamic_queries_fetch_named_instances<S: Storage>() {
    let mut world = World::<S>::new();
    let n = size(300, 30);
    let mut expected_fog = 0.0f32;
    for i in 0..n {
        let e = world.spawn((Plain(i as u64),));
        if i % 2 == 0 {
            world.insert_named(e, "Fog", render(i as f32)).unwrap();
            expected_fog += i as f32;
        }
        if i % 3 == 0 {
            world.insert_named(e, "Vignette", render(1.0)).unwrap();
        }
        if i % 5 == 0 {
            world.insert(e, transform(i as f32)).unwrap();
        }
    }
    let fog = world.instance_id::<RenderData>("Fog");
    let vignette = world.instance_id::<RenderData>("Vignette");
    let plain = world.register_component::<Plain>();
    let tf = world.register_component::<Transform>();
    // Fog next to a typed component.
    let mut q = world
        .dyn_query(&DynQuery::new().read(fog).read(plain))
        .unwrap();
    let (mut sum, mut count) = (0.0, 0);
    q.for_each(&world, |item| {
        let r = item.get::<RenderData>(0).unwrap();
        let p = item.get::<Plain>(1).unwrap();
        assert_eq!(r.intensity, p.0 as f32);
        assert!(
            item.get::<Plain>(0).is_none(),
            "a RenderData is not a Plain"
        );
        assert!(item.bytes(0).is_none(), "typed values are not bytes");
        sum += r.intensity;
        count += 1;
    });
    assert_eq!((sum, count), (expected_fog, n.div_ceil(2)));
    let count_of = |world: &mut World<S>, query: DynQuery| {
        world.dyn_query(&query).unwrap().entities(world).len()
    };
    let all = |pred: &dyn Fn(usize) -> bool| (0..n).filter(|&i| pred(i)).count();
    assert_eq!(
        count_of(
            &mut world,
            DynQuery::new()
                .read(fog)
                .filter(DynFilter::Without(vignette))
        ),
        all(&|i| i % 2 == 0 && i % 3 != 0)
    );
    assert_eq!(
        count_of(
            &mut world,
            DynQuery::new().read(plain).filter(DynFilter::Or(vec![
                DynFilter::With(fog),
                DynFilter::With(tf)
            ]))
        ),
        all(&|i| i % 2 == 0 || i % 5 == 0)
    );
    assert_eq!(
        count_of(
            &mut world,
            DynQuery::new()
                .read(plain)
                .read_optional(vignette)
                .filter(DynFilter::All(vec![DynFilter::With(tf)]))
        ),
        all(&|i| i % 5 == 0)
    );
    // Writes, and change tracking of a named instance.
    let mut changed = world
        .dyn_query(&DynQuery::new().read(plain).filter(DynFilter::Changed(fog)))
        .unwrap();
    assert_eq!(
        changed.entities(&world).len(),
        n.div_ceil(2),
        "first run: all"
    );
    assert!(changed.entities(&world).is_empty());
    let mut writer = world
        .dyn_query(&DynQuery::new().write(fog).read(plain))
        .unwrap();
    writer.for_each_mut(&mut world, |mut item| {
        if item.get::<Plain>(1).unwrap().0 % 4 == 0 {
            item.get_mut::<RenderData>(0).unwrap().intensity += 100.0;
        } else {
            let _read_only = item.get::<RenderData>(0).unwrap().intensity;
        }
    });
    let mut seen = changed.entities(&world);
    assert!(changed.is_log_driven());
    seen.sort();
    assert_eq!(seen.len(), all(&|i| i % 4 == 0));
    for e in seen {
        assert_eq!(world.get::<Plain>(e).unwrap().0 % 4, 0);
    }
    // Added on a named instance, and a typed Changed<T> unaffected by named writes.
    let mut added = world
        .dyn_query(&DynQuery::new().filter(DynFilter::Added(vignette)))
        .unwrap();
    added.entities(&world);
    let e = world.spawn(());
    world.insert_named(e, "Vignette", render(3.0)).unwrap();
    assert_eq!(added.entities(&world), vec![e]);
    let mut typed = world
        .query_state::<&RenderData, Changed<RenderData>>()
        .unwrap();
    assert_eq!(
        typed.iter(&world).count(),
        0,
        "no unnamed RenderData anywhere"
    );
    // Errors.
    let err = world.dyn_query(&DynQuery::new().write(fog).read(fog)).err();
    assert!(matches!(err, Some(EcsError::QueryConflict { .. })));
    let err = world
        .dyn_query(&DynQuery::new().filter(DynFilter::Changed(plain)))
        .err();
    assert!(matches!(err, Some(EcsError::Untracked(_))));
    let bogus = ecs_core::ComponentId::new(9_999);
    let err = world.dyn_query(&DynQuery::new().read(bogus)).err();
    assert_eq!(err, Some(EcsError::UnknownComponent(bogus)));
}

/// Run-time components are queried as bytes, written in place.
pub fn dynamic_queries_over_runtime_components<S: Storage>() {
    let mut world = World::<S>::new();
    let kinds = [StorageKind::Table, StorageKind::Sparse];
    let ids: Vec<_> = kinds
        .iter()
        .enumerate()
        .map(|(i, &storage)| {
            world.register_dynamic(ComponentDescriptor {
                name: format!("raw{i}").into(),
                layout: Layout::new::<[u8; 3]>(),
                drop: None,
                storage,
            })
        })
        .collect();
    let named = world.register_instance(ids[0], "Key").unwrap();
    let n = size(200, 20);
    for i in 0..n {
        let e = world.spawn((Plain(i as u64),));
        world.insert_bytes(e, ids[i % 2], &[i as u8, 1, 2]).unwrap();
        if i % 4 == 0 {
            world.insert_bytes(e, named, &[9, 9, 9]).unwrap();
        }
    }
    for (k, &id) in ids.iter().enumerate() {
        let mut q = world
            .dyn_query(
                &DynQuery::new()
                    .write(id)
                    .read(world.component_id::<Plain>().unwrap()),
            )
            .unwrap();
        q.for_each_mut(&mut world, |mut item| {
            let p = item.get::<Plain>(1).unwrap().0;
            assert_eq!(item.bytes(0).unwrap(), &[p as u8, 1, 2]);
            item.bytes_mut(0).unwrap()[2] = 7;
        });
        let mut total = 0;
        q.for_each(&world, |item| {
            assert_eq!(item.bytes(0).unwrap()[2], 7);
            total += 1;
        });
        assert_eq!(total, (0..n).filter(|i| i % 2 == k).count());
    }
    let mut keyed = world.dyn_query(&DynQuery::new().read(named)).unwrap();
    assert_eq!(keyed.entities(&world).len(), n.div_ceil(4));
}

/// Properties by (entity, instance, property), each failure its own error, world unchanged.
pub fn properties_by_name<S: Storage>() {
    let mut world = World::<S>::new();
    let e = world.spawn((transform(2.0), Plain(5)));
    world.insert_named(e, "Fog", render(0.5)).unwrap();
    world.insert_named(e, "Vignette", render(0.1)).unwrap();
    assert_eq!(
        world.get_property(e, "Fog", "intensity"),
        Ok(PropertyValue::F32(0.5))
    );
    assert_eq!(
        world.get_property(e, "Transform", "position"),
        Ok(PropertyValue::Vec2([2.0, 0.0]))
    );
    world
        .set_property(e, "Vignette", "tint", PropertyValue::Vec3([0.0, 0.5, 1.0]))
        .unwrap();
    world
        .set_property(e, "Fog", "label", PropertyValue::Str("mist"))
        .unwrap();
    world
        .set_property(e, "Transform", "layer", PropertyValue::I32(-3))
        .unwrap();
    world
        .set_property(e, "Transform", "visible", PropertyValue::Bool(false))
        .unwrap();
    assert_eq!(
        world.get_named::<RenderData>(e, "Vignette").unwrap().tint,
        [0.0, 0.5, 1.0]
    );
    assert_eq!(
        world.get_named::<RenderData>(e, "Fog").unwrap().label,
        "mist"
    );
    let t = world.get::<Transform>(e).unwrap();
    assert_eq!((t.layer, t.visible), (-3, false));
    assert_eq!(
        world.get_property(e, "Fog", "label"),
        Ok(PropertyValue::Str("mist"))
    );
    // Each failure, and nothing changed.
    let snapshot = (
        world.get_named::<RenderData>(e, "Fog").cloned(),
        world.get::<Transform>(e).cloned(),
    );
    let stale = world.spawn(());
    world.despawn(stale).unwrap();
    let set = |world: &mut World<S>, entity, instance, property, value| {
        world.set_property(entity, instance, property, value)
    };
    assert_eq!(
        set(
            &mut world,
            stale,
            "Fog",
            "intensity",
            PropertyValue::F32(1.0)
        ),
        Err(EcsError::NoSuchEntity(stale))
    );
    assert!(matches!(
        set(&mut world, e, "Smoke", "intensity", PropertyValue::F32(1.0)),
        Err(EcsError::UnknownInstance { name, .. }) if name == "Smoke"
    ));
    assert!(matches!(
        set(&mut world, e, "Plain", "0", PropertyValue::U64(1)),
        Err(EcsError::NoProperties(_))
    ));
    assert!(matches!(
        set(&mut world, e, "Fog", "density", PropertyValue::F32(1.0)),
        Err(EcsError::UnknownProperty { property, .. }) if property == "density"
    ));
    assert!(matches!(
        set(&mut world, e, "Fog", "intensity", PropertyValue::F64(1.0)),
        Err(EcsError::PropertyType {
            expected: PropertyKind::F32,
            found: PropertyKind::F64,
            ..
        })
    ));
    assert!(
        matches!(
            set(&mut world, e, "Transform", "cache", PropertyValue::U8(1)),
            Err(EcsError::UnknownProperty { .. })
        ),
        "skipped fields are not properties"
    );
    assert!(matches!(
        world.get_property(e, "Fog", "nope"),
        Err(EcsError::UnknownProperty { .. })
    ));
    let after = (
        world.get_named::<RenderData>(e, "Fog").cloned(),
        world.get::<Transform>(e).cloned(),
    );
    assert_eq!(snapshot, after);
    // A set is a tracked write: Changed on the instance (and on T for an unnamed one).
    let fog = world.instance_id::<RenderData>("Fog");
    let mut changed = world
        .dyn_query(&DynQuery::new().filter(DynFilter::Changed(fog)))
        .unwrap();
    changed.entities(&world);
    assert!(changed.entities(&world).is_empty());
    world
        .set_property(e, "Fog", "intensity", PropertyValue::F32(0.9))
        .unwrap();
    assert_eq!(changed.entities(&world), vec![e]);
    let u = world.spawn((render(0.0),));
    let mut typed = world
        .query_state::<&RenderData, Changed<RenderData>>()
        .unwrap();
    typed.iter(&world).count();
    world
        .set_property(u, "RenderData", "intensity", PropertyValue::F32(2.0))
        .unwrap();
    let seen: Vec<f32> = typed.iter(&world).map(|r| r.intensity).collect();
    assert_eq!(seen, vec![2.0]);
}

/// The names a component type is found by ignore module paths and generics.
pub fn short_type_names<S: Storage>() {
    assert_eq!(
        ecs_core::component::short_type_name("a::b::Fog<c::D>"),
        "Fog"
    );
    let mut world = World::<S>::new();
    let e = world.spawn((Plain(1),));
    assert_eq!(world.find(e, "Plain"), world.component_id::<Plain>());
    assert!(<Plain as Component>::PROPERTIES.is_none());
    assert_eq!(<Transform as Component>::PROPERTIES.unwrap().len(), 3);
}
