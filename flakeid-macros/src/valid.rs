//! Validation: misuse is a compile error at the user's token, before
//! anything is expanded.

use crate::attr::{Args, Entry};

/// Traits the expansion implements, so a user's own derive of one of them
/// would conflict.
/// What `#[flake_id]` accepts, for errors about what it was put on.
pub(crate) const WHERE_IT_GOES: &str =
    "#[flake_id] goes on a tuple struct `struct UserId(i64);` or on a model struct";

/// Arguments that fit an ID type: no model arguments, and `source` only
/// with a scheme.
pub(crate) fn id_type_args(args: &Args) -> syn::Result<()> {
    if let Some((span, what)) = args.model_only.first() {
        return Err(syn::Error::new(
            *span,
            format!("{what} goes on a SeaORM model, not on an ID type"),
        ));
    }
    if let (None, Some(source)) = (&args.scheme, &args.source) {
        return Err(syn::Error::new_spanned(
            source,
            "`source = ..` needs the type's scheme too (`layout = ..` or `scheme = ..`): values \
             read back are checked and decoded by the scheme, without building the source",
        ));
    }
    if let Some(prefix) = &args.prefix {
        type_prefix(prefix)?;
    }
    match (&args.text, &args.prefix) {
        (Some(text), None) => {
            return Err(syn::Error::new_spanned(
                text,
                "`text = ..` is the form of the number after a type prefix: give the prefix \
                 too, `prefix = \"usr\", text = base62`",
            ));
        }
        (Some(text), Some(_)) => {
            text_form(text)?;
        }
        (None, _) => {}
    }
    Ok(())
}

/// TypeID's rule for a type prefix (`^[a-z]([a-z_]{0,61}[a-z])?$`), empty
/// prefixes aside (no `prefix` is the bare number), so that the last `_`
/// of an ID's text always ends its prefix.
pub(crate) const PREFIX_RULE: &str = "a prefix is 1 to 63 characters, lowercase ASCII letters \
                                      `a-z` and underscores `_`, starting and ending with a \
                                      letter (TypeID's rule)";

/// A prefix that follows [`PREFIX_RULE`], or an error at the string saying
/// which part of the rule it breaks.
pub(crate) fn type_prefix(prefix: &syn::LitStr) -> syn::Result<()> {
    let value = prefix.value();
    let broken = if value.is_empty() {
        Some("it is empty (leave `prefix` out for IDs without one)".to_owned())
    } else if value.chars().count() > 63 {
        Some(format!("it has {} characters", value.chars().count()))
    } else if let Some((i, c)) = value
        .chars()
        .enumerate()
        .find(|&(_, c)| !(c.is_ascii_lowercase() || c == '_'))
    {
        Some(format!("it has {c:?} at position {i}"))
    } else if value.starts_with('_') {
        Some("it starts with an underscore".to_owned())
    } else if value.ends_with('_') {
        Some("it ends with an underscore".to_owned())
    } else {
        None
    };
    match broken {
        None => Ok(()),
        Some(broken) => Err(syn::Error::new_spanned(
            prefix,
            format!("`prefix = {value:?}` is not a type prefix: {broken}; {PREFIX_RULE}"),
        )),
    }
}

/// The text forms a prefixed ID's number can take.
pub(crate) const TEXT_FORMS: [&str; 3] = ["decimal", "base62", "crockford"];

/// `text = ..` names one of [`TEXT_FORMS`].
pub(crate) fn text_form(text: &syn::Ident) -> syn::Result<()> {
    if TEXT_FORMS.contains(&text.to_string().as_str()) {
        return Ok(());
    }
    Err(syn::Error::new_spanned(
        text,
        format!(
            "unknown text form `{text}`: the number after a prefix is written as `decimal` (the \
             default), `base62` (11 characters, sorts like the keys) or `crockford` (13 \
             characters of Crockford base32, sorts like the keys)"
        ),
    ))
}

/// The ORM of a model: exactly one, from the entry point or an argument.
pub(crate) fn model_orm(entry: Entry, args: &Args, name: &syn::Ident) -> syn::Result<Entry> {
    if let Some((span, what)) = args.id_type_only.first() {
        return Err(syn::Error::new(
            *span,
            format!(
                "{what} goes on the ID type (`#[flake_id(..)] struct UserId(i64);`), not on a \
                 model"
            ),
        ));
    }
    let seaorm = entry == Entry::SeaOrm || args.seaorm.is_some();
    let diesel = entry == Entry::Diesel || args.diesel.is_some();
    match (seaorm, diesel) {
        (true, false) => Ok(Entry::SeaOrm),
        (false, true) => Ok(Entry::Diesel),
        (true, true) => Err(syn::Error::new(
            args.seaorm.or(args.diesel).unwrap_or_else(|| name.span()),
            "#[flake_id] marks a model of one ORM: declare the model for SeaORM or for Diesel",
        )),
        (false, false) => Err(syn::Error::new(
            name.span(),
            format!(
                "#[flake_id] on a struct with named fields marks a model's primary key, but \
                 says for no ORM: write `flakeid_seaorm::flake_id` or `flakeid_diesel::flake_id` \
                 (or `#[flake_id(seaorm)]` / `#[flake_id(diesel)]`); an ID type is a tuple \
                 struct `struct {name}(i64);`"
            ),
        )),
    }
}

/// A tuple struct with one private `i64` field and no generics.
pub(crate) fn id_type_shape(input: &syn::DeriveInput) -> syn::Result<()> {
    let fields = match &input.data {
        syn::Data::Struct(s) => &s.fields,
        syn::Data::Enum(e) => return Err(syn::Error::new(e.enum_token.span, WHERE_IT_GOES)),
        syn::Data::Union(u) => {
            return Err(syn::Error::new(u.union_token.span, WHERE_IT_GOES));
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

/// Rejects `#[derive(..)]` of a trait the expansion already implements.
pub(crate) fn id_type_derives(attrs: &[syn::Attribute]) -> syn::Result<()> {
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

/// Rejects key types that are plainly not ID types with a message naming
/// the field; anything else is left to the `FlakeId` bound emitted later.
pub(crate) fn key_type(field: &syn::Ident, ty: &syn::Type) -> syn::Result<()> {
    let syn::Type::Path(path) = ty else {
        return Ok(());
    };
    let Some(last) = path.path.segments.last() else {
        return Ok(());
    };
    let name = last.ident.to_string();
    if name == "Option" {
        return Err(syn::Error::new_spanned(
            ty,
            format!("the primary key `{field}` cannot be optional: use the ID type itself"),
        ));
    }
    const PLAIN: &[&str] = &[
        "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128", "usize",
        "String", "Uuid",
    ];
    if PLAIN.contains(&name.as_str()) {
        return Err(syn::Error::new_spanned(
            ty,
            format!(
                "the primary key `{field}` has type `{name}`, which is not an ID type: declare one \
                 with `#[flake_id] pub struct MyId(i64);` and use it as the key's type"
            ),
        ));
    }
    Ok(())
}

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
