//! [Seaography](https://www.sea-ql.org/Seaography/) schemas whose ID
//! columns are strings in their ID type's scalar (feature `seaography`).
//!
//! Seaography maps every `BIGINT` column to GraphQL's `Int`, a JSON number:
//! a JavaScript client reads an ID above 2^53 rounded, and `Int` is 32-bit
//! by the GraphQL specification. (A `#[flake_id]` key, whose column type is
//! `custom("bigint")`, is left out of the schema altogether.) [`builder`]
//! makes a seaography [`Builder`] in which every column that [`IdColumns`]
//! reports, keys and foreign keys, nullable or not, is the ID type's own
//! scalar (`scalar AuthorId`, the scalar flakeid-core's `async-graphql`
//! feature gives the type in static schemas) everywhere seaography puts a
//! column:
//!
//! | where | what an ID column becomes |
//! |---|---|
//! | objects, relation fields | `id: AuthorId!`, `pinnedPostId: PostId` (nullable column), a decimal string |
//! | filters (`filters: { authorId: … }`) | `AuthorIdFilterInput`: `eq`, `ne`, `gt`, `gte`, `lt`, `lte`, `is_in`, `is_not_in`, `is_null`, `is_not_null`, `between`, `not_between`, each taking the ID type's scalar |
//! | create and update inputs | `authorId: AuthorId` (nullable in both, as seaography has one input type per column: a create without a `NOT NULL` foreign key is refused by the database; without its key, the model's hook assigns one) |
//! | cursor pagination | unchanged: seaography's cursor is a string (`BigInt[19]:…`) and pages by key |
//!
//! An ID is read as the scalar documents (flakeid-core's serde rules): the
//! canonical decimal string, or an integer (variables are JSON), exactly.
//! Anything else is a GraphQL error naming the value and the field, e.g.
//! `[type conversion: Posts.authorId] 0 is not a valid AuthorId: IDs start
//! at 1`. Create mutations insert through the model's `ActiveModelBehavior`,
//! so a row without a key gets one from the hook `#[flake_id]` writes, as on
//! every other insert path.
//!
//! ```
//! use flakeid_core::layout::presets;
//! use flakeid_core::{Generator, global};
//! use flakeid_seaorm::flake_id;
//! use sea_orm::{ConnectionTrait, Database, Schema};
//! use seaography::BuilderContext;
//!
//! #[flake_id] pub struct AuthorId(i64);
//! #[flake_id] pub struct PostId(i64);
//!
//! mod author {
//!     use sea_orm::entity::prelude::*;
//!
//!     #[flakeid_seaorm::flake_id]
//!     #[sea_orm::model]
//!     #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
//!     #[sea_orm(table_name = "authors")]
//!     pub struct Model {
//!         #[sea_orm(primary_key)]
//!         pub id: super::AuthorId,
//!         pub name: String,
//!         #[sea_orm(has_many)]
//!         pub posts: HasMany<super::post::Entity>,
//!     }
//! }
//!
//! mod post {
//!     use sea_orm::entity::prelude::*;
//!
//!     #[flakeid_seaorm::flake_id]
//!     #[sea_orm::model]
//!     #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
//!     #[sea_orm(table_name = "posts")]
//!     pub struct Model {
//!         #[sea_orm(primary_key)]
//!         pub id: super::PostId,
//!         pub author_id: super::AuthorId,
//!         pub title: String,
//!         #[sea_orm(belongs_to, from = "author_id", to = "id")]
//!         pub author: HasOne<super::author::Entity>,
//!     }
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! global::init(Generator::builder(presets::twitter(), 1))?;
//! let db = Database::connect("sqlite::memory:").await?;
//! let schema = Schema::new(db.get_database_backend());
//! db.execute(&schema.create_table_from_entity(author::Entity)).await?;
//! db.execute(&schema.create_table_from_entity(post::Entity)).await?;
//!
//! // In place of `Builder::new(&CONTEXT, db)`: the context with every ID column configured.
//! let mut builder = flakeid_seaorm::seaography::builder::<(author::Entity, post::Entity)>(
//!     BuilderContext::default(),
//!     db.clone(),
//! );
//! seaography::register_entities!(builder, [author, post]);
//! let schema = builder.schema_builder().data(db).finish()?;
//! assert!(schema.sdl().contains("scalar AuthorId"));
//!
//! // No key given: the model's hook assigns one, sent back as a string.
//! let res = schema.execute(r#"mutation { authorsCreateOne(data: { name: "Ada" }) { id } }"#).await;
//! let ada = res.data.into_json()?["authorsCreateOne"]["id"].as_str().expect("a string").to_owned();
//! assert!(ada.parse::<i64>()? > 1 << 53);
//!
//! let res = schema
//!     .execute(format!(r#"mutation {{ postsCreateOne(data: {{ authorId: "{ada}", title: "Notes" }}) {{ id authorId }} }}"#))
//!     .await;
//! assert_eq!(res.data.into_json()?["postsCreateOne"]["authorId"], ada.as_str());
//!
//! let res = schema.execute(r#"{ posts(filters: { authorId: { eq: "0" } }) { nodes { id } } }"#).await;
//! assert_eq!(
//!     res.errors[0].message,
//!     "[type conversion: Posts.authorId] 0 is not a valid AuthorId: IDs start at 1"
//! );
//! # Ok(())
//! # }
//! ```
//!
//! Every crate of the application that declares models with
//! `#[sea_orm::model]` needs `seaography` among its dependencies: the
//! `seaography` feature of sea-orm, which seaography turns on for the whole
//! build, makes each such model implement `seaography::RelationBuilder`.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use flakeid_core::FlakeId;
use sea_orm::{ColumnTrait, Condition, DatabaseConnection, EntityTrait, IdenStatic};
use seaography::async_graphql::dynamic::{
    FieldValue, ObjectAccessor, Scalar, TypeRef, ValueAccessor,
};
use seaography::{
    Builder, BuilderContext, ColumnOptions, EntityColumnId, FilterInfo, FilterOperation,
    FilterType, FilterTypesMapHelper, SeaResult, SeaographyError,
};

