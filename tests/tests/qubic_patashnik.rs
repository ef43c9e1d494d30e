//! The reader and walker of a dictionary of strategic moves in
//! Patashnik's form (`games::qubic::dictionary`): the notation on the
//! example of the dictionary's own header, and, where the published
//! dictionary lies beside the repository (`../shared/data/qubic/`; it is
//! not part of the repository), its reading and the first plies of its
//! walk. Comparison only: nothing here feeds a table.

use std::path::PathBuf;

use solvedb_generator::games::qubic::dictionary::{self, Dictionary, Rule};
use solvedb_lookup::{Game, Qubic};

const HEADER: &str = "A made-up header.\n-----------------------------------------\n";

#[test]
fn a_line_reads_as_the_header_example_says_and_maps_through_symmetry() {
    // The header's example: x at 0, 3, 12; o at 1, 21, 63; X plays 41.
    let dictionary = Dictionary::parse(&format!("{HEADER}xo1x8x8o41o 41\n")).unwrap();
    assert_eq!((dictionary.lines, dictionary.len()), (1, 1));
    let board = Qubic.parse("0 1 3 21 12 63").unwrap();
    assert_eq!(dictionary.move_in(board), Some(41));
    // The mirror image x ↦ 3 − x: cells 3, 2, 0, 22, 15, 60; the move 41 ↦ 42.
    let mirror = Qubic.parse("3 2 0 22 15 60").unwrap();
    assert_eq!(dictionary.move_in(mirror), Some(42));
    assert_eq!(dictionary.move_in(Qubic.parse("0 1").unwrap()), None);
}

#[test]
fn bad_lines_are_refused_with_their_line_number() {
    for (line, why) in [
        ("xo1x8x8o41o", "no move"),
        ("xo1x8x8o41o 64", "off the board"),
        ("xo 0", "move on a stone"),
        ("xoo 5", "O to move"),
        ("xq 5", "a bad character"),
        ("x70o 5", "past the board"),
    ] {
        let err = Dictionary::parse(&format!("{HEADER} 0\n{line}\n")).unwrap_err();
        assert!(format!("{err:#}").contains("line 2"), "{why}: {err:#}");
    }
}

#[test]
fn the_published_dictionary_reads_and_its_first_plies_have_no_hole() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/data/qubic/patashnik.dictionary");
    let Ok(text) = std::fs::read_to_string(&path) else {
        println!(
            "SKIPPED: Patashnik's dictionary is not at {} (it is kept beside the repository, not in it)",
            path.display()
        );
        return;
    };
    let dictionary = Dictionary::parse(&text).unwrap();
    assert_eq!(dictionary.lines, 2929);
    let walk = dictionary::walk(&dictionary, 2_000, 5, &|_| {});
    assert!(walk.holes.is_empty(), "holes: {:?}", walk.holes);
    assert!(walk.by_rule[Rule::Dictionary as usize] > 10, "{walk:?}");
}
