//! Properties by name on the world: `get_property(entity, "Fog", "density")` and
//! `set_property` (see [`crate::properties`]).

use super::World;
use crate::component::ComponentId;
use crate::entity::Entity;
use crate::error::EcsError;
use crate::properties::{Property, PropertyValue};
use crate::storage::Storage;

impl<S: Storage> World<S> {
    /// The property `property` of `entity`'s component instance called `instance` (a named
    /// instance, or an unnamed component by its type's short name). Allocates nothing.
    ///
    /// # Errors
    /// Each failure has its own error: [`EcsError::NoSuchEntity`] (stale handle),
    /// [`EcsError::UnknownInstance`] (no instance of that name), [`EcsError::NoProperties`]
    /// (its type has none), [`EcsError::UnknownProperty`] (no property of that name).
    ///
    /// ```
    /// # use ecs_core::{World, Component, EcsError, properties::PropertyValue, testing::VecStorage};
    /// #[derive(Component)]
    /// #[component(properties)]
    /// struct Transform { position: [f32; 3], label: String }
    /// let mut world = World::<VecStorage>::new();
    /// let e = world.spawn((Transform { position: [1.0, 2.0, 3.0], label: "box".into() },));
    /// assert_eq!(world.get_property(e, "Transform", "label"), Ok(PropertyValue::Str("box")));
    /// assert!(matches!(
    ///     world.get_property(e, "Transform", "scale"),
    ///     Err(EcsError::UnknownProperty { .. })
    /// ));
    /// ```
    pub fn get_property(
        &self,
        entity: Entity,
        instance: &str,
        property: &str,
    ) -> Result<PropertyValue<'_>, EcsError> {
        let (id, field) = self.resolve_property(entity, instance, property)?;
        let ptr = self.instance_ptr(entity, id, instance)?;
        if S::TRACED && self.is_tracing() {
            self.trace_get_by_id(entity, id, false);
        }
        // SAFETY: `ptr` is the entity's initialised value of `id`, whose properties `field`
        // is one of (they were made for its type); `&self` keeps it unchanged while the
        // returned value borrows it.
        Ok(unsafe { field.read(ptr.as_ptr()) })
    }

    /// Writes `value` into the property `property` of `entity`'s component instance called
    /// `instance`. The write is tracked like any other: a `Changed` filter on the instance
    /// (on `T` itself for an unnamed component) sees it. Allocates nothing (a string is
    /// copied into the field's buffer, which grows only if the text does not fit).
    ///
    /// # Errors
    /// Those of [`World::get_property`], [`EcsError::PropertyType`] when `value` is not of
    /// the property's type, and [`EcsError::Immutable`] for an immutable component (its
    /// values are only replaced whole). On error the world is unchanged.
    ///
    /// ```
    /// # use ecs_core::{World, Component, EcsError, properties::PropertyValue, testing::VecStorage};
    /// #[derive(Component)]
    /// #[component(properties, track_changes)]
    /// struct RenderData { density: f32 }
    /// let mut world = World::<VecStorage>::new();
    /// let e = world.spawn(());
    /// world.insert_named(e, "Fog", RenderData { density: 0.5 }).unwrap();
    /// world.set_property(e, "Fog", "density", PropertyValue::F32(0.25)).unwrap();
    /// assert_eq!(world.get_named::<RenderData>(e, "Fog").unwrap().density, 0.25);
    /// let wrong = world.set_property(e, "Fog", "density", PropertyValue::I32(1));
    /// assert!(matches!(wrong, Err(EcsError::PropertyType { .. })));
    /// ```
    pub fn set_property(
        &mut self,
        entity: Entity,
        instance: &str,
        property: &str,
        value: PropertyValue<'_>,
    ) -> Result<(), EcsError> {
        let (id, field) = self.resolve_property(entity, instance, property)?;
        if !self.components.info(id).is_mutable() {
            let name = self.components.info(id).name().to_owned();
            return Err(EcsError::Immutable(name));
        }
        if value.kind() != field.kind() {
            return Err(EcsError::PropertyType {
                component: self.components.info(id).name().to_owned(),
                property: property.to_owned(),
                expected: field.kind(),
                found: value.kind(),
            });
        }
        let ptr = self.instance_ptr(entity, id, instance)?;
        if S::TRACED && self.is_tracing() {
            self.trace_get_by_id(entity, id, true);
        }
        // SAFETY: `ptr` is the entity's initialised value of `id`, whose properties `field`
        // is one of; `&mut self` excludes every other access to it.
        let written = unsafe { field.write(ptr.as_ptr(), value) };
        debug_assert!(written, "kinds were checked");
        if self.components.info(id).tracks_changes() {
            self.changes.on_changed(id, entity);
        }
        Ok(())
    }

    /// The instance and property record a property access names, or the error saying
    /// which part is unknown.
    fn resolve_property(
        &self,
        entity: Entity,
        instance: &str,
        property: &str,
    ) -> Result<(ComponentId, &'static Property), EcsError> {
        self.check(entity)?;
        let id = self
            .find_text(entity, instance)
            .ok_or_else(|| unknown_instance(entity, instance))?;
        let info = self.components.info(id);
        let fields = info
            .properties()
            .ok_or_else(|| EcsError::NoProperties(info.name().to_owned()))?;
        let field = fields
            .iter()
            .find(|field| field.name() == property)
            .ok_or_else(|| EcsError::UnknownProperty {
                component: info.name().to_owned(),
                property: property.to_owned(),
            })?;
        Ok((id, field))
    }

    /// The entity's value of instance `id`, found by [`World::find`] (so held).
    fn instance_ptr(
        &self,
        entity: Entity,
        id: ComponentId,
        instance: &str,
    ) -> Result<std::ptr::NonNull<u8>, EcsError> {
        self.storage
            .get_ptr(entity, id)
            .ok_or_else(|| unknown_instance(entity, instance))
    }
}

fn unknown_instance(entity: Entity, name: &str) -> EcsError {
    EcsError::UnknownInstance {
        entity,
        name: name.to_owned(),
    }
}
