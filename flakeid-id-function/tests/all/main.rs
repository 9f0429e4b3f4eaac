//! flakeid-id-function's tests (one binary: one link step): the SQL of the
//! ID function and of the decoding functions, written without a database.
//! (Both run on real servers in `flakeid-tests`.)

mod decode;
mod id_function;
