//! # ecs-derive
//!
//! `#[derive(Component)]` and `#[derive(Bundle)]`. Use them through the crate you depend on:
//! `ecs` (the facade) and `ecs-core` both re-export them under those names, next to the
//! traits, so `use ecs::prelude::*;` (or `use ecs_core::prelude::*;`) is all a program needs.
//!
//! # How the generated code names the core crate
//! A procedural macro cannot see which crates its caller depends on, so each derive comes in
//! two flavours that differ only in the path the generated code starts from:
//!
//! | macro | generated code names | re-exported as |
//! |---|---|---|
//! | [`Component`], [`Bundle`] | `::ecs_core::…` | `ecs_core::{Component, Bundle}` |
//! | [`FacadeComponent`], [`FacadeBundle`] | `::ecs::ecs_core::…` | `ecs::{Component, Bundle}` |
//!
//! A crate that depends on `ecs` alone uses `ecs`'s derives, whose code reaches the core
//! through `ecs`'s public `ecs_core` re-export; a crate that depends on `ecs-core` uses
//! `ecs-core`'s. Nothing is guessed from `Cargo.toml`, so the choice is the import the user
//! wrote. A crate that renames its dependency (`my_ecs = { package = "ecs" }`) says where the
//! core is with `#[component(crate = "my_ecs::ecs_core")]` or
//! `#[bundle(crate = "my_ecs::ecs_core")]`.
//!
//! # Errors
//! A malformed attribute, a `Bundle` derive on an enum or union, and the like are reported
//! as compile errors pointing at the offending tokens, never as a panic of the macro.

use proc_macro::TokenStream;
use proc_macro2::TokenStream as TokenStream2;
use quote::quote;
use syn::DeriveInput;

mod attrs;
mod bounds;
mod bundle;
mod component;
mod map_entities;

/// The crate the generated code names by default.
#[derive(Clone, Copy)]
enum Root {
    /// `::ecs_core`: for crates that depend on `ecs-core`.
    Core,
    /// `::ecs::ecs_core`: for crates that depend on the `ecs` facade.
    Facade,
}

impl Root {
    fn path(self) -> TokenStream2 {
        match self {
            Root::Core => quote!(::ecs_core),
            Root::Facade => quote!(::ecs::ecs_core),
        }
    }
}

/// Runs an expansion, turning its error into `compile_error!` tokens.
fn expand(
    input: TokenStream,
    root: Root,
    derive: fn(&DeriveInput, Root) -> syn::Result<TokenStream2>,
) -> TokenStream {
    let input = syn::parse_macro_input!(input as DeriveInput);
    derive(&input, root)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// The attributes of `#[derive(Component)]`, shared by both flavours' docs.
macro_rules! component_doc {
    () => {
        "Implements `Component` for a struct, enum or union.

Attributes, all optional, in one `#[component(...)]` or several:
* `storage = \"table\"` (the default) or `storage = \"sparse\"`: the type's
  `Component::STORAGE`, read by the hybrid backend;
* `movable`: `Component::MOVABLE`: the hybrid backend may move the type between tables and
  sparse sets while the world runs (`World::set_storage`), and reads it by looking up where
  it is kept instead of deciding at compile time;
* `track_changes`: `Component::Mutability` becomes `Tracked`: `&mut T` in a query and
  `World::get_mut` give a `Mut<T>` guard that records the first write, and the `Added` /
  `Changed` filters see the type (without it, `Mutable`: a plain `&mut T`, nothing recorded);
* `immutable`: `Component::Mutability` becomes `Immutable` (`Immutable<Tracked>` with
  `track_changes`): the value is never borrowed mutably, only replaced whole with `insert`;
* `properties`: sets `Component::PROPERTIES` to the struct's fields (named by field, or
  `0`, `1`, .. for a tuple struct), so they can be read and written by name; each field's
  type must be a property type (`bool`, integers, `f32`, `f64`, `String`, `[f32; 2..=4]`).
  On a field, `#[property(skip)]` leaves it out and `#[property(name = \"...\")]` renames it;
* `crate = \"path\"`: where the core crate is, for a renamed dependency.

A malformed attribute is a compile error pointing at it. Generic types get the impl for every
instantiation that is `Send + Sync + 'static`.
"
    };
}

