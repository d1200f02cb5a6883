//! Lifecycle hooks under the fuzzer: in one episode in four every lane's world gives the
//! pool's `D0` and `D1` all five hooks, each counting its calls in a resource.
//!
//! With a hook registered every structural operation of the world takes its reacting path
//! (the other episodes keep the fast paths under test). The counts must be equal on every
//! backend, and agree with the model: for each type, `on_add` minus `on_remove` is the
//! number of entities holding it, and every insert onto a holder and every removal
//! (despawns and clears included) replaces a value (`on_replace` − `on_remove` =
//! `on_insert` − `on_add`).

use ecs_core::component::{HookContext, Lifecycle};
use ecs_core::{HookWorld, Storage, World};

use crate::components::{PoolComponent, D0, D1};
use crate::model::Model;

/// The five moments, in the order [`HookCounts`] keeps them.
const MOMENTS: [Lifecycle; 5] = [
    Lifecycle::Add,
    Lifecycle::Insert,
    Lifecycle::Replace,
    Lifecycle::Remove,
    Lifecycle::Despawn,
];

/// Calls of each hook: `[type][moment]`, type 0 for `D0`, 1 for `D1`, moments in the order
/// add, insert, replace, remove, despawn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HookCounts(pub [[u64; 5]; 2]);

fn count<const TYPE: usize>(mut world: HookWorld<'_>, ctx: HookContext) {
    let moment = MOMENTS
        .iter()
        .position(|m| *m == ctx.event)
        .expect("one of the five moments");
    // `World::clear` keeps resources; the check only guards a world set up without them.
    if let Some(counts) = world.resource_mut::<HookCounts>() {
        counts.0[TYPE][moment] += 1;
    }
}

/// Gives `world` the counting hooks and their resource.
pub fn install<S: Storage>(world: &mut World<S>) {
    world.insert_resource(HookCounts::default());
    for moment in MOMENTS {
        world
            .set_hook::<D0>(moment, count::<0>)
            .expect("pool components take hooks");
        world
            .set_hook::<D1>(moment, count::<1>)
            .expect("pool components take hooks");
    }
}

/// The counts of `world` (zero when it has no hooks).
pub fn counts<S: Storage>(world: &World<S>) -> HookCounts {
    world.resource::<HookCounts>().copied().unwrap_or_default()
}

/// Checks `counts` against what the model holds; the reason when they disagree.
pub fn check_against_model(counts: &HookCounts, model: &Model) -> Result<(), String> {
    for (i, slot) in [D0::SLOT, D1::SLOT].into_iter().enumerate() {
        let [add, insert, replace, remove, _despawn] = counts.0[i];
        let holders = model
            .rows
            .values()
            .filter(|row| row[slot].is_some())
            .count() as u64;
        if add.checked_sub(remove) != Some(holders) {
            return Err(format!(
                "D{i}: on_add {add} - on_remove {remove} != {holders} entities holding it"
            ));
        }
        if replace.checked_sub(remove) != insert.checked_sub(add) {
            return Err(format!(
                "D{i}: on_replace {replace} - on_remove {remove} != on_insert {insert} - on_add {add}"
            ));
        }
    }
    Ok(())
}
