//! What every module of this test binary shares: one process, so one
//! process-wide generator configuration.

use flakeid_core::{Generator, global, layout::presets};

/// The node ID of the process-wide generator. The modules share it: a
/// second, different `global::init` in the same process is refused.
pub(crate) const NODE: u64 = 7;

/// Configures the process-wide generator (Twitter's layout, node [`NODE`]).
/// Every test that generates IDs calls it; repeating an identical
/// configuration is allowed.
pub(crate) fn init_generator() {
    global::init(Generator::builder(presets::twitter(), NODE))
        .expect("the test generator configuration is valid");
}

/// The name libtest gives the test function `function` of the module
/// `module_path` (from `module_path!()`): the path without the crate's
/// name, as `--exact` expects it when a test runs itself in a child process.
pub(crate) fn test_name(module_path: &str, function: &str) -> String {
    let module = module_path
        .split_once("::")
        .map_or("", |(_crate, module)| module);
    if module.is_empty() {
        function.to_owned()
    } else {
        format!("{module}::{function}")
    }
}
