//! The list of backends every cross-backend suite runs on, in one place.

/// Instantiates each generic test `fn name<S: Storage>()` once per backend, as
/// `reference::name`, `sparse::name`, `archetype::name` and `hybrid::name`.
///
/// Accepts plain names of functions at the crate root (`backends! { a, b }`) or paths with
/// test names (`backends! { module::func => name }`). Adding a backend is one more module.
macro_rules! backends {
    ($($($seg:ident)::+ => $name:ident),* $(,)?) => {
        mod reference {
            $(#[test] fn $name() { crate::$($seg)::+::<ecs_core::testing::VecStorage>() })*
        }
        mod sparse {
            $(#[test] fn $name() { crate::$($seg)::+::<ecs_sparse::SparseStorage>() })*
        }
        mod archetype {
            $(#[test] fn $name() { crate::$($seg)::+::<ecs_archetype::ArchetypeStorage>() })*
        }
        mod hybrid {
            $(#[test] fn $name() { crate::$($seg)::+::<ecs_hybrid::HybridStorage>() })*
        }
    };
    ($($func:ident),* $(,)?) => {
        backends! { $($func => $func),* }
    };
}
