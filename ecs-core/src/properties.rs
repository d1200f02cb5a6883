//! Properties: a component's fields, read and written by name with typed values.
//!
//! A scripting layer (a visual-scripting graph) works with components it knows
//! nothing about at compile time: "the `density` property of this entity's `Fog`". A
//! component type opts in with `#[component(properties)]` on its derive, which lists its
//! fields as [`Property`] records (name, [`PropertyKind`], byte offset) in
//! [`Component::PROPERTIES`](crate::Component::PROPERTIES); the registry keeps the list
//! beside the component's layout, so named instances of the type share it.
//!
//! [`World::get_property`](crate::World::get_property) and
//! [`World::set_property`](crate::World::set_property) find the instance by name, the field
//! by name (a scan of a short static list), check the kind and read or write the field in
//! place: no allocation (a string is written into the field's existing buffer when it fits).
//!
//! ```
//! use ecs_core::{World, Component, properties::PropertyValue, testing::VecStorage};
//!
//! #[derive(Component)]
//! #[component(properties)]
//! struct RenderData {
//!     density: f32,
//!     tint: [f32; 3],
//!     enabled: bool,
//! }
//!
//! let mut world = World::<VecStorage>::new();
//! let e = world.spawn(());
//! let fog = RenderData { density: 0.5, tint: [1.0; 3], enabled: true };
//! world.insert_named(e, "Fog", fog).unwrap();
//! world.set_property(e, "Fog", "density", PropertyValue::F32(0.25)).unwrap();
//! assert_eq!(world.get_property(e, "Fog", "density"), Ok(PropertyValue::F32(0.25)));
//! assert!(world.set_property(e, "Fog", "density", PropertyValue::Bool(true)).is_err());
//! ```

use std::fmt;
use std::marker::PhantomData;

/// The type of a property's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PropertyKind {
    /// `bool`.
    Bool,
    /// `i8`.
    I8,
    /// `i16`.
    I16,
    /// `i32`.
    I32,
    /// `i64`.
    I64,
    /// `u8`.
    U8,
    /// `u16`.
    U16,
    /// `u32`.
    U32,
    /// `u64`.
    U64,
    /// `f32`.
    F32,
    /// `f64`.
    F64,
    /// `String`.
    String,
    /// `[f32; 2]`.
    Vec2,
    /// `[f32; 3]`.
    Vec3,
    /// `[f32; 4]`.
    Vec4,
}

/// A property value, as read from or written into a field; strings are borrowed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PropertyValue<'a> {
    /// A `bool` field.
    Bool(bool),
    /// An `i8` field.
    I8(i8),
    /// An `i16` field.
    I16(i16),
    /// An `i32` field.
    I32(i32),
    /// An `i64` field.
    I64(i64),
    /// A `u8` field.
    U8(u8),
    /// A `u16` field.
    U16(u16),
    /// A `u32` field.
    U32(u32),
    /// A `u64` field.
    U64(u64),
    /// An `f32` field.
    F32(f32),
    /// An `f64` field.
    F64(f64),
    /// A `String` field (borrowed from the world when read).
    Str(&'a str),
    /// A `[f32; 2]` field.
    Vec2([f32; 2]),
    /// A `[f32; 3]` field.
    Vec3([f32; 3]),
    /// A `[f32; 4]` field.
    Vec4([f32; 4]),
}

impl PropertyValue<'_> {
    /// The kind of field this value fits.
    pub fn kind(&self) -> PropertyKind {
        match self {
            PropertyValue::Bool(_) => PropertyKind::Bool,
            PropertyValue::I8(_) => PropertyKind::I8,
            PropertyValue::I16(_) => PropertyKind::I16,
            PropertyValue::I32(_) => PropertyKind::I32,
            PropertyValue::I64(_) => PropertyKind::I64,
            PropertyValue::U8(_) => PropertyKind::U8,
            PropertyValue::U16(_) => PropertyKind::U16,
            PropertyValue::U32(_) => PropertyKind::U32,
            PropertyValue::U64(_) => PropertyKind::U64,
            PropertyValue::F32(_) => PropertyKind::F32,
            PropertyValue::F64(_) => PropertyKind::F64,
            PropertyValue::Str(_) => PropertyKind::String,
            PropertyValue::Vec2(_) => PropertyKind::Vec2,
            PropertyValue::Vec3(_) => PropertyKind::Vec3,
            PropertyValue::Vec4(_) => PropertyKind::Vec4,
        }
    }
}

