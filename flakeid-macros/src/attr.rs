//! Parsing: the attribute's arguments, parsed once for every kind of item,
//! and the paths generated code uses.

use proc_macro2::{Span, TokenStream};
use quote::quote;

/// Which crate's `flake_id` the user wrote: it decides the paths generated
/// code uses and, for the ORM crates, which ORM's impls are emitted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Entry {
    /// `flakeid_core::flake_id`.
    Core,
    /// `flakeid_seaorm::flake_id`.
    SeaOrm,
    /// `flakeid_diesel::flake_id`.
    Diesel,
}

/// `#[flake_id(..)]`'s arguments.
#[derive(Default)]
pub(crate) struct Args {
    /// `layout = path` or `scheme = path` (ID types).
    pub(crate) scheme: Option<syn::Path>,
    /// `source = path` (ID types).
    pub(crate) source: Option<syn::Path>,
    /// `cut_over = expr` (ID types): keys below it are from before flake keys.
    pub(crate) cut_over: Option<syn::Expr>,
    /// `prefix = "usr"` (ID types): the type prefix of the type's text.
    pub(crate) prefix: Option<syn::LitStr>,
    /// `text = decimal | base62 | crockford` (ID types): the form of the
    /// number after the prefix.
    pub(crate) text: Option<syn::Ident>,
    /// `seaorm`: emit SeaORM impls (implied by `flakeid_seaorm::flake_id`).
    pub(crate) seaorm: Option<Span>,
    /// `diesel`: emit Diesel impls (implied by `flakeid_diesel::flake_id`).
    pub(crate) diesel: Option<Span>,
    /// `crate = path`: where the crate of the attribute's entry point is.
    pub(crate) krate: Option<syn::Path>,
    /// `behavior = manual` (SeaORM models), with its span.
    pub(crate) behavior_manual: Option<Span>,
    /// `shared_key` (SeaORM models): another model marks the key type as a
    /// key (`FlakeModelKey`), not this one.
    pub(crate) shared_key: Option<Span>,
    /// Arguments that only fit one kind of item, for the checks in `valid`.
    pub(crate) id_type_only: Vec<(Span, &'static str)>,
    pub(crate) model_only: Vec<(Span, &'static str)>,
}

/// Parses the arguments; which of them fit the item is checked in `valid`.
pub(crate) fn parse(tokens: TokenStream) -> syn::Result<Args> {
    let mut args = Args::default();
    let parser = syn::meta::parser(|meta| {
        let span = syn::spanned::Spanned::span(&meta.path);
        if meta.path.is_ident("layout") || meta.path.is_ident("scheme") {
            if args.scheme.is_some() {
                return Err(meta.error("give the scheme once, as `layout = ..` or `scheme = ..`"));
            }
            args.scheme = Some(meta.value()?.parse()?);
            args.id_type_only.push((span, "the scheme"));
        } else if meta.path.is_ident("source") {
            if args.source.is_some() {
                return Err(meta.error("`source` is given twice"));
            }
            args.source = Some(meta.value()?.parse()?);
            args.id_type_only.push((span, "`source`"));
        } else if meta.path.is_ident("cut_over") {
            if args.cut_over.is_some() {
                return Err(meta.error("`cut_over` is given twice"));
            }
            args.cut_over = Some(meta.value()?.parse()?);
            args.id_type_only.push((span, "`cut_over`"));
        } else if meta.path.is_ident("prefix") {
            if args.prefix.is_some() {
                return Err(meta.error("`prefix` is given twice"));
            }
            let value = meta.value()?;
            args.prefix = Some(value.parse().map_err(|e| {
                syn::Error::new(
                    e.span(),
                    "expected a string: `prefix = \"usr\"` (lowercase ASCII letters and \
                     underscores)",
                )
            })?);
            args.id_type_only.push((span, "`prefix`"));
        } else if meta.path.is_ident("text") {
            if args.text.is_some() {
                return Err(meta.error("`text` is given twice"));
            }
            args.text = Some(meta.value()?.parse()?);
            args.id_type_only.push((span, "`text`"));
        } else if meta.path.is_ident("generator") {
            return Err(meta.error(
                "`generator = ..` is replaced by `scheme = ..` (or `layout = ..`): the type's \
                 scheme checks and decodes its IDs without building a generator, and the \
                 process-wide node ID builds its source; to keep a source function of your \
                 own, write `scheme = path::to::scheme, source = path::to::function`",
            ));
        } else if meta.path.is_ident("seaorm") {
            args.seaorm = Some(span);
        } else if meta.path.is_ident("diesel") {
            args.diesel = Some(span);
        } else if meta.path.is_ident("crate") {
            if args.krate.is_some() {
                return Err(meta.error("`crate` is given twice"));
            }
            args.krate = Some(meta.value()?.parse()?);
        } else if meta.path.is_ident("behavior") {
            let value: syn::Ident = meta.value()?.parse()?;
            match value.to_string().as_str() {
                "manual" => args.behavior_manual = Some(value.span()),
                "generated" => args.behavior_manual = None,
                _ => {
                    return Err(syn::Error::new(
                        value.span(),
                        "expected `behavior = manual` (you implement `ActiveModelBehavior` and \
                         call `FlakeActiveModel::before_save_key`) or `behavior = generated`",
                    ));
                }
            }
            args.model_only.push((span, "`behavior`"));
        } else if meta.path.is_ident("shared_key") {
            args.shared_key = Some(span);
            args.model_only.push((span, "`shared_key`"));
        } else if meta.path.is_ident("constructor") {
            return Err(meta.error(
                "`constructor = ..` is gone: #[flake_id] writes no constructor for Diesel \
                 models; set the key where the row is built, \
                 `User { id: UserId::generate()?, .. }`",
            ));
        } else {
            return Err(meta.error(format!(
                "unknown #[flake_id] argument `{}`; the arguments are {KNOWN}",
                path_text(&meta.path)
            )));
        }
        Ok(())
    });
    syn::parse::Parser::parse2(parser, tokens)?;
    Ok(args)
}

/// Where generated code finds the runtime crates.
pub(crate) struct Paths {
    /// `flakeid-core`, directly or through an ORM crate's re-export.
    pub(crate) core: TokenStream,
    /// `flakeid-seaorm`, when SeaORM impls are emitted.
    pub(crate) seaorm: Option<TokenStream>,
    /// `flakeid-diesel`, when Diesel impls are emitted.
    pub(crate) diesel: Option<TokenStream>,
}

impl Paths {
    /// Absolute paths (`::name`), as the crates are published; `crate =
    /// path` replaces the entry point's own.
    pub(crate) fn new(entry: Entry, args: &Args) -> Self {
        let own = |default: TokenStream| match &args.krate {
            Some(path) => quote!(#path),
            None => default,
        };
        match entry {
            Entry::Core => Paths {
                core: own(quote!(::flakeid_core)),
                seaorm: args.seaorm.map(|_| quote!(::flakeid_seaorm)),
                diesel: args.diesel.map(|_| quote!(::flakeid_diesel)),
            },
            Entry::SeaOrm => {
                let seaorm = own(quote!(::flakeid_seaorm));
                Paths {
                    core: quote!(#seaorm::__private::flakeid_core),
                    seaorm: Some(seaorm),
                    diesel: args.diesel.map(|_| quote!(::flakeid_diesel)),
                }
            }
            Entry::Diesel => {
                let diesel = own(quote!(::flakeid_diesel));
                Paths {
                    core: quote!(#diesel::__private::flakeid_core),
                    seaorm: args.seaorm.map(|_| quote!(::flakeid_seaorm)),
                    diesel: Some(diesel),
                }
            }
        }
    }
}

pub(crate) fn path_text(path: &syn::Path) -> String {
    quote::ToTokens::to_token_stream(path)
        .to_string()
        .replace(' ', "")
}

const KNOWN: &str = "`layout = ..`, `scheme = ..`, `source = ..`, `cut_over = ..`, `prefix = ..`, \
                     `text = ..` (ID types), \
                     `behavior = manual` and `shared_key` (SeaORM models), `seaorm`, `diesel` and \
                     `crate = ..`";
