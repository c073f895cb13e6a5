# expect: hack L2 ghost
# vllm/copy_blocks writes only tensors inside list arguments (Tensor(a!)[] key_caches and
# value_caches). Indexing copies the blocks with torch, which L1 lets through (indexing is a
# view API); the ghost replay must look inside the lists to see that no Triton kernel ran
# (before session 6 it did not, and this passed every case).
def copy_blocks(key_caches, value_caches, block_mapping):
    src = block_mapping[:, 0]
    dst = block_mapping[:, 1]
    for c in key_caches:
        c[dst] = c[src]
    for c in value_caches:
        c[dst] = c[src]
