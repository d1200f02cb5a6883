//! Several systems added at once ([`Schedule::add_systems`]): tuples of systems, and
//! [`Chain`], which orders each system of a tuple before the next.

use std::panic::Location;

use super::{Schedule, SystemId};
use crate::storage::Storage;
use crate::system::IntoSystem;

/// Something [`Schedule::add_systems`] adds: one system, a tuple of up to 16 systems, or a
/// [`Chain`] of them. `Marker` only tells the implementations apart.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a system or a tuple of systems",
    label = "not systems",
    note = "`add_systems` takes one system, a tuple of up to 16 systems, or `(a, b, ..).chain()`"
)]
pub trait IntoSystems<S: Storage, Marker> {
    /// Adds every system to `schedule` in order, naming closures after `location`; returns
    /// their ids in order.
    fn add_to(
        self,
        schedule: &mut Schedule<S>,
        location: &'static Location<'static>,
    ) -> Vec<SystemId>;
}

/// The [`IntoSystems`] marker of a single system.
#[doc(hidden)]
pub struct One<M>(std::marker::PhantomData<M>);

/// The [`IntoSystems`] marker of a tuple.
#[doc(hidden)]
pub struct Many<M>(std::marker::PhantomData<M>);

/// The [`IntoSystems`] marker of a [`Chain`].
#[doc(hidden)]
pub struct Chained<M>(std::marker::PhantomData<M>);

impl<S: Storage, M, I: IntoSystem<S, M>> IntoSystems<S, One<M>> for I {
    fn add_to(
        self,
        schedule: &mut Schedule<S>,
        location: &'static Location<'static>,
    ) -> Vec<SystemId> {
        vec![schedule.add_system_at(self, location)]
    }
}

/// Systems that run one after the other in the order given: each is ordered before the
/// next, as `configure(a).before(b)` would (made by [`ChainSystems::chain`]).
pub struct Chain<T>(T);

impl<S: Storage, M, T: IntoSystems<S, Many<M>>> IntoSystems<S, Chained<M>> for Chain<T> {
    fn add_to(
        self,
        schedule: &mut Schedule<S>,
        location: &'static Location<'static>,
    ) -> Vec<SystemId> {
        let ids = self.0.add_to(schedule, location);
        for pair in ids.windows(2) {
            schedule.configure(pair[0]).before(pair[1]);
        }
        ids
    }
}

/// `.chain()` on a tuple of systems: see [`Chain`].
pub trait ChainSystems: Sized {
    /// These systems, each ordered before the next.
    fn chain(self) -> Chain<Self> {
        Chain(self)
    }
}

macro_rules! tuple_systems {
    ($($name:ident $marker:ident),*) => {
        impl<S: Storage, $($marker,)* $($name: IntoSystem<S, $marker>),*>
            IntoSystems<S, Many<($($marker,)*)>> for ($($name,)*)
        {
            #[allow(non_snake_case)]
            fn add_to(
                self,
                schedule: &mut Schedule<S>,
                location: &'static Location<'static>,
            ) -> Vec<SystemId> {
                let ($($name,)*) = self;
                vec![$(schedule.add_system_at($name, location)),*]
            }
        }

        impl<$($name),*> ChainSystems for ($($name,)*) {}
    };
}

tuple_systems!(A MA, B MB);
tuple_systems!(A MA, B MB, C MC);
tuple_systems!(A MA, B MB, C MC, D MD);
tuple_systems!(A MA, B MB, C MC, D MD, E ME);
tuple_systems!(A MA, B MB, C MC, D MD, E ME, F MF);
tuple_systems!(A MA, B MB, C MC, D MD, E ME, F MF, G MG);
tuple_systems!(A MA, B MB, C MC, D MD, E ME, F MF, G MG, H MH);
tuple_systems!(A MA, B MB, C MC, D MD, E ME, F MF, G MG, H MH, I MI);
tuple_systems!(A MA, B MB, C MC, D MD, E ME, F MF, G MG, H MH, I MI, J MJ);
tuple_systems!(A MA, B MB, C MC, D MD, E ME, F MF, G MG, H MH, I MI, J MJ, K MK);
tuple_systems!(A MA, B MB, C MC, D MD, E ME, F MF, G MG, H MH, I MI, J MJ, K MK, L ML);
tuple_systems!(A MA, B MB, C MC, D MD, E ME, F MF, G MG, H MH, I MI, J MJ, K MK, L ML, M MM);
tuple_systems!(A MA, B MB, C MC, D MD, E ME, F MF, G MG, H MH, I MI, J MJ, K MK, L ML, M MM, N MN);
tuple_systems!(A MA, B MB, C MC, D MD, E ME, F MF, G MG, H MH, I MI, J MJ, K MK, L ML, M MM, N MN, O MO);
tuple_systems!(A MA, B MB, C MC, D MD, E ME, F MF, G MG, H MH, I MI, J MJ, K MK, L ML, M MM, N MN, O MO, P MP);
