/*
 * solvedb.h - the C interface of solvedb: perfect play for small games from
 * precomputed tables, with exact live search where no table is.
 *
 * Kept by hand next to capi/src/lib.rs (types) and capi/src/ffi.rs
 * (functions); capi/tests/c_program.rs compiles a C program against this
 * header and checks its answers against the Rust library.
 *
 * Link with -lsolvedb_capi (libsolvedb_capi.so / .dylib, solvedb_capi.dll),
 * built by `cargo build --release -p solvedb-capi` (into target/release).
 *
 * Games and notation: solvedb_games() lists every game this library
 * answers, one per line: the name queries take, a tab, its title, a tab, and
 * how its positions are written (the text of `solvedb probe --help`). Two
 * families of notation:
 *   X and O games ("tictactoe", "tictactoe:4x4", "cube", "qubic", ...):
 *                one character 'X', 'O' or '.' per cell, row by row and
 *                layer by layer, '/' between rows allowed ("X../.O./..."), or
 *                the moves from the start ("4 0"); moves are cell numbers.
 *   "dots:MxN"   dots-and-boxes, M rows by N columns of boxes: "MxN:" and
 *                one '0'/'1' per edge, or "MxN:" and moves ("2x2:h0,0 v1,2").
 *                A board this build cannot answer (more than 63 edges) is
 *                SOLVEDB_ERR_UNSUPPORTED_GAME, like an unknown game name.
 * A game without a table in the directory (Qubic beyond its strategy's
 * positions, dots boards past the shipped ones) is answered by a live search
 * within the budget (SOLVEDB_ERR_UNKNOWN_WITHIN_BUDGET past it).
 *
 * Values are always for the side to move (a move's value: for the player who
 * makes it). Tic-tac-toe, the cube and Qubic have outcomes (win, draw or loss and
 * the plies to the end under perfect play: the winner wins fastest, the loser
 * loses slowest); dots-and-boxes has margins (the net number of the still
 * unclaimed boxes the player wins).
 *
 * Ownership: solvedb_open* returns a handle the caller owns and frees with
 * solvedb_close. Every other pointer is borrowed for the duration of the call
 * only; solvedb keeps none of them. Output structs are plain values the caller
 * allocates (on the stack is fine).
 *
 * Thread-safety: one handle may be shared by any number of threads calling
 * solvedb_probe, solvedb_moves and solvedb_best_move at once (no locking
 * needed). solvedb_close must not run while another thread uses the handle.
 * solvedb_last_error is per thread.
 *
 * Errors: every query returns a solvedb_status; on failure the outputs are
 * unspecified unless the function says otherwise, and solvedb_last_error()
 * gives a message. No panic of the Rust code crosses into C: an internal bug
 * is reported as SOLVEDB_ERR_INTERNAL.
 *
 * Table files: each is opened the first time its game is asked about and
 * read by position, one block per probe that misses the handle's cache of
 * decoded blocks (64 MiB at most), never whole and never mapped. Replacing a
 * table by writing a new file and renaming it over the old name (what
 * `solvedb build` does) is safe: open handles keep answering from the old
 * file until they are closed. A file truncated or written over in place
 * gives SOLVEDB_ERR_BAD_TABLE (or SOLVEDB_ERR_IO) for the blocks it damaged,
 * never a crash or a wrong answer.
 */
#ifndef SOLVEDB_H
#define SOLVEDB_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What every query returns. */
typedef enum solvedb_status {
    SOLVEDB_OK = 0,
    /* A NULL pointer where one is not allowed, or text that is not UTF-8. */
    SOLVEDB_ERR_INVALID_ARGUMENT = 1,
    /* An unknown game name, or a game or board this build cannot answer. */
    SOLVEDB_ERR_UNSUPPORTED_GAME = 2,
    /* A malformed position, or one that no game can reach. */
    SOLVEDB_ERR_BAD_POSITION = 3,
    /* A table file that is damaged, foreign, for another game or too new. */
    SOLVEDB_ERR_BAD_TABLE = 4,
    /* A file or directory that cannot be read (or is not a directory). */
    SOLVEDB_ERR_IO = 5,
    /* A budgeted live search ran out before it knew the answer. */
    SOLVEDB_ERR_UNKNOWN_WITHIN_BUDGET = 6,
    /* solvedb_moves: more moves than the buffer holds (see there). */
    SOLVEDB_ERR_BUFFER_TOO_SMALL = 7,
    /* solvedb_best_move: the game is over, there is no move. */
    SOLVEDB_ERR_GAME_OVER = 8,
    /* A bug in solvedb; the message says what. */
    SOLVEDB_ERR_INTERNAL = 9
} solvedb_status;

