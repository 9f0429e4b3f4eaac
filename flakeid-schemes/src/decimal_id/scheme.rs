//! [`DecimalIdScheme`] as flakeid-core sees it: an
//! [`IdScheme`](flakeid_core::IdScheme) and a
//! [`GlobalScheme`](flakeid_core::GlobalScheme), whose source is a
//! [`DecimalIdGenerator`].

use flakeid_core::ConfigError;

use super::generator_ids::generator_ids;
use super::{
    COUNTER_FACTOR, DecimalIdError, DecimalIdGenerator, DecimalIdScheme, GENERATOR_FACTOR,
};

impl flakeid_core::IdScheme for DecimalIdScheme {
    /// The largest counter with the largest generator and launch IDs.
    fn max_id(&self) -> u64 {
        self.max_counter * COUNTER_FACTOR
            + u64::from(DecimalIdScheme::MAX_GENERATOR_ID) * GENERATOR_FACTOR
            + u64::from(DecimalIdScheme::MAX_LAUNCH_ID)
    }

    fn check(&self, id: u64) -> Result<(), flakeid_core::FieldOutOfRange> {
        let counter = id / COUNTER_FACTOR;
        if counter == 0 {
            return Err(flakeid_core::FieldOutOfRange {
                field: "counter",
                value: 0,
                min: 1,
                max: self.max_counter,
            });
        }
        // Launch 0 is for tests: only a test scheme accepts it.
        if id.is_multiple_of(GENERATOR_FACTOR) && !self.allow_test_launch_id {
            return Err(flakeid_core::FieldOutOfRange {
                field: "launch_id",
                value: 0,
                min: 1,
                max: u64::from(DecimalIdScheme::MAX_LAUNCH_ID),
            });
        }
        Ok(())
    }

    fn decode(&self, id: u64) -> flakeid_core::Decoded {
        use std::borrow::Cow;
        let fields = vec![
            (Cow::Borrowed("counter"), id / COUNTER_FACTOR),
            (
                Cow::Borrowed("generator_id"),
                id / GENERATOR_FACTOR % GENERATOR_FACTOR,
            ),
            (Cow::Borrowed("launch_id"), id % GENERATOR_FACTOR),
        ];
        flakeid_core::Decoded::from_fields(id, None, fields)
    }

    /// Counter 1, generator ID 1, launch ID 1: `10000100001`.
    fn example_id(&self) -> Option<u64> {
        Some(COUNTER_FACTOR + GENERATOR_FACTOR + 1)
    }
}

/// The process's node ID is the launch ID; generator IDs come from the
/// counter installed with [`init_generator_ids`](crate::init_generator_ids).
impl flakeid_core::GlobalScheme for DecimalIdScheme {
    fn build_source(
        &self,
        config: &flakeid_core::NodeConfig,
    ) -> Result<Box<dyn flakeid_core::IdSource>, flakeid_core::ConfigError> {
        let source = generator_ids().ok_or(ConfigError::MissingGeneratorIds)?;
        let launch_id = u32::try_from(config.node()).unwrap_or(u32::MAX);
        let mut builder =
            DecimalIdGenerator::builder(launch_id, source).max_counter(self.max_counter);
        if self.allow_test_launch_id {
            builder = builder.allow_test_launch_id();
        }
        let generator = builder.build().map_err(|e| match e {
            DecimalIdError::LaunchIdOutOfRange { max, .. } => config.node_error(
                flakeid_core::ConfigError::NodeOutOfRange {
                    node: config.node(),
                    max: u64::from(max),
                },
                u64::from(max),
            ),
            e => flakeid_core::ConfigError::Scheme(flakeid_core::SchemeError::new("DecimalId", e)),
        })?;
        Ok(Box::new(generator))
    }

    fn same_scheme(&self, other: &dyn flakeid_core::GlobalScheme) -> bool {
        (other as &dyn core::any::Any).downcast_ref::<Self>() == Some(self)
    }
}
