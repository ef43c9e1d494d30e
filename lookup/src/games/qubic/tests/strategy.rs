//! The strategy table's header.

use super::*;
use crate::format::{Header, TableError};
use crate::game::Tabled;
use crate::value::Wdl;

#[test]
fn a_strategy_header_is_accepted_and_other_games_refused() {
    let mut header = Header {
        game: GameId::Qubic,
        index: <Qubic as Tabled>::INDEX,
        values: <Qubic as Tabled>::VALUES,
        entries: 0,
        stored: 0,
        block_entries: crate::games::qubic::strategy::BLOCK_ENTRIES,
        generator: "test".into(),
    };
    assert!(Q.check_header(&header).is_ok());
    header.game = GameId::Cube;
    assert!(matches!(
        Q.check_header(&header),
        Err(TableError::WrongGame {
            expected: GameId::Qubic,
            found: GameId::Cube
        })
    ));
    // Records are two bytes, read through the strategy, never one byte.
    assert!(Q.decode(Q.start(), 0, 1).is_err());
    assert_eq!(GameId::Qubic.to_string(), "qubic");
    assert_eq!("qubic".parse(), Ok(GameId::Qubic));
    assert_eq!(GameId::Qubic.table_file_name(), "qubic.sdb");
    let _ = Wdl::Draw;
}
