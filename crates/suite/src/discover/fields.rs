//! Reading the fields of what a target answers.

use serde_json::Value;

/// The string at a JSON Pointer, if there is one.
pub(crate) fn str_at<'v>(v: &'v Value, pointer: &str) -> Option<&'v str> {
    v.pointer(pointer).and_then(Value::as_str)
}

/// Whether `s` is an E.164 number as the contract writes one.
pub(crate) fn is_e164(s: &str) -> bool {
    conformance_contract::E164::embedded().matches(s)
}

/// The items of a list answer's `data` array (none when it has none).
pub fn data(v: &Value) -> &[Value] {
    v.get("data")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}
