//! World snapshots on every backend: round trips in both formats, merging, remapped
//! handles, every class of bad input (each compared before and after), loads across
//! backends, property tests over random worlds, a bounded mutation fuzz, and the soundness
//! regressions (`soundness_*`, which CI also runs under Miri).
//!
//! The components, registry, recipes and dumps are `ecs_fuzz::snapshot::kit`'s, shared with
//! the fuzzers.

mod bad_input;
mod basics;
mod cross;
mod fuzz;
mod largest;
mod props;
mod soundness;

#[path = "../common/backends.rs"]
#[macro_use]
mod backends;

#[global_allocator]
static ALLOCATOR: largest::Tracking = largest::Tracking;

backends! {
    basics::round_trip_json => round_trip_json,
    basics::round_trip_postcard => round_trip_postcard,
    basics::merge_into_a_world_with_entities => merge,
    basics::handles_inside_values_are_remapped => remap,
    basics::hierarchy_keeps_parents_and_child_order => hierarchy,
    basics::named_instances_and_runtime_components => named_and_runtime,
    basics::loaded_components_count_as_added => added,
    basics::saves_are_deterministic => deterministic,
    basics::read_then_commit => read_then_commit,
    basics::empty_world_and_empty_registry => empty,
    basics::unregistered_components_are_left_out => unregistered,
    basics::layout_bytes_equal_memory_usage_after_a_load => layout_after_load,
    bad_input::truncated => truncated,
    bad_input::malformed => malformed,
    bad_input::wrong_value_types => wrong_value_types,
    bad_input::unknown_names => unknown_names,
    bad_input::duplicates => duplicates,
    bad_input::dangling_references => dangling_references,
    bad_input::rows_and_counts => rows_and_counts,
    bad_input::absurd_lengths => absurd_lengths,
    bad_input::names_taken => names_taken,
    bad_input::hierarchy_not_a_forest => hierarchy_not_a_forest,
    bad_input::codecs_and_layouts => codecs_and_layouts,
    bad_input::version_and_fields => version_and_fields,
    soundness::soundness_codec_functions_round_trip => soundness_codec_functions,
    soundness::soundness_drop_nature_mismatch_is_refused => soundness_drop_mismatch,
    soundness::soundness_instance_shadowing_a_type_name_round_trips => soundness_shadowing_names,
    soundness::soundness_non_finite_floats_round_trip_through_json => soundness_non_finite_json,
}