impl fmt::Display for PropertyValue<'_> {
    /// Numbers as Rust prints them, strings bare, vectors as `(x, y, ..)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let vector = |f: &mut fmt::Formatter<'_>, v: &[f32]| {
            write!(f, "(")?;
            for (i, x) in v.iter().enumerate() {
                if i > 0 {
                    write!(f, ", ")?;
                }
                write!(f, "{x}")?;
            }
            write!(f, ")")
        };
        match self {
            PropertyValue::Bool(v) => write!(f, "{v}"),
            PropertyValue::I8(v) => write!(f, "{v}"),
            PropertyValue::I16(v) => write!(f, "{v}"),
            PropertyValue::I32(v) => write!(f, "{v}"),
            PropertyValue::I64(v) => write!(f, "{v}"),
            PropertyValue::U8(v) => write!(f, "{v}"),
            PropertyValue::U16(v) => write!(f, "{v}"),
            PropertyValue::U32(v) => write!(f, "{v}"),
            PropertyValue::U64(v) => write!(f, "{v}"),
            PropertyValue::F32(v) => write!(f, "{v}"),
            PropertyValue::F64(v) => write!(f, "{v}"),
            PropertyValue::Str(v) => write!(f, "{v}"),
            PropertyValue::Vec2(v) => vector(f, v),
            PropertyValue::Vec3(v) => vector(f, v),
            PropertyValue::Vec4(v) => vector(f, v),
        }
    }
}

impl fmt::Display for PropertyKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self {
            PropertyKind::Bool => "bool",
            PropertyKind::I8 => "i8",
            PropertyKind::I16 => "i16",
            PropertyKind::I32 => "i32",
            PropertyKind::I64 => "i64",
            PropertyKind::U8 => "u8",
            PropertyKind::U16 => "u16",
            PropertyKind::U32 => "u32",
            PropertyKind::U64 => "u64",
            PropertyKind::F32 => "f32",
            PropertyKind::F64 => "f64",
            PropertyKind::String => "string",
            PropertyKind::Vec2 => "vec2",
            PropertyKind::Vec3 => "vec3",
            PropertyKind::Vec4 => "vec4",
        };
        f.write_str(name)
    }
}

impl PropertyKind {
    /// "a" or "an", as the kind's name is read aloud: "an f32", "an i8", "a u32", "a bool".
    pub fn article(self) -> &'static str {
        match self {
            PropertyKind::I8
            | PropertyKind::I16
            | PropertyKind::I32
            | PropertyKind::I64
            | PropertyKind::F32
            | PropertyKind::F64 => "an",
            _ => "a",
        }
    }

    /// Parses `text` as a value of this kind (what a script or console types): numbers as
    /// Rust parses them, `true`/`false`, a string as is, a vector as numbers separated by
    /// commas (`0.5,1,0`). `None` when the text does not fit the kind.
    ///
    /// ```
    /// # use ecs_core::properties::{PropertyKind, PropertyValue};
    /// assert_eq!(PropertyKind::Vec2.parse("1,2.5"), Some(PropertyValue::Vec2([1.0, 2.5])));
    /// assert_eq!(PropertyKind::U8.parse("300"), None);
    /// ```
    pub fn parse(self, text: &str) -> Option<PropertyValue<'_>> {
        Some(match self {
            PropertyKind::Bool => PropertyValue::Bool(text.parse().ok()?),
            PropertyKind::I8 => PropertyValue::I8(text.parse().ok()?),
            PropertyKind::I16 => PropertyValue::I16(text.parse().ok()?),
            PropertyKind::I32 => PropertyValue::I32(text.parse().ok()?),
            PropertyKind::I64 => PropertyValue::I64(text.parse().ok()?),
            PropertyKind::U8 => PropertyValue::U8(text.parse().ok()?),
            PropertyKind::U16 => PropertyValue::U16(text.parse().ok()?),
            PropertyKind::U32 => PropertyValue::U32(text.parse().ok()?),
            PropertyKind::U64 => PropertyValue::U64(text.parse().ok()?),
            PropertyKind::F32 => PropertyValue::F32(text.parse().ok()?),
            PropertyKind::F64 => PropertyValue::F64(text.parse().ok()?),
            PropertyKind::String => PropertyValue::Str(text),
            PropertyKind::Vec2 => PropertyValue::Vec2(parse_floats(text)?),
            PropertyKind::Vec3 => PropertyValue::Vec3(parse_floats(text)?),
            PropertyKind::Vec4 => PropertyValue::Vec4(parse_floats(text)?),
        })
    }
}

/// `N` comma-separated floats.
fn parse_floats<const N: usize>(text: &str) -> Option<[f32; N]> {
    let mut out = [0.0; N];
    let mut parts = text.split(',');
    for slot in &mut out {
        *slot = parts.next()?.trim().parse().ok()?;
    }
    parts.next().is_none().then_some(out)
}

