//! Enums whose variants hosts see by a stable name: each variant is written once with its name
//! ([`named!`]), which gives the method that answers the name and `ALL`, every variant in order (from
//! which the package writes the TypeScript union of the names).

/// Declares an enum whose variants carry stable names: `fn $method(self)` answers a variant's name,
/// and `ALL` lists every variant, in declaration order.
macro_rules! named {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident;
        $(#[$method_doc:meta])*
        fn $method:ident {
            $($(#[$doc:meta])* $variant:ident = $id:literal,)+
        }
    ) => {
        $(#[$meta])*
        $vis enum $name {
            $($(#[$doc])* $variant,)+
        }

        impl $name {
            /// Every variant, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant,)+];

            $(#[$method_doc])*
            pub fn $method(self) -> &'static str {
                match self {
                    $($name::$variant => $id,)+
                }
            }
        }
    };
}

pub(crate) use named;
