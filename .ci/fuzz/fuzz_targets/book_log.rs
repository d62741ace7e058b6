#![no_main]
#[path = "../checks.rs"]
mod checks;
libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::book_log(data));
