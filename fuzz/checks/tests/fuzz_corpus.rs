//! The fuzz targets' corpora, replayed on stable Rust: every file of
//! `fuzz/corpus/<target>/` (the seeds taken from the tests' vectors and
//! bad inputs, what the fuzzer kept, and every input that once failed)
//! through the target's check, the same function the cargo-fuzz target
//! (`fuzz/fuzz_targets/<target>.rs`) calls. A finding, once its input is
//! in the corpus, fails this test until it is fixed and can never come
//! back unnoticed.

use std::path::{Path, PathBuf};
use std::time::Instant;

use flakeid_fuzz_checks::{TARGETS, Target};

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("fuzz/checks lies in fuzz/")
        .to_owned()
}

/// Every file of the target's corpus through its check; fails naming each
/// file whose check panicked.
fn replay(name: &str) {
    let target: &Target = TARGETS
        .iter()
        .find(|t| t.name == name)
        .unwrap_or_else(|| panic!("no target {name} in TARGETS"));
    let dir = fuzz_dir().join("corpus").join(name);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| path.is_file())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "{}: an empty corpus", dir.display());
    let started = Instant::now();
    let failed: Vec<String> = files
        .iter()
        .filter_map(|path| {
            let data = std::fs::read(path).expect("read a corpus file");
            std::panic::catch_unwind(|| (target.check)(&data))
                .err()
                .map(|panic| {
                    let message = panic
                        .downcast_ref::<String>()
                        .cloned()
                        .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                        .unwrap_or_default();
                    format!("{}: {message}", path.display())
                })
        })
        .collect();
    eprintln!(
        "{name}: {} corpus files in {:.1?}",
        files.len(),
        started.elapsed()
    );
    assert!(
        failed.is_empty(),
        "{} of {} corpus files of {name} fail their check (reproduce one with \
         `scripts/fuzz.sh {name} <file>`):\n{}",
        failed.len(),
        files.len(),
        failed.join("\n")
    );
}

/// One test per target, so that they run side by side and fail apart.
macro_rules! corpus_tests {
    ($($name:ident),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                replay(stringify!($name));
            }
        )*

        const TESTED: &[&str] = &[$(stringify!($name)),*];
    };
}

corpus_tests!(
    id_from_str,
    id_serde_json,
    id_prefixed,
    decode_decimal,
    decode_base62,
    decode_crockford,
    rfc3339_epoch,
    decode_i64,
    flake128_text,
    time_bounds,
    graphql_scalar,
    prost_json,
    env_config,
    cli_args,
    sql_names,
    service_router,
);

/// Every target is replayed here, has its cargo-fuzz target and a corpus
/// folder, and nothing else has either.
#[test]
fn targets_corpora_and_cargo_fuzz_targets_match() {
    let mut names: Vec<&str> = TARGETS.iter().map(|t| t.name).collect();
    names.sort_unstable();
    let mut tested = TESTED.to_vec();
    tested.sort_unstable();
    assert_eq!(
        tested, names,
        "corpus_tests! in this file and TARGETS differ"
    );

    let listed = |dir: &str, suffix: &str| -> Vec<String> {
        let mut found: Vec<String> = std::fs::read_dir(fuzz_dir().join(dir))
            .expect(dir)
            .filter_map(|e| {
                let name = e.expect("an entry").file_name().into_string().ok()?;
                name.strip_suffix(suffix).map(str::to_owned)
            })
            .collect();
        found.sort();
        found
    };
    assert_eq!(listed("fuzz_targets", ".rs"), names, "fuzz/fuzz_targets/");
    assert_eq!(listed("corpus", ""), names, "fuzz/corpus/");
    let manifest = std::fs::read_to_string(fuzz_dir().join("Cargo.toml")).expect("fuzz/Cargo.toml");
    let mut bins: Vec<&str> = manifest
        .lines()
        .filter_map(|l| l.strip_prefix("name = \""))
        .filter_map(|l| l.strip_suffix('"'))
        .filter(|name| *name != "flakeid-fuzz")
        .collect();
    bins.sort_unstable();
    assert_eq!(bins, names, "the [[bin]] targets of fuzz/Cargo.toml");
}

/// The descriptor `prost_json` writes out by hand is the one protox
/// compiles from `tests/proto/users.proto`: every field alike.
#[test]
fn prost_json_descriptor_is_users_proto() {
    let proto = fuzz_dir().join("../tests/proto");
    let files = protox::compile(["users.proto"], [proto]).expect("users.proto compiles");
    let pool = prost_reflect::DescriptorPool::from_file_descriptor_set(files).expect("a pool");
    let compiled = pool
        .get_message_by_name("flakeid.example.User")
        .expect("the User message");
    let fields = |m: &prost_reflect::MessageDescriptor| -> Vec<String> {
        m.fields()
            .map(|f| {
                format!(
                    "{} {} {:?} {:?} {} packed={} presence={} oneof={:?}",
                    f.number(),
                    f.name(),
                    f.kind(),
                    f.cardinality(),
                    f.json_name(),
                    f.is_packed(),
                    f.supports_presence(),
                    f.containing_oneof().map(|o| o.name().to_owned()),
                )
            })
            .collect()
    };
    let written = flakeid_fuzz_checks::prost_json::user_descriptor();
    assert_eq!(fields(written), fields(&compiled));
    assert_eq!(written.full_name(), compiled.full_name());
}