use crate::{IdColumnVisitor, IdColumns};

/// A seaography [`Builder`] on `context`, with every ID column of the
/// entities `L` (a tuple: `(author::Entity, post::Entity)`) set up as the
/// [module docs](self) say, and each ID type's scalar and filter input
/// registered. Call it where you would call `Builder::new`, then register
/// the entities with seaography as usual (`register_entities!`).
///
/// Seaography reads its context for as long as the schema lives, as a
/// `&'static BuilderContext`: this function keeps `context` for the rest
/// of the process (the builder's `context` field). Make one builder per
/// schema, not one per request.
///
/// Only the entities in `L` are set up: an entity left out keeps
/// seaography's `Int` for its foreign keys and has no key field. An entity
/// without `#[flake_id]` (a junction table) is set up once it implements
/// [`IdColumns`] by hand. Options you gave in `context` for an ID column
/// are replaced; other columns keep theirs.
pub fn builder<L: Entities>(mut context: BuilderContext, db: DatabaseConnection) -> Builder {
    let mut configure = Configure {
        context: &mut context,
        id_types: BTreeMap::new(),
    };
    L::visit(&mut configure);
    let id_types = configure.id_types;
    let context: &'static BuilderContext = Box::leak(Box::new(context));
    let mut builder = Builder::new(context, db);
    let filters = FilterTypesMapHelper { context };
    for (name, description) in id_types {
        builder.register_scalar(Scalar::new(name).description(description));
        builder
            .inputs
            .push(filters.generate_filter_input(&FilterInfo {
                type_name: filter_name(name),
                base_type: name.to_owned(),
                supported_operations: BTreeSet::from(FILTERS),
            }));
    }
    builder
}

/// The entities [`builder`] sets up: one entity with [`IdColumns`], or a
/// tuple of up to 12 of these (nest tuples for more).
pub trait Entities {
    /// Calls `visitor.entity::<E>()` for each entity.
    #[doc(hidden)]
    fn visit<V: EntityVisitor>(visitor: &mut V);
}

/// What [`Entities::visit`] reports each entity to. Not a public API.
#[doc(hidden)]
pub trait EntityVisitor {
    /// One entity of the list.
    fn entity<E: IdColumns>(&mut self);
}

