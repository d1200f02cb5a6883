//! Required components in the fuzzer: [`Op::Require`](crate::Op::Require) inserts or spawns
//! a [`Needs`], whose requirements every backend must add exactly where the entity lacks
//! them, as the model does, without overwriting a value the caller gave.

use ecs_core::{EcsError, Entity};

use crate::components::{
    canonical, needed_slots, Needs, PoolComponent, A, H0, REQUIRED_A, REQUIRED_HP,
};
use crate::on_lanes;
use crate::runner::{Failure, Runner};

impl Runner {
    /// [`Op::Require`](crate::Op::Require).
    pub(crate) fn require(&mut self, target: u16, how: u8, value: u32) -> Result<(), Failure> {
        match how % 4 {
            0 => self.insert_needs::<false>(target, None),
            1 => self.insert_needs::<true>(target, None),
            2 => self.insert_needs::<false>(target, Some(value)),
            _ => self.spawn_needs(value),
        }
    }

    /// Inserts a `Needs<SPARSE>` on `target`, beside an `A<SPARSE>` valued `given` if any.
    fn insert_needs<const SPARSE: bool>(
        &mut self,
        target: u16,
        given: Option<u32>,
    ) -> Result<(), Failure> {
        let entity = self.target(target);
        self.model.flush();
        let want = self.model_insert_needs(entity, SPARSE, given);
        let got = on_lanes!(self.lanes, self.current, lane => {
            let inserted = match given {
                None => lane.world.insert(entity, Needs::<SPARSE>).map(|_| ()),
                Some(v) => lane
                    .world
                    .insert(entity, (Needs::<SPARSE>, A::<SPARSE>::make(v)))
                    .map(|_| ()),
            };
            inserted.map(|()| lane.world.has::<Needs<SPARSE>>(entity))
        });
        self.agree("insert of a requiring component", &want, got)
    }

    /// What the model expects of inserting a `Needs` of side `sparse` on `entity` (with an
    /// `A` valued `given`): the requirements added where missing, the `Needs` held.
    fn model_insert_needs(
        &mut self,
        entity: Entity,
        sparse: bool,
        given: Option<u32>,
    ) -> Result<bool, EcsError> {
        if !self.model.rows.contains_key(&entity) {
            return Err(EcsError::NoSuchEntity(entity));
        }
        let [a, hp] = needed_slots(sparse);
        if let Some(v) = given {
            self.model
                .insert(entity, a, canonical::<crate::components::A0>(v))
                .expect("live");
        }
        for (slot, made) in [(a, REQUIRED_A), (hp, REQUIRED_HP)] {
            if self.model.get(entity, slot).is_none() {
                self.model.insert(entity, slot, made).expect("live");
            }
        }
        Ok(true)
    }

    /// Spawns `(Needs<true>, Hp<false>(value))`: the given `Hp` is kept, the `A` added.
    fn spawn_needs(&mut self, value: u32) -> Result<(), Failure> {
        if self.full(1) {
            return Ok(());
        }
        self.model.flush();
        let got = on_lanes!(self.lanes, self.current, lane => {
            lane.world.spawn((Needs::<true>, H0::make(value)))
        });
        let entity = got[0];
        self.agree("spawned handle", &entity, got)?;
        let [a, hp] = needed_slots(true);
        let mut row = [None; crate::components::ROW_LEN];
        row[hp] = Some(canonical::<H0>(value));
        row[a] = Some(REQUIRED_A);
        self.model.spawn(entity, row);
        self.remember_handle(entity);
        let got =
            on_lanes!(self.lanes, self.current, lane => lane.world.has::<Needs<true>>(entity));
        self.agree("spawned requiring component", &true, got)
    }
}
