#include "prompt.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/compiler.h"

/* Interim platform fragments; issue 10 moves them into platform profile files. */
/*
 * Arguments that arrive as torch objects, which an ATen schema names by its own types
 * (ScalarType, Device, MemoryFormat): what the Python function gets for each.
 */
static const struct {
	const char *kind, *what;
} torch_arg_kinds[] = {
	{"dtype", "a `torch.dtype` (such as `torch.float16`), or `None` where the schema says "
		  "`ScalarType?`"},
	{"device", "a `torch.device`, the device the tensor arguments are on"},
	{"memory_format",
	 "a `torch.memory_format`: `torch.contiguous_format`, `torch.channels_last` (4-d tensors), "
	 "`torch.channels_last_3d` (5-d) or `torch.preserve_format`, or `None` where the schema "
	 "says `MemoryFormat?`. When one is passed, every returned tensor must have the strides "
	 "ATen gives it (those of dimensions of size 1 aside): a result the function allocates "
	 "is laid out in that format (`torch.empty_like(self, memory_format=...)` computes them)"},
};

/* "## Argument types" for the torch-object arguments the entries take, if any. */
static void add_argument_types(const struct task *t, struct strbuf *out)
{
	bool any = false;

	for (size_t k = 0; k < ARRAY_SIZE(torch_arg_kinds); k++) {
		json_t *names = json_object();
		const char *name;
		json_t *x;
		bool first = true;

		for (size_t i = 0; i < t->nr_entries; i++) {
			size_t j;
			json_t *a;

			json_array_foreach(t->entries[i].args, j, a) {
				if (json_object_get(a, torch_arg_kinds[k].kind) &&
				    json_is_string(json_object_get(a, "name")))
					json_object_set_new(
						names, json_string_value(json_object_get(a, "name")),
						json_true());
			}
		}
		if (json_object_size(names) && !any) {
			strbuf_addstr(out, "\n## Argument types\n\n");
			any = true;
		}
		json_object_foreach(names, name, x) {
			strbuf_addf(out, "%s`%s`", first ? "- " : ", ", name);
			first = false;
		}
		if (!first)
			strbuf_addf(out, ": %s.\n", torch_arg_kinds[k].what);
		json_decref(names);
	}
}

/*
 * What every cuBLAS task shares (docs/tasks-cublas.md, "The function"): said once here so that
 * the 50 prompt.md files state only their routine, and no two of them state it differently.
 */
static const char cublas_conventions[] =
	"\n## cuBLAS calling convention\n\n"
	"Each function mirrors the cuBLAS C routine of its name: the C parameters in C order, "
	"without the handle.\n\n"
	"- A device pointer is a 1-D torch tensor on the device holding the memory the pointer "
	"addresses, from the pointer on (S float32, D float64, C complex64, Z complex128, H "
	"float16). Nothing is reshaped for you: sizes, increments, leading dimensions and strides "
	"are the integers of the C API.\n"
	"- Matrices are column-major: element (i, j) of a matrix with leading dimension `ld` is "
	"`A[i + j*ld]`, `ld >= rows`. Elements between a column's end and the next column's start "
	"are not part of the matrix: never read them as data and never write them.\n"
	"- Vector element `i` is `x[i*incx]` for `incx > 0` and `x[(n-1-i)*|incx|]` for "
	"`incx < 0` (BLAS's rule). Elements between them are never written.\n"
	"- Enums are ints with cuBLAS's values: trans `CUBLAS_OP_N` 0, `CUBLAS_OP_T` 1, "
	"`CUBLAS_OP_C` 2 (conjugate transpose); uplo `CUBLAS_FILL_MODE_LOWER` 0, `UPPER` 1; "
	"diag `CUBLAS_DIAG_NON_UNIT` 0, `UNIT` 1; side `CUBLAS_SIDE_LEFT` 0, `RIGHT` 1. For "
	"triangular, symmetric and banded storage only the referenced part is read, and for "
	"triangular and symmetric outputs only the `uplo` triangle is written.\n"
	"- `alpha` and `beta` are Python numbers, as in host pointer mode: float for S, D and H "
	"(H routines receive a `__half`: round it to float16 first; S routines a float: round it "
	"to float32), complex for C and Z.\n"
	"- Batched routines with arrays of pointers take a Python list of 1-D tensors; "
	"strided-batched ones one tensor and the C stride in elements. `_64` routines take the "
	"same Python ints.\n"
	"- A result C returns through a pointer (dot, asum) is returned as a 0-d device tensor of "
	"the result type; every other routine writes its outputs in place and returns None.\n"
	"- Accumulate in at least the precision of the routine (float32 for S, C and H, float64 "
	"for D and Z); the result is checked against a float64 computation with a tolerance that "
	"grows with the length of each sum.\n";

int prompt_build(const struct task *t, const char *platform, const char *fragment,
		 struct strbuf *out, struct strbuf *err)
{
	struct strbuf body = STRBUF_INIT;
	char *path = task_path(t, "prompt.md");
	/* Not a FIFO or a device (never waited on), and whole: a prompt cut short says less. */
	int r = strbuf_read_file(&body, path, PROMPT_MAX_SEMANTICS_BYTES);

	if (r < 0) {
		strbuf_addf(err, "task '%s/%s': cannot read its semantics '%s': ", t->source, t->op,
			    path);
		if (r == -E2BIG)
			strbuf_addf(err, "larger than %u MiB", PROMPT_MAX_SEMANTICS_BYTES >> 20);
		else if (r == -EINVAL)
			strbuf_addstr(err, "not a regular file");
		else
			strbuf_addstr(err, strerror(-r));
		free(path);
		return r;
	}
	strbuf_addf(out, "# Task: implement `%s` (%s) in Triton\n\n", t->op, t->source);
	strbuf_addstr(out, "Write one Python module that defines these functions, each with "
			   "exactly this name and parameter list:\n\n");
	for (size_t i = 0; i < t->nr_entries; i++)
		strbuf_addf(out, "- `%s` implements `%s`\n", t->entries[i].name,
			    t->entries[i].signature);
	add_argument_types(t, out);
	if (!strcmp(t->source, "cublas"))
		strbuf_addstr(out, cublas_conventions);
	strbuf_addstr(out, "\n## Semantics\n\n");
	strbuf_add(out, body.buf, body.len);
	if (out->len && out->buf[out->len - 1] != '\n')
		strbuf_addch(out, '\n');
	strbuf_addstr(out,
		      "\n## Rules\n\n"
		      "- Do the computation in Triton kernels (`@triton.jit`). From torch use only "
		      "allocation (torch.empty, torch.empty_like, ...), metadata (shape, stride, "
		      "dtype, device) and views; no torch compute operations.\n");
	/* ATen ops take any layout; vLLM's and cuBLAS's state theirs in the semantics. */
	if (!strcmp(t->source, "aten"))
		strbuf_addstr(out, "- Inputs may be non-contiguous (transposed, strided, with a "
				   "storage offset), 0-dimensional or empty. Do not modify inputs "
				   "unless the operation is in place.\n");
	else
		strbuf_addstr(out, "- Tensors have the layouts the semantics above state. Write "
				   "only the arguments the operation writes; leave the others as they "
				   "are.\n");
	strbuf_addstr(out,
		      "- Return outputs with the dtype, shape and device the operation defines.\n"
		      "- Reply with one Python code block holding the whole module, and no tests.\n");
	strbuf_addf(out, "\n## Platform: %s\n\n%s\n", platform, fragment);
	free(path);
	strbuf_release(&body);
	return 0;
}

