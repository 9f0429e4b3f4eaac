#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| flakeid_fuzz_checks::decode_decimal::check(data));
