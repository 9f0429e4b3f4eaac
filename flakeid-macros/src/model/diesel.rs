//! Diesel-specific model expansion.
//!
//! Diesel has no insert hooks: a row's key must be set when the row is
//! built. For an `Insertable` struct this generates `new(..)` and
//! `try_new(..)`, taking every field but the key in declaration order and
//! assigning the key a fresh ID, unless `#[flake_id(constructor = manual)]`
//! says the model has constructors of its own. Other Diesel models (read
//! models, change sets) get nothing beyond the shared check that the key is
//! an ID type.
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

/// `#[flake_id(constructor = manual)]` or `#[flake_id(constructor = generated)]`
/// (the default): whether to generate `new` / `try_new`.
fn parse_args(args: &TokenStream) -> syn::Result<bool> {
    let mut generated = true;
    let parser = syn::meta::parser(|meta| {
        if meta.path.is_ident("constructor") {
            let value: syn::Ident = meta.value()?.parse()?;
            match value.to_string().as_str() {
                "manual" => generated = false,
                "generated" => generated = true,
                _ => {
                    return Err(syn::Error::new(
                        value.span(),
                        "expected `constructor = manual` (you write the constructors and set \
                         the key with `UserId::generate()`) or `constructor = generated`",
                    ));
                }
            }
            Ok(())
        } else {
            Err(meta.error(
                "unknown #[flake_id] argument on a Diesel model; the only one is \
                 `constructor = manual` (`generator = ..` goes on the ID type: \
                 `#[flake_id(generator = ..)] struct UserId(i64);`)",
            ))
        }
    });
    syn::parse::Parser::parse2(parser, args.clone())?;
    Ok(generated)
}

/// Rewrites the model in place if needed and returns items emitted after it.
pub(crate) fn expand_model(
    input: &mut syn::DeriveInput,
    cx: &super::ModelContext<'_>,
) -> syn::Result<TokenStream> {
    let generate_constructors = parse_args(cx.args)?;
    if !generate_constructors
        || !super::derived_names(&input.attrs)?
            .iter()
            .any(|d| d == "Insertable")
    {
        return Ok(TokenStream::new());
    }
    let fields = super::named_fields(input);
    let key = &cx.key;
    let key_ident = &key.ident;
    let key_ty = &key.ty;
    let core = cx.core;
    let mut params = Vec::new();
    let mut inits = Vec::new();
    for (index, field) in fields.iter().enumerate() {
        if index == key.index {
            continue;
        }
        let ident = field
            .ident
            .clone()
            .unwrap_or_else(|| format_ident!("field{index}"));
        let ty = &field.ty;
        params.push(quote!(#ident: #ty));
        inits.push(quote!(#ident));
    }
    let name = &input.ident;
    let vis = &input.vis;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let key_doc_new = format!(
        "A row with a fresh `{key_ident}` (from `FlakeId::generate`) and the other fields as \
         given, in declaration order.\n\n# Panics\nWhen no ID can be issued (generator not \
         configured, clock far behind); [`try_new`](Self::try_new) returns that as an error."
    );
    let key_doc_try = format!(
        "A row with a fresh `{key_ident}` and the other fields as given, or why no ID could be \
         issued."
    );
    Ok(quote! {
        impl #impl_generics #name #ty_generics #where_clause {
            #[doc = #key_doc_new]
            #[must_use]
            #[allow(clippy::too_many_arguments)]
            #vis fn new(#(#params),*) -> Self {
                Self {
                    #key_ident: <#key_ty as #core::FlakeId>::generate(),
                    #(#inits,)*
                }
            }

            #[doc = #key_doc_try]
            #[allow(clippy::too_many_arguments)]
            #vis fn try_new(
                #(#params),*
            ) -> ::core::result::Result<Self, #core::GenerateError> {
                ::core::result::Result::Ok(Self {
                    #key_ident: <#key_ty as #core::FlakeId>::try_generate()?,
                    #(#inits,)*
                })
            }
        }
    })
}
