//! The compiler and the dependency arguments of the crate being compiled.
//!
//! [`rustc_args!`] lets a test compile other programs (compile-error cases)
//! against exactly the crates the test itself links, with the compiler
//! that built it: nothing is compiled a second time for them.

use proc_macro::TokenStream;

/// Expands to `(rustc, args): (&str, &[&str])`: the compiler that is
/// compiling the calling crate, and the arguments it was given that find
/// that crate's dependencies (`--extern`, `-L`) and set its edition,
/// target and sysroot.
///
/// Cargo passes these arguments to rustc, and a procedural macro runs
/// inside rustc, so a test crate can compile other programs against
/// exactly the crates it links: the `--extern` paths name its direct
/// dependencies' files, and `-L dependency=…` lets rustc find theirs by
/// hash.
///
/// ```no_run
/// const RUSTC: (&str, &[&str]) = flakeid_rustc_args::rustc_args!();
/// let status = std::process::Command::new(RUSTC.0)
///     .args(RUSTC.1)
///     .args(["--crate-type", "bin", "--emit=metadata", "case.rs"])
///     .status();
/// ```
#[proc_macro]
pub fn rustc_args(input: TokenStream) -> TokenStream {
    if !input.is_empty() {
        return compile_error("rustc_args!() takes no arguments");
    }
    let rustc = match std::env::current_exe() {
        Ok(path) => path.to_string_lossy().into_owned(),
        Err(e) => return compile_error(&format!("cannot find the running compiler: {e}")),
    };
    let args = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned());
    let args = match expand_arg_files(args) {
        Ok(args) => dependency_args(&args),
        Err(e) => return compile_error(&e),
    };
    let list: Vec<String> = args.iter().map(|a| format!("{a:?}")).collect();
    format!("({rustc:?}, &[{}] as &[&str])", list.join(", "))
        .parse()
        .expect("string literals are tokens")
}

/// The arguments kept, each with its value: the flag forms Cargo uses
/// (`--extern name=path`, `-L dependency=dir`, `--edition=2024`,
/// `--target triple`, `--sysroot dir`), joined or separate.
const KEPT: &[&str] = &["--extern", "-L", "--edition", "--target", "--sysroot"];

fn dependency_args(args: &[String]) -> Vec<String> {
    let mut kept = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        if KEPT.contains(&arg.as_str()) {
            if let Some(value) = args.get(i + 1) {
                kept.push(arg.clone());
                kept.push(value.clone());
            }
            i += 2;
            continue;
        }
        let joined = KEPT.iter().any(|flag| {
            arg.strip_prefix(flag)
                .is_some_and(|rest| rest.starts_with('=') || (*flag == "-L" && !rest.is_empty()))
        });
        if joined {
            kept.push(arg.clone());
        }
        i += 1;
    }
    kept
}

/// Replaces each `@file` argument by the lines of that file (Cargo passes
/// the arguments in a file when the command line would be too long).
fn expand_arg_files(args: impl Iterator<Item = String>) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    for arg in args {
        match arg.strip_prefix('@') {
            Some(path) => {
                let text = std::fs::read_to_string(path)
                    .map_err(|e| format!("cannot read rustc's argument file {path}: {e}"))?;
                out.extend(text.lines().map(str::to_owned));
            }
            None => out.push(arg),
        }
    }
    Ok(out)
}

fn compile_error(message: &str) -> TokenStream {
    format!("::core::compile_error!({message:?})")
        .parse()
        .expect("a string literal is a token")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(args: &[&str]) -> Vec<String> {
        args.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn keeps_what_finds_dependencies_in_both_spellings() {
        // Each argument with its value, and whether it is kept.
        let cases: &[(&[&str], bool)] = &[
            (&["--crate-name", "ui"], false),
            (&["--edition=2024"], true),
            (&["tests/ui.rs"], false),
            (&["--extern", "diesel=/t/deps/libdiesel-1.rlib"], true),
            (&["--extern=sea_orm=/t/deps/libsea_orm-2.rlib"], true),
            (&["-L", "dependency=/t/deps"], true),
            (&["-Lnative=/t/out"], true),
            (&["-C", "incremental=/t/inc"], false),
            (&["--target", "x86_64-unknown-linux-gnu"], true),
            (&["--cfg", "feature=\"x\""], false),
        ];
        let args = |only_kept: bool| -> Vec<String> {
            cases
                .iter()
                .filter(|(_, kept)| *kept || !only_kept)
                .flat_map(|(arg, _)| strings(arg))
                .collect()
        };
        assert_eq!(dependency_args(&args(false)), args(true));
    }

    #[test]
    fn a_flag_without_its_value_is_dropped() {
        assert!(dependency_args(&strings(&["--extern"])).is_empty());
        assert!(dependency_args(&strings(&["--externals"])).is_empty());
    }

    #[test]
    fn argument_files_are_read_line_by_line() {
        let dir = std::env::temp_dir().join(format!("flakeid-ui-args-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("args");
        std::fs::write(&file, "--extern\nx=/t/libx.rlib\n-L\ndependency=/t\n").unwrap();
        let args = expand_arg_files(
            strings(&["--edition=2024", &format!("@{}", file.display())]).into_iter(),
        )
        .unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(
            args,
            strings(&[
                "--edition=2024",
                "--extern",
                "x=/t/libx.rlib",
                "-L",
                "dependency=/t"
            ])
        );
        let missing = expand_arg_files(strings(&["@/nonexistent/args"]).into_iter());
        assert!(missing.unwrap_err().contains("/nonexistent/args"));
    }
}
