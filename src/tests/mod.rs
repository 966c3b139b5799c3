//! The operations driven as the modules' exports drive them, through [`crate::call`] and
//! [`crate::call_static`] (each module's tests of its own parts stay beside it).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod dispatch;
mod fields;
mod forward;
mod planner;
mod registry;

/// Gate operation `name`'s number.
fn op(name: &str) -> u32 {
    crate::GATE_OPS.iter().position(|n| *n == name).unwrap() as u32
}
