//! The contract check of one call, repeated, for counting its instructions under
//! callgrind (which counts do not move with the machine's load):
//!
//! ```sh
//! source bench/fixture.sh; gen_results 20 > /tmp/search.json
//! cargo build --profile profiling -p toolgate-contract --example count_check
//! valgrind --tool=callgrind target/profiling/examples/count_check /tmp/search.json 1000
//! ```
//!
//! The body is checked as a call checks it (`ResponseContract::vouch`, noting escape
//! sites for the answer) against `bench/run`'s contract (`fixtures/search_schema.json`),
//! or against the JSON Schema in the file a fourth argument names; `plain` as the third
//! checks it as other callers do (`vouches_for`), `vouch` as a call does. Divide the
//! instructions of `check_times` by the count.

use std::hint::black_box;
use std::process::ExitCode;

use serde_json::Value;
use toolgate_contract::ResponseContract;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let (Some(path), Some(times)) = (args.next(), args.next()) else {
        eprintln!("usage: count_check BODY_FILE TIMES [plain|vouch] [SCHEMA_FILE]");
        return ExitCode::FAILURE;
    };
    let plain = args.next().as_deref() == Some("plain");
    let schema_text = match args.next() {
        Some(file) => match std::fs::read_to_string(&file) {
            Ok(text) => text,
            Err(e) => {
                eprintln!("cannot read {file}: {e}");
                return ExitCode::FAILURE;
            }
        },
        None => include_str!("../fixtures/search_schema.json").to_string(),
    };
    let Ok(times) = times.parse::<u32>() else {
        eprintln!("TIMES must be a whole number, not `{times}`");
        return ExitCode::FAILURE;
    };
    let body = match std::fs::read(&path) {
        Ok(body) => body,
        Err(e) => {
            eprintln!("cannot read {path}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let schema: Value = match serde_json::from_str(&schema_text) {
        Ok(schema) => schema,
        Err(e) => {
            eprintln!("the schema does not parse: {e}");
            return ExitCode::FAILURE;
        }
    };
    let contract = match ResponseContract::compile(&schema, None) {
        Ok(contract) => contract,
        Err(e) => {
            eprintln!("the schema does not compile: {e}");
            return ExitCode::FAILURE;
        }
    };
    let vouched = check_times(&contract, &body, times, plain);
    println!(
        "{} bytes, vouched for {vouched} of {times} times",
        body.len()
    );
    ExitCode::SUCCESS
}

#[inline(never)]
fn check_times(contract: &ResponseContract, body: &[u8], times: u32, plain: bool) -> u32 {
    let mut vouched = 0;
    for _ in 0..times {
        let ok = if plain {
            contract.vouches_for(black_box(body))
        } else {
            black_box(contract.vouch(black_box(body))).is_some()
        };
        vouched += u32::from(ok);
    }
    vouched
}
