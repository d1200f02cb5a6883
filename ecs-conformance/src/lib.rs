//! # ecs-conformance
//!
//! The behaviour every storage backend must have, as one test suite any implementation of
//! [`Storage`](ecs_core::Storage) runs with a line of code, and the test kit the workspace's
//! tests, fuzzers and benchmarks share.
//!
//! ```text
//! # my-storage/Cargo.toml
//! [dev-dependencies]
//! ecs-conformance = { path = "../ecs-conformance" }
//!
//! // my-storage/tests/conformance.rs
//! ecs_conformance::suite!(my_storage::MyStorage, track_allocations);
//! ```
//!
//! [`suite!`] expands to one `#[test]` per behaviour, in five modules of the test binary:
//!
//! * `conformance`: the world API on the backend. Spawning, despawning, inserting and
//!   removing bundles (all or nothing), queries and every filter over every layout of
//!   tables and sets, random access, stale handles, zero-sized and over-aligned components,
//!   run-time components, drops (every value dropped once, panicking drops leaving the world
//!   consistent), the hierarchy, named instances and properties, lifecycle hooks and
//!   observers (on every path, counted against a model, panicking ones), `World::layout`, the
//!   `Storage` contract itself checked after random operations ([`contract`]), and a model
//!   test: random operations compared against a `HashMap` model ([`model`]; 100,000 operations by
//!   default, `ECS_MODEL_OPS` sets how many).
//! * `change_tracking`: `Added`, `Changed` and the rule that each system sees exactly the
//!   changes since it last ran.
//! * `schedule`: systems, the parallel schedule, commands, resources, events.
//! * `snapshot`: saving and loading worlds in both formats, every class of bad input (each
//!   leaving the world as it was), and the soundness regressions (`soundness_*`).
//! * `trace`: recording on `Traced<S>` (every kind of op, the same trace on every backend,
//!   recording changes nothing the program sees), trace files (round trip, damaged input),
//!   and replays on the backend doing what the program did.
//!
//! With `track_allocations`, the macro also installs [`kit::largest::Tracking`] as the test
//! binary's global allocator, so the bad-input tests check that no length a snapshot
//! states sizes an allocation beyond what the input holds (leave it out when the binary has
//! an allocator of its own).
//!
//! The suite is written against the public API of `ecs-core` only, so it runs a backend
//! outside this workspace as it runs this workspace's own: each backend's crate has a
//! `tests/conformance.rs` of one line, and this crate's own tests run it on the reference
//! storage, `ecs_core::testing::VecStorage`. Tests name what they check; each generic
//! function's doc comment says why.

pub mod kit;

pub mod access;
pub mod batches;
pub mod bundles;
pub mod change_tracking;
pub mod cloning;
pub mod components;
pub mod contract;
pub mod determinism;
pub mod disabling;
pub mod drops;
pub mod hierarchy;
pub mod layout;
pub mod model;
pub mod named;
pub mod queries;
pub mod reactions;
pub mod required;
pub mod schedule;
pub mod snapshot;
pub mod stale;
pub mod storage_moves;
pub mod trace;
pub mod unstored;
pub mod world_layout;

