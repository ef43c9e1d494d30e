/*
 * check.c - drives the solvedb C ABI; run by capi/tests/c_program.rs.
 *
 *   check TABLES_DIR [SEARCH_BUDGET] < queries
 *
 * First it checks the parts of the contract only C can exercise (NULL
 * pointers, non-UTF-8 text, a too-small move buffer, threads sharing one
 * handle) and prints "check NAME ok" per check, or "check NAME FAILED ..."
 * and exits with status 1 at the end.
 *
 * Then it answers one query per input line, "WANT<TAB>GAME<TAB>POSITION"
 * with WANT one of probe, moves, best, and prints what the library said:
 *
 *   query WANT GAME POSITION
 *   value KIND RESULT PLIES MARGIN SOURCE      (probe; moves, then:)
 *   count N
 *   move NAME KIND RESULT PLIES MARGIN SOURCE  (N lines, best first)
 *   best NAME KIND RESULT PLIES MARGIN SOURCE  (best)
 *   error STATUS_NAME: MESSAGE                 (any failure)
 *
 * The Rust test writes the same lines from the Rust Oracle and compares.
 * Names of statuses, kinds and sources come from this file's own switches,
 * so a constant in solvedb.h that disagrees with the library shows up.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solvedb.h"

static int failures = 0;

static void check(int ok, const char *name, const char *detail) {
    if (ok) {
        printf("check %s ok\n", name);
    } else {
        printf("check %s FAILED: %s (last error: %s)\n", name, detail,
               solvedb_last_error());
        failures++;
    }
}

static const char *status_name(solvedb_status status) {
    switch (status) {
    case SOLVEDB_OK: return "SOLVEDB_OK";
    case SOLVEDB_ERR_INVALID_ARGUMENT: return "SOLVEDB_ERR_INVALID_ARGUMENT";
    case SOLVEDB_ERR_UNSUPPORTED_GAME: return "SOLVEDB_ERR_UNSUPPORTED_GAME";
    case SOLVEDB_ERR_BAD_POSITION: return "SOLVEDB_ERR_BAD_POSITION";
    case SOLVEDB_ERR_BAD_TABLE: return "SOLVEDB_ERR_BAD_TABLE";
    case SOLVEDB_ERR_IO: return "SOLVEDB_ERR_IO";
    case SOLVEDB_ERR_UNKNOWN_WITHIN_BUDGET:
        return "SOLVEDB_ERR_UNKNOWN_WITHIN_BUDGET";
    case SOLVEDB_ERR_BUFFER_TOO_SMALL: return "SOLVEDB_ERR_BUFFER_TOO_SMALL";
    case SOLVEDB_ERR_GAME_OVER: return "SOLVEDB_ERR_GAME_OVER";
    case SOLVEDB_ERR_INTERNAL: return "SOLVEDB_ERR_INTERNAL";
    }
    return "unknown-status";
}

static const char *kind_name(solvedb_kind kind) {
    switch (kind) {
    case SOLVEDB_KIND_OUTCOME: return "outcome";
    case SOLVEDB_KIND_MARGIN: return "margin";
    }
    return "unknown-kind";
}

static const char *source_name(solvedb_source source) {
    switch (source) {
    case SOLVEDB_SOURCE_TABLE: return "table";
    case SOLVEDB_SOURCE_SEARCH: return "search";
    case SOLVEDB_SOURCE_FORCED: return "forced";
    }
    return "unknown-source";
}

static void print_value(const solvedb_value *v) {
    printf("%s %d %d %d %s\n", kind_name(v->kind), (int)v->result,
           (int)v->plies, (int)v->margin, source_name(v->source));
}

static void print_error(solvedb_status status) {
    printf("error %s: %s\n", status_name(status), solvedb_last_error());
}

static int same_value(const solvedb_value *a, const solvedb_value *b) {
    return a->kind == b->kind && a->result == b->result &&
           a->plies == b->plies && a->margin == b->margin &&
           a->source == b->source;
}

static int same_move(const solvedb_move *a, const solvedb_move *b) {
    return strcmp(a->name, b->name) == 0 && same_value(&a->value, &b->value);
}

/* ---- the contract: NULLs, UTF-8, buffers, threads ---------------------- */

#define EMPTY_TICTACTOE "........."
#define MAX_MOVES 64

