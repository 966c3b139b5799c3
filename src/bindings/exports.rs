//! The exported functions of the wasm module (`csg_*`), each a thin call into the instance's one
//! [`Boundary`]. The module imports nothing, so nothing can call back in while a call runs; a borrow
//! that fails anyway answers 0 rather than trap.

use std::cell::RefCell;

use super::Boundary;
use crate::api;

thread_local! {
    static BOUNDARY: RefCell<Boundary> = RefCell::new(Boundary::default());
}

fn with<T: Default>(f: impl FnOnce(&mut Boundary) -> T) -> T {
    BOUNDARY.with(|b| {
        b.try_borrow_mut()
            .map_or_else(|_| T::default(), |mut b| f(&mut b))
    })
}

/// [`Boundary::input`].
#[no_mangle]
pub extern "C" fn csg_input(len: usize) -> *mut u8 {
    with(|b| b.input(len))
}

/// The address of the last answer (its length is what the call returned).
#[no_mangle]
pub extern "C" fn csg_output() -> *const u8 {
    with(|b| b.output().as_ptr())
}

/// [`Boundary::create`].
#[no_mangle]
pub extern "C" fn csg_new(count: u32, len: usize) -> usize {
    with(|b| b.create(count, len))
}

/// [`Boundary::call`].
#[no_mangle]
pub extern "C" fn csg_call(handle: u32, op: u32, count: u32, len: usize) -> usize {
    with(|b| b.call(handle, op, count, len))
}

/// [`Boundary::call_static`] on the operations of [`api::STATIC_OPS`].
#[no_mangle]
pub extern "C" fn csg_static(op: u32, count: u32, len: usize) -> usize {
    with(|b| b.call_static(api::call_static, op, count, len))
}

/// [`Boundary::free`]: 1 when the gate was live.
#[no_mangle]
pub extern "C" fn csg_free(handle: u32) -> u32 {
    with(|b| u32::from(b.free(handle)))
}

/// The constants the JavaScript layer reads once ([`api::constants`]); the length of the answer.
#[no_mangle]
pub extern "C" fn csg_constants() -> usize {
    with(|b| b.constants(api::constants()))
}
