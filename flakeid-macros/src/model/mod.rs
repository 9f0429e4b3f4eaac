//! Expansion of `#[flake_id]` on a model struct: marks its primary key as
//! application-assigned. What each ORM needs lives beside it, in
//! `seaorm.rs` and `diesel.rs`; this module finds the key through the
//! ORM, checks that its type is an ID type, and emits that check.
//!
//! Composite keys are rejected: their columns hold values the application
//! already has (usually foreign keys), so there is nothing to generate.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use crate::attr::{Args, Entry, Paths};

mod diesel;
mod fields;
mod seaorm;

/// The expansion for a model of `orm` (validated by `valid::model_orm`).
pub(crate) fn expand(
    orm: Entry,
    args: &Args,
    paths: &Paths,
    mut input: syn::DeriveInput,
) -> syn::Result<TokenStream> {
    let key = match orm {
        Entry::SeaOrm => seaorm::key(&input)?,
        _ => diesel::key(&input)?,
    };
    crate::valid::key_type(&key.ident, &key.ty)?;
    let core = &paths.core;
    let ty = &key.ty;
    // Spanned at the key's type so a non-ID type is reported there, with the
    // message of `FlakeId`'s `#[diagnostic::on_unimplemented]`.
    let assert_id = quote_spanned! {ty.span()=>
        const _: () = {
            const fn key_must_be_a_flake_id<T: #core::FlakeId>() {}
            key_must_be_a_flake_id::<#ty>()
        };
    };
    let extra = match (orm, &paths.seaorm, &paths.diesel) {
        (Entry::SeaOrm, Some(seaorm), _) => seaorm::expand(&mut input, &key, seaorm, args)?,
        // An ID type declared without `diesel` has none of Diesel's impls:
        // say so at the key, rather than only through Diesel's own errors.
        (Entry::Diesel, _, Some(diesel)) => quote_spanned! {ty.span()=>
            const _: () = {
                const fn key_needs_diesel_impls<T: #diesel::__private::DieselId>() {}
                key_needs_diesel_impls::<#ty>()
            };
        },
        _ => TokenStream::new(),
    };
    Ok(quote! {
        #input
        #assert_id
        #extra
    })
}