static void check_arguments(solvedb *db) {
    solvedb_value value;
    solvedb_move moves[MAX_MOVES];
    size_t count = 99;
    const char bad_utf8[] = {(char)0xff, (char)0xfe, 0};

    check(solvedb_open(NULL) == NULL && solvedb_last_error()[0] != '\0',
          "open_null", "solvedb_open(NULL) must fail with a message");
    solvedb_close(NULL);
    check(1, "close_null", "");

    check(solvedb_probe(NULL, "tictactoe", EMPTY_TICTACTOE, &value) ==
              SOLVEDB_ERR_INVALID_ARGUMENT,
          "probe_null_handle", "NULL handle");
    check(solvedb_probe(db, NULL, EMPTY_TICTACTOE, &value) ==
              SOLVEDB_ERR_INVALID_ARGUMENT,
          "probe_null_game", "NULL game");
    check(solvedb_probe(db, "tictactoe", NULL, &value) ==
              SOLVEDB_ERR_INVALID_ARGUMENT,
          "probe_null_position", "NULL position");
    check(solvedb_probe(db, "tictactoe", EMPTY_TICTACTOE, NULL) ==
              SOLVEDB_ERR_INVALID_ARGUMENT,
          "probe_null_out", "NULL output");
    check(solvedb_probe(db, "tictactoe", bad_utf8, &value) ==
              SOLVEDB_ERR_INVALID_ARGUMENT,
          "probe_non_utf8_position", "non-UTF-8 position");
    check(solvedb_probe(db, bad_utf8, EMPTY_TICTACTOE, &value) ==
              SOLVEDB_ERR_INVALID_ARGUMENT,
          "probe_non_utf8_game", "non-UTF-8 game");
    check(solvedb_moves(db, "tictactoe", EMPTY_TICTACTOE, NULL, moves,
                        MAX_MOVES, NULL) == SOLVEDB_ERR_INVALID_ARGUMENT,
          "moves_null_count", "NULL count");
    check(solvedb_moves(db, "tictactoe", EMPTY_TICTACTOE, NULL, NULL, 4,
                        &count) == SOLVEDB_ERR_INVALID_ARGUMENT,
          "moves_null_buffer", "NULL buffer with capacity 4");
    check(solvedb_best_move(db, "tictactoe", EMPTY_TICTACTOE, NULL) ==
              SOLVEDB_ERR_INVALID_ARGUMENT,
          "best_null_out", "NULL output");
    count = 99;
    check(solvedb_moves(db, "tictactoe", "XX", NULL, moves, MAX_MOVES,
                        &count) == SOLVEDB_ERR_BAD_POSITION &&
              count == 0,
          "moves_failure_zero_count", "a failed call must set count to 0");

    /* The last error survives successful calls. */
    solvedb_probe(db, "tictactoe", "no such position", &value);
    {
        char kept[256];
        snprintf(kept, sizeof kept, "%s", solvedb_last_error());
        solvedb_probe(db, "tictactoe", EMPTY_TICTACTOE, &value);
        check(kept[0] != '\0' && strcmp(kept, solvedb_last_error()) == 0,
              "last_error_kept", "a successful call changed the last error");
    }
}

static void check_buffers(solvedb *db) {
    solvedb_move all[MAX_MOVES], few[2];
    solvedb_value value, value_again;
    size_t total = 0, count = 0;

    solvedb_status status = solvedb_moves(db, "tictactoe", EMPTY_TICTACTOE,
                                          &value, all, MAX_MOVES, &total);
    check(status == SOLVEDB_OK && total == 9, "moves_empty_board",
          "nine moves on the empty board");

    status = solvedb_moves(db, "tictactoe", EMPTY_TICTACTOE, NULL, NULL, 0,
                           &count);
    check(status == SOLVEDB_ERR_BUFFER_TOO_SMALL && count == total,
          "moves_size_query", "capacity 0 must report the count");

    memset(few, 0, sizeof few);
    status = solvedb_moves(db, "tictactoe", EMPTY_TICTACTOE, &value_again,
                           few, 2, &count);
    check(status == SOLVEDB_ERR_BUFFER_TOO_SMALL && count == total &&
              same_move(&few[0], &all[0]) && same_move(&few[1], &all[1]) &&
              same_value(&value, &value_again),
          "moves_too_small_buffer",
          "a short buffer gets the best moves and the full count");

    status = solvedb_moves(db, "tictactoe", EMPTY_TICTACTOE, NULL, all, total,
                           &count);
    check(status == SOLVEDB_OK && count == total, "moves_exact_buffer",
          "a buffer of exactly the count is enough");
}

/* Threads share one handle and must agree with the main thread. */
#define THREADS 4
#define ROUNDS 200

