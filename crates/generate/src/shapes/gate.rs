//! A gate's configuration, its verdicts and its limits.

/// Every gate site's verdict for one tool name.
#[derive(tsify::Tsify)]
#[serde(rename_all = "camelCase")]
pub(crate) struct GateVerdict {
    participates: bool,
    direct_inject: bool,
    direct_fold: bool,
    event_context: bool,
    event_fold: bool,
    event_runtime_hint: bool,
    eager_context: bool,
}

/// The bit of each gate site in `Gate.verdict(name)` (see `verdictBits()`).
#[derive(tsify::Tsify)]
#[serde(transparent)]
pub(crate) struct VerdictBits(#[tsify(type = "{ readonly [K in keyof GateVerdict]: number }")] ());

/// The gate's input limits; a call over one is refused with code "limit_exceeded" and changes
/// nothing.
#[derive(tsify::Tsify)]
#[serde(rename_all = "camelCase")]
pub(crate) struct GateLimits {
    /// Bytes of JSON text in one call's arguments together.
    max_input_bytes: f64,
    /// Items of any one array in a call's arguments.
    max_array_items: f64,
    /// Tool calls in one batch or eager prestart.
    max_calls_per_batch: f64,
    /// Batches and eager prestarts one gate keeps pending at once.
    max_open_batches: f64,
}
