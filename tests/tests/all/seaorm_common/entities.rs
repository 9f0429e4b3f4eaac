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