struct shared {
    const solvedb *db;
    const char *game;
    const char *position;
    solvedb_move expected[MAX_MOVES];
    size_t count;
    int disagreements;
};

static void *hammer(void *arg) {
    struct shared *s = arg;
    solvedb_move got[MAX_MOVES];
    size_t count;
    for (int round = 0; round < ROUNDS; round++) {
        if (solvedb_moves(s->db, s->game, s->position, NULL, got, MAX_MOVES,
                          &count) != SOLVEDB_OK ||
            count != s->count) {
            s->disagreements++;
            continue;
        }
        for (size_t i = 0; i < count; i++) {
            if (!same_move(&got[i], &s->expected[i])) s->disagreements++;
        }
    }
    return NULL;
}

static void check_threads(solvedb *db, const char *game,
                          const char *position) {
    struct shared shared[THREADS];
    pthread_t threads[THREADS];
    int disagreements = 0, started = 1;
    for (int t = 0; t < THREADS; t++) {
        shared[t].db = db;
        shared[t].game = game;
        shared[t].position = position;
        shared[t].disagreements = 0;
        if (solvedb_moves(db, game, position, NULL, shared[t].expected,
                          MAX_MOVES, &shared[t].count) != SOLVEDB_OK) {
            check(0, "threads", "the single-thread call failed");
            return;
        }
    }
    for (int t = 0; t < THREADS; t++) {
        if (pthread_create(&threads[t], NULL, hammer, &shared[t]) != 0) {
            started = 0;
            break;
        }
    }
    for (int t = 0; t < THREADS && started; t++) {
        pthread_join(threads[t], NULL);
        disagreements += shared[t].disagreements;
    }
    check(started && disagreements == 0, "threads",
          "threads sharing a handle must agree with one thread");
}

/* ---- queries from standard input --------------------------------------- */

static void answer(const solvedb *db, const char *want, const char *game,
                   const char *position) {
    solvedb_value value;
    solvedb_move moves[MAX_MOVES];
    size_t count = 0;
    solvedb_status status;

    printf("query %s %s %s\n", want, game, position);
    if (strcmp(want, "probe") == 0) {
        status = solvedb_probe(db, game, position, &value);
        if (status != SOLVEDB_OK) {
            print_error(status);
            return;
        }
        printf("value ");
        print_value(&value);
    } else if (strcmp(want, "moves") == 0) {
        status = solvedb_moves(db, game, position, &value, moves, MAX_MOVES,
                               &count);
        if (status != SOLVEDB_OK) {
            print_error(status);
            return;
        }
        printf("value ");
        print_value(&value);
        printf("count %zu\n", count);
        for (size_t i = 0; i < count; i++) {
            printf("move %s ", moves[i].name);
            print_value(&moves[i].value);
        }
    } else if (strcmp(want, "best") == 0) {
        status = solvedb_best_move(db, game, position, &moves[0]);
        if (status != SOLVEDB_OK) {
            print_error(status);
            return;
        }
        printf("best %s ", moves[0].name);
        print_value(&moves[0].value);
    } else if (strcmp(want, "games") == 0) {
        fputs(solvedb_games(), stdout);
    } else {
        printf("error unknown-want: %s\n", want);
    }
}

int main(int argc, char **argv) {
    char line[8192];
    solvedb *db;

    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: %s TABLES_DIR [SEARCH_BUDGET] < queries\n",
                argv[0]);
        return 2;
    }
    db = argc == 3 ? solvedb_open_with_budget(argv[1],
                                              strtoull(argv[2], NULL, 10))
                   : solvedb_open(argv[1]);
    if (db == NULL) {
        fprintf(stderr, "solvedb_open(%s): %s\n", argv[1],
                solvedb_last_error());
        return 2;
    }

    if (argc == 2) {
        check_arguments(db);
        check_buffers(db);
        check_threads(db, "tictactoe", EMPTY_TICTACTOE);
    }

    while (fgets(line, sizeof line, stdin) != NULL) {
        char *want = line, *game, *position, *end;
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] == '\0') continue;
        game = strchr(want, '\t');
        if (game == NULL) continue;
        *game++ = '\0';
        position = strchr(game, '\t');
        if (position == NULL) continue;
        *position++ = '\0';
        end = strchr(position, '\t');
        if (end != NULL) *end = '\0';
        answer(db, want, game, position);
    }

    solvedb_close(db);
    printf("done, %d failed checks\n", failures);
    return failures == 0 ? 0 : 1;
}
