//! A gate as the operations hold it: the gate, and what it remembers of the answers it gave (the file
//! lists it wrote, the forwarding path's last request options).

use crate::lists::Lists;
use code_session_gate_rules::calls::gate::Gate;
use code_session_gate_rules::sandbox::Target;

/// A gate and what the gate remembers of the answers it gave (the file lists it wrote).
#[derive(Debug)]
pub struct GateSession {
    /// The gate.
    pub gate: Gate,
    pub(crate) lists: Lists,
    /// The options text of the last `sandboxRequest` or `forwardEventBatch` and what was read of it (a
    /// host passes the same options call after call: the same text is not read again).
    pub(crate) request_options: Option<RequestOptions>,
}

impl GateSession {
    /// A session over `gate`.
    pub fn new(gate: Gate) -> Self {
        GateSession {
            gate,
            lists: Lists::default(),
            request_options: None,
        }
    }
}

/// The request options of the forwarding path's last call: their text, and the target read from it
/// ([`Target::read_forwarded`], which checks the members every request of a batch shares).
#[derive(Debug)]
pub(crate) struct RequestOptions {
    pub(crate) text: Box<str>,
    pub(crate) target: Target<'static>,
}
