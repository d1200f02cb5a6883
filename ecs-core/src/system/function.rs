//! Function systems: any `fn(P0, P1, ...)` whose arguments are [`SystemParam`]s.
//!
//! The trick (bevy's): a function item such as `fn render(q: Query<&Pos>, r: Res<Time>)`
//! implements `FnMut(Query<'a, 'b, &Pos>, Res<'c, Time>)` for *every* choice of lifetimes.
//! [`SystemParamFunction`] is implemented for functions that take the parameter types
//! `P0, P1, ...` (naming them, which fixes the marker type) and also take their items with
//! any run's lifetimes, `SystemParamItem<'w, 's, P0>`; `run` calls the function with the
//! items fetched for this run.

use std::borrow::Cow;
use std::marker::PhantomData;

use super::param::SystemParamItem;
use super::{BoxedError, IntoSystem, System, SystemAccess, SystemOutput, SystemParam};
use crate::error::EcsError;
use crate::storage::Storage;
use crate::world::{World, WorldId};

/// A function usable as a system; `Marker` is `fn(P0, P1, ...) -> Out`, its parameter
/// types and what it returns.
pub trait SystemParamFunction<S: Storage, Marker>: Send + Sync + 'static {
    /// The parameters, as a tuple.
    type Param: SystemParam<S>;
    /// What the function returns: `()` or a `Result` (see [`SystemOutput`]).
    type Out: SystemOutput;

    /// Calls the function with one run's arguments.
    fn run(&mut self, params: SystemParamItem<'_, '_, Self::Param, S>) -> Self::Out;
}

macro_rules! function_system {
    ($($param:ident $arg:ident),*) => {
        impl<S: Storage, Func, Out: SystemOutput, $($param: SystemParam<S>),*>
            SystemParamFunction<S, fn($($param,)*) -> Out> for Func
        where
            Func: Send + Sync + 'static,
            for<'a> &'a mut Func:
                FnMut($($param),*) -> Out + FnMut($(SystemParamItem<'_, '_, $param, S>),*) -> Out,
        {
            type Param = ($($param,)*);
            type Out = Out;

            #[allow(non_snake_case, clippy::too_many_arguments)]
            fn run(&mut self, params: SystemParamItem<'_, '_, ($($param,)*), S>) -> Out {
                // Names the argument types so the call resolves to the item-taking `FnMut`.
                fn call<Out, $($param),*>(
                    mut f: impl FnMut($($param),*) -> Out,
                    $($arg: $param),*
                ) -> Out {
                    f($($arg),*)
                }
                let ($($arg,)*) = params;
                call(self, $($arg),*)
            }
        }
    };
}

function_system!();
function_system!(P0 p0);
function_system!(P0 p0, P1 p1);
function_system!(P0 p0, P1 p1, P2 p2);
function_system!(P0 p0, P1 p1, P2 p2, P3 p3);
function_system!(P0 p0, P1 p1, P2 p2, P3 p3, P4 p4);
function_system!(P0 p0, P1 p1, P2 p2, P3 p3, P4 p4, P5 p5);
function_system!(P0 p0, P1 p1, P2 p2, P3 p3, P4 p4, P5 p5, P6 p6);
function_system!(P0 p0, P1 p1, P2 p2, P3 p3, P4 p4, P5 p5, P6 p6, P7 p7);
function_system!(P0 p0, P1 p1, P2 p2, P3 p3, P4 p4, P5 p5, P6 p6, P7 p7, P8 p8);
function_system!(P0 p0, P1 p1, P2 p2, P3 p3, P4 p4, P5 p5, P6 p6, P7 p7, P8 p8, P9 p9);
function_system!(P0 p0, P1 p1, P2 p2, P3 p3, P4 p4, P5 p5, P6 p6, P7 p7, P8 p8, P9 p9, P10 p10);
function_system!(
    P0 p0, P1 p1, P2 p2, P3 p3, P4 p4, P5 p5, P6 p6, P7 p7, P8 p8, P9 p9, P10 p10, P11 p11
);

