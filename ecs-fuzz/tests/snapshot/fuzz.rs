//! A bounded run of the snapshot mutation fuzzer (the long runs are `ecs-fuzz snapshot` and
//! the libFuzzer target `snapshot_load`), and the committed corpus through the same check.

use ecs_fuzz::snapshot::check_input;
use ecs_fuzz::snapshot::mutate::run;

#[test]
fn mutated_snapshots_never_panic_and_failed_loads_change_nothing() {
    // A few seconds in a debug build; every input is checked on its backend.
    if let Err(failure) = run(0x5A9E_10AD, 6_000, |_| {}) {
        panic!("{} on input {:?}", failure.message, failure.input);
    }
}

#[test]
fn committed_corpus_passes_the_check() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../fuzz/corpus/snapshot_load");
    let mut files = 0;
    let mut loaded = 0;
    for entry in std::fs::read_dir(dir).expect("the corpus is committed") {
        let bytes = std::fs::read(entry.unwrap().path()).unwrap();
        loaded += usize::from(check_input(&bytes).unwrap());
        files += 1;
    }
    assert!(files >= 8, "{files} corpus files");
    assert!(
        loaded >= 4,
        "the corpus keeps valid snapshots ({loaded} loaded)"
    );
}
