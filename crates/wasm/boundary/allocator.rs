//! The module's allocator: talc (measured smaller and faster than std's dlmalloc on the gate's
//! allocation-heavy paths: 6.6 KB less `.wasm`, a fresh context 9.4 -> 8.3 us, a 6-file fold 7.0 ->
//! 6.6 us), fed by a memory source of our own that grows the WebAssembly memory geometrically.
//!
//! talc's own wasm source grows the memory by just what one allocation lacks. Every `memory.grow`
//! replaces the memory's `ArrayBuffer`, and V8 counts each one as external memory pressure: a call that
//! allocates 100 MB in page-sized steps (folding 10^5 results) triggered a full JavaScript GC per step,
//! over a heap that holds the host's 10^5 result objects — 18 s where 10^4 results took 0.2 s. Growing
//! by half the memory at least makes the number of grows logarithmic in what a call allocates. The pages
//! grown ahead are address space the engine reserved anyway; the OS backs them only once written.
#![allow(unsafe_code)] // allowed: a talc memory source must claim raw memory; each use says why it holds.

use core::alloc::Layout;
use core::arch::wasm32::{memory_grow, memory_size};
use core::ptr::NonNull;

use talc::base::binning::Binning;
use talc::base::{Talc, CHUNK_UNIT};
use talc::cell::TalcSyncCell;
use talc::source::Source;
use talc::wasm::WasmBinning;

/// A WebAssembly page.
const PAGE_SIZE: usize = 65_536;
/// The least a growth adds: 1 MiB.
const MIN_GROWTH_PAGES: usize = 16;

/// Grows the memory by at least half its size (and at least 1 MiB) whenever talc runs out, extending
/// the one heap when the new pages follow it.
#[derive(Debug)]
pub struct GrowGeometrically {
    /// The end of the heap talc manages, once it has one.
    end: Option<NonNull<u8>>,
}

/// The pages one allocation of `layout` needs in a fresh stretch of memory: its size, its alignment,
/// and talc's per-chunk and per-heap bookkeeping, rounded up.
fn pages_for(layout: Layout) -> usize {
    let bytes = layout
        .size()
        .saturating_add(layout.align())
        .saturating_add(4 * CHUNK_UNIT);
    bytes.div_ceil(PAGE_SIZE)
}

// SAFETY: `acquire` hands talc only memory that `memory.grow` has just added to the instance's memory,
// which nothing else uses, and extends a heap only when the new pages start exactly where it ends. It
// allocates nothing itself (no container types, no Rust allocator).
unsafe impl Source for GrowGeometrically {
    fn acquire<B: Binning>(talc: &mut Talc<Self, B>, layout: Layout) -> Result<(), ()> {
        let needed = pages_for(layout);
        let wanted = needed.max(memory_size::<0>() / 2).max(MIN_GROWTH_PAGES);
        // The geometric step first; when the memory's maximum leaves no room for it, just what is needed.
        let (prev_pages, pages) = match memory_grow::<0>(wanted) {
            usize::MAX => match memory_grow::<0>(needed) {
                usize::MAX => return Err(()),
                prev => (prev, needed),
            },
            prev => (prev, wanted),
        };
        let base = (prev_pages * PAGE_SIZE) as *mut u8;
        let end = base.wrapping_add(pages * PAGE_SIZE);
        if let Some(old_end) = talc.source.end.take() {
            if old_end.as_ptr() == base {
                // SAFETY: `old_end` is the end of the heap talc manages, and [base, end) was just grown
                // right after it.
                talc.source.end = Some(unsafe { talc.extend(old_end, end) });
                return Ok(());
            }
        }
        // SAFETY: [base, base + pages * PAGE_SIZE) was just grown and belongs to no one else.
        talc.source.end = unsafe { talc.claim(base, pages * PAGE_SIZE) };
        Ok(())
    }
}

/// The allocator type of the module.
pub type ModuleAllocator = TalcSyncCell<GrowGeometrically, WasmBinning>;

/// The allocator, before its first allocation.
pub const fn new_module_allocator() -> ModuleAllocator {
    TalcSyncCell::new_wasm(GrowGeometrically { end: None })
}
