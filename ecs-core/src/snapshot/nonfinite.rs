//! Round-tripping non-finite floats (NaN, +inf, -inf) through JSON.
//!
//! JSON has no literal for NaN or the infinities, so `serde_json` writes them
//! as `null`, and `null` cannot be read back as an `f32`/`f64`: a snapshot
//! holding such a value could be written but never loaded again.
//!
//! This module wraps a serializer and a deserializer so that, at any depth
//! inside a value:
//!
//! * a non-finite `f32`/`f64` is written as one of the strings `"NaN"`,
//!   `"inf"` or `"-inf"` (finite floats are written exactly as before);
//! * where an `f32`/`f64` is expected, those three strings are accepted as
//!   well as a number. Any other string is still an error: it reaches the
//!   caller's visitor, which reports serde's usual "invalid type" error.
//!
//! Both wrappers only change anything when the wrapped format reports
//! `is_human_readable() == true`. For a compact format (postcard) they forward
//! every call unchanged, so the bytes are identical to the unwrapped ones; the
//! snapshot code wraps a column's values only for human-readable formats, so
//! a binary save or load of a column does not even go through the wrappers.
//!
//! How it works: every value, element, key, field and variant payload that a
//! serializer is handed is wrapped in [`NonFiniteValue`], which serializes the
//! inner value through [`NonFiniteSer`] again. On the reading side every
//! visitor is wrapped so that the `SeqAccess`/`MapAccess`/`EnumAccess`/
//! `VariantAccess` and the nested deserializers it hands out (`visit_some`,
//! `visit_newtype_struct`) deserialize through [`NonFiniteDe`] again.
//!
//! A float field cannot be read with the format's own `deserialize_f32`,
//! since a JSON deserializer rejects a string there before any visitor sees
//! it. So, for human-readable formats, `deserialize_f32`/`deserialize_f64`
//! call the format's `deserialize_any`. For `serde_json` that yields
//! `visit_u64`/`visit_i64`/`visit_f64` for numbers, parsed by the same number
//! parser as `deserialize_f64`, so finite values come back bit-identical.
//!
//! Map keys: `serde_json` writes float map keys as quoted numbers (`"1.5"`)
//! and reads them back with a key deserializer whose `deserialize_any` yields
//! the key as a string. In map-key position (and only there) a float is
//! therefore also accepted from a string holding a decimal number, so that
//! finite float keys (e.g. a newtype around `f64` used as a `BTreeMap` key)
//! keep working through the wrapper.
//!
//! Known limits (see the tests named `limitation_*`):
//!
//! * Types that deserialize through `deserialize_any` and buffer the input
//!   (untagged and internally tagged enums, `#[serde(flatten)]`) receive
//!   `"NaN"` as a string; their float fields are then read from serde's
//!   internal buffer, which this wrapper never sees. Loading then fails with
//!   an "invalid type: string" or "did not match any variant" error, except
//!   that an untagged enum with a variant that accepts a string picks that
//!   variant (`Number(f64)` written as NaN reads back as `Text("NaN")`).
//!   Externally and adjacently tagged enums work.
//! * Where the input has an array or object in place of a float, the error
//!   message is unchanged but its column is one further on.
//! * A `serde_json::Value` inside a value can never hold a non-finite number,
//!   and a string `"NaN"` inside it stays a string.
//! * NaN sign and payload bits are not kept: every NaN reads back as the
//!   canonical `f32::NAN`/`f64::NAN`.
//! * With `serde_json`'s `arbitrary_precision` feature, `deserialize_any`
//!   hands numbers over as a private map, which float visitors reject; with
//!   `float_roundtrip`, an `f32` is parsed as `f64` then narrowed instead of
//!   parsed directly as `f32`. Neither feature is on by default.

use std::fmt;

use serde::de::{
    self, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess, VariantAccess, Visitor,
};
use serde::ser::{
    Serialize, SerializeMap, SerializeSeq, SerializeStruct, SerializeStructVariant, SerializeTuple,
    SerializeTupleStruct, SerializeTupleVariant, Serializer,
};

/// The string written for any NaN.
const NAN: &str = "NaN";
/// The string written for positive infinity.
const INF: &str = "inf";
/// The string written for negative infinity.
const NEG_INF: &str = "-inf";

/// The string standing for a non-finite `v` (callers only pass non-finite
/// values; anything that is not NaN is an infinity).
fn non_finite_name(v: f64) -> &'static str {
    if v.is_nan() {
        NAN
    } else if v > 0.0 {
        INF
    } else {
        NEG_INF
    }
}

/// The value of one of the three non-finite strings, or `None` for any other
/// string. Matching is exact: `"nan"`, `"Infinity"`, `"+inf"` are not taken.
fn non_finite_value(s: &str) -> Option<f64> {
    match s {
        NAN => Some(f64::NAN),
        INF => Some(f64::INFINITY),
        NEG_INF => Some(f64::NEG_INFINITY),
        _ => None,
    }
}

/// Whether `s` looks like a decimal number as a JSON writer would put it in a
/// quoted map key. Guards `str::parse`, which would also take words such as
/// `"infinity"`.
fn is_decimal_number(s: &str) -> bool {
    s.bytes().any(|b| b.is_ascii_digit())
        && s.bytes()
            .all(|b| b.is_ascii_digit() || b"+-.eE".contains(&b))
}

/// Reads an `f64` from a string: one of the three non-finite strings, or, in
/// map-key position only, a decimal number.
fn decode_f64(s: &str, map_key: bool) -> Option<f64> {
    match non_finite_value(s) {
        Some(v) => Some(v),
        None if map_key && is_decimal_number(s) => s.parse().ok(),
        None => None,
    }
}

/// Reads an `f32` from a string; see [`decode_f64`]. Numbers are parsed as
/// `f32` directly so a key is not rounded twice.
fn decode_f32(s: &str, map_key: bool) -> Option<f32> {
    match non_finite_value(s) {
        // NaN and the infinities convert exactly.
        Some(v) => Some(v as f32),
        None if map_key && is_decimal_number(s) => s.parse().ok(),
        None => None,
    }
}

// ---------------------------------------------------------------------------
// Serialization
// ---------------------------------------------------------------------------