impl<E: IdColumns> Entities for E {
    fn visit<V: EntityVisitor>(visitor: &mut V) {
        visitor.entity::<E>();
    }
}

macro_rules! tuple_entities {
    ($($entity:ident),+) => {
        impl<$($entity: Entities),+> Entities for ($($entity,)+) {
            fn visit<V: EntityVisitor>(visitor: &mut V) {
                $($entity::visit(visitor);)+
            }
        }
    };
}

tuple_entities!(A);
tuple_entities!(A, B);
tuple_entities!(A, B, C);
tuple_entities!(A, B, C, D);
tuple_entities!(A, B, C, D, E);
tuple_entities!(A, B, C, D, E, F);
tuple_entities!(A, B, C, D, E, F, G);
tuple_entities!(A, B, C, D, E, F, G, H);
tuple_entities!(A, B, C, D, E, F, G, H, I);
tuple_entities!(A, B, C, D, E, F, G, H, I, J);
tuple_entities!(A, B, C, D, E, F, G, H, I, J, K);
tuple_entities!(A, B, C, D, E, F, G, H, I, J, K, L);

/// The operations of an ID type's filter input: those of seaography's
/// `IntegerFilterInput`.
const FILTERS: [FilterOperation; 12] = [
    FilterOperation::Equals,
    FilterOperation::NotEquals,
    FilterOperation::GreaterThan,
    FilterOperation::GreaterThanEquals,
    FilterOperation::LessThan,
    FilterOperation::LessThanEquals,
    FilterOperation::IsIn,
    FilterOperation::IsNotIn,
    FilterOperation::IsNull,
    FilterOperation::IsNotNull,
    FilterOperation::Between,
    FilterOperation::NotBetween,
];

/// Sets up the ID columns of each entity in the context, and collects the
/// ID types whose scalars and filters the schema needs.
struct Configure<'a> {
    context: &'a mut BuilderContext,
    /// Each ID type's name and its scalar's description.
    id_types: BTreeMap<&'static str, String>,
}

impl EntityVisitor for Configure<'_> {
    fn entity<E: IdColumns>(&mut self) {
        E::visit_id_columns(self);
    }
}

impl<E: EntityTrait> IdColumnVisitor<E> for Configure<'_> {
    fn column<I: FlakeId>(&mut self, column: E::Column) {
        let context = &mut *self.context;
        let id = EntityColumnId::of::<E>(&column);
        // Errors name the field as the schema does (`Posts.authorId`).
        let object = (context.entity_object.type_name)(E::default().table_name());
        let field = (context.entity_object.column_name)(&object, column.as_str());
        let at: Arc<str> = format!("{object}.{field}").into();

        let mut options = ColumnOptions::default();
        options.input_type = Some(TypeRef::named(I::NAME));
        options.output_type = Some(if column.def().is_null() {
            TypeRef::named(I::NAME)
        } else {
            TypeRef::named_nn(I::NAME)
        });
        let input_at = Arc::clone(&at);
        options.input_conversion = Some(Arc::new(move |value| to_sea_orm::<I>(value, &input_at)));
        let output_at = Arc::clone(&at);
        options.output_conversion = Some(Arc::new(move |value| to_graphql::<I>(value, &output_at)));
        context.types.column_options.insert(id.clone(), options);

        let combine_null = context.entity_query_field.combine_is_null_is_not_null;
        context
            .filter_types
            .overwrites
            .insert(id.clone(), Some(FilterType::Custom(filter_name(I::NAME))));
        context.filter_types.condition_functions.insert(
            id,
            Box::new(move |condition, filter| {
                id_condition::<E, I>(condition, filter, column, &at, combine_null)
            }),
        );
        self.id_types
            .insert(I::NAME, flakeid_core::__private::api_description::<I>());
    }
}

/// The filter input of an ID type: `AuthorIdFilterInput`.
fn filter_name(id_type: &str) -> String {
    format!("{id_type}FilterInput")
}

