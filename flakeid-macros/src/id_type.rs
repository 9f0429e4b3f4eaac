//! Expansion of `#[flake_id]` on an ID newtype. (skeleton)
use proc_macro2::TokenStream;

pub(crate) fn expand(_args: TokenStream, input: syn::DeriveInput) -> syn::Result<TokenStream> {
    Ok(quote::quote!(#input))
}
