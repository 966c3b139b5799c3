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

/// Every limit by the name refusals use, for hosts and the JavaScript layer.
pub const LIMITS: [(&str, usize); 4] = [
    ("maxInputBytes", MAX_INPUT_BYTES),
    ("maxArrayItems", MAX_ARRAY_ITEMS),
    ("maxCallsPerBatch", MAX_CALLS_PER_BATCH),
    ("maxOpenBatches", MAX_OPEN_BATCHES),
];

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
