//! The `#[flake_id]` attribute. See `flakeid-core`.

use proc_macro::TokenStream;

/// Declares a typed ID (`#[flake_id] pub struct UserId(i64);`) or marks a
/// model's primary key as application-assigned.
#[proc_macro_attribute]
pub fn flake_id(_args: TokenStream, item: TokenStream) -> TokenStream {
    item
}
