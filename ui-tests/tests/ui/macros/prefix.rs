use flakeid_core::flake_id;

#[flake_id(prefix = "User")]
pub struct UpperCaseId(i64);

#[flake_id(prefix = "usr2")]
pub struct DigitId(i64);

#[flake_id(prefix = "line-item")]
pub struct HyphenId(i64);

#[flake_id(prefix = "_usr")]
pub struct LeadingUnderscoreId(i64);

#[flake_id(prefix = "usr_")]
pub struct TrailingUnderscoreId(i64);

#[flake_id(prefix = "")]
pub struct EmptyId(i64);

#[flake_id(prefix = "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijkl")]
pub struct TooLongId(i64);

#[flake_id(prefix = usr)]
pub struct NotAStringId(i64);

#[flake_id(prefix = "usr", prefix = "user")]
pub struct TwiceId(i64);

#[flake_id(prefix = "usr", text = hex)]
pub struct UnknownFormId(i64);

#[flake_id(text = base62)]
pub struct FormWithoutPrefixId(i64);

// 63 characters with underscores inside: TypeID's longest prefix.
#[flake_id(prefix = "abcdefghijklmnopqrstuvwxyz_abcdefghijklmnopqrstuvwxyz_abcdefghi", text = crockford)]
pub struct LongestId(i64);

fn main() {}
