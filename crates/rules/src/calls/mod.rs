//! A call's life: what a tool call receives from the session ([`context`]), the host-facing inputs of
//! the gate's operations ([`input`]) and each one's options ([`options`]), how results fold back
//! ([`fold`]) and their artifacts are read ([`artifact`]), the request side of batches ([`batch`]), and
//! the [`gate`] that holds a conversation's state and drives the batch protocol.

pub mod artifact;
pub mod batch;
pub mod context;
pub mod fold;
pub mod gate;
pub mod input;
pub mod options;
