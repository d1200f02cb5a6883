//! The conformance suite: one body per behaviour, run on every backend.
//!
//! Each test is a generic `fn name<S: Storage>()`; [`backends!`] instantiates it for the
//! reference `VecStorage`, the sparse-set, archetype and hybrid backends, so a backend
//! that diverges from the others fails by name.

mod access;
mod batches;
mod bundles;
mod components;
mod contract;
mod determinism;
mod drops;
mod hierarchy;
mod layout;
mod model;
mod named;
mod queries;
mod rng;
mod stale;
mod unstored;
mod world_layout;

#[path = "../common/backends.rs"]
#[macro_use]
mod backends;

backends! {
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
