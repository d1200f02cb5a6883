//! Every class of bad input: an error naming what is wrong and where, no panic, no
//! allocation sized by a length the input states, and the target world exactly as before
//! (compared by [`Fingerprint`] around every failed load).

use std::alloc::Layout;

use crate::kit::snapshot::target_steps;
use crate::kit::snapshot::{build, Fingerprint};
use ecs_core::snapshot::SnapshotErrorKind as Kind;
use ecs_core::{ComponentDescriptor, Entity, Storage, StorageKind, World};
use serde_json::{json, Value};

use super::basics::{binary, json as to_json, load_binary, load_json, sample_steps};
use crate::kit::largest;

/// Input in one of the two formats.
enum Input {
    Json(String),
    Binary(Vec<u8>),
}

/// Loads `input` into `world`, expecting a refusal: returns the error after checking that
/// the world did not change.
fn refused<S: Storage>(world: &mut World<S>, input: Input) -> ecs_core::snapshot::SnapshotError {
    let before = Fingerprint::of(world);
    let result = match &input {
        Input::Json(text) => load_json(world, text),
        Input::Binary(bytes) => load_binary(world, bytes),
    };
    let err = match result {
        Ok(map) => panic!("loaded {} entities from bad input", map.len()),
        Err(err) => err,
    };
    assert!(!err.to_string().is_empty());
    assert_eq!(
        Fingerprint::of(world),
        before,
        "a failed load changed the world: {err}"
    );
    err
}

/// Asserts the error's kind (a pattern) and location.
macro_rules! refuses {
    ($world:expr, $input:expr, $kind:pat, $location:expr) => {{
        let err = refused($world, $input);
        assert!(matches!(err.kind(), $kind), "{err}");
        assert_eq!(err.location(), $location, "{err}");
        err
    }};
}

/// The sample world as a JSON value.
fn sample<S: Storage>() -> Value {
    serde_json::from_str(&to_json(&build::<S>(&sample_steps()))).unwrap()
}

/// `value` changed by `edit`, as text.
fn edited(mut value: Value, edit: impl FnOnce(&mut Value)) -> Input {
    edit(&mut value);
    Input::Json(text(&value))
}

/// `value` as JSON text with the snapshot's fields in the order a load reads them (a
/// `serde_json::Value` keeps object keys sorted, which the loader would refuse).
fn text(value: &Value) -> String {
    const ORDER: [&str; 10] = [
        "format",
        "entities",
        "components",
        "hierarchy",
        "resources",
        "name",
        "instance",
        "rows",
        "values",
        "value",
    ];
    let rank = |key: &str| ORDER.iter().position(|&k| k == key).unwrap_or(ORDER.len());
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort_by_key(|k| (rank(k), k.as_str()));
            let fields: Vec<String> = keys
                .into_iter()
                .map(|k| format!("{}:{}", Value::String(k.clone()), text(&map[k])))
                .collect();
            format!("{{{}}}", fields.join(","))
        }
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(text).collect();
            format!("[{}]", items.join(","))
        }
        leaf => leaf.to_string(),
    }
}

/// The index of the column named `name` (unnamed).
fn column(value: &Value, name: &str) -> usize {
    value["components"]
        .as_array()
        .unwrap()
        .iter()
        .position(|c| c["name"] == name && c["instance"].is_null())
        .unwrap_or_else(|| panic!("no column {name}"))
}

/// `components[i] ("Name")` plus `rest`.
fn at(i: usize, name: &str, rest: &str) -> String {
    format!("components[{i}] ({name:?}){rest}")
}

fn target<S: Storage>() -> World<S> {
    build(&target_steps())
}

