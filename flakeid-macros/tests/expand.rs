//! What `#[flake_id]` generates for an ID type, checked through its behaviour.
// A dropped doc comment on a generated public item fails this test crate.
#![deny(missing_docs)]

use std::collections::HashSet;
use std::fmt::{Debug, Display};
use std::hash::Hash;
use std::str::FromStr;

use std::sync::OnceLock;

use flakeid_core::layout::presets;
use flakeid_core::{ConfigError, FlakeId, Generator, IdError, flake_id, global};

/// The key of the `users` table.
#[flake_id]
pub struct UserId(i64);

/// An ID from a generator other than the process-wide one.
#[flake_id(layout = presets::twitter, source = custom_generator)]
pub struct AuditId(i64);

/// An ID of another layout, from a process-wide generator of it.
#[flake_id(layout = presets::sonyflake)]
pub struct EventId(i64);

fn custom_generator() -> Result<&'static Generator, ConfigError> {
    static AUDIT: OnceLock<Result<Generator, ConfigError>> = OnceLock::new();
    AUDIT
        .get_or_init(|| Generator::builder(presets::twitter(), 900).build())
        .as_ref()
        .map_err(Clone::clone)
}

/// Installs the process-wide generator; every test installs the same one.
fn init_global() -> Result<&'static global::ProcessGenerator, ConfigError> {
    global::init(Generator::builder(presets::twitter(), 1))
}

mod private {
    use flakeid_core::flake_id;

    /// Visible in the crate only.
    #[flake_id]
    pub(crate) struct OrderId(i64);

    /// Visible in this module only.
    #[flake_id]
    #[allow(dead_code)]
    struct HiddenId(i64);
}

fn implements_everything<T>()
where
    T: FlakeId
        + Clone
        + Copy
        + PartialEq
        + Eq
        + PartialOrd
        + Ord
        + Hash
        + Debug
        + Display
        + FromStr<Err = IdError>
        + TryFrom<i64, Error = IdError>
        + TryFrom<u64, Error = IdError>
        + Into<i64>
        + serde::Serialize
        + for<'de> serde::Deserialize<'de>
        + Send
        + Sync
        + 'static,
{
}

#[test]
fn id_type_implements_all_generated_traits() {
    implements_everything::<UserId>();
    implements_everything::<AuditId>();
    implements_everything::<EventId>();
    implements_everything::<private::OrderId>();
}

#[test]
fn id_type_is_a_transparent_i64() {
    assert_eq!(size_of::<UserId>(), size_of::<i64>());
    assert_eq!(align_of::<UserId>(), align_of::<i64>());
    assert_eq!(size_of::<Option<UserId>>(), 2 * size_of::<i64>());
}

#[test]
fn name_is_the_type_name() {
    assert_eq!(UserId::NAME, "UserId");
    assert_eq!(AuditId::NAME, "AuditId");
    assert_eq!(private::OrderId::NAME, "OrderId");
}

#[test]
fn arguments_select_the_scheme_and_the_source() -> Result<(), Box<dyn std::error::Error>> {
    let global = init_global()?;
    assert!(std::ptr::addr_eq(UserId::source()?, global));
    assert!(std::ptr::addr_eq(AuditId::source()?, custom_generator()?));
    assert!(!std::ptr::addr_eq(AuditId::source()?, global));
    let node = |d: flakeid_core::Decoded| d.parts.map(|p| p.node);
    assert_eq!(node(AuditId::generate()?.decode()), Some(900));
    assert_eq!(node(UserId::generate()?.decode()), Some(1));
    // Another layout: its own process-wide generator, this process's node.
    let event = EventId::generate()?;
    assert_eq!(presets::sonyflake().decompose(event.get() as u64).node, 1);
    assert_eq!(node(event.decode()), Some(1));
    assert!(!std::ptr::addr_eq(EventId::source()?, global));
    Ok(())
}

/// Calls every inherent method from a module that imports no trait.
mod no_imports {
    /// An ID type whose module has no `use` at all.
    #[flakeid_core::flake_id]
    pub struct PlainId(i64);

