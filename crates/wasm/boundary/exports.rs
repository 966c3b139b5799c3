//! The export macros: each module crate hands one of them to `code_session_gate::with_operations!`,
//! which calls it with the registry's operation list, and it writes that module's `#[wasm_bindgen]`
//! exports. Doc lines reach rustdoc through `concat!` but not the glue: a doc line passed through
//! `macro_rules!` is a raw literal, whose `r"` wasm-bindgen would copy into its JSDoc (the glue is
//! internal; the package's declarations document the operations). The module crate depends on
//! `wasm-bindgen` itself: the code `#[wasm_bindgen]` writes names the crate `wasm_bindgen`.

/// Writes the core module's exports (`crates/wasm/core`): the class `RawGate`, one method per gate
/// operation, one function per static operation the core serves (each argument the length plus one of its
/// JSON text or UTF-8 bytes in the arguments' buffer, see [`crate::args`]; each answer its JSON text, or `undefined` for nothing), and
/// `constants()`.
#[macro_export]
macro_rules! export_core {
    (
        gate {$(
            $(#[doc = $gdoc:literal])* $([$($gflag:ident),*])?
            $gname:ident ( $( $(#[$pflag:ident])* $param:ident : $pty:ty as $pts:literal ),* ) -> $gret:literal
            $(, signature = $gsig:literal)? => $ghandler:path;
        )*}
        core {$(
            $(#[doc = $cdoc:literal])*
            $cname:ident ( $( $(#[$cflag:ident])* $cparam:ident : $cty:ty as $cts:literal ),* ) -> $cret:literal
            => $chandler:path;
        )*}
        sandbox { $($sandbox:tt)* }
    ) => {
        /// A gate, as the JavaScript layer's `Gate` holds it.
        #[$crate::wasm_bindgen::prelude::wasm_bindgen]
        pub struct RawGate($crate::Held);

        #[$crate::wasm_bindgen::prelude::wasm_bindgen]
        impl RawGate {
            /// `new Gate(config)` (`config` as [`crate::args`] reads it).
            #[wasm_bindgen(constructor)]
            pub fn new(config: u32) -> Result<RawGate, $crate::wasm_bindgen::JsValue> {
                $crate::Held::new(config).map(RawGate)
            }

            /// `{ profile, verdicts }` of the new gate, once (then `""`).
            #[wasm_bindgen(js_name = takeCreated)]
            pub fn take_created(&mut self) -> String {
                std::mem::take(&mut self.0.created)
            }

            $(
                $(#[doc = concat!($gdoc)])*
                #[allow(non_snake_case)]
                pub fn $gname(
                    &mut self,
                    $($param: u32),*
                ) -> Result<Option<String>, $crate::wasm_bindgen::JsValue> {
                    const OP: u32 = $crate::gate_op(stringify!($gname));
                    self.0.call(OP, &[$($param),*])
                }
            )*
        }

        $crate::export_static! {
            run = $crate::core_op, constants = $crate::core_constants;
            $( $(#[doc = $cdoc])* $cname($($cparam),*); )*
        }
    };
}

/// Writes the sandbox module's exports (`crates/wasm/sandbox`): one function per operation the
/// registry lists under `sandbox` (each argument as [`crate::args`] reads it), `constants()` and `reserveArgs()`.
#[macro_export]
macro_rules! export_sandbox {
    (
        gate { $($gate:tt)* }
        core { $($core:tt)* }
        sandbox {$(
            $(#[doc = $doc:literal])*
            $name:ident ( $( $(#[$flag:ident])* $param:ident : $ty:ty as $ts:literal ),* ) -> $ret:literal
            => $handler:path;
        )*}
    ) => {
        $crate::export_static! {
            run = $crate::sandbox_op, constants = $crate::sandbox_constants;
            $( $(#[doc = $doc])* $name($($param),*); )*
        }
    };
}

/// What both module macros write for the operations without a gate: one exported function per
/// operation (each argument as [`crate::args`] reads it), run by `run`, `constants()`, answered by
/// `constants`, and `reserveArgs()`, the arguments' buffer.
#[doc(hidden)]
#[macro_export]
macro_rules! export_static {
    (
        run = $run:path, constants = $constants:path;
        $( $(#[doc = $doc:literal])* $name:ident ( $($param:ident),* ); )*
    ) => {
        $(
            $(#[doc = concat!($doc)])*
            #[allow(non_snake_case)]
            #[$crate::wasm_bindgen::prelude::wasm_bindgen]
            pub fn $name($($param: u32),*) -> Result<Option<String>, $crate::wasm_bindgen::JsValue> {
                const OP: u32 = $crate::static_op(stringify!($name));
                $run(OP, &[$($param),*])
            }
        )*

        /// What the JavaScript layer reads once of this module.
        #[$crate::wasm_bindgen::prelude::wasm_bindgen]
        pub fn constants() -> String {
            $constants()
        }

        /// Room for the next call's arguments: the address of at least `len` bytes in the module's
        /// memory, where the layer writes their texts (see the boundary's `args`).
        #[$crate::wasm_bindgen::prelude::wasm_bindgen(js_name = reserveArgs)]
        pub fn reserve_args(len: u32) -> u32 {
            $crate::reserve_args(len)
        }
    };
}