/// A GraphQL input value of the field `at` as the SeaORM value of an `I`:
/// `NULL`, or an ID read by the scalar's rules.
fn to_sea_orm<I: FlakeId>(value: &ValueAccessor<'_>, at: &str) -> SeaResult<sea_orm::Value> {
    if value.is_null() {
        return Ok(sea_orm::Value::BigInt(None));
    }
    flakeid_core::__private::deserialize::<I, _>(value.as_value().clone())
        .map(|id| sea_orm::Value::BigInt(Some(id.get())))
        .map_err(|e| SeaographyError::TypeConversionError(e.to_string(), at.to_owned()))
}

/// A model's ID as the field's output: its decimal string, or `null`.
fn to_graphql<I: FlakeId>(
    value: &sea_orm::Value,
    at: &str,
) -> seaography::async_graphql::Result<Option<FieldValue<'static>>> {
    let id = match *value {
        sea_orm::Value::BigInt(None) | sea_orm::Value::BigUnsigned(None) => return Ok(None),
        sea_orm::Value::BigInt(Some(n)) => I::from_i64(n),
        sea_orm::Value::BigUnsigned(Some(n)) => I::from_u64(n),
        ref other => {
            return Err(seaography::async_graphql::Error::new(format!(
                "{at} holds {other:?}, which is not a {}",
                I::NAME
            )));
        }
    };
    id.map(|id| Some(FieldValue::value(id.to_string())))
        .map_err(|e| seaography::async_graphql::Error::new(format!("{at}: {e}")))
}

/// `filter` (an `AuthorIdFilterInput`) on `column` added to `condition`,
/// each operand read as [`to_sea_orm`] reads inputs. As seaography's own
/// filters: `is_null` is a boolean where the context combines it with
/// `is_not_null`, else its presence alone counts.
fn id_condition<E: EntityTrait, I: FlakeId>(
    mut condition: Condition,
    filter: &ObjectAccessor<'_>,
    column: E::Column,
    at: &str,
    combine_null: bool,
) -> SeaResult<Condition> {
    let one = |op: &str| {
        filter
            .get(op)
            .map(|value| to_sea_orm::<I>(&value, at))
            .transpose()
    };
    let many = |op: &str| -> SeaResult<Option<Vec<sea_orm::Value>>> {
        let Some(values) = filter.get(op) else {
            return Ok(None);
        };
        let values = values.list()?;
        values
            .iter()
            .map(|value| to_sea_orm::<I>(&value, at))
            .collect::<SeaResult<Vec<_>>>()
            .map(Some)
    };
    let pair = |op: &str| -> SeaResult<Option<(sea_orm::Value, sea_orm::Value)>> {
        match many(op)? {
            None => Ok(None),
            Some(values) => match <[sea_orm::Value; 2]>::try_from(values) {
                Ok([low, high]) => Ok(Some((low, high))),
                Err(values) => Err(SeaographyError::TypeConversionError(
                    format!("`{op}` takes two IDs, not {}", values.len()),
                    at.to_owned(),
                )),
            },
        }
    };
    for op in ["eq", "ne", "gt", "gte", "lt", "lte"] {
        let Some(value) = one(op)? else {
            continue;
        };
        condition = condition.add(match op {
            "eq" => column.eq(value),
            "ne" => column.ne(value),
            "gt" => column.gt(value),
            "gte" => column.gte(value),
            "lt" => column.lt(value),
            _ => column.lte(value),
        });
    }
    if let Some(values) = many("is_in")? {
        condition = condition.add(column.is_in(values));
    }
    if let Some(values) = many("is_not_in")? {
        condition = condition.add(column.is_not_in(values));
    }
    match filter.get("is_null") {
        Some(is_null) if combine_null && !is_null.boolean()? => {
            condition = condition.add(column.is_not_null());
        }
        Some(_) => condition = condition.add(column.is_null()),
        None => {}
    }
    if filter.get("is_not_null").is_some() {
        condition = condition.add(column.is_not_null());
    }
    if let Some((low, high)) = pair("between")? {
        condition = condition.add(column.between(low, high));
    }
    if let Some((low, high)) = pair("not_between")? {
        condition = condition.add(column.not_between(low, high));
    }
    Ok(condition)
}