/// A Rust type a property field may have.
///
/// # Safety
/// `KIND` names exactly `Self` (`PropertyKind::F32` for `f32`, `String` for `String`, ...):
/// property reads and writes reinterpret the field's bytes as the kind's type.
pub unsafe trait PropertyType: 'static {
    /// The kind naming this type.
    const KIND: PropertyKind;
}

macro_rules! property_types {
    ($($ty:ty => $kind:ident),* $(,)?) => {
        $(
            // SAFETY: the kind names this very type.
            unsafe impl PropertyType for $ty {
                const KIND: PropertyKind = PropertyKind::$kind;
            }
        )*
    };
}

property_types! {
    bool => Bool, i8 => I8, i16 => I16, i32 => I32, i64 => I64,
    u8 => U8, u16 => U16, u32 => U32, u64 => U64, f32 => F32, f64 => F64,
    String => String, [f32; 2] => Vec2, [f32; 3] => Vec3, [f32; 4] => Vec4,
}

/// One property of component type `C`: a field's name, kind and byte offset.
///
/// `C` ties the record to its component at compile time
/// ([`Component::PROPERTIES`](crate::Component::PROPERTIES) is a list of `Property<Self>`), so
/// safe code cannot attach one type's offsets to another. The registry keeps the list with
/// `C` erased (`Property<()>`, the default parameter).
///
/// # Invariant
/// `offset` is the offset of a field of `C` whose type is the one `kind` names
/// ([`PropertyType`]); the field lies within `C`.
#[repr(C)]
pub struct Property<C: ?Sized = ()> {
    name: &'static str,
    kind: PropertyKind,
    offset: usize,
    marker: PhantomData<fn(&C)>,
}

impl<C: ?Sized> Clone for Property<C> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<C: ?Sized> Copy for Property<C> {}

impl<C: ?Sized> fmt::Debug for Property<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Property")
            .field("name", &self.name)
            .field("kind", &self.kind)
            .field("offset", &self.offset)
            .finish()
    }
}

impl<C: ?Sized> Property<C> {
    /// A property named `name` for the field of type `F` at byte `offset` in `C`
    /// (`core::mem::offset_of!(C, field)`). What `#[component(properties)]` generates.
    ///
    /// # Safety
    /// `C` has a field of type `F` at `offset`, aligned for `F` in every `C` (so not a field
    /// of a `#[repr(packed)]` struct): reads and writes take it as an aligned `F`.
    pub const unsafe fn new<F: PropertyType>(name: &'static str, offset: usize) -> Self {
        Property {
            name,
            kind: F::KIND,
            offset,
            marker: PhantomData,
        }
    }

    /// The property's (field's) name.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The type of its values.
    pub fn kind(&self) -> PropertyKind {
        self.kind
    }

    /// The list with `C` erased, as the registry keeps it.
    pub(crate) fn erase(list: &'static [Property<C>]) -> &'static [Property] {
        // SAFETY: `Property<C>` is `repr(C)` with the same fields for every `C` (the marker is
        // a zero-sized `PhantomData` of alignment 1 either way), so the two slice types have
        // the same layout; the records keep their invariant, now about the erased type.
        unsafe { std::slice::from_raw_parts(list.as_ptr().cast::<Property>(), list.len()) }
    }
}

impl Property {
    /// Reads the property of the component value at `component`.
    ///
    /// # Safety
    /// `component` points to an initialised value of the component type this record was
    /// made for, valid for reads for `'a`.
    pub(crate) unsafe fn read<'a>(&self, component: *const u8) -> PropertyValue<'a> {
        // SAFETY: the field of the kind's type is at `offset` in the value (type invariant),
        // initialised because the value is (caller).
        unsafe {
            let field = component.add(self.offset);
            macro_rules! read {
                ($variant:ident, $ty:ty) => {
                    PropertyValue::$variant(field.cast::<$ty>().read())
                };
            }
            match self.kind {
                PropertyKind::Bool => read!(Bool, bool),
                PropertyKind::I8 => read!(I8, i8),
                PropertyKind::I16 => read!(I16, i16),
                PropertyKind::I32 => read!(I32, i32),
                PropertyKind::I64 => read!(I64, i64),
                PropertyKind::U8 => read!(U8, u8),
                PropertyKind::U16 => read!(U16, u16),
                PropertyKind::U32 => read!(U32, u32),
                PropertyKind::U64 => read!(U64, u64),
                PropertyKind::F32 => read!(F32, f32),
                PropertyKind::F64 => read!(F64, f64),
                PropertyKind::String => PropertyValue::Str(&*field.cast::<String>()),
                PropertyKind::Vec2 => read!(Vec2, [f32; 2]),
                PropertyKind::Vec3 => read!(Vec3, [f32; 3]),
                PropertyKind::Vec4 => read!(Vec4, [f32; 4]),
            }
        }
    }

