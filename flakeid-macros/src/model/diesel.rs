//! Diesel-specific model expansion.
//!
//! Diesel has no insert hooks: a row's key is set where the row is built,
//! `User { id: UserId::generate()?, name }` — named fields, so no two
//! values can be swapped by position. `#[flake_id]` on a Diesel model finds
//! its key and checks that the key's type is an ID type; it writes no code
//! of its own.

use super::fields::{KeyField, key_field, metas, named_fields, single_key};

/// The field named by `#[diesel(primary_key(..))]`, or else `id`.
pub(super) fn key(input: &syn::DeriveInput) -> syn::Result<KeyField> {
    let fields = named_fields(input);
    let mut named: Option<Vec<syn::Ident>> = None;
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("diesel")) {
        for meta in metas(attr)? {
            if let syn::Meta::List(list) = meta
                && list.path.is_ident("primary_key")
            {
                let idents = list.parse_args_with(
                    syn::punctuated::Punctuated::<syn::Ident, syn::Token![,]>::parse_terminated,
                )?;
                named = Some(idents.into_iter().collect());
            }
        }
    }
    let find = |ident: &syn::Ident| {
        fields
            .iter()
            .enumerate()
            .find(|(_, f)| f.ident.as_ref() == Some(ident))
            .map(|(index, f)| key_field(index, f))
    };
    let keys = match named {
        Some(idents) => idents
            .iter()
            .map(|ident| {
                find(ident).ok_or_else(|| {
                    syn::Error::new(
                        ident.span(),
                        format!(
                            "`primary_key` names `{ident}`, which is not a field of this struct"
                        ),
                    )
                })
            })
            .collect::<syn::Result<Vec<_>>>()?,
        None => find(&syn::Ident::new("id", proc_macro2::Span::call_site()))
            .into_iter()
            .collect(),
    };
    single_key(
        input,
        keys,
        "name the key field `id` or declare it with `#[diesel(primary_key(field))]`",
    )
}
