class CUDADriverError(RuntimeError):
    pass


def occupancyMaxActiveBlocksPerMultiprocessor(func, block_size, dynamic_smem):
    """An H200's SM holds 8 blocks of 256 threads of a kernel of up to 32 registers."""
    return 2048 // block_size
