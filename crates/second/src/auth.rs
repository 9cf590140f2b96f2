//! Authentication of every request. OWNER: core.
