//! SeaORM-specific model expansion. (skeleton)
use proc_macro2::TokenStream;

pub(crate) fn expand_model(input: &syn::DeriveInput) -> syn::Result<TokenStream> {
    let _ = input;
    Ok(TokenStream::new())
}
