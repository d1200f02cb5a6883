//! Seeded operation sequences for stable-toolchain runs: the kit's SplitMix64 generator and
//! a weighted choice of [`Op`]s, so a seed names one sequence forever (on one version of this
//! crate) and a failure reproduces from the seed alone.

use crate::op::{Command, Op};

pub use ecs_conformance::kit::Rng;

/// What the generator draws besides the kit's: bytes, shorts and component values.
trait Draw {
    fn byte(&mut self) -> u8;
    fn short(&mut self) -> u16;
    /// A component value: mostly small numbers (so `% k` conditions in systems and writes
    /// hit often), sometimes any.
    fn value(&mut self) -> u32;
}

impl Draw for Rng {
    fn byte(&mut self) -> u8 {
        self.next_u64() as u8
    }

    fn short(&mut self) -> u16 {
        self.next_u64() as u16
    }

    fn value(&mut self) -> u32 {
        match self.below(4) {
            0 => self.next_u64() as u32,
            _ => self.below(64) as u32,
        }
    }
}

/// The seed of episode `episode` of a run started with `seed` (episodes are independent
/// sequences on fresh worlds).
pub fn episode_seed(seed: u64, episode: u64) -> u64 {
    Rng::new(seed ^ episode.wrapping_mul(0xA076_1D64_78BD_642F)).next_u64()
}

/// The `len` operations seed `seed` stands for.
pub fn generate(seed: u64, len: usize) -> Vec<Op> {
    let mut rng = Rng::new(seed);
    (0..len).map(|_| op(&mut rng)).collect()
}

/// One operation, by weight (out of 1,080).
fn op(rng: &mut Rng) -> Op {
    match rng.below(1_080) {
        0..=139 => Op::Spawn {
            bundle: rng.byte(),
            seed: rng.value(),
        },
        140..=169 => Op::SpawnBatch {
            bundle: rng.byte(),
            count: rng.byte(),
            seed: rng.value(),
        },
        170..=249 => Op::Despawn {
            target: rng.short(),
        },
        250..=389 => Op::Insert {
            target: rng.short(),
            component: rng.byte(),
            value: rng.value(),
        },
        390..=479 => Op::Remove {
            target: rng.short(),
            component: rng.byte(),
        },
        480..=549 => Op::Get {
            target: rng.short(),
            component: rng.byte(),
        },
        550..=609 => Op::GetMut {
            target: rng.short(),
            component: rng.byte(),
            how: rng.byte(),
        },
        610..=769 => Op::Query {
            shape: rng.short(),
            style: rng.byte(),
        },
        770..=829 => Op::QueryGet {
            shape: rng.short(),
            target: rng.short(),
            style: rng.byte(),
        },
        830..=839 => Op::Purge {
            component: rng.byte(),
        },
        840..=841 => Op::Clear,
        842..=846 => Op::Group { group: rng.byte() },
        847..=894 => Op::Queue(command(rng)),
        895..=909 => Op::ApplyCommands,
        910..=939 => Op::RunReader { reader: rng.byte() },
        940..=959 => Op::ReaderGet {
            reader: rng.byte(),
            target: rng.short(),
        },
        960..=979 => Op::RunSchedule {
            parallel: rng.below(8) == 0,
            toggle: rng.byte(),
        },
        980..=994 => Op::Dynamic {
            target: rng.short(),
            which: rng.byte(),
            action: rng.byte(),
            value: rng.value(),
        },
        995..=999 => Op::Compare,
        1_000..=1_029 => Op::Link {
            child: rng.short(),
            parent: rng.short(),
            how: rng.byte(),
        },
        1_030..=1_039 => Op::TamperLinks {
            target: rng.short(),
            how: rng.byte(),
        },
        1_040..=1_059 => Op::Hidden {
            targets: [rng.short(), rng.short()],
            shape: rng.short(),
            style: rng.byte(),
        },
        _ => Op::Require {
            target: rng.short(),
            how: rng.byte(),
            value: rng.value(),
        },
    }
}

fn command(rng: &mut Rng) -> Command {
    match rng.below(5) {
        0 => Command::Spawn {
            bundle: rng.byte(),
            seed: rng.value(),
        },
        1 => Command::Insert {
            target: rng.short(),
            component: rng.byte(),
            value: rng.value(),
        },
        2 => Command::Remove {
            target: rng.short(),
            component: rng.byte(),
        },
        3 => Command::InsertBundle {
            target: rng.short(),
            bundle: rng.byte(),
            seed: rng.value(),
        },
        _ => Command::Despawn {
            target: rng.short(),
        },
    }
}
