//! The `#[flake_id]` attribute. Runtime behaviour lives in `flakeid-core`;
//! this crate only parses and expands.

use proc_macro::TokenStream;

mod id_type;
mod model;
mod paths;

/// Declares a typed ID (`#[flake_id] pub struct UserId(i64);`) or marks a
/// model's primary key as application-assigned.
#[proc_macro_attribute]
pub fn flake_id(args: TokenStream, item: TokenStream) -> TokenStream {
    let args = proc_macro2::TokenStream::from(args);
    let item = proc_macro2::TokenStream::from(item);
    let expanded = match syn::parse2::<syn::DeriveInput>(item.clone()) {
        Ok(input) => match &input.data {
            syn::Data::Struct(s) if matches!(s.fields, syn::Fields::Named(_)) => {
                model::expand(args, input)
            }
            _ => id_type::expand(args, input),
        },
        Err(e) => Err(e),
    };
    expanded.unwrap_or_else(syn::Error::into_compile_error).into()
}
