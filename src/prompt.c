#include "prompt.h"

#include <stdlib.h>
#include <string.h>

/* Interim platform fragments; issue 10 moves them into platform profile files. */
static const char *platform_fragment(const char *platform)
{
	if (!strcmp(platform, "interpreter"))
		return "The kernel is checked with Triton's CPU interpreter (TRITON_INTERPRET=1): "
		       "tensors live on the CPU, every tl.* operation runs in numpy, and only "
		       "correctness is measured. Keep to standard tl.* operations.";
	return "The kernel runs on an NVIDIA GPU with CUDA through Triton 3.6. Use "
	       "tl.dot with input_precision=\"ieee\" (or allow_tf32=False) for float32 inputs: "
	       "TF32 is not accurate enough for float32 tasks. Accumulate float16 and bfloat16 "
	       "in float32. Use 64-bit offsets when an index can exceed 2**31.";
}

void prompt_build(const struct task *t, const char *platform, struct strbuf *out)
{
	struct strbuf body = STRBUF_INIT;
	char *path = task_path(t, "prompt.md");

	strbuf_addf(out, "# Task: implement `%s` (%s) in Triton\n\n", t->op, t->source);
	strbuf_addstr(out, "Write one Python module that defines these functions, each with "
			   "exactly this name and parameter list:\n\n");
	for (size_t i = 0; i < t->nr_entries; i++)
		strbuf_addf(out, "- `%s` implements `%s`\n", t->entries[i].name,
			    t->entries[i].signature);
	strbuf_addstr(out, "\n## Semantics\n\n");
	if (strbuf_read_file(&body, path, 1 << 20) == 0)
		strbuf_add(out, body.buf, body.len);
	if (out->len && out->buf[out->len - 1] != '\n')
		strbuf_addch(out, '\n');
	strbuf_addstr(out,
		      "\n## Rules\n\n"
		      "- Do the computation in Triton kernels (`@triton.jit`). From torch use only "
		      "allocation (torch.empty, torch.empty_like, ...), metadata (shape, stride, "
		      "dtype, device) and views; no torch compute operations.\n"
		      "- Inputs may be non-contiguous (transposed, strided, with a storage offset), "
		      "0-dimensional or empty. Do not modify inputs unless the operation is in place.\n"
		      "- Return outputs with the dtype, shape and device the operation defines.\n"
		      "- Reply with one Python code block holding the whole module, and no tests.\n");
	strbuf_addf(out, "\n## Platform: %s\n\n%s\n", platform, platform_fragment(platform));
	free(path);
	strbuf_release(&body);
}

