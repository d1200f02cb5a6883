//! Every workload computes the same checksum on every runner: each backend (the reference
//! `VecStorage` included) and the hand-written baseline where there is one.

use ecs_bench::workload::{checksum_at, checksum_once};
use ecs_bench::workloads::registry;
use ecs_bench::{Runner, Scale};

#[test]
fn every_workload_agrees_across_runners() {
    let mut failures = Vec::new();
    for workload in registry() {
        let info = workload.info();
        let sums: Vec<(Runner, u64)> = Runner::all()
            .into_iter()
            .filter_map(|r| checksum_once(workload.as_ref(), r, Scale::Test).map(|c| (r, c)))
            .collect();
        let expected_runners = Runner::all()
            .into_iter()
            .filter(|&r| info.runs_on(r))
            .count();
        assert_eq!(
            sums.len(),
            expected_runners,
            "{}: a runner did not run",
            info.name
        );
        assert!(!sums.is_empty(), "{}: no runner ran", info.name);
        if sums.iter().any(|&(_, c)| c != sums[0].1) {
            failures.push(format!("{}: {sums:x?}", info.path()));
        }
    }
    assert!(
        failures.is_empty(),
        "checksums disagree:\n{}",
        failures.join("\n")
    );
}

#[test]
fn checksums_are_deterministic() {
    for workload in registry() {
        let runner = first_runner(workload.info());
        let a = checksum_once(workload.as_ref(), runner, Scale::Test);
        let b = checksum_once(workload.as_ref(), runner, Scale::Test);
        assert_eq!(a, b, "{}", workload.info().name);
    }
}

#[test]
fn checksums_depend_on_the_work() {
    // A different size must change the checksum: the digest sees the data.
    for workload in registry() {
        let info = workload.info();
        let runner = first_runner(info);
        let run = |size| checksum_at(workload.as_ref(), runner, size).expect("runs");
        assert_ne!(
            run(info.sizes.test),
            run(info.sizes.test + 1),
            "{}",
            info.name
        );
    }
}

/// The first runner (backends in order, then the baseline) the workload runs on.
fn first_runner(info: &ecs_bench::workload::WorkloadInfo) -> Runner {
    Runner::all()
        .into_iter()
        .find(|&r| info.runs_on(r))
        .expect("every workload runs somewhere")
}
