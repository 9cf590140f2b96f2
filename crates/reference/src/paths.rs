//! Paths (and the one API version) that modules other than their routes single out: the
//! middleware, the fixtures and the demanding variants name them here, so none of them imports a
//! route module.

/// The only version of the header-versioned API.
pub(crate) const API_VERSION: &str = "2026-03-30";

/// Where the reference's activity hook listens; the reference profile names it as
/// `activity_trigger_path`.
pub(crate) const TRIGGER_PATH: &str = "/_reference/activity";

/// The v1 call list.
pub(crate) const V1_CALLS: &str = "/v1/calls";
/// The v1 call recordings.
pub(crate) const V1_RECORDINGS: &str = "/v1/call-recordings";
/// The header-versioned call list.
pub(crate) const HV_CALLS: &str = "/calls";

/// Whether a path belongs to the call endpoints of either generation (some faults apply there).
pub(crate) fn is_call_path(path: &str) -> bool {
    [V1_CALLS, V1_RECORDINGS, HV_CALLS].iter().any(|p| {
        path == *p
            || path
                .strip_prefix(p)
                .is_some_and(|rest| rest.starts_with('/'))
    })
}
