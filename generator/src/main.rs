//! The `solvedb` binary; everything it does lives in the library's `cli` module.

#![forbid(unsafe_code)]

use solvedb_generator::cli::{Terminal, main_with_input};

fn main() {
    let code = main_with_input(
        std::env::args_os(),
        &mut std::io::stdin().lock(),
        &mut std::io::stdout().lock(),
        // Not locked for the whole run, unlike standard output: Qubic's
        // proof writes its progress lines from its worker threads
        // (`eprintln!`), which would wait for this lock forever (they did:
        // `solvedb build qubic` hung at its first finished task).
        &mut std::io::stderr(),
        Terminal::of_process(),
    );
    std::process::exit(code);
}
