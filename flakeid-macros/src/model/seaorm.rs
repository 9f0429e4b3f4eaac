//! SeaORM-specific model expansion.
//!
//! On the key field's `#[sea_orm(primary_key)]` it adds
//! * `auto_increment = false` (otherwise SeaORM drops the key from the
//!   `INSERT` and emits `IDENTITY` / `AUTO_INCREMENT`);
//! * unless a `column_type` is given, `column_type = "custom(\"bigint\")"`:
//!   SeaORM writes `BigInteger` as `integer` on SQLite, which would make the
//!   key an alias of the rowid, so an `INSERT` without a key would store a
//!   rowid instead of failing;
//! * unless an `extra` is given, `extra = "CHECK (<column> > 0)"`, which
//!   `create_table_from_entity` writes after the key's type: MySQL and
//!   MariaDB in non-strict mode store an `INSERT` without the key as 0
//!   instead of refusing it (see [`key_check`]).
//!
//! After the struct it emits `impl ActiveModelBehavior for ActiveModel` whose
//! `before_save` assigns an ID on insert and lets `save` insert a row whose
//! key `assign_id` gave, unless `behavior = manual` is given; it marks
//! the key type as the key of a model with `#[flake_id]` (`FlakeModelKey`,
//! which the ID type's `TryFromU64` requires: a model keyed by an ID type
//! without this attribute does not compile), unless `shared_key` is given;
//! and it implements `IdColumns` for the entity: every column field is
//! probed for an ID type (or an `Option` of one) by the type system, so
//! that integrations (a GraphQL schema) know which columns hold IDs and of
//! which type. The macro cannot tell an ID type from a path; the probe's
//! method resolution can (see `flakeid_seaorm::__private::probe`).

use proc_macro2::TokenStream;
use quote::quote;
use syn::spanned::Spanned;

use super::fields::{KeyField, derived_names, key_field, metas, named_fields, single_key};
use crate::attr::Args;

mod key_check;

/// The key field: the one marked `#[sea_orm(primary_key)]`, once the
/// attribute is known to sit above SeaORM's own macros.
pub(super) fn key(input: &syn::DeriveInput) -> syn::Result<KeyField> {
    if input.generics.params.is_empty() {
        check_placement(input)?;
    } else {
        return Err(syn::Error::new_spanned(
            &input.generics,
            "#[flake_id] does not support generic models",
        ));
    }
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

/// Rewrites the model's key in place and returns the items emitted after it.
pub(super) fn expand(
    input: &mut syn::DeriveInput,
    key: &KeyField,
    orm: &TokenStream,
    args: &Args,
) -> syn::Result<TokenStream> {
    let rename_all = struct_rename_all(&input.attrs)?;
    let id_columns = id_columns(input, rename_all.as_ref(), orm)?;
    let syn::Data::Struct(data) = &mut input.data else {
        return Ok(TokenStream::new());
    };
    let Some(field) = data.fields.iter_mut().nth(key.index) else {
        return Ok(TokenStream::new());
    };
    mark_key(field, rename_all.as_ref())?;

    let ty = &key.ty;
    let marked = if args.shared_key.is_some() {
        TokenStream::new()
    } else {
        quote! {
            impl<'a> #orm::FlakeModelKey for &'a #ty {}
        }
    };
    if args.behavior_manual.is_some() {
        return Ok(quote! {
            #marked
            #id_columns
        });
    }
    Ok(quote! {
        #marked
        #id_columns
        #[#orm::__private::async_trait::async_trait]
        impl #orm::__private::sea_orm::ActiveModelBehavior for ActiveModel {
            async fn before_save<C>(
                self,
                db: &C,
                insert: bool,
            ) -> ::core::result::Result<Self, #orm::__private::sea_orm::DbErr>
            where
                C: #orm::__private::sea_orm::ConnectionTrait,
            {
                #orm::__private::before_save(self, db, insert).await
            }
        }
    })
}

/// `impl IdColumns for Entity`: a probe of each field that is a column
/// (not `#[sea_orm(ignore)]`), under the column name SeaORM derives for it.
fn id_columns(
    input: &syn::DeriveInput,
    rename_all: Option<&syn::LitStr>,
    orm: &TokenStream,
) -> syn::Result<TokenStream> {
    let mut probes = Vec::new();
    for field in named_fields(input) {
        let mut column_name = None;
        let mut ignored = false;
        for attr in field.attrs.iter().filter(|a| is_sea_orm_attr(a)) {
            // A helper this macro cannot read is SeaORM's to report.
            for meta in metas(attr).unwrap_or_default() {
                if meta.path().is_ident("ignore") {
                    ignored = true;
                } else if let syn::Meta::NameValue(syn::MetaNameValue {
                    path,
                    value:
                        syn::Expr::Lit(syn::ExprLit {
                            lit: syn::Lit::Str(name),
                            ..
                        }),
                    ..
                }) = &meta
                    && path.is_ident("column_name")
                {
                    column_name = Some(name.value());
                }
            }
        }
        if ignored {
            continue;
        }
        let name = match column_name {
            Some(name) => name,
            None => match key_check::default_column_name(field, rename_all)? {
                Some(name) => name,
                None => continue,
            },
        };
        let ty = &field.ty;
        probes.push(quote! {
            (&&&#orm::__private::probe::Probe::<#ty>::new()).visit::<Self, V>(visitor, #name);
        });
    }
    Ok(quote! {
        impl #orm::IdColumns for Entity {
            fn visit_id_columns<V: #orm::IdColumnVisitor<Self>>(visitor: &mut V) {
                #[allow(unused_imports)]
                use #orm::__private::probe::{Id as _, NotId as _, NullableId as _};
                #(#probes)*
            }
        }
    })
}

