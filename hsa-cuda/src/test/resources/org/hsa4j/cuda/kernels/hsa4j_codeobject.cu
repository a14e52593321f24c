// Kernels for CudaExecutableGpuTest's binary code objects (issue 23 part 8): a cubin and a fat
// binary built here by nvcc, checked in, and loaded from their bytes through CodeObjectReader.
//   nvcc -cubin -arch=sm_90 -o hsa4j_codeobject.sm_90.cubin hsa4j_codeobject.cu
//   nvcc -fatbin -gencode arch=compute_90,code=sm_90 -o hsa4j_codeobject.fatbin hsa4j_codeobject.cu

// c[i] = a[i] + b[i] for i < n
extern "C" __global__ void hsa4j_vector_add(const float* a, const float* b, float* c, unsigned int n) {
    unsigned long long i = (unsigned long long) blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        c[i] = a[i] + b[i];
    }
}

// reverses each block of 256 floats through 1 KiB of static shared memory (its group segment)
extern "C" __global__ void hsa4j_reverse_block(float* x, unsigned int n) {
    __shared__ float tile[256];
    unsigned long long i = (unsigned long long) blockIdx.x * blockDim.x + threadIdx.x;
    tile[threadIdx.x] = i < n ? x[i] : 0.0f;
    __syncthreads();
    if (i < n) {
        x[i] = tile[blockDim.x - 1 - threadIdx.x];
    }
}
