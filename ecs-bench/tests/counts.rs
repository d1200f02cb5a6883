//! `ecs-bench counts`: the counted child reports its heap and checksum, two counts runs of the
//! same build are identical, and the check fails on growth (through the real binary and
//! valgrind).
//!
//! The valgrind tests need valgrind on the PATH. Without it they print why and pass, unless
//! `ECS_REQUIRE_VALGRIND=1` is set (CI sets it, and installs valgrind first).

use std::path::{Path, PathBuf};
use std::process::Command;

use ecs_bench::counts::{ChildReport, Counts};

const EXE: &str = env!("CARGO_BIN_EXE_ecs-bench");

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ecs-bench-counts-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn valgrind_available() -> bool {
    let found = Command::new("valgrind")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        assert!(
            std::env::var_os("ECS_REQUIRE_VALGRIND").is_none(),
            "ECS_REQUIRE_VALGRIND is set but valgrind cannot be run"
        );
        eprintln!("valgrind not found: skipping the counted runs");
    }
    found
}

fn counts(out: &Path, extra: &[&str]) -> (bool, String) {
    let output = Command::new(EXE)
        .args([
            "counts",
            "--no-progress",
            "--jobs",
            "2",
            "--filter",
            "simple_iter",
        ])
        .args(["--backend", "sparse", "--backend", "archetype", "--out"])
        .arg(out)
        .args(extra)
        .output()
        .expect("ecs-bench runs");
    let text = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    (output.status.success(), text)
}

fn read_counts(dir: &Path) -> Counts {
    let text = std::fs::read_to_string(dir.join("counts.json")).expect("counts.json written");
    serde_json::from_str(&text).expect("counts.json parses")
}

#[test]
fn the_child_reports_heap_and_checksum() {
    let output = Command::new(EXE)
        .args(["count-one", "community/add_remove", "sparse", "100"])
        .output()
        .expect("ecs-bench runs");
    assert!(output.status.success(), "{output:?}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let report: ChildReport = serde_json::from_str(stdout.trim()).expect("one JSON line");
    // The same workload, size and runner, run in this process, gives the same checksum.
    let registry = ecs_bench::workloads::registry();
    let add_remove = registry
        .iter()
        .find(|w| w.info().path() == "community/add_remove")
        .expect("registered");
    let runner = ecs_bench::Runner::from_name("sparse").expect("known runner");
    let mut prepared = add_remove.prepare_on(runner, 100).expect("runs on sparse");
    prepared.run(); // the child's uncounted first run of a repeatable workload
    prepared.run();
    assert_eq!(report.checksum, prepared.checksum());

    let unknown = Command::new(EXE)
        .args(["count-one", "community/nope", "sparse", "100"])
        .output()
        .expect("ecs-bench runs");
    assert!(!unknown.status.success());
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("unknown workload"));
}

#[test]
fn counts_are_identical_and_growth_fails_the_check() {
    if !valgrind_available() {
        return;
    }
    let (first_dir, second_dir) = (scratch("first"), scratch("second"));
    let baseline = first_dir.join("baseline.json");
    let baseline_arg = baseline.to_str().expect("utf-8 path");
    let (ok, text) = counts(&first_dir, &["--write-baseline", baseline_arg]);
    assert!(ok, "{text}");
    let (ok, text) = counts(&second_dir, &["--check", baseline_arg]);
    assert!(ok, "{text}");
    assert!(text.contains("counts check passed"), "{text}");
    let (first, second) = (read_counts(&first_dir), read_counts(&second_dir));
    // Instructions and the heap are exact; the simulated cache misses may move by a few when
    // the output folder (valgrind's working folder) differs, which shifts memory placement.
    for (a, b) in first.rows.iter().zip(&second.rows) {
        let exact = |r: &ecs_bench::counts::CountRow| {
            (r.instructions, r.allocations, r.peak_heap_bytes, r.checksum)
        };
        assert_eq!(exact(a), exact(b), "{} on {}", a.workload, a.runner);
        let cycles = b.estimated_cycles as f64 / a.estimated_cycles as f64;
        assert!((0.995..1.005).contains(&cycles), "{a:?} {b:?}");
    }
    assert_eq!(
        first.rows.len(),
        3,
        "simple_iter on 2 backends, grouped on sparse"
    );
    assert!(first.rows.iter().all(|r| r.instructions > 0));

    // A baseline that did 3 % less work: every row fails, and the message names them.
    let mut tighter = first.clone();
    for row in &mut tighter.rows {
        row.instructions = row.instructions * 97 / 100;
        row.estimated_cycles = row.estimated_cycles * 97 / 100;
    }
    std::fs::write(&baseline, serde_json::to_string(&tighter).unwrap()).unwrap();
    let (ok, text) = counts(&second_dir, &["--check", baseline_arg]);
    assert!(!ok, "{text}");
    assert!(
        text.contains("**FAIL**: community/simple_iter on"),
        "{text}"
    );
    assert!(text.contains("counts check FAILED"), "{text}");
    let _ = std::fs::remove_dir_all(&first_dir);
    let _ = std::fs::remove_dir_all(&second_dir);
}
