//! serde: IDs are written as decimal strings and read from strings or integers. (skeleton)
use crate::FlakeId;

/// Serializes an ID as a decimal string.
pub fn serialize<I: FlakeId, S: serde::Serializer>(id: &I, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(id)
}

/// Deserializes an ID from a decimal string or an integer.
pub fn deserialize<'de, I: FlakeId, D: serde::Deserializer<'de>>(d: D) -> Result<I, D::Error> {
    let _ = d;
    unimplemented!()
}