/// A [`Serializer`] that forwards everything to `S`, except that non-finite
/// `f32`/`f64` values are written as the strings `"NaN"`, `"inf"`, `"-inf"`
/// when `S` is human readable. Nested values (fields, elements, keys, map
/// values, `Some`, newtype payloads) are serialized through `NonFiniteSer`
/// again, so floats at any depth are covered.
pub(crate) struct NonFiniteSer<S>(pub S);

/// Serializes the referenced value through [`NonFiniteSer`]: the entry point
/// for writing a value (`serde_json::to_string(&NonFiniteValue(&v))`), and the
/// wrapper put around every nested value.
pub(crate) struct NonFiniteValue<'a, T: ?Sized>(pub &'a T);

impl<T: ?Sized + Serialize> Serialize for NonFiniteValue<'_, T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(NonFiniteSer(serializer))
    }
}

/// The compound serializer (seq, tuple, map, struct, variants) of
/// [`NonFiniteSer`]: forwards to the inner one, wrapping each nested value in
/// [`NonFiniteValue`].
pub(crate) struct NonFiniteCompound<C>(C);

/// Forwards `Serializer` methods that take one plain argument and cannot hold
/// a float.
macro_rules! forward_serialize {
    ($($method:ident($ty:ty);)*) => {$(
        fn $method(self, v: $ty) -> Result<S::Ok, S::Error> {
            self.0.$method(v)
        }
    )*};
}

impl<S: Serializer> Serializer for NonFiniteSer<S> {
    type Ok = S::Ok;
    type Error = S::Error;
    type SerializeSeq = NonFiniteCompound<S::SerializeSeq>;
    type SerializeTuple = NonFiniteCompound<S::SerializeTuple>;
    type SerializeTupleStruct = NonFiniteCompound<S::SerializeTupleStruct>;
    type SerializeTupleVariant = NonFiniteCompound<S::SerializeTupleVariant>;
    type SerializeMap = NonFiniteCompound<S::SerializeMap>;
    type SerializeStruct = NonFiniteCompound<S::SerializeStruct>;
    type SerializeStructVariant = NonFiniteCompound<S::SerializeStructVariant>;

    forward_serialize! {
        serialize_bool(bool);
        serialize_i8(i8);
        serialize_i16(i16);
        serialize_i32(i32);
        serialize_i64(i64);
        serialize_i128(i128);
        serialize_u8(u8);
        serialize_u16(u16);
        serialize_u32(u32);
        serialize_u64(u64);
        serialize_u128(u128);
        serialize_char(char);
        serialize_str(&str);
        serialize_bytes(&[u8]);
        serialize_unit_struct(&'static str);
    }

    fn serialize_f32(self, v: f32) -> Result<S::Ok, S::Error> {
        if v.is_finite() || !self.0.is_human_readable() {
            self.0.serialize_f32(v)
        } else {
            self.0.serialize_str(non_finite_name(f64::from(v)))
        }
    }

    fn serialize_f64(self, v: f64) -> Result<S::Ok, S::Error> {
        if v.is_finite() || !self.0.is_human_readable() {
            self.0.serialize_f64(v)
        } else {
            self.0.serialize_str(non_finite_name(v))
        }
    }

    fn serialize_none(self) -> Result<S::Ok, S::Error> {
        self.0.serialize_none()
    }

    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<S::Ok, S::Error> {
        self.0.serialize_some(&NonFiniteValue(value))
    }

    fn serialize_unit(self) -> Result<S::Ok, S::Error> {
        self.0.serialize_unit()
    }

    fn serialize_unit_variant(
        self,
        name: &'static str,
        variant_index: u32,
        variant: &'static str,
    ) -> Result<S::Ok, S::Error> {
        self.0.serialize_unit_variant(name, variant_index, variant)
    }

    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<S::Ok, S::Error> {
        self.0
            .serialize_newtype_struct(name, &NonFiniteValue(value))
    }

    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        name: &'static str,
        variant_index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<S::Ok, S::Error> {
        self.0
            .serialize_newtype_variant(name, variant_index, variant, &NonFiniteValue(value))
    }

    fn serialize_seq(self, len: Option<usize>) -> Result<Self::SerializeSeq, S::Error> {
        self.0.serialize_seq(len).map(NonFiniteCompound)
    }

    fn serialize_tuple(self, len: usize) -> Result<Self::SerializeTuple, S::Error> {
        self.0.serialize_tuple(len).map(NonFiniteCompound)
    }

    fn serialize_tuple_struct(
        self,
        name: &'static str,
        len: usize,
    ) -> Result<Self::SerializeTupleStruct, S::Error> {
        self.0
            .serialize_tuple_struct(name, len)
            .map(NonFiniteCompound)
    }

    fn serialize_tuple_variant(
        self,
        name: &'static str,
        variant_index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Self::SerializeTupleVariant, S::Error> {
        self.0
            .serialize_tuple_variant(name, variant_index, variant, len)
            .map(NonFiniteCompound)
    }

    fn serialize_map(self, len: Option<usize>) -> Result<Self::SerializeMap, S::Error> {
        self.0.serialize_map(len).map(NonFiniteCompound)
    }

    fn serialize_struct(
        self,
        name: &'static str,
        len: usize,
    ) -> Result<Self::SerializeStruct, S::Error> {
        self.0.serialize_struct(name, len).map(NonFiniteCompound)
    }

    fn serialize_struct_variant(
        self,
        name: &'static str,
        variant_index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Self::SerializeStructVariant, S::Error> {
        self.0
            .serialize_struct_variant(name, variant_index, variant, len)
            .map(NonFiniteCompound)
    }

    /// Forwarded so that the format's own (possibly faster) implementation is
    /// used; a `Display` string cannot hold a float value.
    fn collect_str<T: ?Sized + fmt::Display>(self, value: &T) -> Result<S::Ok, S::Error> {
        self.0.collect_str(value)
    }

    fn is_human_readable(&self) -> bool {
        self.0.is_human_readable()
    }
}

impl<C: SerializeSeq> SerializeSeq for NonFiniteCompound<C> {
    type Ok = C::Ok;
    type Error = C::Error;

    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), C::Error> {
        self.0.serialize_element(&NonFiniteValue(value))
    }

    fn end(self) -> Result<C::Ok, C::Error> {
        self.0.end()
    }
}

impl<C: SerializeTuple> SerializeTuple for NonFiniteCompound<C> {
    type Ok = C::Ok;
    type Error = C::Error;

    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), C::Error> {
        self.0.serialize_element(&NonFiniteValue(value))
    }

    fn end(self) -> Result<C::Ok, C::Error> {
        self.0.end()
    }
}

impl<C: SerializeTupleStruct> SerializeTupleStruct for NonFiniteCompound<C> {
    type Ok = C::Ok;
    type Error = C::Error;

