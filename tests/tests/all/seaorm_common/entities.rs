//! The entities the SeaORM tests use: `departments` in SeaORM 2's
//! `#[sea_orm::model]` format, `employees` in the classic
//! `DeriveEntityModel` one.

use flakeid_seaorm::flake_id;

/// Key of `departments`.
#[flake_id]
pub struct DepartmentId(i64);

/// Key of `employees`.
#[flake_id]
pub struct EmployeeId(i64);

pub mod department {
    use sea_orm::entity::prelude::*;

    #[flakeid_seaorm::flake_id]
    #[sea_orm::model]
    #[derive(
        Clone, Debug, PartialEq, Eq, DeriveEntityModel, serde::Serialize, serde::Deserialize,
    )]
    #[sea_orm(table_name = "departments")]
    pub struct Model {
        #[sea_orm(primary_key)]
        pub id: super::DepartmentId,
        pub name: String,
        pub head_id: Option<super::EmployeeId>,
    }
}

pub mod employee {
    use sea_orm::entity::prelude::*;

    #[flakeid_seaorm::flake_id]
    #[derive(
        Clone, Debug, PartialEq, Eq, DeriveEntityModel, serde::Serialize, serde::Deserialize,
    )]
    #[sea_orm(table_name = "employees")]
    pub struct Model {
        #[sea_orm(primary_key)]
        pub id: super::EmployeeId,
        pub name: String,
        pub department_id: super::DepartmentId,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}
}

/// Key of `authors`.
#[flake_id]
pub struct AuthorId(i64);

/// Key of `posts`.
#[flake_id]
pub struct PostId(i64);

/// Key of `tags`.
#[flake_id]
pub struct TagId(i64);

/// An author has many posts (SeaORM 2's entity-first relations).
pub mod author {
    use sea_orm::entity::prelude::*;

    #[flakeid_seaorm::flake_id]
    #[sea_orm::model]
    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "authors")]
    pub struct Model {
        #[sea_orm(primary_key)]
        pub id: super::AuthorId,
        pub name: String,
        /// One of the author's own posts: a cycle.
        pub pinned_post_id: Option<super::PostId>,
        #[sea_orm(has_many)]
        pub posts: HasMany<super::post::Entity>,
    }
}

/// A post belongs to its author and has many tags through `post_tags`.
pub mod post {
    use sea_orm::entity::prelude::*;

    #[flakeid_seaorm::flake_id]
    #[sea_orm::model]
    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "posts")]
    pub struct Model {
        #[sea_orm(primary_key)]
        pub id: super::PostId,
        pub author_id: super::AuthorId,
        pub title: String,
        #[sea_orm(belongs_to, from = "author_id", to = "id")]
        pub author: BelongsTo<super::author::Entity>,
        #[sea_orm(has_many, via = "post_tag")]
        pub tags: HasMany<super::tag::Entity>,
    }
}

/// A tag has many posts through `post_tags`.
pub mod tag {
    use sea_orm::entity::prelude::*;

    #[flakeid_seaorm::flake_id]
    #[sea_orm::model]
    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "tags")]
    pub struct Model {
        #[sea_orm(primary_key)]
        pub id: super::TagId,
        pub label: String,
        #[sea_orm(has_many, via = "post_tag")]
        pub posts: HasMany<super::post::Entity>,
    }
}

/// The junction of posts and tags: its key is the two flake keys.
pub mod post_tag {
    use sea_orm::entity::prelude::*;

    #[sea_orm::model]
    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "post_tags")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub post_id: super::PostId,
        #[sea_orm(primary_key, auto_increment = false)]
        pub tag_id: super::TagId,
        #[sea_orm(belongs_to, from = "post_id", to = "id")]
        pub post: BelongsTo<super::post::Entity>,
        #[sea_orm(belongs_to, from = "tag_id", to = "id")]
        pub tag: BelongsTo<super::tag::Entity>,
    }

    impl ActiveModelBehavior for ActiveModel {}
}
