//! Every embedded query compiles against its grammar.

use repo_mapper_tags::{Language, check_queries};

#[test]
fn every_embedded_query_compiles() {
    let failures: Vec<String> = Language::ALL
        .into_iter()
        .filter_map(|lang| check_queries(lang).err().map(|e| e.to_string()))
        .collect();
    assert!(
        failures.is_empty(),
        "{} queries fail:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
