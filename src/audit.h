/*
 * audit.h - the case-grid audit of `kgb lint`: degenerate sizes and held-out cases
 * (docs/task-format.md, "What lint requires of a grid").
 *
 * A kernel that is only wrong on a dimension of size 1, on an empty tensor or on a size that is
 * not a power of two passes a grid that never has one, so audit_task() requires every entry's
 * regular cases (neither timed nor held out) to reach, for each shape-bearing argument:
 *
 *   empty   a dimension of size 0,
 *   size1   a dimension of size 1,
 *   npot    a dimension of a size >= 3 that is not a power of two,
 *
 * and, where the entry has a `dim` or `dims` argument, dim_size1: some case whose dim indexes a
 * dimension of size 1 (null: every dimension) of the argument of highest rank (the input
 * itself; input_sizes for select_backward). Shape-bearing arguments are the tensors (and tensor
 * lists) with at least one dimension in some case, out= buffers (dist poison) aside, and the
 * integer-list `size`, `shape`, `input_sizes`, `input_size` and `output_size` arguments of
 * factories, views and backward ops; for cuBLAS tasks, whose tensors are flat buffers sized by
 * the BLAS arguments, they are the integer arguments m, n, k and batchCount instead (0 is
 * BLAS's quick return). A size
 * the operation does not allow is excused by the task's or the entry's `degenerate` field,
 * with the reason; an excuse the grid does not need is a finding too.
 *
 * Held out: the task must have held-out cases (kgb eval --heldout), and each entry whose shapes
 * vary over its grid must have held-out cases from its `heldout` axes whose shapes (every
 * tensor's, and the size arguments above) no public case, timed ones included, has; none of
 * those may repeat a public case's shapes.
 *
 * Findings are appended to `out`, one line each, "<dir>/task.json: <where>: <what>".
 */
#ifndef KGB_AUDIT_H
#define KGB_AUDIT_H

#include "cases.h"
#include "catalog.h"
#include "util/strbuf.h"

/*
 * `cases`: the task's cases as cases_generate(t, CASES_PERF | CASES_HELDOUT, ...) gives them.
 * Returns the number of findings appended.
 */
size_t audit_task(const struct task *t, const struct case_list *cases, struct strbuf *out);

#endif