    fn serialize_field<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), C::Error> {
        self.0.serialize_field(&NonFiniteValue(value))
    }

    fn end(self) -> Result<C::Ok, C::Error> {
        self.0.end()
    }
}

impl<C: SerializeTupleVariant> SerializeTupleVariant for NonFiniteCompound<C> {
    type Ok = C::Ok;
    type Error = C::Error;

    fn serialize_field<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), C::Error> {
        self.0.serialize_field(&NonFiniteValue(value))
    }

    fn end(self) -> Result<C::Ok, C::Error> {
        self.0.end()
    }
}

impl<C: SerializeMap> SerializeMap for NonFiniteCompound<C> {
    type Ok = C::Ok;
    type Error = C::Error;

    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result<(), C::Error> {
        self.0.serialize_key(&NonFiniteValue(key))
    }

    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), C::Error> {
        self.0.serialize_value(&NonFiniteValue(value))
    }

    /// Forwarded as one call so a format's own `serialize_entry` still runs.
    fn serialize_entry<K: ?Sized + Serialize, V: ?Sized + Serialize>(
        &mut self,
        key: &K,
        value: &V,
    ) -> Result<(), C::Error> {
        self.0
            .serialize_entry(&NonFiniteValue(key), &NonFiniteValue(value))
    }

    fn end(self) -> Result<C::Ok, C::Error> {
        self.0.end()
    }
}

impl<C: SerializeStruct> SerializeStruct for NonFiniteCompound<C> {
    type Ok = C::Ok;
    type Error = C::Error;

    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), C::Error> {
        self.0.serialize_field(key, &NonFiniteValue(value))
    }

    fn skip_field(&mut self, key: &'static str) -> Result<(), C::Error> {
        self.0.skip_field(key)
    }

    fn end(self) -> Result<C::Ok, C::Error> {
        self.0.end()
    }
}

impl<C: SerializeStructVariant> SerializeStructVariant for NonFiniteCompound<C> {
    type Ok = C::Ok;
    type Error = C::Error;

    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), C::Error> {
        self.0.serialize_field(key, &NonFiniteValue(value))
    }

    fn skip_field(&mut self, key: &'static str) -> Result<(), C::Error> {
        self.0.skip_field(key)
    }

    fn end(self) -> Result<C::Ok, C::Error> {
        self.0.end()
    }
}

// ---------------------------------------------------------------------------
// Deserialization
// ---------------------------------------------------------------------------

/// A [`Deserializer`] that forwards everything to `D`, except that, when `D`
/// is human readable, `deserialize_f32`/`deserialize_f64` also accept the
/// strings `"NaN"`, `"inf"` and `"-inf"`. Every nested value (elements, map
/// keys and values, `Some`, newtype and variant payloads) is deserialized
/// through `NonFiniteDe` again.
pub(crate) struct NonFiniteDe<D>(pub D);

/// The deserializer used for map keys: like [`NonFiniteDe`], but a float may
/// also be read from a string holding a decimal number, because JSON writes
/// float keys as quoted numbers (`{"1.5": ..}`). Kept a separate type (rather
/// than a flag) so that value position pays nothing for it.
struct MapKeyDe<D>(D);

/// A [`DeserializeSeed`] that runs the wrapped seed through [`NonFiniteDe`].
pub(crate) struct NonFiniteSeed<S>(pub S);

/// The map-key counterpart of [`NonFiniteSeed`]: runs the seed through
/// [`MapKeyDe`].
struct MapKeySeed<S>(S);

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for NonFiniteSeed<S> {
    type Value = S::Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<S::Value, D::Error> {
        self.0.deserialize(NonFiniteDe(deserializer))
    }
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for MapKeySeed<S> {
    type Value = S::Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<S::Value, D::Error> {
        self.0.deserialize(MapKeyDe(deserializer))
    }
}

/// Which float a wrapped visitor was asked for, if any.
#[derive(Clone, Copy)]
enum FloatKind {
    F32,
    F64,
}

/// Forwards `Deserializer` methods that only take a visitor, wrapping it.
macro_rules! forward_deserialize {
    ($visitor:ident; $($method:ident)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
            self.0.$method($visitor::new(visitor))
        }
    )*};
}

/// Forwards `Visitor` methods for plain values that need no wrapping.
macro_rules! forward_visit {
    ($($method:ident($ty:ty))*) => {$(
        fn $method<E: de::Error>(self, v: $ty) -> Result<V::Value, E> {
            self.inner.$method(v)
        }
    )*};
}

