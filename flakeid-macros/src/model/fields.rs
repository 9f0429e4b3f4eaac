//! What both ORMs' model expansions read from a model struct: its key
//! field and attributes.

use syn::spanned::Spanned;

/// The primary key field of a model.
pub(crate) struct KeyField {
    /// Position among the struct's fields.
    pub(crate) index: usize,
    /// The field's name.
    pub(crate) ident: syn::Ident,
    /// The field's type, an ID type.
    pub(crate) ty: syn::Type,
}

pub(crate) fn single_key(
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

pub(crate) fn key_field(index: usize, field: &syn::Field) -> KeyField {
    KeyField {
        index,
        ident: field
            .ident
            .clone()
            .unwrap_or_else(|| syn::Ident::new("id", field.span())),
        ty: field.ty.clone(),
    }
}

pub(crate) fn named_fields(input: &syn::DeriveInput) -> Vec<&syn::Field> {
    match &input.data {
        syn::Data::Struct(s) => s.fields.iter().collect(),
        _ => Vec::new(),
    }
}

/// The last path segment of every derived trait (`DeriveEntityModel`).
pub(crate) fn derived_names(attrs: &[syn::Attribute]) -> syn::Result<Vec<String>> {
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
pub(crate) fn metas(attr: &syn::Attribute) -> syn::Result<Vec<syn::Meta>> {
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