/// The rules of `#[derive(Bundle)]`, shared by both flavours' docs.
macro_rules! bundle_doc {
    () => {
        "Implements `Bundle` for a struct: its fields are spawned, inserted, removed and taken
together.

Each field is a component, or a nested bundle marked `#[bundle]`, whose components are
flattened into this one's (field order, a nested bundle's in its own order). A component
type may appear only once in the flattened list; a bundle naming one twice panics when the
world first resolves it, as a tuple does. `#[bundle(crate = \"path\")]` on the struct says
where the core crate is, for a renamed dependency.

What an insert replaced (`Bundle::Replaced`) is a tuple with one item per field, in field
order: `Option<T>` for a component field, the nested bundle's `Replaced` for a `#[bundle]`
field.

Only structs (named, tuple or unit) can be bundles: an enum or union is a compile error.
Generic structs get the impl for every instantiation whose fields are components (or
bundles, for `#[bundle]` fields); a field that is neither is one compile error, at its type.
"
    };
}

#[doc = component_doc!()]
///
/// This flavour's code names `::ecs_core`; `ecs-core` re-exports it as `Component`.
///
/// ```
/// use ecs_core::{Component, StorageKind};
/// use ecs_core::component::tracks_changes;
///
/// #[derive(Component)]
/// #[component(storage = "sparse", track_changes)]
/// struct Poisoned(u32);
///
/// #[derive(Component)]
/// enum Team { Red, Blue }
///
/// #[derive(Component)]
/// #[component(immutable)]
/// struct Seed(u64);
///
/// assert_eq!(Poisoned::STORAGE, StorageKind::Sparse);
/// assert!(tracks_changes::<Poisoned>());
/// assert_eq!(Team::STORAGE, StorageKind::Table);
/// assert!(!tracks_changes::<Team>() && !tracks_changes::<Seed>());
/// # let _ = (Poisoned(1).0, Team::Red, Team::Blue, Seed(1).0);
/// ```
#[proc_macro_derive(Component, attributes(component, property))]
pub fn derive_component(input: TokenStream) -> TokenStream {
    expand(input, Root::Core, component::derive)
}

#[doc = bundle_doc!()]
///
/// This flavour's code names `::ecs_core`; `ecs-core` re-exports it as `Bundle`.
///
/// ```
/// use ecs_core::{Bundle, Component, World, testing::VecStorage};
///
/// #[derive(Component, Debug, PartialEq)]
/// struct Pos(f32);
/// #[derive(Component, Debug, PartialEq)]
/// struct Vel(f32);
/// #[derive(Component, Debug, PartialEq)]
/// struct Name(&'static str);
///
/// #[derive(Bundle, Debug, PartialEq)]
/// struct Body {
///     pos: Pos,
///     vel: Vel,
/// }
///
/// #[derive(Bundle, Debug, PartialEq)]
/// struct Ship {
///     name: Name,
///     #[bundle]
///     body: Body,
/// }
///
/// let mut world = World::<VecStorage>::new();
/// let e = world.spawn(Ship { name: Name("Pequod"), body: Body { pos: Pos(0.0), vel: Vel(1.0) } });
/// assert_eq!(world.get::<Vel>(e), Some(&Vel(1.0)));
/// let body = world.remove::<Body>(e).unwrap();
/// assert_eq!(body.pos, Pos(0.0));
/// assert!(world.has::<Name>(e) && !world.has::<Pos>(e));
/// ```
#[proc_macro_derive(Bundle, attributes(bundle))]
pub fn derive_bundle(input: TokenStream) -> TokenStream {
    expand(input, Root::Core, bundle::derive)
}

#[doc = component_doc!()]
///
/// This flavour, for crates that depend on the `ecs` facade, names `::ecs::ecs_core`; `ecs`
/// re-exports it as `Component`.
///
/// ```
/// use ecs::prelude::*;
///
/// #[derive(Component)]
/// #[component(storage = "sparse")]
/// struct Stunned;
///
/// let mut world = World::new();
/// let e = world.spawn(Stunned);
/// assert!(world.has::<Stunned>(e));
/// assert_eq!(Stunned::STORAGE, StorageKind::Sparse);
/// ```
#[proc_macro_derive(FacadeComponent, attributes(component, property))]
pub fn derive_facade_component(input: TokenStream) -> TokenStream {
    expand(input, Root::Facade, component::derive)
}

