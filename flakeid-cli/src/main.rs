//! `flakeid`: decode, generate and convert flakeid IDs, print the database
//! ID function, and list the node lease table. Run `flakeid --help`.

fn main() -> std::process::ExitCode {
    flakeid_cli::main()
}