    /// Writes `value` into the property of the component value at `component`; false
    /// (nothing written) when the value's kind is not the property's.
    ///
    /// A string is copied into the field's `String`, reusing its buffer: no allocation when
    /// the new text fits the old capacity.
    ///
    /// # Safety
    /// `component` points to an initialised value of the component type this record was
    /// made for, valid for reads and writes, and not otherwise borrowed.
    pub(crate) unsafe fn write(&self, component: *mut u8, value: PropertyValue<'_>) -> bool {
        if value.kind() != self.kind {
            return false;
        }
        // SAFETY: as for `read`; the value is writable and unborrowed (caller), and the kinds
        // match, so each arm writes the field's own type.
        unsafe {
            let field = component.add(self.offset);
            match value {
                PropertyValue::Bool(v) => field.cast::<bool>().write(v),
                PropertyValue::I8(v) => field.cast::<i8>().write(v),
                PropertyValue::I16(v) => field.cast::<i16>().write(v),
                PropertyValue::I32(v) => field.cast::<i32>().write(v),
                PropertyValue::I64(v) => field.cast::<i64>().write(v),
                PropertyValue::U8(v) => field.cast::<u8>().write(v),
                PropertyValue::U16(v) => field.cast::<u16>().write(v),
                PropertyValue::U32(v) => field.cast::<u32>().write(v),
                PropertyValue::U64(v) => field.cast::<u64>().write(v),
                PropertyValue::F32(v) => field.cast::<f32>().write(v),
                PropertyValue::F64(v) => field.cast::<f64>().write(v),
                PropertyValue::Str(v) => {
                    let s = &mut *field.cast::<String>();
                    s.clear();
                    s.push_str(v);
                }
                PropertyValue::Vec2(v) => field.cast::<[f32; 2]>().write(v),
                PropertyValue::Vec3(v) => field.cast::<[f32; 3]>().write(v),
                PropertyValue::Vec4(v) => field.cast::<[f32; 4]>().write(v),
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[repr(C)]
    struct Sample {
        flag: bool,
        count: u16,
        label: String,
        at: [f32; 3],
    }

    fn table() -> &'static [Property] {
        const LIST: &[Property<Sample>] = &[
            // SAFETY: each offset is of the named field, of the given type.
            unsafe { Property::new::<bool>("flag", std::mem::offset_of!(Sample, flag)) },
            // SAFETY: as above.
            unsafe { Property::new::<u16>("count", std::mem::offset_of!(Sample, count)) },
            // SAFETY: as above.
            unsafe { Property::new::<String>("label", std::mem::offset_of!(Sample, label)) },
            // SAFETY: as above.
            unsafe { Property::new::<[f32; 3]>("at", std::mem::offset_of!(Sample, at)) },
        ];
        Property::erase(LIST)
    }

    #[test]
    fn read_and_write_each_kind_in_place() {
        let mut s = Sample {
            flag: false,
            count: 3,
            label: String::with_capacity(16),
            at: [0.0; 3],
        };
        let ptr = std::ptr::addr_of_mut!(s).cast::<u8>();
        let [flag, count, label, at] = table() else {
            panic!("four properties")
        };
        // SAFETY: `ptr` is a live, unborrowed `Sample`, the table's type.
        unsafe {
            assert!(flag.write(ptr, PropertyValue::Bool(true)));
            assert!(!count.write(ptr, PropertyValue::U32(9)), "wrong kind");
            assert!(count.write(ptr, PropertyValue::U16(9)));
            assert!(label.write(ptr, PropertyValue::Str("fog")));
            assert!(at.write(ptr, PropertyValue::Vec3([1.0, 2.0, 3.0])));
            assert_eq!(count.read(ptr), PropertyValue::U16(9));
            assert_eq!(label.read(ptr), PropertyValue::Str("fog"));
        }
        assert!(s.flag && s.count == 9 && s.label == "fog" && s.at == [1.0, 2.0, 3.0]);
        assert_eq!(s.label.capacity(), 16, "the string's buffer was reused");
    }

    #[test]
    fn parse_and_display_round_trip() {
        for (kind, text) in [
            (PropertyKind::Bool, "true"),
            (PropertyKind::I64, "-7"),
            (PropertyKind::F32, "0.25"),
            (PropertyKind::String, "hello"),
            (PropertyKind::Vec4, "(1, 2, 3, 4)"),
        ] {
            let stripped = text.trim_matches(|c| c == '(' || c == ')');
            let value = kind.parse(stripped).unwrap();
            assert_eq!(value.kind(), kind);
            assert_eq!(value.to_string(), text);
        }
        assert_eq!(PropertyKind::Vec2.parse("1,2,3"), None);
        assert_eq!(PropertyKind::Bool.parse("yes"), None);
        assert_eq!(PropertyKind::Vec3.to_string(), "vec3");
    }
}
