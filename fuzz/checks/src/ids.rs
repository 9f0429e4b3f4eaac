//! An ID type of every built-in layout and scheme, and [`for_each_id!`],
//! which runs a generic check once for each of them.

use flakeid_core::flake_id;
use flakeid_core::layout::{BitLayout, presets};
use flakeid_schemes::{DecimalIdScheme, RandomKeys, TraceIdLayout};
use flakeid_schemes::{DecimalLayout, RandomStart};

/// 2024-01-01T00:00:00Z.
const EPOCH_2024: u64 = 1_704_067_200_000;

#[flake_id(layout = presets::twitter)]
pub(crate) struct TwitterId(i64);
#[flake_id(layout = presets::discord)]
pub(crate) struct DiscordId(i64);
#[flake_id(layout = presets::instagram)]
pub(crate) struct InstagramId(i64);
#[flake_id(layout = presets::sonyflake)]
pub(crate) struct SonyflakeId(i64);
#[flake_id(layout = presets::tsid)]
pub(crate) struct TsidId(i64);
#[flake_id(layout = presets::lsid)]
pub(crate) struct LsidId(i64);
#[flake_id(layout = presets::js_safe)]
pub(crate) struct JsSafeId(i64);
#[flake_id(layout = presets::js_safe_seconds)]
pub(crate) struct JsSafeSecondsId(i64);
#[flake_id(layout = presets::nonsequential)]
pub(crate) struct NonsequentialId(i64);
/// The 13 + 6 + 1 digits decimal layout.
#[flake_id(layout = decimal_layout)]
pub(crate) struct DecimalLayoutId(i64);
#[flake_id(layout = random_start_twitter)]
pub(crate) struct RandomStartId(i64);
#[flake_id(scheme = random_keys)]
pub(crate) struct RandomKeyId(i64);
#[flake_id(scheme = DecimalIdScheme::default)]
pub(crate) struct DecimalId(i64);
#[flake_id(scheme = trace_layout)]
pub(crate) struct TraceId(i64);
/// Twitter's layout on a table that kept its auto-increment keys below
/// the cut-over.
#[flake_id(cut_over = 2_124_913_425_938_116_608)]
pub(crate) struct AdoptedId(i64);

fn decimal_layout() -> DecimalLayout {
    DecimalLayout::time_sequence_server(EPOCH_2024).expect("the 13 + 6 + 1 layout builds")
}

fn random_start_twitter() -> RandomStart<BitLayout> {
    RandomStart::new(presets::twitter()).expect("a random start fits Twitter's layout")
}

fn random_keys() -> RandomKeys<BitLayout> {
    RandomKeys(presets::nonsequential())
}

fn trace_layout() -> TraceIdLayout {
    TraceIdLayout::for_threads(4).expect("TraceId for 4 threads")
}

/// `$check::<T>($($arg),*)` for every ID type of this module.
macro_rules! for_each_id {
    ($check:ident($($arg:expr),*)) => {{
        use $crate::ids::*;
        $check::<TwitterId>($($arg),*);
        $check::<DiscordId>($($arg),*);
        $check::<InstagramId>($($arg),*);
        $check::<SonyflakeId>($($arg),*);
        $check::<TsidId>($($arg),*);
        $check::<LsidId>($($arg),*);
        $check::<JsSafeId>($($arg),*);
        $check::<JsSafeSecondsId>($($arg),*);
        $check::<NonsequentialId>($($arg),*);
        $check::<DecimalLayoutId>($($arg),*);
        $check::<RandomStartId>($($arg),*);
        $check::<RandomKeyId>($($arg),*);
        $check::<DecimalId>($($arg),*);
        $check::<TraceId>($($arg),*);
        $check::<AdoptedId>($($arg),*);
    }};
}
pub(crate) use for_each_id;