/// Input cut short at any point, binary or JSON, is refused as a format error with the world
/// unchanged, and the error says where the input ended.
pub fn truncated<S: Storage>() {
    let mut world = target::<S>();
    let bytes = binary(&build::<S>(&sample_steps()));
    for cut in 0..bytes.len() {
        let err = refused(&mut world, Input::Binary(bytes[..cut].to_vec()));
        assert!(matches!(err.kind(), Kind::Format(_)), "cut at {cut}: {err}");
    }
    let text = to_json(&build::<S>(&sample_steps()));
    for cut in (0..text.len()).step_by(3) {
        let err = refused(&mut world, Input::Json(text[..cut].to_owned()));
        assert!(matches!(err.kind(), Kind::Format(_)), "cut at {cut}: {err}");
    }
    // Where: inside the first value of the first column.
    let values = text.find(r#""values":["#).unwrap() + r#""values":["#.len();
    let err = refused(&mut world, Input::Json(text[..values + 2].to_owned()));
    assert_eq!(err.location(), at(0, "Pos", ".values[0]"), "{err}");
}

/// Malformed JSON, JSON given to the binary loader and random bytes are refused with the world
/// unchanged: a load never panics or half-applies on garbage.
pub fn malformed<S: Storage>() {
    let mut world = target::<S>();
    let text = to_json(&build::<S>(&sample_steps()));
    for bad in [
        text.replacen(':', ";", 1),
        text.replacen('{', "(", 1),
        text.replacen(',', ",,", 3),
        text.replacen(']', "}", 1),
        "hello".to_owned(),
        String::new(),
    ] {
        let err = refused(&mut world, Input::Json(bad));
        assert!(matches!(err.kind(), Kind::Format(_)), "{err}");
    }
    let json_as_binary = text.into_bytes();
    refused(&mut world, Input::Binary(json_as_binary));
    refused(&mut world, Input::Binary(vec![0xFF; 64]));
}

/// A value of the wrong type, in a column, the entity list, the rows, a handle, the hierarchy
/// or a resource, is refused as a format error that names its location.
pub fn wrong_value_types<S: Storage>() {
    let mut world = target::<S>();
    let snapshot = sample::<S>();
    let pos = column(&snapshot, "Pos");
    let label = column(&snapshot, "Label");
    let targets = column(&snapshot, "Target");
    let cases: Vec<(Input, String)> = vec![
        (
            edited(snapshot.clone(), |v| {
                v["components"][pos]["values"][1] = json!("text")
            }),
            at(pos, "Pos", ".values[1]"),
        ),
        (
            edited(snapshot.clone(), |v| {
                v["components"][label]["values"][0] = json!(5)
            }),
            at(label, "Label", ".values[0]"),
        ),
        (
            edited(snapshot.clone(), |v| v["entities"][2] = json!(true)),
            "entities[2]".to_owned(),
        ),
        (
            edited(snapshot.clone(), |v| {
                v["components"][pos]["rows"] = json!("x")
            }),
            at(pos, "Pos", ".rows"),
        ),
        (
            edited(snapshot.clone(), |v| {
                v["components"][targets]["values"][0]["primary"] = json!("3x4")
            }),
            at(targets, "Target", ".values[0]"),
        ),
        (
            edited(snapshot.clone(), |v| v["hierarchy"][0] = json!([1, -2])),
            "hierarchy[0]".to_owned(),
        ),
        (
            edited(snapshot.clone(), |v| v["resources"][0]["value"] = json!(-1)),
            r#"resources[0] ("Score").value"#.to_owned(),
        ),
    ];
    for (input, location) in cases {
        refuses!(&mut world, input, Kind::Format(_), location);
    }
}

/// A column or resource whose name the registry does not know is refused with an error naming
/// it and its place, and the world is left unchanged.
pub fn unknown_names<S: Storage>() {
    let mut world = target::<S>();
    let snapshot = sample::<S>();
    let label = column(&snapshot, "Label");
    let input = edited(snapshot.clone(), |v| {
        v["components"][label]["name"] = json!("Velocity")
    });
    let err = refuses!(
        &mut world,
        input,
        Kind::UnknownComponent(_),
        format!("components[{label}]")
    );
    assert_eq!(err.kind(), &Kind::UnknownComponent("Velocity".into()));
    let input = edited(snapshot, |v| v["resources"][0]["name"] = json!("Gold"));
    refuses!(&mut world, input, Kind::UnknownResource(_), "resources[0]");
}

/// A repeated entity, column or resource, or a row given two values by overlapping runs, is
/// refused at the repeat, with the world unchanged.
pub fn duplicates<S: Storage>() {
    let mut world = target::<S>();
    let snapshot = sample::<S>();
    let input = edited(snapshot.clone(), |v| {
        v["entities"][3] = v["entities"][1].clone()
    });
    refuses!(&mut world, input, Kind::DuplicateEntity(_), "entities[3]");
    let pos = column(&snapshot, "Pos");
    let input = edited(snapshot.clone(), |v| {
        let copy = v["components"][pos].clone();
        v["components"].as_array_mut().unwrap().push(copy);
    });
    let last = snapshot["components"].as_array().unwrap().len();
    refuses!(
        &mut world,
        input,
        Kind::DuplicateColumn(_),
        format!("components[{last}]")
    );
    let input = edited(snapshot.clone(), |v| {
        let copy = v["resources"][0].clone();
        v["resources"].as_array_mut().unwrap().push(copy);
    });
    refuses!(
        &mut world,
        input,
        Kind::DuplicateResource(_),
        "resources[1]"
    );
    // Overlapping runs: row 1 given two values.
    let input = edited(snapshot, |v| {
        v["components"][pos]["rows"] = json!([[0, 2], [1, 1]]);
        v["components"][pos]["values"] =
            json!([{"x": 0.0, "y": 0.0}, {"x": 1.0, "y": 0.0}, {"x": 2.0, "y": 0.0}]);
    });
    refuses!(
        &mut world,
        input,
        Kind::DuplicateRow(1),
        at(pos, "Pos", ".rows[1]")
    );
}

/// A handle inside a value that names no saved entity, including a saved index of another
/// generation and one inside a run-time component, is refused: a load never creates handles
/// to entities that do not exist.
pub fn dangling_references<S: Storage>() {
    let mut world = target::<S>();
    let snapshot = sample::<S>();
    let targets = column(&snapshot, "Target");
    let input = edited(snapshot.clone(), |v| {
        v["components"][targets]["values"][0]["primary"] = json!("999v1")
    });
    let err = refuses!(
        &mut world,
        input,
        Kind::DanglingEntity(_),
        at(targets, "Target", ".values[0]")
    );
    assert_eq!(
        err.kind(),
        &Kind::DanglingEntity(Entity::new(999, 1).unwrap())
    );
    // A saved handle of another generation is another entity.
    let input = edited(snapshot.clone(), |v| {
        let first = v["entities"][0].as_str().unwrap().replace("v1", "v7");
        v["components"][targets]["values"][0]["others"][0] = json!(first);
    });
    refuses!(
        &mut world,
        input,
        Kind::DanglingEntity(_),
        at(targets, "Target", ".values[0]")
    );
    // Inside a run-time component, through its codec's `map_entities`.
    let link = column(&snapshot, "Link");
    let stranger = Entity::new(500, 3).unwrap().to_bits().to_le_bytes();
    let input = edited(snapshot, |v| {
        v["components"][link]["values"][0] = json!(stranger)
    });
    refuses!(
        &mut world,
        input,
        Kind::DanglingEntity(_),
        at(link, "Link", ".values[0]")
    );
}

/// Rows past the entity list, empty runs, value counts that do not match the rows, and
/// hierarchy rows out of range are refused at their place, with the world unchanged.
pub fn rows_and_counts<S: Storage>() {
    let mut world = target::<S>();
    let snapshot = sample::<S>();
    let n = snapshot["entities"].as_array().unwrap().len() as u64;
    let pos = column(&snapshot, "Pos");
    let rows = |r: Value| edited(snapshot.clone(), move |v| v["components"][pos]["rows"] = r);
    refuses!(
        &mut world,
        rows(json!([[0, n + 1]])),
        Kind::RowOutOfRange { .. },
        at(pos, "Pos", ".rows[0]")
    );
    refuses!(
        &mut world,
        rows(json!([[4294967295u32, 4294967295u32]])),
        Kind::RowOutOfRange { .. },
        at(pos, "Pos", ".rows[0]")
    );
    refuses!(
        &mut world,
        rows(json!([[0, 0]])),
        Kind::EmptyRun,
        at(pos, "Pos", ".rows[0]")
    );
    refuses!(
        &mut world,
        rows(json!([[0, 1]])),
        Kind::ValueCount { rows: 1, .. },
        at(pos, "Pos", ".values")
    );
    let input = edited(snapshot.clone(), |v| {
        v["components"][pos]["values"]
            .as_array_mut()
            .unwrap()
            .push(json!({"x": 0.0, "y": 0.0}));
    });
    refuses!(
        &mut world,
        input,
        Kind::ValueCount { .. },
        at(pos, "Pos", ".values")
    );
    let input = edited(snapshot.clone(), |v| v["hierarchy"][0] = json!([0, n]));
    refuses!(
        &mut world,
        input,
        Kind::RowOutOfRange { .. },
        "hierarchy[0]"
    );
}

/// Lengths of 2^62 stated in binary input never size an allocation beyond what the input
/// holds: the load fails with a small allocation and the world unchanged.
pub fn absurd_lengths<S: Storage>() {
    let mut world = target::<S>();
    let mut absurd = |bytes: Vec<u8>| {
        let before = Fingerprint::of(&world);
        largest::reset();
        let err = load_binary(&mut world, &bytes).unwrap_err();
        let biggest = largest::largest();
        assert!(
            biggest <= 1 << 20,
            "{biggest} bytes allocated at once for {err}"
        );
        assert_eq!(Fingerprint::of(&world), before);
        err
    };
    let huge = u64::MAX >> 2;
    // An entity list of 2^62 bytes announced, one handle (index 0, generation 1) given.
    let mut bytes = vec![1];
    varint(&mut bytes, huge);
    bytes.extend([0, 1]);
    assert_eq!(absurd(bytes).location(), "entities");
    // One entity (its packed handle: 2 bytes), then 2^62 columns announced.
    let one_entity = || vec![1, 2, 0, 1];
    let mut bytes = one_entity();
    varint(&mut bytes, huge);
    absurd(bytes);
    // A column of 2^62 rows and 2^62 values for one entity.
    let column = |bytes: &mut Vec<u8>, name: &str| {
        varint(bytes, 1);
        varint(bytes, name.len() as u64);
        bytes.extend_from_slice(name.as_bytes());
        bytes.push(0); // no instance
    };
    let mut bytes = one_entity();
    column(&mut bytes, "Pos");
    varint(&mut bytes, huge);
    absurd(bytes);
    let mut bytes = one_entity();
    column(&mut bytes, "Label");
    bytes.extend([1, 0, 1]); // rows [[0, 1]]
    varint(&mut bytes, huge);
    bytes.extend([2, b'h', b'i']);
    let err = absurd(bytes);
    assert!(
        matches!(err.kind(), Kind::ValueCount { .. } | Kind::Format(_)),
        "{err}"
    );
    // A string and a byte string of 2^62 bytes.
    let mut bytes = one_entity();
    column(&mut bytes, "Label");
    bytes.extend([1, 0, 1, 1]);
    varint(&mut bytes, huge);
    absurd(bytes);
    let mut bytes = one_entity();
    column(&mut bytes, "Raw");
    bytes.extend([1, 0, 1, 1]);
    varint(&mut bytes, huge);
    absurd(bytes);
    // 2^62 zero-sized values: they take no input, so only the rows bound the loop.
    let mut bytes = one_entity();
    column(&mut bytes, "Tag");
    bytes.extend([1, 0, 1]);
    varint(&mut bytes, huge);
    let err = absurd(bytes);
    assert!(
        matches!(err.kind(), Kind::ValueCount { rows: 1, values: 2 }),
        "{err}"
    );
}

/// Appends `value` as a postcard varint.
fn varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push(value as u8 | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// Two instances of different components under one name on one entity are refused, as a world
/// cannot find both by that name.
pub fn names_taken<S: Storage>() {
    let mut world = target::<S>();
    let snapshot = sample::<S>();
    let count = snapshot["components"].as_array().unwrap().len();
    // Two instances of different components under one name.
    let input = edited(snapshot, |v| {
        let fx = json!({"name": "Fx", "instance": "Twin", "rows": [[0, 1]], "values": [1]});
        let raw =
            json!({"name": "Raw", "instance": "Twin", "rows": [[0, 1]], "values": [[1, 2, 3, 4]]});
        v["components"].as_array_mut().unwrap().extend([fx, raw]);
    });
    refuses!(
        &mut world,
        input,
        Kind::NameTaken { row: 0, .. },
        at(count + 1, "Raw", "")
    );
}

/// Hierarchy links where an entity is its own parent, has two parents or closes a cycle are
/// refused, so a load can never create a cycle in the world's tree.
pub fn hierarchy_not_a_forest<S: Storage>() {
    let mut world = target::<S>();
    let snapshot = sample::<S>();
    let links = |l: Value| edited(snapshot.clone(), move |v| v["hierarchy"] = l);
    refuses!(
        &mut world,
        links(json!([[1, 1]])),
        Kind::Hierarchy(_),
        "hierarchy[0]"
    );
    refuses!(
        &mut world,
        links(json!([[1, 0], [1, 2]])),
        Kind::Hierarchy(_),
        "hierarchy[1]"
    );
    refuses!(
        &mut world,
        links(json!([[0, 1], [1, 2], [2, 0]])),
        Kind::Hierarchy(_),
        "hierarchy[0]"
    );
    refuses!(
        &mut world,
        links(json!([[3, 0], [0, 1], [1, 2], [2, 1]])),
        Kind::Hierarchy(_),
        "hierarchy[0]"
    );
}

/// Bytes a run-time component's codec rejects are refused at the value, and a column whose
/// layout differs from the world's own component of that name is refused.
pub fn codecs_and_layouts<S: Storage>() {
    let mut world = target::<S>();
    let snapshot = sample::<S>();
    let raw = column(&snapshot, "Raw");
    let link = column(&snapshot, "Link");
    let input = edited(snapshot.clone(), |v| {
        v["components"][raw]["values"][0] = json!([1, 2, 3])
    });
    refuses!(
        &mut world,
        input,
        Kind::Codec(_),
        at(raw, "Raw", ".values[0]")
    );
    let input = edited(snapshot.clone(), |v| {
        v["components"][link]["values"][0] = json!([0, 0, 0, 0, 0, 0, 0, 0])
    });
    refuses!(
        &mut world,
        input,
        Kind::Codec(_),
        at(link, "Link", ".values[0]")
    );
    // The world has its own run-time "Raw", of another layout.
    let mut other = World::<S>::new();
    other.register_dynamic(ComponentDescriptor {
        name: "Raw".into(),
        layout: Layout::new::<u64>(),
        drop: None,
        storage: StorageKind::Table,
    });
    let input = Input::Json(text(&snapshot));
    refuses!(
        &mut other,
        input,
        Kind::LayoutMismatch(_),
        at(raw, "Raw", "")
    );
}

/// An unsupported format version, a missing or unknown field, and fields out of order are
/// refused with errors naming the field.
pub fn version_and_fields<S: Storage>() {
    let mut world = target::<S>();
    let snapshot = sample::<S>();
    let input = edited(snapshot.clone(), |v| v["format"] = json!(2));
    refuses!(
        &mut world,
        input,
        Kind::Version {
            found: 2,
            supported: 1
        },
        "format"
    );
    let input = edited(snapshot.clone(), |v| {
        v.as_object_mut().unwrap().remove("resources");
    });
    refuses!(&mut world, input, Kind::Format(_), "resources");
    let input = edited(snapshot.clone(), |v| v["extra"] = json!(1));
    let err = refuses!(&mut world, input, Kind::Format(_), "");
    assert!(
        err.to_string().contains("unexpected field `extra`"),
        "{err}"
    );
    // Fields in another order (a column's values before its name).
    let pos = column(&snapshot, "Pos");
    let name = r#"{"name":"Pos","instance":null,"#;
    let mut reordered = text(&snapshot);
    assert!(reordered.contains(name));
    reordered = reordered.replacen(name, r#"{"instance":null,"name":"Pos","#, 1);
    let err = refuses!(
        &mut world,
        Input::Json(reordered),
        Kind::Format(_),
        format!("components[{pos}].name")
    );
    assert!(err.to_string().contains("expected field `name`"), "{err}");
}
