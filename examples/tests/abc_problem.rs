//! The abc_problem example: the same matches and sums on every backend, and on each backend
//! exactly the tables, sets and chunks its layout implies.

#[allow(dead_code)] // the example's `main` is not called here
#[path = "../examples/abc_problem.rs"]
mod abc_problem;

use examples::story::{measured_lines, shared_lines, Size};

#[test]
fn every_backend_answers_the_same_queries_its_own_way() {
    let text = abc_problem::run(Size::Small, false);
    assert_eq!(
        shared_lines(&text),
        [
            "4,096 entities, each with A and a mix of B..H: 128 different component sets",
            "F, G and H are declared storage = \"sparse\": only the hybrid backend reads that",
            "query &A: 4,096 entities match",
            "query (&A, &B): 2,048 entities match",
            "query (&A, &B, &C): 1,024 entities match",
            "query (&A, &H): 2,048 entities match",
            "sums after the passes (every backend computes the same): A 1197208, B 97897, C 97854, D 97962, E 97499, F 99192, G 97534, H 98292",
            "what each backend does with them:",
            "  archetype: one table per mix, 128; every letter a dense column of each table",
            "  sparse:    one set per letter; a query walks its smallest set, the others are",
            "             dense where their entities line up with it, else looked up per row",
            "  hybrid:    tables for the mixes of A..E (16), sets for F, G, H; joining a table",
            "             letter with a sparse one looks the sparse one up per row",
        ]
    );
    let (shape, walks): (&str, [&str; 4]) = match ecs::BACKEND {
        "archetype" => (
            "archetype: 128 tables, 0 sparse sets, 4,096 entities, ",
            [
                "walks 128 chunks, 4,096 rows; A dense in 128",
                "walks 64 chunks, 2,048 rows; A dense in 64; B dense in 64",
                "walks 32 chunks, 1,024 rows; A dense in 32; B dense in 32; C dense in 32",
                "walks 64 chunks, 2,048 rows; A dense in 64; H dense in 64",
            ],
        ),
        "sparse" => (
            "sparse: 0 tables, 8 sparse sets, 4,096 entities, ",
            [
                "walks 1 chunk, 4,096 rows; A dense in 1",
                "walks 1 chunk, 2,048 rows; A looked up in 1; B dense in 1",
                "walks 1 chunk, 2,048 rows; A looked up in 1; B dense in 1; C looked up in 1",
                "walks 1 chunk, 2,048 rows; A looked up in 1; H dense in 1",
            ],
        ),
        "hybrid" => (
            "hybrid: 16 tables, 3 sparse sets, 4,096 entities, ",
            [
                "walks 16 chunks, 4,096 rows; A dense in 16",
                "walks 8 chunks, 2,048 rows; A dense in 8; B dense in 8",
                "walks 4 chunks, 1,024 rows; A dense in 4; B dense in 4; C dense in 4",
                "walks 16 chunks, 4,096 rows; A dense in 16; H looked up in 16",
            ],
        ),
        other => panic!("no expectation for the {other} backend"),
    };
    let prefix = format!("[{}] ", ecs::BACKEND);
    let own: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix(&prefix))
        .map(str::trim)
        .collect();
    assert!(own[0].starts_with(shape), "{text}");
    assert_eq!(own[1..], walks);
    assert_eq!(measured_lines(&text).len(), 4, "one time per query");
}
