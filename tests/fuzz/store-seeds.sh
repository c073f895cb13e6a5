#!/usr/bin/env bash
# Writes fuzz-store's seeds, tests/fuzz/corpus/store/seed-* (docs/fuzzing.md; no .db suffix,
# which .gitignore leaves out): small real stores, each compacted to 512-byte pages:
#   seed-eval        `kgb eval` of the CLI tests' fixture task on the interpreter, 3 of its cases
#                    kept (rollback journal: what a shard store on a network filesystem uses)
#   seed-base        the store fuzz-store edits, written by store.c's own writers (WAL)
#   seed-odd         seed-eval as another tool may leave it: NOT NULL columns without the
#                    constraint, NULL in them, text that is not UTF-8 (as t0170-report.sh does)
#   seed-schema1     seed-eval as schema 1 (no cases_skipped, no tables added since)
#   seed-theirs      another application's SQLite file
#
# Usage: tests/fuzz/store-seeds.sh      (after make build/kgb fuzz-build; needs sqlite3 and the
#                                        .venv the interpreter platform runs in)
set -euo pipefail
cd "$(dirname "$0")/../.."
out=tests/fuzz/corpus/store
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"
compact() { sqlite3 "$1" "PRAGMA journal_mode=DELETE; PRAGMA page_size=512; VACUUM;" >/dev/null; }

build/kgb --tasks tests/cli/fixtures/tasks eval --platform interpreter -j 1 \
	--store "$tmp/eval.db" >/dev/null
sqlite3 "$tmp/eval.db" "DELETE FROM cases WHERE case_id >= 3;
	UPDATE runs SET command = 'kgb eval --platform interpreter -j 1 --store eval.db';"
compact "$tmp/eval.db"
cp "$tmp/eval.db" "$out/seed-eval"

KGB_FUZZ_STORE_SEED=$tmp/base.db build/fuzz/fuzz-store -runs=0 >/dev/null 2>&1
cp "$tmp/base.db" "$out/seed-base"

cp "$tmp/eval.db" "$tmp/odd.db"
sqlite3 "$tmp/odd.db" <<'SQL'
CREATE TABLE e2 AS SELECT * FROM evaluations; DROP TABLE evaluations;
ALTER TABLE e2 RENAME TO evaluations;
UPDATE evaluations SET verdict = NULL, task = NULL, source = CAST(X'ff41' AS TEXT),
	detail = CAST(X'c328' AS TEXT);
CREATE TABLE r2 AS SELECT * FROM run_evals; DROP TABLE run_evals;
ALTER TABLE r2 RENAME TO run_evals; UPDATE run_evals SET sample = CAST(X'e282' AS TEXT);
UPDATE cases SET entry = CAST(X'80' AS TEXT) WHERE case_id = 0;
UPDATE cases SET verdict = NULL, axes = CAST(X'7b22ff' AS TEXT) WHERE case_id = 1;
SQL
compact "$tmp/odd.db"
cp "$tmp/odd.db" "$out/seed-odd"

cp "$tmp/eval.db" "$tmp/schema1.db"
sqlite3 "$tmp/schema1.db" "ALTER TABLE evaluations DROP COLUMN cases_skipped;
	DROP TABLE ceilings; DROP TABLE checks; DROP TABLE generations;
	UPDATE meta SET value = '1' WHERE key = 'schema';"
compact "$tmp/schema1.db"
cp "$tmp/schema1.db" "$out/seed-schema1"

sqlite3 "$tmp/theirs.db" "CREATE TABLE notes(x TEXT); INSERT INTO notes VALUES ('kgb');"
compact "$tmp/theirs.db"
cp "$tmp/theirs.db" "$out/seed-theirs"
ls -l "$out"/seed-*
