//! Expansion of `#[flake_id]` on an ID newtype: `pub struct UserId(i64);`.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use crate::paths::Paths;

/// Traits the expansion implements, so a user's own derive of one of them
/// would conflict.
const GENERATED_TRAITS: &[&str] = &[
    "Clone",
    "Copy",
    "PartialEq",
    "Eq",
    "PartialOrd",
    "Ord",
    "Hash",
    "Debug",
    "Serialize",
    "Deserialize",
];

/// Arguments of `#[flake_id(...)]` on an ID type.
#[derive(Default)]
struct Args {
    /// `generator = path::to::fn`.
    generator: Option<syn::Path>,
}

fn parse_args(args: TokenStream) -> syn::Result<Args> {
    let mut parsed = Args::default();
    let parser = syn::meta::parser(|meta| {
        if meta.path.is_ident("generator") {
            if parsed.generator.is_some() {
                return Err(meta.error("`generator` is given twice"));
            }
            parsed.generator = Some(meta.value()?.parse()?);
            Ok(())
        } else {
            Err(meta.error(format!(
                "unknown #[flake_id] argument `{}`; the only argument is \
                 `generator = path::to::function`",
                path_text(&meta.path)
            )))
        }
    });
    syn::parse::Parser::parse2(parser, args)?;
    Ok(parsed)
}

