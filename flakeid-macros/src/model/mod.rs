//! Expansion of `#[flake_id]` on a model struct: marks its primary key as
//! application-assigned. ORM-specific parts live in the submodules.
//!
//! This module finds the ORM and the key field, checks that the key's type
//! is an ID type, then hands the struct to the ORM's `expand_model`, which
//! may rewrite it in place and returns items emitted after it.
//!
//! Composite keys are rejected: their columns hold values the application
//! already has (usually foreign keys), so there is nothing to generate.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use crate::paths::Paths;

mod diesel;
mod seaorm;

/// What an ORM's `expand_model` gets besides the struct.
#[allow(dead_code, reason = "each ORM expansion reads what it needs")]
pub(crate) struct ModelContext<'a> {
    /// The primary key field.
    pub(crate) key: KeyField,
    /// Path to `flakeid-core` (e.g. `::flakeid_core`).
    pub(crate) core: &'a TokenStream,
    /// Path to the ORM integration crate (e.g. `::flakeid_seaorm`).
    pub(crate) orm: &'a TokenStream,
    /// The attribute's arguments, `#[flake_id(..)]`.
    pub(crate) args: &'a TokenStream,
}

/// The primary key field of a model.
#[allow(dead_code, reason = "each ORM expansion reads what it needs")]
pub(crate) struct KeyField {
    /// Position among the struct's fields.
    pub(crate) index: usize,
    /// The field's name.
    pub(crate) ident: syn::Ident,
    /// The field's type, an ID type.
    pub(crate) ty: syn::Type,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Orm {
    SeaOrm,
    Diesel,
}

/// Diesel derives whose presence marks a Diesel model even without a
/// `#[diesel(..)]` attribute.
const DIESEL_DERIVES: &[&str] = &[
    "Queryable",
    "QueryableByName",
    "Selectable",
    "Insertable",
    "Identifiable",
    "AsChangeset",
    "Associations",
];

pub(crate) fn expand(args: TokenStream, mut input: syn::DeriveInput) -> syn::Result<TokenStream> {
    let orm = detect_orm(&input)?;
    // Arguments (`behavior = manual`, `constructor = manual`) are parsed by
    // each ORM's expansion.
    // Diesel insertables commonly borrow (`NewUser<'a>`); its expansion keeps generics.
    if orm == Orm::SeaOrm && !input.generics.params.is_empty() {
        return Err(syn::Error::new_spanned(
            &input.generics,
            "#[flake_id] does not support generic models",
        ));
    }
    let key = match orm {
        Orm::SeaOrm => seaorm_key(&input)?,
        Orm::Diesel => diesel_key(&input)?,
    };
    check_key_type(&key)?;
    let paths = Paths::resolve()?;
    let orm_path = match orm {
        Orm::SeaOrm => paths.seaorm.as_ref().map(|d| &d.path).ok_or_else(|| {
            syn::Error::new(
                input.ident.span(),
                "#[flake_id] on a SeaORM model needs `flakeid-seaorm` in this crate's \
                 [dependencies]",
            )
        })?,
        Orm::Diesel => paths.diesel.as_ref().map(|d| &d.path).ok_or_else(|| {
            syn::Error::new(
                input.ident.span(),
                "#[flake_id] on a Diesel model needs `flakeid-diesel` in this crate's \
                 [dependencies]",
            )
        })?,
    };
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
    let cx = ModelContext {
        key,
        core,
        orm: orm_path,
        args: &args,
    };
    let extra = match orm {
        Orm::SeaOrm => seaorm::expand_model(&mut input, &cx)?,
        Orm::Diesel => diesel::expand_model(&mut input, &cx)?,
    };
    Ok(quote! {
        #input
        #assert_id
        #extra
    })
}

/// Rejects key types that are plainly not ID types with a message naming
/// the field; anything else is left to the `FlakeId` bound emitted later.
fn check_key_type(key: &KeyField) -> syn::Result<()> {
    let syn::Type::Path(path) = &key.ty else {
        return Ok(());
    };
    let Some(last) = path.path.segments.last() else {
        return Ok(());
    };
    let (field, ty) = (&key.ident, last.ident.to_string());
    if ty == "Option" {
        return Err(syn::Error::new_spanned(
            &key.ty,
            format!("the primary key `{field}` cannot be optional: use the ID type itself"),
        ));
    }
    const PLAIN: &[&str] = &[
        "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128", "usize",
        "String", "Uuid",
    ];
    if PLAIN.contains(&ty.as_str()) {
        return Err(syn::Error::new_spanned(
            &key.ty,
            format!(
                "the primary key `{field}` has type `{ty}`, which is not an ID type: declare one \
                 with `#[flake_id] pub struct MyId(i64);` and use it as the key's type"
            ),
        ));
    }
    Ok(())
}

fn detect_orm(input: &syn::DeriveInput) -> syn::Result<Orm> {
    let derives = derived_names(&input.attrs)?;
    let sea_model = input.attrs.iter().any(is_sea_orm_model_attr)
        || derives.iter().any(|d| d == "DeriveEntityModel");
    let sea_attrs = input.attrs.iter().any(is_sea_orm_attr) || fields_have(input, is_sea_orm_attr);
    let diesel = input.attrs.iter().any(|a| a.path().is_ident("diesel"))
        || derives.iter().any(|d| DIESEL_DERIVES.contains(&d.as_str()));
    let name = &input.ident;
    // `#[sea_orm::model]` copies the other attributes, `#[flake_id]`
    // included, onto the `ModelEx` it generates, deriving `DeriveModelEx`.
    if derives.iter().any(|d| d == "DeriveModelEx") {
        return Err(syn::Error::new(
            proc_macro2::Span::call_site(),
            "#[flake_id] must be placed above `#[sea_orm::model]`: below it, it is copied onto \
             the generated `ModelEx` and runs twice",
        ));
    }
    match (sea_model, sea_attrs, diesel) {
        (true, _, false) => Ok(Orm::SeaOrm),
        // `#[sea_orm(..)]` helpers without the macro that reads them: the
        // macro ran before `#[flake_id]` was reached.
        (false, true, false) => Err(syn::Error::new(
            proc_macro2::Span::call_site(),
            "#[flake_id] must be placed above `#[sea_orm::model]` and \
             `#[derive(DeriveEntityModel)]`: below them it runs once per generated struct or its \
             changes are not seen",
        )),
        (false, false, true) => Ok(Orm::Diesel),
        (_, _, true) => Err(syn::Error::new(
            name.span(),
            "#[flake_id] found both SeaORM and Diesel attributes on this model; declare the \
             model for one ORM",
        )),
        (false, false, false) => Err(syn::Error::new(
            name.span(),
            format!(
                "#[flake_id] on a struct with named fields marks a model's primary key, but \
                 `{name}` has no SeaORM (`#[sea_orm::model]`, `#[derive(DeriveEntityModel)]`) or \
                 Diesel (`#[diesel(..)]`) attributes; an ID type is a tuple struct \
                 `struct UserId(i64);`"
            ),
        )),
    }
}

/// The field marked `#[sea_orm(primary_key)]`.
fn seaorm_key(input: &syn::DeriveInput) -> syn::Result<KeyField> {
    let mut keys = Vec::new();
    for (index, field) in named_fields(input).iter().enumerate() {
        for attr in field.attrs.iter().filter(|a| is_sea_orm_attr(a)) {
            if metas(attr)?
                .iter()
                .any(|m| m.path().is_ident("primary_key"))
            {
                keys.push(key_field(index, field));
            }
        }
    }
    single_key(
        input,
        keys,
        "mark the key field with `#[sea_orm(primary_key)]`",
    )
}

/// The field named by `#[diesel(primary_key(..))]`, or else `id`.
fn diesel_key(input: &syn::DeriveInput) -> syn::Result<KeyField> {
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

fn fields_have(input: &syn::DeriveInput, pred: fn(&syn::Attribute) -> bool) -> bool {
    named_fields(input).iter().any(|f| f.attrs.iter().any(pred))
}

fn is_sea_orm_attr(attr: &syn::Attribute) -> bool {
    attr.path().is_ident("sea_orm")
}

/// `#[sea_orm::model]`.
fn is_sea_orm_model_attr(attr: &syn::Attribute) -> bool {
    let segments: Vec<String> = attr
        .path()
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    segments == ["sea_orm", "model"]
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