/* What a solvedb_value holds. */
typedef enum solvedb_kind {
    /* result and plies (tic-tac-toe, cube). */
    SOLVEDB_KIND_OUTCOME = 0,
    /* margin (dots-and-boxes). */
    SOLVEDB_KIND_MARGIN = 1
} solvedb_kind;

/* Where an answer came from. */
typedef enum solvedb_source {
    /* A precomputed table in the directory. */
    SOLVEDB_SOURCE_TABLE = 0,
    /* An exact live search: the directory has no table for the game. */
    SOLVEDB_SOURCE_SEARCH = 1,
    /* The rules, by forced play, without a table lookup (the cube: a win in
       one, a loss in two), where a table is loaded. */
    SOLVEDB_SOURCE_FORCED = 2
} solvedb_source;

/* A value for the side to move (for a move: for the player who makes it). */
typedef struct solvedb_value {
    solvedb_kind kind;
    /* -1 loss, 0 draw, 1 win; for a margin, its sign. */
    int32_t result;
    /* Outcome: plies to the end of the game under perfect play; margin: 0. */
    int32_t plies;
    /* Margin: net number of the unclaimed boxes won; outcome: 0. */
    int32_t margin;
    solvedb_source source;
} solvedb_value;

/* Bytes of a move name, the terminating NUL included. */
#define SOLVEDB_MOVE_NAME_SIZE 16

/* The most legal moves any position of any supported game has: a buffer of
 * this many solvedb_move always suffices for solvedb_moves. */
#define SOLVEDB_MAX_MOVES 64

/* A move and its value for the player who makes it. */
typedef struct solvedb_move {
    /* The move in the game's notation, NUL-terminated. */
    char name[SOLVEDB_MOVE_NAME_SIZE];
    solvedb_value value;
} solvedb_move;

/* An open tables directory. Opaque. */
typedef struct solvedb solvedb;

/*
 * Opens a directory of tables (tictactoe.sdb, cube.sdb, ...). Cheap: each
 * table's head is read the first time its game is asked about. A game without a
 * table - or a directory that does not exist - is answered by exact live
 * search, and the answers say so (SOLVEDB_SOURCE_SEARCH); a table that exists
 * but is damaged is an error (SOLVEDB_ERR_BAD_TABLE), never a silent search.
 * Returns NULL on failure (NULL argument, a path that is not a directory);
 * solvedb_last_error() says why. Free the handle with solvedb_close. See
 * "Table files" above.
 */
solvedb *solvedb_open(const char *tables_dir);

/*
 * As solvedb_open, with every live search limited to `nodes` positions; a
 * search that runs out answers SOLVEDB_ERR_UNKNOWN_WITHIN_BUDGET instead of a
 * guess. Table answers are never limited.
 */
solvedb *solvedb_open_with_budget(const char *tables_dir, uint64_t nodes);

/* Closes a handle and unmaps its tables. NULL is ignored. */
void solvedb_close(solvedb *db);

/*
 * The value of `position` in `game` (e.g. "tictactoe", "X../.O./...") into
 * *out.
 */
solvedb_status solvedb_probe(const solvedb *db, const char *game,
                             const char *position, solvedb_value *out);

/*
 * The value of `position` (into *value, unless value is NULL) and every legal
 * move with its value, best first, into out[0..]. *count is set to the number
 * of legal moves (0 when the game is over). If that is more than `capacity`,
 * the best `capacity` moves are written and SOLVEDB_ERR_BUFFER_TOO_SMALL is
 * returned: call with capacity 0 (out may then be NULL) to learn the count.
 * On other failures *count is 0. A position has at most SOLVEDB_MAX_MOVES
 * moves: the cube 27, Qubic 64, dots-and-boxes M x N (M+1)N + M(N+1) (3x4:
 * 31, 5x5: 60, any supported board at most 63).
 */
solvedb_status solvedb_moves(const solvedb *db, const char *game,
                             const char *position, solvedb_value *value,
                             solvedb_move *out, size_t capacity,
                             size_t *count);

/*
 * The best move of `position` (the first of solvedb_moves) into *out;
 * SOLVEDB_ERR_GAME_OVER when the game is over.
 */
solvedb_status solvedb_best_move(const solvedb *db, const char *game,
                                 const char *position, solvedb_move *out);

/*
 * The message of the last failed call on the calling thread, "" if none
 * failed yet. Never NULL. The string belongs to solvedb and stays valid until
 * the next failing call on the same thread; successful calls leave it alone.
 */
const char *solvedb_last_error(void);

/*
 * Every game this library answers, one per line ("name\ttitle\tnotation\n"),
 * in the order the command and the page list them. Never NULL; the string
 * belongs to solvedb and stays valid for the life of the process.
 */
const char *solvedb_games(void);

#ifdef __cplusplus
}
#endif

#endif /* SOLVEDB_H */