/// Defines the deserializer wrapper `$de` (a tuple struct over the inner
/// deserializer) and its visitor wrapper `$visitor`. The two instances differ
/// only in `$map_key`, which allows decimal strings as floats, and in which
/// deserializer `visit_some`/`visit_newtype_struct` hand on (their own `$de`,
/// since a newtype key is still a key).
macro_rules! non_finite_deserializer {
    ($(#[$doc:meta])* $de:ident, $visitor:ident, map_key = $map_key:literal) => {
        impl<'de, D: Deserializer<'de>> Deserializer<'de> for $de<D> {
            type Error = D::Error;

            forward_deserialize! { $visitor;
                deserialize_any deserialize_bool
                deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64 deserialize_i128
                deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64 deserialize_u128
                deserialize_char deserialize_str deserialize_string
                deserialize_bytes deserialize_byte_buf
                deserialize_option deserialize_unit deserialize_seq deserialize_map
                deserialize_identifier deserialize_ignored_any
            }

            /// In a human-readable format, reads any value and lets the
            /// visitor wrapper turn the non-finite strings into floats;
            /// numbers and everything else go to `visitor` unchanged.
            fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
                if self.0.is_human_readable() {
                    self.0.deserialize_any($visitor::float(visitor, FloatKind::F32))
                } else {
                    self.0.deserialize_f32($visitor::new(visitor))
                }
            }

            /// See `deserialize_f32`.
            fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
                if self.0.is_human_readable() {
                    self.0.deserialize_any($visitor::float(visitor, FloatKind::F64))
                } else {
                    self.0.deserialize_f64($visitor::new(visitor))
                }
            }

            fn deserialize_unit_struct<V: Visitor<'de>>(
                self,
                name: &'static str,
                visitor: V,
            ) -> Result<V::Value, D::Error> {
                self.0.deserialize_unit_struct(name, $visitor::new(visitor))
            }

            fn deserialize_newtype_struct<V: Visitor<'de>>(
                self,
                name: &'static str,
                visitor: V,
            ) -> Result<V::Value, D::Error> {
                self.0.deserialize_newtype_struct(name, $visitor::new(visitor))
            }

            fn deserialize_tuple<V: Visitor<'de>>(
                self,
                len: usize,
                visitor: V,
            ) -> Result<V::Value, D::Error> {
                self.0.deserialize_tuple(len, $visitor::new(visitor))
            }

            fn deserialize_tuple_struct<V: Visitor<'de>>(
                self,
                name: &'static str,
                len: usize,
                visitor: V,
            ) -> Result<V::Value, D::Error> {
                self.0.deserialize_tuple_struct(name, len, $visitor::new(visitor))
            }

            fn deserialize_struct<V: Visitor<'de>>(
                self,
                name: &'static str,
                fields: &'static [&'static str],
                visitor: V,
            ) -> Result<V::Value, D::Error> {
                self.0.deserialize_struct(name, fields, $visitor::new(visitor))
            }

            fn deserialize_enum<V: Visitor<'de>>(
                self,
                name: &'static str,
                variants: &'static [&'static str],
                visitor: V,
            ) -> Result<V::Value, D::Error> {
                self.0.deserialize_enum(name, variants, $visitor::new(visitor))
            }

            fn is_human_readable(&self) -> bool {
                self.0.is_human_readable()
            }
        }

        $(#[$doc])*
        struct $visitor<V> {
            /// The caller's visitor.
            inner: V,
            /// `Some` when the caller asked for a float: then the non-finite
            /// strings are turned into that float.
            float: Option<FloatKind>,
        }

        impl<V> $visitor<V> {
            /// Wraps a visitor that did not ask for a float.
            fn new(inner: V) -> Self {
                Self { inner, float: None }
            }

            /// Wraps a visitor that asked for a float of the given kind.
            fn float(inner: V, kind: FloatKind) -> Self {
                Self { inner, float: Some(kind) }
            }
        }

        impl<'de, V: Visitor<'de>> $visitor<V> {
            /// If a float was asked for and `s` stands for one, visits that
            /// float; otherwise gives the caller's visitor back (as `Err`) so
            /// the string can be forwarded to it unchanged.
            fn visit_float_str<E: de::Error>(self, s: &str) -> Result<Result<V::Value, E>, V> {
                match self.float {
                    Some(FloatKind::F32) => match decode_f32(s, $map_key) {
                        Some(v) => Ok(self.inner.visit_f32(v)),
                        None => Err(self.inner),
                    },
                    Some(FloatKind::F64) => match decode_f64(s, $map_key) {
                        Some(v) => Ok(self.inner.visit_f64(v)),
                        None => Err(self.inner),
                    },
                    None => Err(self.inner),
                }
            }
        }

        impl<'de, V: Visitor<'de>> Visitor<'de> for $visitor<V> {
            type Value = V::Value;

            fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.inner.expecting(formatter)
            }

            forward_visit! {
                visit_bool(bool)
                visit_i8(i8) visit_i16(i16) visit_i32(i32) visit_i64(i64) visit_i128(i128)
                visit_u8(u8) visit_u16(u16) visit_u32(u32) visit_u64(u64) visit_u128(u128)
                visit_f32(f32) visit_f64(f64)
                visit_char(char)
                visit_bytes(&[u8]) visit_byte_buf(Vec<u8>)
            }

            fn visit_str<E: de::Error>(self, v: &str) -> Result<V::Value, E> {
                match self.visit_float_str(v) {
                    Ok(result) => result,
                    Err(inner) => inner.visit_str(v),
                }
            }

            /// Kept borrowed so that `&'de str` fields still deserialize.
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<V::Value, E> {
                match self.visit_float_str(v) {
                    Ok(result) => result,
                    Err(inner) => inner.visit_borrowed_str(v),
                }
            }

            fn visit_string<E: de::Error>(self, v: String) -> Result<V::Value, E> {
                match self.visit_float_str(&v) {
                    Ok(result) => result,
                    Err(inner) => inner.visit_string(v),
                }
            }

            /// Kept borrowed so that `&'de [u8]` fields still deserialize.
            fn visit_borrowed_bytes<E: de::Error>(self, v: &'de [u8]) -> Result<V::Value, E> {
                self.inner.visit_borrowed_bytes(v)
            }

            fn visit_none<E: de::Error>(self) -> Result<V::Value, E> {
                self.inner.visit_none()
            }

            fn visit_unit<E: de::Error>(self) -> Result<V::Value, E> {
                self.inner.visit_unit()
            }

            fn visit_some<D2: Deserializer<'de>>(
                self,
                deserializer: D2,
            ) -> Result<V::Value, D2::Error> {
                self.inner.visit_some($de(deserializer))
            }

            fn visit_newtype_struct<D2: Deserializer<'de>>(
                self,
                deserializer: D2,
            ) -> Result<V::Value, D2::Error> {
                self.inner.visit_newtype_struct($de(deserializer))
            }

            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<V::Value, A::Error> {
                self.inner.visit_seq(NonFiniteAccess(seq))
            }

            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
                self.inner.visit_map(NonFiniteAccess(map))
            }

            fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<V::Value, A::Error> {
                self.inner.visit_enum(NonFiniteAccess(data))
            }
        }
    };
}

non_finite_deserializer!(
    /// The visitor wrapper of [`NonFiniteDe`].
    NonFiniteDe, NonFiniteVisitor, map_key = false
);
non_finite_deserializer!(
    /// The visitor wrapper of [`MapKeyDe`].
    MapKeyDe, MapKeyVisitor, map_key = true
);

/// Wraps the `SeqAccess`, `MapAccess`, `EnumAccess` or `VariantAccess` a
/// format hands to a visitor, so that every nested seed is deserialized
/// through [`NonFiniteDe`] (map keys through [`MapKeyDe`]).
struct NonFiniteAccess<A>(A);