/// `#[flake_id]` must run before `#[sea_orm::model]` and
/// `#[derive(DeriveEntityModel)]`: below the first it is copied onto the
/// `ModelEx` and runs twice, below the second its changes are not seen.
fn check_placement(input: &syn::DeriveInput) -> syn::Result<()> {
    let derives = derived_names(&input.attrs)?;
    if derives.iter().any(|d| d == "DeriveModelEx") {
        return Err(syn::Error::new(
            proc_macro2::Span::call_site(),
            "#[flake_id] must be placed above `#[sea_orm::model]`: below it, it is copied onto \
             the generated `ModelEx` and runs twice",
        ));
    }
    let model = input.attrs.iter().any(is_sea_orm_model_attr)
        || derives.iter().any(|d| d == "DeriveEntityModel");
    if model {
        return Ok(());
    }
    let helpers = input.attrs.iter().any(is_sea_orm_attr)
        || named_fields(input)
            .iter()
            .any(|f| f.attrs.iter().any(is_sea_orm_attr));
    let name = &input.ident;
    Err(if helpers {
        // `#[sea_orm(..)]` helpers without the macro that reads them: the
        // macro ran before `#[flake_id]` was reached.
        syn::Error::new(
            proc_macro2::Span::call_site(),
            "#[flake_id] must be placed above `#[sea_orm::model]` and \
             `#[derive(DeriveEntityModel)]`: below them it runs once per generated struct or its \
             changes are not seen",
        )
    } else {
        syn::Error::new(
            name.span(),
            format!(
                "`{name}` is not a SeaORM model: #[flake_id] for SeaORM goes above \
                 `#[sea_orm::model]` or `#[derive(DeriveEntityModel)]`"
            ),
        )
    })
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

/// Adds `auto_increment = false` (and the column type and the key's `CHECK`)
/// to the key's `#[sea_orm(primary_key, ..)]`.
fn mark_key(field: &mut syn::Field, rename_all: Option<&syn::LitStr>) -> syn::Result<()> {
    let mut has_column_type = false;
    let mut has_auto_increment = false;
    let mut has_extra = false;
    let mut column_name = None;
    let mut key_attr = None;
    for (i, attr) in field.attrs.iter().enumerate() {
        if !attr.path().is_ident("sea_orm") {
            continue;
        }
        let syn::Meta::List(list) = &attr.meta else {
            continue;
        };
        let metas = list.parse_args_with(
            syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated,
        )?;
        for meta in &metas {
            let path = meta.path();
            if path.is_ident("primary_key") {
                key_attr = Some(i);
            } else if path.is_ident("column_type") {
                has_column_type = true;
            } else if path.is_ident("extra") {
                has_extra = true;
            } else if path.is_ident("column_name") {
                if let syn::Meta::NameValue(syn::MetaNameValue {
                    value:
                        syn::Expr::Lit(syn::ExprLit {
                            lit: syn::Lit::Str(name),
                            ..
                        }),
                    ..
                }) = meta
                {
                    column_name = Some(name.value());
                }
            } else if path.is_ident("auto_increment") {
                let is_false = matches!(
                    meta,
                    syn::Meta::NameValue(syn::MetaNameValue {
                        value: syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Bool(b), .. }),
                        ..
                    }) if !b.value
                );
                if !is_false {
                    return Err(syn::Error::new(
                        meta.span(),
                        "#[flake_id] keys are assigned by the application, not the database: \
                         remove `auto_increment` (it is set to false for you)",
                    ));
                }
                has_auto_increment = true;
            }
        }
    }
    let Some(i) = key_attr else {
        return Ok(());
    };
    let column = match column_name {
        Some(name) => Some(name),
        None => key_check::default_column_name(field, rename_all)?,
    };
    let check = match column {
        Some(column) if !has_extra => Some(key_check::check_clause(&column).map_err(|reason| {
            syn::Error::new(
                field
                    .ident
                    .as_ref()
                    .map_or_else(|| field.span(), syn::Ident::span),
                format!(
                    "#[flake_id] adds `CHECK (<key column> > 0)` to the key, so the database \
                     refuses keys that are not IDs, but the key column `{column}` {reason}: \
                     write the check for your database with \
                     `#[sea_orm(extra = \"CHECK (...)\")]` on the key (#[flake_id] then \
                     leaves it as it is), or name the column with `column_name = \"...\"`"
                ),
            )
        })?),
        _ => None,
    };
    let syn::Meta::List(list) = &mut field.attrs[i].meta else {
        return Ok(());
    };
    let mut tokens = list.tokens.clone();
    if !has_auto_increment {
        tokens.extend(quote!(, auto_increment = false));
    }
    if !has_column_type {
        tokens.extend(quote!(, column_type = "custom(\"bigint\")"));
    }
    if let Some(check) = check {
        tokens.extend(quote!(, extra = #check));
    }
    list.tokens = tokens;
    Ok(())
}

/// The struct's `#[sea_orm(rename_all = "..")]`, which names the columns.
fn struct_rename_all(attrs: &[syn::Attribute]) -> syn::Result<Option<syn::LitStr>> {
    let mut rename_all = None;
    for attr in attrs.iter().filter(|a| a.path().is_ident("sea_orm")) {
        let syn::Meta::List(list) = &attr.meta else {
            continue;
        };
        let metas = list.parse_args_with(
            syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated,
        )?;
        for meta in metas {
            if let syn::Meta::NameValue(syn::MetaNameValue {
                path,
                value:
                    syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Str(style),
                        ..
                    }),
                ..
            }) = meta
                && path.is_ident("rename_all")
            {
                rename_all = Some(style);
            }
        }
    }
    Ok(rename_all)
}