#[doc = bundle_doc!()]
///
/// This flavour, for crates that depend on the `ecs` facade, names `::ecs::ecs_core`; `ecs`
/// re-exports it as `Bundle`.
///
/// ```
/// use ecs::prelude::*;
///
/// #[derive(Component, Debug, PartialEq)]
/// struct Pos(i32);
/// #[derive(Component, Debug, PartialEq)]
/// struct Vel(i32);
/// #[derive(Bundle, Debug, PartialEq)]
/// struct Body(Pos, Vel);
///
/// let mut world = World::new();
/// let e = world.spawn(Body(Pos(1), Vel(2)));
/// assert_eq!(world.take::<Body>(e), Ok(Body(Pos(1), Vel(2))));
/// assert!(world.is_empty());
/// ```
#[proc_macro_derive(FacadeBundle, attributes(bundle))]
pub fn derive_facade_bundle(input: TokenStream) -> TokenStream {
    expand(input, Root::Facade, bundle::derive)
}

/// The rules of `#[derive(MapEntities)]`, shared by both flavours' docs.
macro_rules! map_entities_doc {
    () => {
        "Implements `MapEntities` (the snapshot loader's hook that rewrites entity handles held
inside a value to the loaded entities' handles).

Fields of type `Entity`, `Option<Entity>` or `Vec<Entity>` (recognised by name) are mapped;
a field marked `#[entities]` is mapped through its own `MapEntities` impl (a nested struct
holding handles, `[Entity; 4]`, `Box<Entity>`, ...); every other field is left alone. Works
on structs and enums (each variant's fields); a union is a compile error.
`#[entities(crate = \"path\")]` on the type says where the core crate is, for a renamed
dependency.
"
    };
}

#[doc = map_entities_doc!()]
///
/// This flavour's code names `::ecs_core`; `ecs-core` re-exports it as
/// `ecs_core::snapshot::MapEntities`.
///
/// ```
/// use ecs_core::{Entity, MapEntities};
///
/// #[derive(MapEntities)]
/// struct Link { to: Entity, #[entities] pair: [Entity; 2], weight: f32 }
///
/// #[derive(MapEntities)]
/// enum Order { Idle, Attack(Entity), Escort { leader: Option<Entity>, spacing: f32 } }
///
/// let e = |i| Entity::new(i, 1).unwrap();
/// let mut link = Link { to: e(1), pair: [e(2), e(3)], weight: 0.5 };
/// link.map_entities(&mut |x: Entity| e(x.index() * 10));
/// assert_eq!((link.to, link.pair), (e(10), [e(20), e(30)]));
/// let mut order = Order::Escort { leader: Some(e(4)), spacing: 1.0 };
/// order.map_entities(&mut |x: Entity| e(x.index() + 1));
/// assert!(matches!(order, Order::Escort { leader: Some(l), .. } if l == e(5)));
/// # let _ = (link.weight, Order::Idle, Order::Attack(e(0)));
/// ```
#[proc_macro_derive(MapEntities, attributes(entities))]
pub fn derive_map_entities(input: TokenStream) -> TokenStream {
    expand(input, Root::Core, map_entities::derive)
}

#[doc = map_entities_doc!()]
///
/// This flavour, for crates that depend on the `ecs` facade, names `::ecs::ecs_core`; `ecs`
/// re-exports it as `MapEntities`.
///
/// ```
/// use ecs::prelude::*;
///
/// #[derive(Component, MapEntities)]
/// struct Target(Option<Entity>);
///
/// let mut world = World::new();
/// let a = world.spawn(());
/// let mut t = Target(Some(a));
/// t.map_entities(&mut |_: Entity| a);
/// assert_eq!(t.0, Some(a));
/// ```
#[proc_macro_derive(FacadeMapEntities, attributes(entities))]
pub fn derive_facade_map_entities(input: TokenStream) -> TokenStream {
    expand(input, Root::Facade, map_entities::derive)
}
