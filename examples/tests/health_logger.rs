//! The health_logger example prints exactly what seed 002 says it prints.

#[allow(dead_code)] // the example's `main` is not called here
#[path = "../examples/health_logger.rs"]
mod health_logger;

#[test]
fn logs_only_changes() {
    assert_eq!(health_logger::run(false, false), "10/10\n8/10\n");
}

#[test]
fn iterating_all_entities_logs_every_frame() {
    assert_eq!(
        health_logger::run(true, false),
        "10/10\n10/10\n8/10\n8/10\n"
    );
}
