//! The `solvedb` binary; everything it does lives in the library's `cli` module.

#![forbid(unsafe_code)]

use solvedb_generator::cli::{Terminal, main_with_input};

fn main() {
    let code = main_with_input(
        std::env::args_os(),
        &mut std::io::stdin().lock(),
        &mut std::io::stdout().lock(),
        &mut std::io::stderr().lock(),
        Terminal::of_process(),
    );
    std::process::exit(code);
}
