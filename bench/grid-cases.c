/*
 * grid-cases.c - prints every regular case of a task catalog, one line each:
 * "source/op <TAB> entry <TAB> resolved args (compact JSON, sorted keys) <TAB> output dtype".
 *
 * bench/grid-superset.sh builds it against the library and compares two catalogs: a grid change
 * that keeps every case of the old grid keeps every mutant the old grid killed (a mutant is killed
 * when one case fails it), so the recorded kill tables of `kgb lint --deep` still hold for it.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cases.h"
#include "catalog.h"

int main(int argc, char **argv)
{
	struct catalog *cat = NULL;
	struct strbuf err = STRBUF_INIT;
	int rc = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: grid-cases TASKS_DIR\n");
		return 2;
	}
	if (catalog_load(argv[1], &cat, &err) < 0) {
		fprintf(stderr, "grid-cases: %s\n", err.buf);
		strbuf_release(&err);
		return 3;
	}
	for (size_t i = 0; i < cat->nr_tasks; i++) {
		const struct task *t = &cat->tasks[i];
		struct case_list cases = {0};

		if (cases_generate(t, 0, 0, &cases, &err) < 0) {
			fprintf(stderr, "grid-cases: %s/%s: %s\n", t->source, t->op, err.buf);
			strbuf_reset(&err);
			rc = 3;
			continue;
		}
		for (size_t c = 0; c < cases.nr; c++) {
			char *args = json_dumps(cases.v[c].args, JSON_COMPACT | JSON_SORT_KEYS);

			printf("%s/%s\t%s\t%s\t%s\n", t->source, t->op, cases.v[c].entry,
			       args ? args : "?", cases.v[c].out_dtype);
			free(args);
		}
		case_list_release(&cases);
	}
	catalog_free(cat);
	strbuf_release(&err);
	return rc;
}
