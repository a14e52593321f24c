package org.hsa4j.cuda;

import java.lang.foreign.MemorySegment;

import org.hsa4j.agent.Agent;
import org.hsa4j.agent.NativeKernel;
import org.hsa4j.cuda.driver.CudaDriver;

/**
 * A kernel of a {@link CudaModule}: its kernel object handle (what a dispatch packet's
 * {@code kernel_object} holds), kernarg layout, static shared memory and thread limit.
 */
public final class CudaKernel implements NativeKernel {
    /** {@code CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES}. */
    private static final int FUNC_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;
    private final CudaModule module;
    private final String symbol;
    private final KernargLayout kernargs;
    private final int staticShared;
    private final int maxThreadsPerBlock;
    private final int privateSegmentSize;
    private long handle;
    private MemorySegment function;
    private int functionGeneration = -1;
    /** Dynamic shared memory the current function was opted in to ({@code cuFuncSetAttribute}); 0 until a launch asks. */
    private int dynamicSharedOptIn;

    CudaKernel(CudaModule module, String symbol, KernargLayout kernargs, int staticShared, int maxThreadsPerBlock) {
        this(module, symbol, kernargs, staticShared, maxThreadsPerBlock, 0);
    }

    CudaKernel(CudaModule module, String symbol, KernargLayout kernargs, int staticShared, int maxThreadsPerBlock,
               int privateSegmentSize) {
        this.privateSegmentSize = privateSegmentSize;
        this.module = module;
        this.symbol = symbol;
        this.kernargs = kernargs;
        this.staticShared = staticShared;
        this.maxThreadsPerBlock = maxThreadsPerBlock;
    }

    /** The module this kernel was looked up in (its code object's bytes load it again elsewhere). */
    CudaModule module() {
        return module;
    }

    void handle(long handle) {
        this.handle = handle;
    }

    /** The kernel object handle for {@code KernelDispatchPacket.kernelObject}. */
    @Override
    public long kernelObject() {
        return handle;
    }

    /** The symbol. */
    public String symbol() {
        return symbol;
    }

    /** The kernarg segment layout. */
    public KernargLayout kernargs() {
        return kernargs;
    }

    /** The CUDA agent's runtime agent, whose queues run it. */
    @Override
    public Agent agent() {
        return module.agent().hsaAgent();
    }

    /** The symbol, for messages. */
    @Override
    public String name() {
        return symbol;
    }

    /** Bytes of the kernarg segment a dispatch must provide. */
    @Override
    public long kernargSegmentSize() {
        return kernargs.bytes();
    }

    /** Shared memory the kernel declares statically (part of its group segment). */
    public int groupSegmentSize() {
        return staticShared;
    }

    /** Local memory per thread ({@code CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES}): the spec's private segment size. */
    public int privateSegmentSize() {
        return privateSegmentSize;
    }

    /** The largest block this kernel can run with (registers may make it below the device's). */
    public int maxThreadsPerBlock() {
        return maxThreadsPerBlock;
    }

    /** The CUfunction in the context's current generation; call inside the context from one thread at a time. */
    synchronized MemorySegment function(int generation) {
        if (functionGeneration != generation) {
            function = module.function(symbol);
            functionGeneration = generation;
            dynamicSharedOptIn = 0;
        }
        return function;
    }

    /**
     * The CUfunction of {@link #function(int)}, opted in to at least {@code dynamicShared} bytes of
     * dynamic shared memory: CUDA refuses a launch past 48 KiB of group segment unless the function's
     * {@code CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES} allows it, so the first launch that asks
     * sets it (once per function and size; a failure is the driver's status as an HsaException).
     */
    synchronized MemorySegment function(int generation, int dynamicShared, CudaDriver d) {
        MemorySegment f = function(generation);
        if (dynamicShared > dynamicSharedOptIn) {
            d.check(d.cuFuncSetAttribute(f, FUNC_MAX_DYNAMIC_SHARED_SIZE_BYTES, dynamicShared),
                    "cuFuncSetAttribute(" + symbol + ", MAX_DYNAMIC_SHARED_SIZE_BYTES, " + dynamicShared + ")");
            dynamicSharedOptIn = dynamicShared;
        }
        return f;
    }

    @Override
    public String toString() {
        return "CudaKernel[" + symbol + ", kernarg " + kernargs.bytes() + " bytes]";
    }
}
