#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| flakeid_fuzz_checks::prost_json::check(data));
