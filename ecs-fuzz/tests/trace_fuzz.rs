//! A bounded run of the trace-reader fuzzer (the long runs are `ecs-fuzz trace` and the
//! libFuzzer target `trace_load`).

#[test]
fn mutated_traces_are_read_or_refused_never_a_panic() {
    // A few seconds in a debug build; each trace that reads is replayed on two backends.
    if let Err(failure) = ecs_fuzz::trace::run(0x7ACE_0001, 4_000, |_| {}) {
        panic!("{} on input {:?}", failure.message, failure.input);
    }
}