/// Runs the conformance suite on a storage backend: one `#[test]` per behaviour, in the
/// modules `conformance`, `change_tracking`, `schedule`, `snapshot` and `trace` of the
/// calling test
/// binary (see the [crate docs](crate)). Give the backend's type as a path that resolves
/// from inside a module (`my_crate::MyStorage`, not a name brought in by `use`), and add
/// `track_allocations` to install the allocation-tracking global allocator.
#[macro_export]
macro_rules! suite {
    ($storage:ty) => {
        $crate::suite!(@modules $storage);
    };
    ($storage:ty, track_allocations) => {
        #[global_allocator]
        static ECS_CONFORMANCE_ALLOCATOR: $crate::kit::largest::Tracking =
            $crate::kit::largest::Tracking;
        $crate::suite!(@modules $storage);
    };
    (@modules $storage:ty) => {
        mod conformance {
            $crate::__tests! { $storage;
                world_layout::layout_agrees_with_memory_and_counts => world_layout,
                world_layout::query_walks_cover_the_matches => query_walks,
                world_layout::named_instances_print_by_name => layout_named_instances,
                model::random_operations_match_hashmap_model => model_100k_ops,
                drops::every_value_dropped_exactly_once => drops_exactly_once,
                drops::panicking_drop_on_despawn => panic_on_despawn,
                drops::panicking_drop_on_clear => panic_on_clear,
                drops::panicking_drop_on_world_drop => panic_on_world_drop,
                drops::panicking_drop_on_remove_by_id => panic_on_remove_by_id,
                drops::panicking_drop_on_take => panic_on_take,
                layout::zero_sized_only_entities => zst_only,
                layout::over_aligned_components => over_aligned,
                layout::dynamic_components => dynamic_components,
                layout::entities_without_components => entities_without_components,
                stale::stale_handles_rejected_everywhere => stale_handles,
                stale::reused_index_does_not_alias => reused_index,
                stale::placeholder_is_never_live => placeholder_never_live,
                determinism::same_calls_give_the_same_handles_and_bytes => determinism_handles_and_bytes,
                queries::aliasing_queries_rejected => aliasing_rejected,
                queries::filters_and_options => filters_and_options,
                queries::query_state_sees_new_layout => query_state_sees_new_layout,
                queries::large_bundles => large_bundles,
                queries::spawn_batch_and_mutation => spawn_batch_and_mutation,
                queries::views_agree_with_iteration => views_agree_with_iteration,
                queries::align_with_tables_changes_no_answer => align_with_tables,
                queries::groups_change_no_results => groups_change_no_results,
                queries::mutable_views_write_like_get_mut => mutable_views_write_like_get_mut,
                queries::for_each_agrees_with_next => for_each_agrees_with_next,
                queries::dense_chunks_of_every_length_fold_each_row_once => dense_chunks_every_length,
                queries::joins_read_the_right_values_in_and_out_of_step => joins_in_and_out_of_step,
                queries::has_answers_presence => has_answers_presence,
                required::required_components_are_added_when_missing => required_components_added,
                required::requirement_cycles_are_refused_by_name => requirement_cycles_refused,
                required::a_panicking_constructor_adds_nothing => panicking_requirement_constructor,
                cloning::clone_entity_copies_what_opted_in => clone_entity_copies,
                cloning::clone_subtree_copies_descendants_in_order => clone_subtree_copies,
                cloning::a_panicking_clone_spawns_nothing => panicking_clone,
                reactions::hooks_run_on_every_path => hooks_every_path,
                reactions::runtime_components_take_hooks_by_id => hooks_by_id,
                reactions::hooks_write_other_entities_and_queue_commands => hooks_write_and_queue,
                reactions::panicking_hooks_leave_the_world_consistent => panicking_hooks,
                reactions::observers_run_in_documented_order => observers_order,
                reactions::observer_chains_propagation_and_errors => observer_chains,
                reactions::panicking_observers_keep_the_world_consistent => panicking_observers,
                reactions::schedules_refuse_observers => schedules_refuse_observers,
                reactions::hook_calls_match_a_model => hook_calls_model,
                reactions::snapshot_loads_run_the_hooks => snapshot_loads_run_hooks,
                reactions::multi_step_operations_run_hooks_once_whole => multi_step_hooks,
                reactions::reactions_set_later_reach_bundles_used_before => reactions_set_later,
                storage_moves::moving_a_component_changes_no_answer => storage_moves,
                disabling::disabled_entities_leave_every_query_path => disabled_every_path,
                disabling::states_built_before_the_first_disable_catch_up => disabled_stale_states,
                disabling::change_driven_runs_leave_disabled_entities_out => disabled_change_driven,
                disabling::disabled_entities_stay_whole => disabled_stay_whole,
                disabling::snapshots_keep_disabled_entities => disabled_snapshots,
                disabling::single_counts_enabled_entities => disabled_single,
                required::requirements_and_clones_match_a_model => requirements_and_clones_model,
                queries::any_of_yields_entities_holding_a_part => any_of_yields_entities_holding_a_part,
                batches::spawn_batch_with_any_size_hint => spawn_batch_any_size_hint,
                batches::panicking_batch_iterator_keeps_what_it_spawned => panicking_batch_iterator,
                batches::spawn_batch_reads_the_size_hint_once => spawn_batch_size_hint_once,
                batches::every_copy_width_survives_moves => copy_widths,
                unstored::queries_over_unstored_components => unstored_components,
                contract::storage_contract_holds_through_random_operations => storage_contract,
                unstored::runtime_components_in_every_history => runtime_component_histories,
                bundles::derived_components_keep_their_attributes => derived_components,
                bundles::derived_bundles_spawn_and_spawn_batch => derived_bundles_spawn,
                bundles::insert_bundles_hand_back_what_they_replaced => insert_bundles,
                bundles::remove_bundles_all_or_nothing => remove_bundles,
                bundles::take_despawns_and_hands_back_the_bundle => take_bundles,
                bundles::bundle_operations_drop_each_value_once => bundle_drops_exactly_once,
                bundles::duplicate_components_in_bundles_panic => bundle_duplicates_panic,
                bundles::commands_insert_and_remove_bundles => commands_bundles,
                bundles::commands_move_a_bundle_once => commands_move_a_bundle_once,
                bundles::commands_replacing_with_a_panicking_drop => commands_replacing_panicking_drop,
                access::get_many_mut_hands_out_disjoint_references => get_many_mut_disjoint,
                access::get_many_mut_reports_each_error => get_many_mut_errors,
                access::get_many_mut_tracked_records_writes_only => get_many_mut_tracked,
                access::query_get_many_checks_matches_and_repeats => query_get_many,
                access::system_query_get_many => system_query_get_many,
                access::single_finds_exactly_one => single,
                access::system_query_single => system_query_single,
                access::entity_ref_reads_one_entity => entity_ref,
                access::entity_mut_writes_and_restructures => entity_mut,
                access::mutable_view_lends_one_item_at_a_time => view_get_mut,
                access::query_ref_agrees_with_query => query_ref_agrees,
                access::query_ref_beside_other_reads => query_ref_beside_reads,
                access::query_ref_registers_nothing => query_ref_registers_nothing,
                access::query_ref_change_filters_see_a_first_run => query_ref_change_filters,
                hierarchy::api_links_moves_and_refuses => hierarchy_api,
                hierarchy::despawn_keeps_links_exact => hierarchy_despawn,
                hierarchy::queries_see_relationships => hierarchy_queries,
                hierarchy::random_relationship_ops_match_model => hierarchy_model,
                hierarchy::deep_descendants_match_model => hierarchy_deep_descendants,
                hierarchy::descendants_across_tables_match_model => hierarchy_descendants_across_tables,
                hierarchy::panicking_drop_in_recursive_despawn => hierarchy_panicking_drop,
                hierarchy::panicking_drop_on_last_child_of_a_parent => hierarchy_panicking_last_child,
                hierarchy::links_refuse_run_time_writes => hierarchy_links_refuse_writes,
                named::named_instances_insert_get_remove => named_instances,
                named::entity_index_stays_exact => entity_index_exact,
                named::dynamic_queries_fetch_named_instances => dynamic_queries_named,
                named::dynamic_queries_over_runtime_components => dynamic_queries_runtime,
                named::properties_by_name => properties_by_name,
                named::short_type_names => short_type_names,
            }
        }
        mod change_tracking {
            $crate::__tests! { $storage;
                change_tracking::system_a_before_system_b => system_a_before_system_b,
                change_tracking::disabled_system_sees_everything_when_reenabled => disabled_system_sees_everything_when_reenabled,
                change_tracking::despawned_while_dirty => despawned_while_dirty,
                change_tracking::removed_and_readded_is_added => removed_and_readded_is_added,
                change_tracking::changes_beyond_the_fetched_components => changes_beyond_the_fetched_components,
                change_tracking::marking_by_hand => marking_by_hand,
                change_tracking::reading_through_mut_is_not_a_change => reading_through_mut_is_not_a_change,
                change_tracking::each_entity_once_per_run_and_own_writes_next_run => each_entity_once_per_run_and_own_writes_next_run,
                change_tracking::cost_follows_change => cost_follows_change,
                change_tracking::insert_replacing_is_changed_not_added => insert_replacing_is_changed_not_added,
                change_tracking::filters_that_cannot_be_driven_still_answer => filters_that_cannot_be_driven_still_answer,
                change_tracking::parallel_writes_are_all_recorded => parallel_writes_are_all_recorded,
                change_tracking::get_answers_for_the_current_run => get_answers_for_the_current_run,
                change_tracking::get_keeps_its_window_when_other_readers_move_on => get_keeps_its_window_when_other_readers_move_on,
                change_tracking::untracked_types_keep_plain_references => untracked_types_keep_plain_references,
                change_tracking::ref_answers_added_and_changed_per_item => ref_answers_added_and_changed_per_item,
            }
        }
        mod schedule {
            $crate::__tests! { $storage;
                schedule::parallel_schedule_equals_sequential => parallel_schedule_equals_sequential,
                schedule::waves_come_from_parameter_types => waves_come_from_parameter_types,
                schedule::commands_apply_at_the_sync_point => commands_apply_at_the_sync_point,
                schedule::resources_as_parameters => resources_as_parameters,
                schedule::conflicting_parameters_are_rejected => conflicting_parameters_are_rejected,
                schedule::disable_and_enable_by_name_and_id => disable_and_enable_by_name_and_id,
                schedule::panicking_system_leaves_world_consistent => panicking_system_leaves_world_consistent,
                schedule::par_for_each_in_systems => par_for_each_in_systems,
                schedule::par_for_each_visits_every_row_once => par_for_each_visits_every_row_once,
                schedule::a_chain_runs_beside_a_long_system => a_chain_runs_beside_a_long_system,
                schedule::a_panic_skips_exactly_the_systems_waiting_for_it => a_panic_skips_exactly_the_systems_waiting_for_it,
                schedule::hand_written_systems_are_ordered_by_their_declared_access => hand_written_systems_are_ordered_by_their_declared_access,
                schedule::a_system_refuses_a_world_it_was_not_initialised_for => a_system_refuses_a_world_it_was_not_initialised_for,
                schedule::ordering_constraints_and_sets => ordering_constraints_and_sets,
                schedule::a_cycle_is_an_error_naming_its_systems => a_cycle_is_an_error_naming_its_systems,
                schedule::run_conditions_skip_systems_not_their_dependents => run_conditions_skip_systems_not_their_dependents,
                schedule::locals_are_per_system => locals_are_per_system,
                schedule::exclusive_systems_run_alone_between_sync_points => exclusive_systems_run_alone_between_sync_points,
                schedule::param_sets_hold_conflicting_queries => param_sets_hold_conflicting_queries,
                schedule::disjoint_filters_do_not_conflict => disjoint_filters_do_not_conflict,
                schedule::events_reach_each_reader_once => events_reach_each_reader_once,
                schedule::try_run_reports_every_problem => try_run_reports_every_problem,
                schedule::skipped_commands_reach_the_error_channel => skipped_commands_reach_the_error_channel,
                schedule::systems_that_fail_report_their_errors => systems_that_fail_report_their_errors,
                schedule::build_reports_every_problem_before_any_system_runs => build_reports_every_problem_before_any_system_runs,
                schedule::tuples_chain_and_closure_names => tuples_chain_and_closure_names,
            }
        }
        mod snapshot {
            $crate::__tests! { $storage;
                snapshot::basics::round_trip_json => round_trip_json,
                snapshot::basics::round_trip_postcard => round_trip_postcard,
                snapshot::basics::merge_into_a_world_with_entities => merge,
                snapshot::basics::handles_inside_values_are_remapped => remap,
                snapshot::basics::hierarchy_keeps_parents_and_child_order => hierarchy,
                snapshot::basics::named_instances_and_runtime_components => named_and_runtime,
                snapshot::basics::loaded_components_count_as_added => added,
                snapshot::basics::saves_are_deterministic => deterministic,
                snapshot::basics::read_then_commit => read_then_commit,
                snapshot::basics::empty_world_and_empty_registry => empty,
                snapshot::basics::unregistered_components_are_left_out => unregistered,
                snapshot::basics::layout_bytes_equal_memory_usage_after_a_load => layout_after_load,
                snapshot::bad_input::truncated => truncated,
                snapshot::bad_input::malformed => malformed,
                snapshot::bad_input::wrong_value_types => wrong_value_types,
                snapshot::bad_input::unknown_names => unknown_names,
                snapshot::bad_input::duplicates => duplicates,
                snapshot::bad_input::dangling_references => dangling_references,
                snapshot::bad_input::rows_and_counts => rows_and_counts,
                snapshot::bad_input::absurd_lengths => absurd_lengths,
                snapshot::bad_input::names_taken => names_taken,
                snapshot::bad_input::hierarchy_not_a_forest => hierarchy_not_a_forest,
                snapshot::bad_input::codecs_and_layouts => codecs_and_layouts,
                snapshot::bad_input::version_and_fields => version_and_fields,
                snapshot::soundness::soundness_codec_functions_round_trip => soundness_codec_functions,
                snapshot::soundness::soundness_drop_nature_mismatch_is_refused => soundness_drop_mismatch,
                snapshot::soundness::soundness_instance_shadowing_a_type_name_round_trips => soundness_shadowing_names,
                snapshot::soundness::soundness_non_finite_floats_round_trip_through_json => soundness_non_finite_json,
            }
        }
        mod trace {
            $crate::__tests! { $storage;
                trace::every_op_kind_is_recorded => every_op_kind_is_recorded,
                trace::traces_are_the_same_on_every_backend => traces_are_the_same_on_every_backend,
                trace::trace_files_round_trip_and_refuse_damage => trace_files_round_trip_and_refuse_damage,
                trace::traces_replay_faithfully => traces_replay_faithfully,
                trace::a_trace_started_mid_run_replays_on_its_own => a_trace_started_mid_run_replays_on_its_own,
                trace::a_plain_storage_refuses_to_record => a_plain_storage_refuses_to_record,
                trace::the_model_tests_operations_replay_faithfully => model_ops_replay_faithfully,
                trace::query_look_ups_keep_their_place => query_look_ups_keep_their_place,
                trace::look_ups_stay_recorded_when_a_state_catches_up => trace_look_ups_after_catch_up,
            }
        }
    };
}

/// One `#[test]` per `path => name`, calling `$crate::path::<$storage>()`.
#[doc(hidden)]
#[macro_export]
macro_rules! __tests {
    ($storage:ty; $($($seg:ident)::+ => $name:ident),* $(,)?) => {
        $(#[test] fn $name() { $crate::$($seg)::+::<$storage>() })*
    };
}
