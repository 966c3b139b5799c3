//! [`Explanation`]: every gate decision for one call name, with the rule behind each, as
//! [`super::Gate::explain`] gives it.

use crate::calls::context::CallScope;
use crate::config::HintRule;
use crate::tools::eager::EagerRule;
use crate::tools::explain::{Membership, SiteDecision};

/// Why one name passes or fails each gate site, for a call in one scope.
#[derive(Debug, Clone)]
pub struct Explanation<'a> {
    /// What the lists say about the name.
    pub membership: Membership,
    /// Every site's decision (G1–G5, G7 and `participatesInCodeSession`), in the order of
    /// [`crate::tools::bits::SITES`].
    pub sites: [SiteDecision; 7],
    /// G6: whether the stream layer would never prestart the call, and the first rule that decided.
    pub eager: (bool, EagerRule),
    /// The runtime session hint a participant would carry (G1, G4), and the rule that resolved it.
    pub runtime_hint: (Option<&'a str>, HintRule),
    /// The call's scope, with the gate's default partition filled in.
    pub scope: CallScope<'a>,
}
