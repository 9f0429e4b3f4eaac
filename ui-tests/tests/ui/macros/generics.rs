use flakeid_core::flake_id;

#[flake_id]
pub struct Id<T>(i64, std::marker::PhantomData<T>);

fn main() {}
