//! Expansion: the code `#[flake_id]` writes for an ID type,
//! `pub struct UserId(i64);`.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use crate::attr::{Args, Paths};

/// The expansion of `#[flake_id]` on an ID type (already validated).
pub(crate) fn id_type(args: &Args, paths: &Paths, mut input: syn::DeriveInput) -> TokenStream {
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

    let vis = &input.vis;
    // The scheme (pure) and how the source is found.
    let (scheme_fn, scheme, resolve) = match (&args.scheme, &args.source) {
        (None, _) => (
            quote!(),
            quote!(#core::__private::default_scheme()),
            quote!(#core::__private::default_source(#name_str)),
        ),
        (Some(scheme_path), source) => {
            // Spanned so a function of the wrong type is reported at the path.
            // The call is spanned at the path, so a function of the wrong
            // type is reported there.
            let boxed = quote_spanned!(scheme_path.span()=>
                #core::__private::boxed_scheme(#scheme_path())
            );
            let make = quote!(#core::__private::scheme(&SCHEME, || #boxed));
            let resolve = match source {
                Some(path) => {
                    let source = quote_spanned!(path.span()=> #core::__private::id_source(#path()));
                    quote!(#core::__private::checked_source(
                        #name_str,
                        Self::__flakeid_scheme(),
                        #source,
                    ))
                }
                None => quote!(#core::__private::global_source(Self::__flakeid_scheme())),
            };
            (
                quote! {
                    #[automatically_derived]
                    impl #name {
                        #[doc(hidden)]
                        fn __flakeid_scheme() -> &'static dyn #core::GlobalScheme {
                            static SCHEME: #core::__private::SchemeCell =
                                #core::__private::SchemeCell::new();
                            #make
                        }
                    }
                },
                quote!(Self::__flakeid_scheme()),
                resolve,
            )
        }
    };
    let cut_over = args.cut_over.as_ref().map(|value| {
        let value = quote_spanned!(value.span()=> { let cut_over: u64 = #value; cut_over });
        quote!(const CUT_OVER: ::core::option::Option<u64> = ::core::option::Option::Some(#value);)
    });
    // Checked in `valid`: a prefix of TypeID's rule, a known form.
    let prefix = args.prefix.as_ref().map(|prefix| {
        let form = match args.text.as_ref().map(ToString::to_string).as_deref() {
            Some("base62") => quote!(Base62),
            Some("crockford") => quote!(Crockford),
            _ => quote!(Decimal),
        };
        quote! {
            const PREFIX: ::core::option::Option<#core::encoding::Prefix> =
                ::core::option::Option::Some(#core::encoding::Prefix::new(
                    #prefix,
                    #core::encoding::TextForm::#form,
                ));
        }
    });
    let error = quote!(#core::IdError);
    let result = quote!(::core::result::Result);

    let mut out = quote! {
        #input

        #[automatically_derived]
        impl #core::FlakeId for #name {
            const NAME: &'static str = #name_str;
            #cut_over
            #prefix

            #[inline]
            fn scheme() -> &'static dyn #core::IdScheme {
                #scheme
            }

            #[inline]
            fn source() -> #result<&'static dyn #core::IdSource, #core::ConfigError> {
                static SOURCE: #core::__private::SourceCell = #core::__private::SourceCell::new();
                #core::__private::cached_source(&SOURCE, || #resolve)
            }

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

        // IDs are positive: a protobuf `fixed64` / `uint64` field, MySQL
        // `BIGINT UNSIGNED`.
        #[automatically_derived]
        impl ::core::convert::From<#name> for u64 {
            #[inline]
            fn from(id: #name) -> u64 {
                id.0.unsigned_abs()
            }
        }

        #[automatically_derived]
        impl #name {
            /// The smallest and largest ID whose time lies in `range`
            /// (`t0..t1`, `t0..=t1`, `t0..`, `..t1`): the key bounds of
            /// rows created in the range (see `FlakeId::time_bounds`).
            ///
            /// # Errors
            /// `TimeBoundsError`: the scheme records no time, or the range
            /// is empty or outside the layout's time.
            #[inline]
            #vis fn time_bounds(
                range: impl ::core::ops::RangeBounds<::std::time::SystemTime>,
            ) -> #result<::core::ops::RangeInclusive<Self>, #core::TimeBoundsError> {
                <Self as #core::FlakeId>::time_bounds(range)
            }

            /// The smallest and largest ID of the tick holding `time` (see
            /// `FlakeId::tick_bounds`).
            ///
            /// # Errors
            /// As `time_bounds`.
            #[inline]
            #vis fn tick_bounds(
                time: ::std::time::SystemTime,
            ) -> #result<::core::ops::RangeInclusive<Self>, #core::TimeBoundsError> {
                <Self as #core::FlakeId>::tick_bounds(time)
            }
        }

        #scheme_fn

        #[automatically_derived]
        impl #name {
            /// A fresh ID, waiting as the source's policies allow (see
            /// `FlakeId::generate`).
            ///
            /// # Errors
            /// `IdGenerateError` naming this type: the source is not
            /// configured or cannot issue an ID now.
            #[inline]
            #vis fn generate() -> #result<Self, #core::IdGenerateError> {
                <Self as #core::FlakeId>::generate()
            }

            /// A fresh ID if one can be issued without waiting (see
            /// `FlakeId::try_generate`).
            ///
            /// # Errors
            /// `GenerateError::WouldBlock` (in an `IdGenerateError`) where
            /// `generate` would wait, as for the first call after the source
            /// is built; otherwise as `generate`.
            #[inline]
            #vis fn try_generate() -> #result<Self, #core::IdGenerateError> {
                <Self as #core::FlakeId>::try_generate()
            }

            /// `n` fresh IDs, reserved in one step where the source can (see
            /// `FlakeId::generate_many`).
            ///
            /// # Errors
            /// As `generate`.
            #[inline]
            #vis fn generate_many(n: usize) -> #result<::std::vec::Vec<Self>, #core::IdGenerateError> {
                <Self as #core::FlakeId>::generate_many(n)
            }

            /// The ID as the `i64` stored in the database.
            #[inline]
            #vis fn get(self) -> i64 {
                self.0
            }

            /// The ID's time (when its scheme records one) and fields.
            #[inline]
            #vis fn decode(self) -> #core::Decoded {
                <Self as #core::FlakeId>::decode(self)
            }
        }

        // Each expands to nothing unless flakeid-core's feature is on.
        #core::__private::impl_async!(#name, [#vis]);
        #core::__private::impl_serde!(#name);
        #core::__private::impl_sqlx!(#name);
        #core::__private::impl_utoipa!(#name);
        #core::__private::impl_schemars!(#name);
        #core::__private::impl_async_graphql!(#name);
        #core::__private::impl_ts_rs!(#name);
        #core::__private::impl_specta!(#name);
    };
    for orm in [&paths.seaorm, &paths.diesel].into_iter().flatten() {
        out.extend(quote!(#orm::__private::impl_id!(#name);));
    }
    out
}

fn is_repr_transparent(attr: &syn::Attribute) -> bool {
    attr.path().is_ident("repr")
        && attr
            .parse_args::<syn::Ident>()
            .is_ok_and(|ident| ident == "transparent")
}
