//! The exported functions of the wasm modules (`csg_*`), each a thin call into the instance's one
//! [`Boundary`]. [`export_module!`](crate::export_module) writes them into a module's crate
//! (`crates/core-module`, `crates/sandbox-module`), each with the operations that module serves, so
//! that the linker keeps only those. The modules import nothing, so nothing can call back in while a
//! call runs; a borrow that fails anyway answers 0 rather than trap.

use std::cell::RefCell;

use super::Boundary;

thread_local! {
    static BOUNDARY: RefCell<Boundary> = RefCell::new(Boundary::default());
}

/// Runs `f` on the instance's [`Boundary`] (`T::default()` if it is somehow in use).
pub fn with<T: Default>(f: impl FnOnce(&mut Boundary) -> T) -> T {
    BOUNDARY.with(|b| {
        b.try_borrow_mut()
            .map_or_else(|_| T::default(), |mut b| f(&mut b))
    })
}

/// Writes a module's exported functions: `export_module!(core)` (gates, the core's static operations
/// and [`crate::api::constants`]) or `export_module!(sandbox)` (the sandbox module's static operations
/// and [`crate::api::sandbox_constants`]). Each `csg_*` function is documented on the [`Boundary`]
/// method it calls.
#[macro_export]
macro_rules! export_module {
    (core) => {
        $crate::export_module!(@common $crate::api::call_core_static, $crate::api::constants);

        /// `new Gate(config)` ([`Boundary::create`](code_session_gate::bindings::Boundary::create)).
        #[no_mangle]
        pub extern "C" fn csg_new(count: u32, len: usize) -> usize {
            $crate::bindings::exports::with(|b| b.create(count, len))
        }

        /// A gate operation ([`Boundary::call`](code_session_gate::bindings::Boundary::call)).
        #[no_mangle]
        pub extern "C" fn csg_call(handle: u32, op: u32, count: u32, len: usize) -> usize {
            $crate::bindings::exports::with(|b| b.call(handle, op, count, len))
        }

        /// Releases a gate: 1 when it was live.
        #[no_mangle]
        pub extern "C" fn csg_free(handle: u32) -> u32 {
            $crate::bindings::exports::with(|b| u32::from(b.free(handle)))
        }
    };
    (sandbox) => {
        $crate::export_module!(@common $crate::api::call_sandbox_static, $crate::api::sandbox_constants);
    };
    (@common $ops:path, $constants:path) => {
        /// The address of the input buffer, grown to at least `len` bytes.
        #[no_mangle]
        pub extern "C" fn csg_input(len: usize) -> *mut u8 {
            $crate::bindings::exports::with(|b| b.input(len))
        }

        /// The address of the last answer (its length is what the call returned).
        #[no_mangle]
        pub extern "C" fn csg_output() -> *const u8 {
            $crate::bindings::exports::with(|b| b.output().as_ptr())
        }

        /// A static operation this module serves; the length of the answer.
        #[no_mangle]
        pub extern "C" fn csg_static(op: u32, count: u32, len: usize) -> usize {
            $crate::bindings::exports::with(|b| b.call_static($ops, op, count, len))
        }

        /// What the JavaScript layer reads once; the length of the answer.
        #[no_mangle]
        pub extern "C" fn csg_constants() -> usize {
            $crate::bindings::exports::with(|b| b.constants($constants()))
        }
    };
}
