//! The gate's input limits: what one call may hand it, checked before any work, so that no input —
//! hostile or merely huge — can make a call take unbounded time or memory. A call over a limit is
//! refused with [`ErrorCode::LimitExceeded`], naming the limit, and changes nothing.

use super::error::{ErrorCode, GateError, GateResult, Path};

/// Bytes of JSON text in one call's arguments together (64 MiB).
pub const MAX_INPUT_BYTES: usize = 64 << 20;
/// Items of any one array in a call's arguments (checked by the JavaScript layer before it reads them).
pub const MAX_ARRAY_ITEMS: usize = 1_000_000;
/// Tool calls in one batch or eager prestart.
pub const MAX_CALLS_PER_BATCH: usize = 10_000;

/// Batches and eager prestarts a gate keeps pending at once: a host that never completes, settles or
/// abandons them would otherwise grow the gate without bound.
pub const MAX_OPEN_BATCHES: usize = 1024;

/// The gate's input limits; a call over one is refused with code "limit_exceeded" and changes
/// nothing.
// Every limit by the name refusals use, as hosts (`limits()`) and the JavaScript layer read them.
#[derive(Debug, Clone, Copy, serde::Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(
    feature = "typescript",
    derive(tsify::Tsify),
    tsify(rename = "GateLimits")
)]
pub struct Limits {
    /// Bytes of JSON text in one call's arguments together.
    #[cfg_attr(feature = "typescript", tsify(type = "number"))]
    pub max_input_bytes: usize,
    /// Items of any one array in a call's arguments.
    #[cfg_attr(feature = "typescript", tsify(type = "number"))]
    pub max_array_items: usize,
    /// Tool calls in one batch or eager prestart.
    #[cfg_attr(feature = "typescript", tsify(type = "number"))]
    pub max_calls_per_batch: usize,
    /// Batches and eager prestarts one gate keeps pending at once.
    #[cfg_attr(feature = "typescript", tsify(type = "number"))]
    pub max_open_batches: usize,
}

/// Every limit.
pub const LIMITS: Limits = Limits {
    max_input_bytes: MAX_INPUT_BYTES,
    max_array_items: MAX_ARRAY_ITEMS,
    max_calls_per_batch: MAX_CALLS_PER_BATCH,
    max_open_batches: MAX_OPEN_BATCHES,
};

/// `count` items of `what` at `path`, refused when over `limit` (named `name`).
pub fn check_count(
    count: usize,
    limit: usize,
    name: &str,
    what: &str,
    path: &Path<'_>,
) -> GateResult<()> {
    if count > limit {
        Err(GateError::new(
            ErrorCode::LimitExceeded,
            path,
            format!("{count} {what}, more than the limit of {limit} ({name})"),
        ))
    } else {
        Ok(())
    }
}
