#!/bin/sh
# Writes runtime/verdicts.py from src/verdicts.def, the one table of verdicts (see its header):
#   scripts/gen-verdicts.sh >runtime/verdicts.py     (or: make runtime/verdicts.py)
# tests/cli/t0003-verdicts.sh fails when the committed file is not what this prints.
set -eu
def=${1:-src/verdicts.def}
awk '
BEGIN {
	print "\"\"\"The verdicts kgb knows, generated from src/verdicts.def by"
	print "scripts/gen-verdicts.sh: edit that file, then run `make runtime/verdicts.py`."
	print "\"\"\""
	print ""
	print "from typing import Final, Literal, cast"
	print ""
}
/^VERDICT\(/ {
	line = $0
	sub(/^VERDICT\(/, "", line)
	split(line, f, ", ")
	enum = f[1]
	name = f[2]; gsub(/"/, "", name)
	lv = f[3]; cnt = f[4]
	levels = ""
	if (lv ~ /V_CASE/) levels = levels "\"case\", "
	if (lv ~ /V_FATAL/) levels = levels "\"fatal\", "
	if (lv ~ /V_CANDIDATE/) levels = levels "\"candidate\", "
	sub(/, $/, "", levels)
	counts = tolower(cnt); sub(/^v_/, "", counts)
	n++
	enums[n] = enum; names[n] = name; lvls[n] = levels; cnts[n] = counts
}
END {
	for (i = 1; i <= n; i++)
		printf "%s: Final = \"%s\"\n", enums[i], names[i]
	print ""
	print "Verdict = Literal["
	for (i = 1; i <= n; i++)
		printf "    \"%s\",\n", names[i]
	print "]"
	print ""
	print "# name: (the levels it may appear at, what it counts as)"
	print "TABLE: Final[dict[str, tuple[tuple[str, ...], str]]] = {"
	for (i = 1; i <= n; i++)
		printf "    \"%s\": ((%s%s), \"%s\"),\n", names[i], lvls[i], (lvls[i] ~ /, / ? "" : ","), cnts[i]
	print "}"
	print "CASE: Final = frozenset(k for k, (lv, _) in TABLE.items() if \"case\" in lv)"
	print "FATAL: Final = frozenset(k for k, (lv, _) in TABLE.items() if \"fatal\" in lv)"
	print ""
	print ""
	print "def named(name: object) -> Verdict | None:"
	print "    \"\"\"The verdict called `name`, or None when the table has none of that name.\"\"\""
	print "    return cast(Verdict, name) if isinstance(name, str) and name in TABLE else None"
}' "$def"