impl<'de, A: SeqAccess<'de>> SeqAccess<'de> for NonFiniteAccess<A> {
    type Error = A::Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, A::Error> {
        self.0.next_element_seed(NonFiniteSeed(seed))
    }

    fn size_hint(&self) -> Option<usize> {
        self.0.size_hint()
    }
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for NonFiniteAccess<A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        self.0.next_key_seed(MapKeySeed(seed))
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        self.0.next_value_seed(NonFiniteSeed(seed))
    }

    /// Forwarded as one call so a format's own `next_entry_seed` still runs.
    fn next_entry_seed<K: DeserializeSeed<'de>, V: DeserializeSeed<'de>>(
        &mut self,
        kseed: K,
        vseed: V,
    ) -> Result<Option<(K::Value, V::Value)>, A::Error> {
        self.0
            .next_entry_seed(MapKeySeed(kseed), NonFiniteSeed(vseed))
    }

    fn size_hint(&self) -> Option<usize> {
        self.0.size_hint()
    }
}

impl<'de, A: EnumAccess<'de>> EnumAccess<'de> for NonFiniteAccess<A> {
    type Error = A::Error;
    type Variant = NonFiniteAccess<A::Variant>;

    fn variant_seed<V: DeserializeSeed<'de>>(
        self,
        seed: V,
    ) -> Result<(V::Value, Self::Variant), A::Error> {
        let (value, variant) = self.0.variant_seed(NonFiniteSeed(seed))?;
        Ok((value, NonFiniteAccess(variant)))
    }
}

