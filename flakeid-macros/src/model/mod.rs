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
mod seaorm;

/// The primary key field of a model.
pub(crate) struct KeyField {
    /// Position among the struct's fields.
    pub(crate) index: usize,
    /// The field's name.
    pub(crate) ident: syn::Ident,
    /// The field's type, an ID type.
    pub(crate) ty: syn::Type,
}

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
    let extra = match (orm, &paths.seaorm) {
        (Entry::SeaOrm, Some(seaorm)) => seaorm::expand(&mut input, &key, seaorm, args)?,
        _ => TokenStream::new(),
    };
    Ok(quote! {
        #input
        #assert_id
        #extra
    })
}

fn single_key(
    input: &syn::DeriveInput,
    mut keys: Vec<KeyField>,
    hint: &str,
) -> syn::Result<KeyField> {
    match keys.len() {
        0 => Err(syn::Error::new(
            input.ident.span(),
            format!(
                "#[flake_id] found no primary key in `{}`: {hint}",
                input.ident
            ),
        )),
        1 => Ok(keys.remove(0)),
        _ => {
            let names: Vec<String> = keys.iter().map(|k| format!("`{}`", k.ident)).collect();
            Err(syn::Error::new(
                keys[1].ident.span(),
                format!(
                    "#[flake_id] marks a single-column key as application-assigned, but the key \
                     of `{}` has several columns ({}); composite keys hold values the \
                     application already has, so remove #[flake_id]",
                    input.ident,
                    names.join(", ")
                ),
            ))
        }
    }
}

fn key_field(index: usize, field: &syn::Field) -> KeyField {
    KeyField {
        index,
        ident: field
            .ident
            .clone()
            .unwrap_or_else(|| syn::Ident::new("id", field.span())),
        ty: field.ty.clone(),
    }
}

fn named_fields(input: &syn::DeriveInput) -> Vec<&syn::Field> {
    match &input.data {
        syn::Data::Struct(s) => s.fields.iter().collect(),
        _ => Vec::new(),
    }
}

/// The last path segment of every derived trait (`DeriveEntityModel`).
fn derived_names(attrs: &[syn::Attribute]) -> syn::Result<Vec<String>> {
    let mut names = Vec::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident("derive")) {
        let paths = attr.parse_args_with(
            syn::punctuated::Punctuated::<syn::Path, syn::Token![,]>::parse_terminated,
        )?;
        names.extend(
            paths
                .iter()
                .filter_map(|p| p.segments.last().map(|s| s.ident.to_string())),
        );
    }
    Ok(names)
}

/// The comma-separated items of `#[name(..)]`; empty for `#[name]`.
fn metas(attr: &syn::Attribute) -> syn::Result<Vec<syn::Meta>> {
    match &attr.meta {
        syn::Meta::List(_) => Ok(attr
            .parse_args_with(
                syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated,
            )?
            .into_iter()
            .collect()),
        _ => Ok(Vec::new()),
    }
}
