//! [`ParamSet`]: parameters that conflict with each other, used one at a time.

use std::marker::PhantomData;

use super::{SystemAccess, SystemParam};
use crate::error::EcsError;
use crate::storage::Storage;
use crate::world::World;

/// Holds parameters that may conflict with each other (two queries, one writing what the
/// other reads) and hands them out one at a time: `p0()`, `p1()`, ... each borrow the set
/// mutably, so no two members' items live at once.
///
/// Against the system's other parameters, and between systems, the set counts as all its
/// members together. Each `pN()` call fetches its member anew: a change-filtered query in a
/// set begins a run at every call, so fetch it once per system run.
///
/// Write the members' references with `'static` (`Query<&'static Pos>`): a set's members
/// must be parameters for any run, and an elided lifetime inside the set's tuple would be
/// the function's own (a plain `Query<&Pos>` argument needs no such annotation).
///
/// ```
/// # use ecs_core::prelude::*;
/// # use ecs_core::system::ParamSet;
/// # use ecs_core::testing::VecStorage;
/// #[derive(Component)]
/// struct Pos(f32);
/// #[derive(Component)]
/// struct Leader;
///
/// /// Followers move to the leader: read one `Pos`, then write the others.
/// type Leaders = Query<'static, 'static, &'static Pos, With<Leader>, VecStorage>;
/// type Everyone = Query<'static, 'static, &'static mut Pos, (), VecStorage>;
/// fn follow(mut set: ParamSet<(Leaders, Everyone), VecStorage>) {
///     let target = set.p0().iter().next().map(|p| p.0).unwrap_or(0.0);
///     set.p1().for_each(|p| p.0 = target);
/// }
///
/// let mut world = World::<VecStorage>::new();
/// world.spawn((Pos(5.0), Leader));
/// let follower = world.spawn((Pos(0.0),));
/// let mut schedule = Schedule::<VecStorage>::new();
/// schedule.add_system(follow);
/// schedule.run(&mut world);
/// assert_eq!(world.get::<Pos>(follower).unwrap().0, 5.0);
/// ```
pub struct ParamSet<'w, 's, T: SystemParam<S>, S: Storage> {
    world: &'w World<S>,
    state: &'s mut T::State,
    marker: PhantomData<fn() -> T>,
}

macro_rules! param_set {
    ($(($param:ident, $getter:ident, $index:tt)),*) => {
        // SAFETY: `init` records every member's access (each member's own contract), checked
        // against the system's other parameters; the members may conflict with each other,
        // but the set hands out one member's item at a time (`pN` borrows the set mutably),
        // so the items never overlap.
        unsafe impl<S: Storage, $($param: SystemParam<S>),*> SystemParam<S>
            for ParamSet<'_, '_, ($($param,)*), S>
        {
            type State = ($($param::State,)*);
            type Item<'w, 's> = ParamSet<'w, 's, ($($param,)*), S>;


            fn init(world: &mut World<S>, access: &mut SystemAccess) -> Result<Self::State, EcsError> {
                let mut members = Vec::new();
                let state = ($({
                    let mut member = SystemAccess::default();
                    let state = $param::init(world, &mut member)?;
                    members.push(member);
                    state
                },)*);
                access.add_set(&members).map_err(super::param::conflict)?;
                Ok(state)
            }

            unsafe fn fetch<'w, 's>(state: &'s mut Self::State, world: &'w World<S>) -> Self::Item<'w, 's> {
                ParamSet { world, state, marker: PhantomData }
            }

            fn validate(state: &Self::State, world: &World<S>) -> Result<(), EcsError> {
                $($param::validate(&state.$index, world)?;)*
                Ok(())
            }

            fn apply(state: &mut Self::State, world: &mut World<S>) {
                $($param::apply(&mut state.$index, world);)*
            }

            fn take_commands(state: &mut Self::State, into: &mut crate::commands::CommandQueue) {
                $($param::take_commands(&mut state.$index, into);)*
            }

            fn discard(state: &mut Self::State, world: &mut World<S>) {
                $($param::discard(&mut state.$index, world);)*
            }
        }

        impl<'w, 's, S: Storage, $($param: SystemParam<S>),*> ParamSet<'w, 's, ($($param,)*), S> {
            $(
                /// This member's item; the set stays borrowed while it lives.
                pub fn $getter(&mut self) -> $param::Item<'_, '_> {
                    // SAFETY: the state was built by `init` against this world; the system's
                    // access covers every member, and `&mut self` keeps any other member's
                    // item from living meanwhile.
                    unsafe { $param::fetch(&mut self.state.$index, self.world) }
                }
            )*
        }
    };
}

param_set!((P0, p0, 0), (P1, p1, 1));
param_set!((P0, p0, 0), (P1, p1, 1), (P2, p2, 2));
param_set!((P0, p0, 0), (P1, p1, 1), (P2, p2, 2), (P3, p3, 3));