/// A [`System`] made from a function by [`IntoSystem`].
///
/// # Invariant
/// `state` and `world` are `Some` together, from the successful `initialize` that recorded
/// `access` for the world `world` names.
pub struct FunctionSystem<S: Storage, Marker, F: SystemParamFunction<S, Marker>> {
    func: F,
    state: Option<<F::Param as SystemParam<S>>::State>,
    world: Option<WorldId>,
    access: SystemAccess,
    name: Cow<'static, str>,
    /// The error the last run returned, until the schedule takes it.
    failure: Option<BoxedError>,
    marker: PhantomData<fn() -> (S, Marker)>,
}

/// Tags the [`IntoSystem`] marker of functions, `(IsFunction, fn(P0, P1, ...))`: a tuple,
/// which can never be [`IsSystem`](super::IsSystem), so the blanket implementation for
/// functions and the one for [`System`]s do not overlap.
pub struct IsFunction;

impl<S: Storage, Marker: 'static, F: SystemParamFunction<S, Marker>>
    IntoSystem<S, (IsFunction, Marker)> for F
{
    type System = FunctionSystem<S, Marker, F>;

    fn into_system(self) -> Self::System {
        FunctionSystem {
            func: self,
            state: None,
            world: None,
            access: SystemAccess::default(),
            name: Cow::Borrowed(std::any::type_name::<F>()),
            failure: None,
            marker: PhantomData,
        }
    }
}

// SAFETY: the access is what the parameters' `init` recorded (the `SystemParam` contract:
// every component and resource their items touch, in the role they touch it), set once by
// the successful `initialize` that also sets `state`, so `is_initialized` is true only then;
// `run_unsafe` touches the world only through the parameters' items, and panics before
// fetching them when given another world than the one it was initialised for (component
// ids, and so the access, mean something only in that world).
unsafe impl<S: Storage, Marker: 'static, F: SystemParamFunction<S, Marker>> System<S>
    for FunctionSystem<S, Marker, F>
{
    fn name(&self) -> &str {
        &self.name
    }

    fn initialize(&mut self, world: &mut World<S>) -> Result<(), EcsError> {
        if self.state.is_none() {
            let mut access = SystemAccess::default();
            let state = F::Param::init(world, &mut access).map_err(|err| match err {
                EcsError::SystemConflict { reason, .. } => EcsError::SystemConflict {
                    system: self.name.to_string(),
                    reason,
                },
                other => EcsError::SystemConflict {
                    system: self.name.to_string(),
                    reason: other.to_string(),
                },
            })?;
            self.state = Some(state);
            self.world = Some(world.id());
            self.access = access;
        }
        Ok(())
    }

    fn is_initialized(&self) -> bool {
        self.state.is_some()
    }

    fn access(&self) -> &SystemAccess {
        &self.access
    }

    unsafe fn run_unsafe(&mut self, world: &World<S>) {
        let state = self
            .state
            .as_mut()
            .expect("a system is initialized before it runs");
        assert_eq!(
            self.world,
            Some(world.id()),
            "system `{}` runs on the world it was initialised for; make another for this world",
            self.name
        );
        // SAFETY: the state was built by `init` against this world (asserted above); the caller
        // guarantees the access (`run_unsafe`'s contract).
        let params = unsafe { F::Param::fetch(state, world) };
        self.failure = self.func.run(params).into_failure();
    }

    fn take_failure(&mut self) -> Option<BoxedError> {
        self.failure.take()
    }

    fn validate(&self, world: &World<S>) -> Result<(), EcsError> {
        let Some(state) = &self.state else {
            return Ok(());
        };
        F::Param::validate(state, world).map_err(|err| match err {
            EcsError::MissingResource { resource, .. } => EcsError::MissingResource {
                system: self.name.to_string(),
                resource,
            },
            other => other,
        })
    }

    fn apply(&mut self, world: &mut World<S>) {
        if let Some(state) = &mut self.state {
            F::Param::apply(state, world);
        }
    }

    fn discard(&mut self, world: &mut World<S>) {
        if let Some(state) = &mut self.state {
            F::Param::discard(state, world);
        }
    }

    fn take_commands(&mut self, into: &mut crate::commands::CommandQueue) {
        if let Some(state) = &mut self.state {
            F::Param::take_commands(state, into);
        }
    }
}