impl<'de, A: VariantAccess<'de>> VariantAccess<'de> for NonFiniteAccess<A> {
    type Error = A::Error;

    fn unit_variant(self) -> Result<(), A::Error> {
        self.0.unit_variant()
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, A::Error> {
        self.0.newtype_variant_seed(NonFiniteSeed(seed))
    }

    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, A::Error> {
        self.0.tuple_variant(len, NonFiniteVisitor::new(visitor))
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, A::Error> {
        self.0
            .struct_variant(fields, NonFiniteVisitor::new(visitor))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, HashMap};

    use serde::{Deserialize, Serialize};

    use super::{NonFiniteDe, NonFiniteSeed, NonFiniteValue};

    /// Writes `value` as JSON through the wrapper.
    fn to_json<T: ?Sized + Serialize>(value: &T) -> String {
        serde_json::to_string(&NonFiniteValue(value)).expect("serialize")
    }

    /// Reads a `T` from JSON through the wrapper, rejecting trailing input.
    fn from_json<'a, T: Deserialize<'a>>(json: &'a str) -> Result<T, serde_json::Error> {
        let mut de = serde_json::Deserializer::from_str(json);
        let value = T::deserialize(NonFiniteDe(&mut de))?;
        de.end()?;
        Ok(value)
    }

    /// Round-trips `value` through JSON and checks that writing the result
    /// gives the same text (which tells NaN, the infinities and -0.0 apart,
    /// where `==` cannot). Returns the value read back.
    fn round_trip<T: Serialize + for<'a> Deserialize<'a>>(value: &T) -> T {
        let json = to_json(value);
        let back: T = from_json(&json).unwrap_or_else(|e| panic!("reading {json}: {e}"));
        assert_eq!(to_json(&back), json);
        back
    }

    fn same_f64(a: f64, b: f64) -> bool {
        a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
    }

    fn same_f32(a: f32, b: f32) -> bool {
        a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
    }

    #[test]
    fn plain_serde_json_cannot_round_trip_non_finite() {
        // The problem this module solves.
        assert_eq!(serde_json::to_string(&f64::NAN).unwrap(), "null");
        assert!(serde_json::from_str::<f64>("null").is_err());
    }

    #[test]
    fn f64_scalars() {
        for (v, text) in [
            (f64::NAN, "\"NaN\""),
            (f64::INFINITY, "\"inf\""),
            (f64::NEG_INFINITY, "\"-inf\""),
            (1.5, "1.5"),
            (0.0, "0.0"),
            (-0.0, "-0.0"),
        ] {
            let json = to_json(&v);
            assert_eq!(json, text);
            let back: f64 = from_json(&json).unwrap();
            assert!(same_f64(v, back), "{v} came back as {back}");
        }
        let nan: f64 = from_json("\"NaN\"").unwrap();
        assert!(nan.is_nan());
        let neg_zero: f64 = from_json("-0.0").unwrap();
        assert!(neg_zero == 0.0 && neg_zero.is_sign_negative());
        let neg_inf: f64 = from_json("\"-inf\"").unwrap();
        assert_eq!(neg_inf, f64::NEG_INFINITY);
    }

    #[test]
    fn f32_scalars() {
        for (v, text) in [
            (f32::NAN, "\"NaN\""),
            (f32::INFINITY, "\"inf\""),
            (f32::NEG_INFINITY, "\"-inf\""),
            (0.1, "0.1"),
            (-0.0, "-0.0"),
        ] {
            let json = to_json(&v);
            assert_eq!(json, text);
            let back: f32 = from_json(&json).unwrap();
            assert!(same_f32(v, back), "{v} came back as {back}");
        }
        let nan: f32 = from_json("\"NaN\"").unwrap();
        assert!(nan.is_nan());
        let neg_zero: f32 = from_json("-0.0").unwrap();
        assert!(neg_zero == 0.0 && neg_zero.is_sign_negative());
    }

    /// Finite floats are written and read exactly as without the wrapper.
    #[test]
    #[cfg_attr(
        miri,
        ignore = "40,000 JSON round trips: minutes under Miri, no unsafe code"
    )]
    fn finite_floats_match_plain_serde_json() {
        let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = || {
            // xorshift64: a fixed pseudo-random sweep over bit patterns.
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut extremes = vec![
            f64::MAX,
            f64::MIN,
            f64::MIN_POSITIVE,
            5e-324,
            1e300,
            -1e-300,
        ];
        extremes.extend((0..20_000).map(|_| f64::from_bits(next())));
        for v in extremes.into_iter().filter(|v| v.is_finite()) {
            let plain = serde_json::to_string(&v).unwrap();
            assert_eq!(to_json(&v), plain);
            let wrapped: f64 = from_json(&plain).unwrap();
            let unwrapped: f64 = serde_json::from_str(&plain).unwrap();
            assert_eq!(wrapped.to_bits(), unwrapped.to_bits(), "{plain}");
        }
        for bits in (0..20_000).map(|_| next() as u32) {
            let v = f32::from_bits(bits);
            if !v.is_finite() {
                continue;
            }
            let plain = serde_json::to_string(&v).unwrap();
            assert_eq!(to_json(&v), plain);
            let wrapped: f32 = from_json(&plain).unwrap();
            let unwrapped: f32 = serde_json::from_str(&plain).unwrap();
            assert_eq!(wrapped.to_bits(), unwrapped.to_bits(), "{plain}");
            assert_eq!(wrapped.to_bits(), bits, "{plain}");
        }
    }

    #[derive(Debug, Serialize, Deserialize)]
    struct Body {
        mass: f32,
        velocity: [f64; 3],
        damping: f64,
        name: String,
        id: u32,
    }

    fn body(name: &str) -> Body {
        Body {
            mass: f32::INFINITY,
            velocity: [f64::NAN, -0.0, 2.5],
            damping: f64::NEG_INFINITY,
            name: name.to_owned(),
            id: 7,
        }
    }

    #[test]
    fn struct_with_float_fields() {
        let json = to_json(&body("ball"));
        assert_eq!(
            json,
            r#"{"mass":"inf","velocity":["NaN",-0.0,2.5],"damping":"-inf","name":"ball","id":7}"#
        );
        let back = round_trip(&body("ball"));
        assert_eq!(back.mass, f32::INFINITY);
        assert!(back.velocity[0].is_nan());
        assert!(back.velocity[1] == 0.0 && back.velocity[1].is_sign_negative());
        assert_eq!(back.damping, f64::NEG_INFINITY);
        assert_eq!((back.name.as_str(), back.id), ("ball", 7));
    }

    #[test]
    fn vec_of_f32() {
        let v = vec![
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            0.25,
            -0.0,
            1e-45,
        ];
        assert_eq!(to_json(&v), r#"["NaN","inf","-inf",0.25,-0.0,1e-45]"#);
        let back = round_trip(&v);
        assert_eq!(back.len(), v.len());
        assert!(v.iter().zip(&back).all(|(a, b)| same_f32(*a, *b)));
    }

    #[test]
    fn options() {
        for v in [Some(f64::NAN), Some(f64::NEG_INFINITY), Some(2.0), None] {
            let back = round_trip(&v);
            assert_eq!(back.is_some(), v.is_some());
            assert!(same_f64(back.unwrap_or(0.0), v.unwrap_or(0.0)));
        }
        assert_eq!(to_json(&None::<f64>), "null");
        let nested: Vec<Option<Option<f32>>> = vec![Some(Some(f32::INFINITY)), Some(None), None];
        // `Some(None)` and `None` are both `null` in JSON, with or without the wrapper.
        assert_eq!(to_json(&nested), r#"["inf",null,null]"#);
    }

    #[test]
    fn tuples() {
        let v = (
            f32::NAN,
            f64::INFINITY,
            String::from("NaN"),
            Some(-1.25f32),
            3u8,
        );
        assert_eq!(to_json(&v), r#"["NaN","inf","NaN",-1.25,3]"#);
        let back = round_trip(&v);
        assert!(back.0.is_nan());
        assert_eq!(back.1, f64::INFINITY);
        assert_eq!(back.2, "NaN");
        assert_eq!((back.3, back.4), (Some(-1.25), 3));
    }

    #[derive(Debug, Serialize, Deserialize)]
    enum Shape {
        Empty,
        Circle(f32),
        Rect(f64, f64),
        Poly {
            points: Vec<(f32, f32)>,
            scale: Option<f64>,
        },
    }

    #[test]
    fn enum_variants() {
        let shapes = vec![
            Shape::Empty,
            Shape::Circle(f32::NAN),
            Shape::Rect(f64::INFINITY, -0.0),
            Shape::Poly {
                points: vec![(0.5, f32::NEG_INFINITY), (f32::NAN, 1.0)],
                scale: Some(f64::NAN),
            },
        ];
        assert_eq!(
            to_json(&shapes),
            r#"["Empty",{"Circle":"NaN"},{"Rect":["inf",-0.0]},{"Poly":{"points":[[0.5,"-inf"],["NaN",1.0]],"scale":"NaN"}}]"#
        );
        let back = round_trip(&shapes);
        assert!(matches!(back[0], Shape::Empty));
        assert!(matches!(back[1], Shape::Circle(r) if r.is_nan()));
        assert!(matches!(back[2], Shape::Rect(w, h) if w == f64::INFINITY && h.is_sign_negative()));
        match &back[3] {
            Shape::Poly { points, scale } => {
                assert_eq!(points[0], (0.5, f32::NEG_INFINITY));
                assert!(points[1].0.is_nan() && points[1].1 == 1.0);
                assert!(scale.unwrap().is_nan());
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn hash_map_of_f32() {
        let map: HashMap<String, f32> = [
            ("nan".to_owned(), f32::NAN),
            ("up".to_owned(), f32::INFINITY),
            ("down".to_owned(), f32::NEG_INFINITY),
            ("one".to_owned(), 1.0),
        ]
        .into_iter()
        .collect();
        let back: HashMap<String, f32> = from_json(&to_json(&map)).unwrap();
        assert_eq!(back.len(), 4);
        assert!(back["nan"].is_nan());
        assert_eq!(back["up"], f32::INFINITY);
        assert_eq!(back["down"], f32::NEG_INFINITY);
        assert_eq!(back["one"], 1.0);
        // Integer keys still go through the format's own key parsing.
        let by_id: BTreeMap<u32, f64> = [(1, f64::NAN), (20, 0.5)].into_iter().collect();
        assert_eq!(to_json(&by_id), r#"{"1":"NaN","20":0.5}"#);
        let back = round_trip(&by_id);
        assert!(back[&1].is_nan() && back[&20] == 0.5);
    }

    /// A float usable as a map key (as `ordered_float` does).
    #[derive(Debug, Clone, Copy, Serialize, Deserialize)]
    struct Key(f64);

    impl PartialEq for Key {
        fn eq(&self, other: &Self) -> bool {
            self.0.total_cmp(&other.0).is_eq()
        }
    }
    impl Eq for Key {}
    impl PartialOrd for Key {
        fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
            Some(self.cmp(other))
        }
    }
    impl Ord for Key {
        fn cmp(&self, other: &Self) -> std::cmp::Ordering {
            self.0.total_cmp(&other.0)
        }
    }

    #[test]
    fn float_map_keys() {
        let map: BTreeMap<Key, u8> = [
            (Key(1.5), 1),
            (Key(-0.0), 2),
            (Key(f64::NAN), 3),
            (Key(f64::INFINITY), 4),
            (Key(f64::NEG_INFINITY), 5),
            (Key(1e300), 6),
        ]
        .into_iter()
        .collect();
        let json = to_json(&map);
        assert_eq!(
            json,
            r#"{"-inf":5,"-0.0":2,"1.5":1,"1e+300":6,"inf":4,"NaN":3}"#
        );
        // Finite float keys were already readable without the wrapper.
        let finite = r#"{"-0.0":2,"1.5":1}"#;
        let plain: BTreeMap<Key, u8> = serde_json::from_str(finite).unwrap();
        let wrapped: BTreeMap<Key, u8> = from_json(finite).unwrap();
        assert_eq!(plain, wrapped);
        let back = round_trip(&map);
        assert_eq!(back, map);
        let raw: BTreeMap<Key, u8> = from_json(r#"{"2":1}"#).unwrap();
        assert_eq!(raw.keys().next(), Some(&Key(2.0)));
        // Words are still rejected as keys.
        assert!(from_json::<BTreeMap<Key, u8>>(r#"{"infinity":1}"#).is_err());
        assert!(from_json::<BTreeMap<Key, u8>>(r#"{"abc":1}"#).is_err());
    }

    #[derive(Debug, Serialize, Deserialize)]
    struct Node {
        weight: f64,
        children: Vec<Node>,
    }

    #[derive(Debug, Serialize, Deserialize)]
    struct Meters(f32);

    #[derive(Debug, Serialize, Deserialize)]
    struct World {
        bodies: Vec<Body>,
        shapes: BTreeMap<String, Shape>,
        tree: Node,
        height: Meters,
        gravity: Option<Box<[f32; 2]>>,
    }

    #[test]
    fn nested_structs() {
        let world = World {
            bodies: vec![body("a"), body("NaN")],
            shapes: [("c".to_owned(), Shape::Circle(f32::INFINITY))]
                .into_iter()
                .collect(),
            tree: Node {
                weight: 1.0,
                children: vec![Node {
                    weight: f64::NAN,
                    children: vec![Node {
                        weight: f64::NEG_INFINITY,
                        children: vec![],
                    }],
                }],
            },
            height: Meters(f32::NAN),
            gravity: Some(Box::new([0.0, f32::NEG_INFINITY])),
        };
        let back = round_trip(&world);
        assert_eq!(back.bodies[1].name, "NaN");
        assert!(back.bodies[1].velocity[0].is_nan());
        assert!(back.tree.children[0].weight.is_nan());
        assert_eq!(back.tree.children[0].children[0].weight, f64::NEG_INFINITY);
        assert!(back.height.0.is_nan());
        assert_eq!(back.gravity.unwrap()[1], f32::NEG_INFINITY);
    }

    #[derive(Debug, Serialize, Deserialize)]
    struct Label {
        text: String,
        size: f32,
        alt: Option<String>,
    }

    #[test]
    fn strings_stay_strings() {
        let s: String = from_json("\"NaN\"").unwrap();
        assert_eq!(s, "NaN");
        let label = Label {
            text: "inf".into(),
            size: f32::INFINITY,
            alt: Some("-inf".into()),
        };
        assert_eq!(
            to_json(&label),
            r#"{"text":"inf","size":"inf","alt":"-inf"}"#
        );
        let back = round_trip(&label);
        assert_eq!(back.text, "inf");
        assert_eq!(back.size, f32::INFINITY);
        assert_eq!(back.alt.as_deref(), Some("-inf"));
        // Escaped strings arrive through `visit_str` rather than `visit_borrowed_str`.
        let escaped: f64 = from_json(r#""\u004EaN""#).unwrap();
        assert!(escaped.is_nan());
        let escaped: String = from_json(r#""\u004EaN""#).unwrap();
        assert_eq!(escaped, "NaN");
    }

    #[derive(Debug, Deserialize)]
    struct Borrowed<'a> {
        #[serde(borrow)]
        name: &'a str,
        #[serde(borrow)]
        raw: &'a [u8],
        x: f64,
    }

    #[test]
    fn borrowed_str_and_bytes_stay_borrowed() {
        let json = r#"{"name":"NaN","raw":"inf","x":"NaN"}"#;
        let b: Borrowed<'_> = from_json(json).unwrap();
        assert_eq!(b.name, "NaN");
        assert_eq!(b.raw, b"inf");
        assert!(b.x.is_nan());
    }

    #[derive(Debug, Deserialize)]
    struct OneF32 {
        #[allow(dead_code)]
        x: f32,
    }

    #[derive(Debug, Deserialize)]
    struct OneF64 {
        #[allow(dead_code)]
        x: f64,
    }

    /// Errors are the ones serde_json gives without the wrapper.
    #[test]
    fn other_strings_are_rejected_like_before() {
        for json in [
            r#"{"x":"hello"}"#,
            r#"{"x":null}"#,
            r#"{"x":true}"#,
            r#"{"x":-}"#,
        ] {
            let wrapped = from_json::<OneF32>(json).unwrap_err().to_string();
            let plain = serde_json::from_str::<OneF32>(json)
                .unwrap_err()
                .to_string();
            assert_eq!(wrapped, plain, "{json}");
        }
        // For an array or object the message is the same, but the reported
        // column is one further on: `deserialize_any` has stepped into it.
        for (json, message) in [
            (r#"{"x":[1]}"#, "invalid type: sequence, expected f32"),
            (r#"{"x":{}}"#, "invalid type: map, expected f32"),
        ] {
            let wrapped = from_json::<OneF32>(json).unwrap_err().to_string();
            let plain = serde_json::from_str::<OneF32>(json)
                .unwrap_err()
                .to_string();
            assert!(
                wrapped.starts_with(message) && plain.starts_with(message),
                "{wrapped} / {plain}"
            );
        }
        let err = from_json::<OneF32>(r#"{"x":"hello"}"#)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains(r#"invalid type: string "hello", expected f32"#),
            "{err}"
        );
        let err = from_json::<OneF64>(r#"{"x":"hello"}"#)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains(r#"invalid type: string "hello", expected f64"#),
            "{err}"
        );
        // Only the three exact spellings are taken, and numbers in strings are
        // not taken outside map keys.
        for s in ["nan", "NAN", "Infinity", "+inf", "-NaN", "1.5", ""] {
            let json = format!(r#"{{"x":"{s}"}}"#);
            let err = from_json::<OneF64>(&json).unwrap_err().to_string();
            assert!(err.contains("invalid type: string"), "{json}: {err}");
        }
    }

    #[test]
    fn integers_read_as_floats() {
        let one: OneF32 = from_json(r#"{"x":1}"#).unwrap();
        assert_eq!(one.x, 1.0);
        let neg: f64 = from_json("-3").unwrap();
        assert_eq!(neg, -3.0);
        let big: f32 = from_json("16777217").unwrap();
        assert_eq!(big, serde_json::from_str::<f32>("16777217").unwrap());
        let huge: f64 = from_json("18446744073709551615").unwrap();
        assert_eq!(huge, 18446744073709551615u64 as f64);
    }

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Marker;

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Misc {
        unit: (),
        marker: Marker,
        flag: bool,
        letter: char,
        big: i128,
        ubig: u128,
        small: i8,
        bytes: Vec<u8>,
    }

    #[test]
    fn non_float_values_are_untouched() {
        let misc = Misc {
            unit: (),
            marker: Marker,
            flag: true,
            letter: 'n',
            big: i128::MIN,
            ubig: u128::MAX,
            small: -5,
            bytes: vec![1, 2],
        };
        let json = to_json(&misc);
        assert_eq!(json, serde_json::to_string(&misc).unwrap());
        assert_eq!(from_json::<Misc>(&json).unwrap(), misc);
    }

    #[test]
    fn seed_wrapper() {
        use serde::de::DeserializeSeed;
        let mut de = serde_json::Deserializer::from_str(r#"["inf", 2]"#);
        let v = NonFiniteSeed(std::marker::PhantomData::<(f64, f32)>)
            .deserialize(&mut de)
            .unwrap();
        assert_eq!(v, (f64::INFINITY, 2.0));
    }

    /// With a compact format the wrappers change nothing: same bytes, and the
    /// deserializer never calls `deserialize_any` (which postcard rejects).
    #[test]
    fn postcard_is_untouched() {
        let payload_nan = f32::from_bits(0x7fc0_1234);
        let value = (
            body("p"),
            vec![payload_nan, f32::NEG_INFINITY],
            Shape::Rect(f64::NAN, 1.0),
        );
        let plain = postcard::to_allocvec(&value).unwrap();
        let wrapped = postcard::to_allocvec(&NonFiniteValue(&value)).unwrap();
        assert_eq!(plain, wrapped);

        let mut de = postcard::Deserializer::from_bytes(&wrapped);
        let back = <(Body, Vec<f32>, Shape)>::deserialize(NonFiniteDe(&mut de)).unwrap();
        // postcard keeps NaN payloads, and so does the wrapper on that path.
        assert_eq!(back.1[0].to_bits(), payload_nan.to_bits());
        assert_eq!(back.1[1], f32::NEG_INFINITY);
        assert_eq!(back.0.mass, f32::INFINITY);
        assert!(matches!(back.2, Shape::Rect(w, h) if w.is_nan() && h == 1.0));
        assert_eq!(postcard::to_allocvec(&back).unwrap(), plain);
    }

    // ---- Limitations: types that buffer their input via `deserialize_any`.

    #[derive(Debug, Serialize, Deserialize)]
    #[serde(untagged)]
    enum Untagged {
        Number(f64),
        Text(String),
    }

    #[derive(Debug, Serialize, Deserialize)]
    #[serde(untagged)]
    enum UntaggedStruct {
        Point { x: f32 },
    }

    #[derive(Debug, Serialize, Deserialize)]
    #[serde(tag = "kind")]
    enum Internal {
        Circle { r: f32 },
    }

    #[derive(Debug, Serialize, Deserialize)]
    #[serde(tag = "kind", content = "data")]
    enum Adjacent {
        Circle { r: f32 },
    }

    #[derive(Debug, Serialize, Deserialize)]
    struct Inner {
        x: f64,
    }

    #[derive(Debug, Serialize, Deserialize)]
    struct Flattened {
        #[serde(flatten)]
        inner: Inner,
        id: u32,
    }

    #[test]
    fn limitation_buffered_types() {
        // Writing works everywhere.
        assert_eq!(to_json(&Untagged::Number(f64::NAN)), r#""NaN""#);
        assert_eq!(
            to_json(&Internal::Circle { r: f32::NAN }),
            r#"{"kind":"Circle","r":"NaN"}"#
        );
        let flat = Flattened {
            inner: Inner { x: f64::INFINITY },
            id: 1,
        };
        assert_eq!(to_json(&flat), r#"{"x":"inf","id":1}"#);

        // Untagged with a string variant: the NaN silently comes back as text.
        let back: Untagged = from_json(&to_json(&Untagged::Number(f64::NAN))).unwrap();
        assert!(
            matches!(back, Untagged::Text(ref s) if s == "NaN"),
            "{back:?}"
        );
        // Finite numbers are fine.
        let back: Untagged = from_json(&to_json(&Untagged::Number(2.5))).unwrap();
        assert!(matches!(back, Untagged::Number(v) if v == 2.5));

        // Otherwise reading fails with an error.
        let err = from_json::<UntaggedStruct>(&to_json(&UntaggedStruct::Point { x: f32::NAN }))
            .unwrap_err();
        assert!(
            err.to_string().contains("did not match any variant"),
            "{err}"
        );
        let err = from_json::<Internal>(&to_json(&Internal::Circle { r: f32::NAN })).unwrap_err();
        assert!(
            err.to_string().contains("invalid type: string \"NaN\""),
            "{err}"
        );
        let err = from_json::<Flattened>(&to_json(&flat)).unwrap_err();
        assert!(
            err.to_string().contains("invalid type: string \"inf\""),
            "{err}"
        );

        // Adjacently tagged enums read the content directly (tag first), so
        // they work.
        let back: Adjacent = from_json(&to_json(&Adjacent::Circle { r: f32::NAN })).unwrap();
        assert!(matches!(back, Adjacent::Circle { r } if r.is_nan()));
    }

    #[test]
    fn limitation_json_value_keeps_strings() {
        let v: serde_json::Value = from_json(r#"{"a":"NaN","b":1.5}"#).unwrap();
        assert_eq!(v["a"], serde_json::Value::String("NaN".into()));
        assert_eq!(v["b"], serde_json::json!(1.5));
        assert_eq!(to_json(&v), r#"{"a":"NaN","b":1.5}"#);
    }
}
