//! The `solvedb` binary; everything it does lives in the library's `cli` module.

#![forbid(unsafe_code)]

fn main() {
    let code = solvedb_generator::cli::main_with(
        std::env::args_os(),
        &mut std::io::stdout().lock(),
        &mut std::io::stderr().lock(),
    );
    std::process::exit(code);
}
