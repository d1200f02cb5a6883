//! The compare_storages example's workload gives the same checksum on every backend (what
//! its report checks), and its description is what the report prints.

#[allow(dead_code)] // the example's `main` is not called here
#[path = "../examples/compare_storages.rs"]
mod compare_storages;

use ecs_bench::workload::{checksum_once, Family};
use ecs_bench::{Backend, Runner, Scale};

#[test]
fn every_backend_agrees_on_the_skirmish() {
    let workloads = compare_storages::workloads();
    let [skirmish] = workloads.as_slice() else {
        panic!("one workload")
    };
    assert_eq!(skirmish.info().path(), "custom/skirmish");
    assert_eq!(skirmish.info().family, Family::Custom);
    let sums: Vec<(&str, u64)> = Backend::ALL
        .iter()
        .map(|&b| {
            let sum = checksum_once(skirmish.as_ref(), Runner::Backend(b), Scale::Test);
            (b.name(), sum.expect("runs on every backend"))
        })
        .collect();
    assert!(sums.iter().all(|&(_, s)| s == sums[0].1), "{sums:?}");
}

#[test]
fn a_run_changes_the_world() {
    let workloads = compare_storages::workloads();
    let runner = Runner::Backend(Backend::Sparse);
    let size = workloads[0].info().sizes.get(Scale::Test);
    let mut prepared = workloads[0]
        .prepare_on(runner, size)
        .expect("runs on sparse");
    let before = prepared.checksum();
    prepared.run();
    let after_one = prepared.checksum();
    prepared.run();
    assert_ne!(before, after_one);
    assert_ne!(after_one, prepared.checksum());
}
