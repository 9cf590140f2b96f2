//! Page tokens and page sizes. OWNER: core.