pub(crate) fn expand(args: TokenStream, mut input: syn::DeriveInput) -> syn::Result<TokenStream> {
    let args = parse_args(args)?;
    check_shape(&input)?;
    check_derives(&input.attrs)?;
    let paths = Paths::resolve()?;
    let core = &paths.core;
    let name = &input.ident;
    let name_str = syn::ext::IdentExt::unraw(name).to_string();

    if !input.attrs.iter().any(is_repr_transparent) {
        input.attrs.push(syn::parse_quote!(#[repr(transparent)]));
    }
    input.attrs.push(syn::parse_quote!(
        #[derive(
            ::core::clone::Clone,
            ::core::marker::Copy,
            ::core::cmp::PartialEq,
            ::core::cmp::Eq,
            ::core::cmp::PartialOrd,
            ::core::cmp::Ord,
            ::core::hash::Hash
        )]
    ));

    let (generator, validator) = match &args.generator {
        // Spanned so a function of the wrong type is reported at the path.
        // The default validator (the generator) serves a custom source.
        Some(path) => (
            quote_spanned!(path.span()=> #core::__private::id_source(#path())),
            quote!(),
        ),
        // Reading a row must not configure the process-wide generator.
        None => (
            quote!(#core::__private::global_source()),
            quote! {
                #[inline]
                fn validator() -> ::core::option::Option<&'static dyn #core::IdSource> {
                    #core::__private::global_validator()
                }
            },
        ),
    };
    let error = quote!(#core::IdError);
    let result = quote!(::core::result::Result);

    let mut out = quote! {
        #input

        #[automatically_derived]
        impl #core::FlakeId for #name {
            const NAME: &'static str = #name_str;

            #[inline]
            fn generator() -> #result<&'static dyn #core::IdSource, #core::ConfigError> {
                #generator
            }

            #validator

            #[inline]
            fn __from_valid(value: i64) -> Self {
                Self(value)
            }

            #[inline]
            fn get(self) -> i64 {
                self.0
            }
        }

        #[automatically_derived]
        impl ::core::fmt::Debug for #name {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.debug_tuple(#name_str).field(&self.0).finish()
            }
        }

        #[automatically_derived]
        impl ::core::fmt::Display for #name {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                #core::__private::display(self, f)
            }
        }

        #[automatically_derived]
        impl ::core::str::FromStr for #name {
            type Err = #error;

            fn from_str(s: &str) -> #result<Self, #error> {
                #core::__private::from_str(s)
            }
        }

        #[automatically_derived]
        impl ::core::convert::TryFrom<i64> for #name {
            type Error = #error;

            fn try_from(value: i64) -> #result<Self, #error> {
                <Self as #core::FlakeId>::from_i64(value)
            }
        }

        #[automatically_derived]
        impl ::core::convert::TryFrom<u64> for #name {
            type Error = #error;

            fn try_from(value: u64) -> #result<Self, #error> {
                <Self as #core::FlakeId>::from_u64(value)
            }
        }

        #[automatically_derived]
        impl ::core::convert::From<#name> for i64 {
            #[inline]
            fn from(id: #name) -> i64 {
                id.0
            }
        }

        #core::__private::impl_serde!(#name);
    };
    for orm in [&paths.seaorm, &paths.diesel].into_iter().flatten() {
        let (cfg, path) = (orm.cfg(), &orm.path);
        out.extend(quote!(#cfg #path::__private::impl_id!(#name);));
    }
    Ok(out)
}

/// A tuple struct with one private `i64` field and no generics.
fn check_shape(input: &syn::DeriveInput) -> syn::Result<()> {
    let fields = match &input.data {
        syn::Data::Struct(s) => &s.fields,
        syn::Data::Enum(e) => return Err(syn::Error::new(e.enum_token.span, crate::WHERE_IT_GOES)),
        syn::Data::Union(u) => {
            return Err(syn::Error::new(u.union_token.span, crate::WHERE_IT_GOES));
        }
    };
    let name = &input.ident;
    if !input.generics.params.is_empty() || input.generics.where_clause.is_some() {
        return Err(syn::Error::new_spanned(
            &input.generics,
            format!(
                "an ID type cannot be generic: declare one type per table, `struct {name}(i64);`"
            ),
        ));
    }
    let unnamed = match fields {
        syn::Fields::Unnamed(unnamed) => unnamed,
        // Named fields are models (dispatched elsewhere); this is a unit struct.
        _ => {
            return Err(syn::Error::new(
                name.span(),
                format!("an ID type holds one `i64`: write `struct {name}(i64);`"),
            ));
        }
    };
    let mut iter = unnamed.unnamed.iter();
    let Some(field) = iter.next() else {
        return Err(syn::Error::new(
            unnamed.paren_token.span.join(),
            format!("an ID type holds one `i64`: write `struct {name}(i64);`"),
        ));
    };
    if let Some(extra) = iter.next() {
        return Err(syn::Error::new_spanned(
            extra,
            format!(
                "an ID type holds exactly one `i64` and nothing else: write `struct {name}(i64);`"
            ),
        ));
    }
    if !is_i64(&field.ty) {
        return Err(syn::Error::new_spanned(
            &field.ty,
            format!(
                "the field of an ID type must be `i64`, found `{}`: IDs are stored as a signed \
                 BIGINT",
                quote::ToTokens::to_token_stream(&field.ty)
                    .to_string()
                    .replace(' ', "")
            ),
        ));
    }
    if !matches!(field.vis, syn::Visibility::Inherited) {
        return Err(syn::Error::new_spanned(
            &field.vis,
            format!(
                "the field of an ID type must be private, so every `{name}` holds a valid ID: \
                 read it with `.get()` or `i64::from(id)`, build one with `{name}::try_from(n)` \
                 or `{name}::generate()`"
            ),
        ));
    }
    Ok(())
}

fn is_i64(ty: &syn::Type) -> bool {
    let syn::Type::Path(p) = ty else { return false };
    if p.qself.is_some() {
        return false;
    }
    let segments: Vec<String> = p
        .path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    match segments.as_slice() {
        [i] => i == "i64",
        [krate, primitive, i] => {
            (krate == "core" || krate == "std") && primitive == "primitive" && i == "i64"
        }
        _ => false,
    }
}

/// Rejects `#[derive(..)]` of a trait the expansion already implements.
fn check_derives(attrs: &[syn::Attribute]) -> syn::Result<()> {
    for attr in attrs.iter().filter(|a| a.path().is_ident("derive")) {
        let paths = attr.parse_args_with(
            syn::punctuated::Punctuated::<syn::Path, syn::Token![,]>::parse_terminated,
        )?;
        for path in paths {
            let Some(last) = path.segments.last() else {
                continue;
            };
            let trait_name = last.ident.to_string();
            if trait_name == "Default" {
                return Err(syn::Error::new_spanned(
                    &path,
                    "an ID type has no default value: it would be `0`, which is not an ID; \
                     create one with `generate()` or `try_from(n)`",
                ));
            }
            if GENERATED_TRAITS.contains(&trait_name.as_str()) {
                return Err(syn::Error::new_spanned(
                    &path,
                    format!(
                        "#[flake_id] already implements `{trait_name}` for this ID type: \
                         remove it from the derive"
                    ),
                ));
            }
        }
    }
    Ok(())
}

fn is_repr_transparent(attr: &syn::Attribute) -> bool {
    attr.path().is_ident("repr")
        && attr
            .parse_args::<syn::Ident>()
            .is_ok_and(|ident| ident == "transparent")
}

fn path_text(path: &syn::Path) -> String {
    quote::ToTokens::to_token_stream(path)
        .to_string()
        .replace(' ', "")
}