    pub(crate) fn use_it() -> Result<(i64, Option<u64>, usize), flakeid_core::IdGenerateError> {
        let id = PlainId::generate()?;
        match PlainId::try_generate() {
            Ok(_) => {}
            Err(e) if matches!(e.error, flakeid_core::GenerateError::WouldBlock { .. }) => {}
            Err(e) => return Err(e),
        }
        let many = PlainId::generate_many(3)?.len();
        Ok((id.get(), id.decode().parts.map(|p| p.node), many))
    }
}

#[test]
fn inherent_methods_need_no_trait_import() -> Result<(), Box<dyn std::error::Error>> {
    init_global()?;
    let (raw, node, many) = no_imports::use_it()?;
    assert!(raw > 0);
    assert_eq!(node, Some(1));
    assert_eq!(many, 3);
    Ok(())
}

#[test]
fn get_and_into_i64_return_the_value() -> Result<(), IdError> {
    let id = UserId::try_from(42_i64)?;
    assert_eq!(id.get(), 42);
    assert_eq!(i64::from(id), 42);
    Ok(())
}

#[test]
fn debug_shows_type_and_value() -> Result<(), IdError> {
    let id = UserId::try_from(123_i64)?;
    assert_eq!(format!("{id:?}"), "UserId(123)");
    Ok(())
}

#[test]
fn display_and_from_str_round_trip() -> Result<(), IdError> {
    for value in [1_i64, 9, 10, 1_234_567_890_123, i64::MAX >> 1] {
        let id = UserId::try_from(value)?;
        let text = id.to_string();
        assert_eq!(text, value.to_string());
        assert_eq!(text.parse::<UserId>()?, id);
    }
    Ok(())
}

#[test]
fn from_str_rejects_non_ids() {
    for text in [
        "",
        "0",
        "-1",
        "+1",
        " 1",
        "1 ",
        "abc",
        "1.0",
        "99999999999999999999",
    ] {
        assert!(text.parse::<UserId>().is_err(), "{text:?} parsed");
    }
}

#[test]
fn try_from_i64_rejects_zero_and_negatives() {
    for value in [0_i64, -1, i64::MIN] {
        assert!(UserId::try_from(value).is_err(), "{value} accepted");
    }
}

#[test]
fn try_from_u64_checks_the_range() -> Result<(), IdError> {
    assert_eq!(UserId::try_from(7_u64)?.get(), 7);
    assert!(UserId::try_from(0_u64).is_err());
    assert!(UserId::try_from(u64::MAX).is_err());
    assert!(UserId::try_from(i64::MAX as u64 + 1).is_err());
    Ok(())
}

#[test]
fn ordering_and_hashing_follow_the_value() -> Result<(), IdError> {
    let (a, b) = (UserId::try_from(5_i64)?, UserId::try_from(6_i64)?);
    assert!(a < b);
    assert_eq!(a.max(b), b);
    let set: HashSet<UserId> = [a, b, a].into_iter().collect();
    assert_eq!(set.len(), 2);
    Ok(())
}

#[test]
fn generated_ids_are_valid_and_increasing() -> Result<(), Box<dyn std::error::Error>> {
    init_global()?;
    let first = UserId::generate()?;
    let second = UserId::generate()?;
    assert!(first.get() > 0);
    assert!(second > first);
    assert_eq!(UserId::try_from(first.get()), Ok(first));
    Ok(())
}

#[test]
fn serde_writes_a_decimal_string() -> Result<(), Box<dyn std::error::Error>> {
    let id = UserId::try_from(9_007_199_254_740_993_i64)?;
    assert_eq!(serde_json::to_string(&id)?, r#""9007199254740993""#);
    assert_eq!(
        serde_json::to_value(Some(id))?,
        serde_json::json!("9007199254740993")
    );
    Ok(())
}

#[test]
fn serde_reads_a_string_or_an_integer() -> Result<(), Box<dyn std::error::Error>> {
    let id = UserId::try_from(9_007_199_254_740_993_i64)?;
    assert_eq!(serde_json::from_str::<UserId>(r#""9007199254740993""#)?, id);
    assert_eq!(serde_json::from_str::<UserId>("9007199254740993")?, id);
    Ok(())
}

#[test]
fn serde_rejects_non_ids() {
    for json in [
        "0", "-1", r#""0""#, r#""-1""#, r#""abc""#, "1.5", "null", "true", "[]",
    ] {
        assert!(
            serde_json::from_str::<UserId>(json).is_err(),
            "{json} accepted"
        );
    }
}
