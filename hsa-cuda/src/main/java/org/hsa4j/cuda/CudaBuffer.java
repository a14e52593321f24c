package org.hsa4j.cuda;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import org.hsa4j.memory.MemAdvice;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/**
 * Memory of a CUDA agent, at a real device address (what a kernarg holds). Device-local memory is
 * not host-visible; pinned and managed memory are, at the same address (unified addressing), so
 * {@link #hostSegment()} gives the host its bytes. A buffer dies with the context that made it:
 * after the agent recovers from a fault every older buffer is invalid.
 *
 * <p>The host segment is scoped to an arena of the buffer's own, closed before the memory goes back
 * to CUDA (on {@link #close} or before a context reset frees it): a segment kept past that throws
 * IllegalStateException instead of touching freed memory, which could crash the JVM.
 */
public final class CudaBuffer implements AutoCloseable {
    /** Where the bytes live. */
    public enum Kind {
        /** Device-local ({@code cuMemAlloc_v2}): coarse-grained, kernels only. */
        DEVICE,
        /** Pinned host memory mapped for the device ({@code cuMemHostAlloc} PORTABLE|DEVICEMAP): fine-grained. */
        PINNED,
        /** Managed ({@code cuMemAllocManaged}): migrates between host and device on touch. */
        MANAGED
    }

    private final CudaAgent agent;
    private final Kind kind;
    private final long address;
    private final long bytes;
    private final MemorySegment host;
    private final Arena scope;
    private final int generation;
    private boolean freed;

    /** A buffer at {@code address}; {@code host} is the raw host view of host-visible memory, or null. */
    CudaBuffer(CudaAgent agent, Kind kind, long address, long bytes, MemorySegment host, int generation) {
        this.agent = agent;
        this.kind = kind;
        this.address = address;
        this.bytes = bytes;
        this.scope = host == null ? null : Arena.ofShared();
        this.host = host == null ? null : host.reinterpret(bytes, scope, null);
        this.generation = generation;
    }

    /**
     * Closes the host segment's arena, once: every access through it fails from now on. Called
     * before the memory is freed or its context reset.
     */
    void invalidate() {
        if (scope != null) {
            synchronized (this) {
                if (scope.scope().isAlive()) {
                    scope.close();
                }
            }
        }
    }

    /** The kind. */
    public Kind kind() {
        return kind;
    }

    /** The device address (for pinned and managed memory also the host address). */
    public long address() {
        return address;
    }

    /** Bytes. */
    public long size() {
        return bytes;
    }

    /** The context generation that made it. */
    int generation() {
        return generation;
    }

    /** True while the buffer may be used: not freed, and its context still alive. */
    public synchronized boolean isValid() {
        return !freed && generation == agent.context().generation();
    }

    /**
     * The host's view of the bytes.
     *
     * @throws HsaException MEMORY_APERTURE_VIOLATION for device-local memory, INVALID_ALLOCATION when freed or lost
     */
    public MemorySegment hostSegment() {
        checkValid();
        if (host == null) {
            throw new HsaException(HsaStatus.MEMORY_APERTURE_VIOLATION, String.format(
                    "device-local memory at 0x%x is not host-visible: copy it with copyToHost", address));
        }
        return host;
    }

    /** Copies {@code src} into the buffer at {@code offset} ({@code cuMemcpyHtoD_v2}). */
    public void copyFromHost(MemorySegment src, long offset) {
        checkRange(offset, src.byteSize());
        CudaContext ctx = agent.context();
        ctx.enter();
        try {
            checkValid();
            ctx.driver().check(ctx.driver().cuMemcpyHtoD(address + offset, src, src.byteSize()), "cuMemcpyHtoD_v2");
        } finally {
            ctx.exit();
        }
    }

    /** Copies {@code dst.byteSize()} bytes at {@code offset} into {@code dst} ({@code cuMemcpyDtoH_v2}). */
    public void copyToHost(MemorySegment dst, long offset) {
        checkRange(offset, dst.byteSize());
        CudaContext ctx = agent.context();
        ctx.enter();
        try {
            checkValid();
            ctx.driver().check(ctx.driver().cuMemcpyDtoH(dst, address + offset, dst.byteSize()), "cuMemcpyDtoH_v2");
        } finally {
            ctx.exit();
        }
    }

    /**
     * Migrates bytes {@code offset .. offset+bytes} of managed memory to the device ({@code toDevice})
     * or to the host, and returns once they are there ({@code cuMemPrefetchAsync_v2} on a stream of
     * its own, then {@code cuStreamSynchronize}): the runtime's prefetch, for CUDA managed memory.
     *
     * @throws HsaException INVALID_ARGUMENT for memory that is not managed or a range outside the buffer
     */
    public void prefetch(long offset, long bytes, boolean toDevice) {
        checkManaged("prefetch");
        checkRange(offset, bytes);
        checkValid();
        CudaPoolMemory.prefetch(agent.context(), agent.info(), address + offset, bytes, toDevice);
    }

    /**
     * Applies {@code advice} to bytes {@code offset .. offset+bytes} of managed memory
     * ({@code cuMemAdvise_v2}); the preferred location is the device ({@code device}) or the host.
     *
     * @throws HsaException INVALID_ARGUMENT for memory that is not managed, a range outside the
     *                      buffer, or advice CUDA has no counterpart for ({@link MemAdvice#SET_COARSE_GRAIN})
     */
    public void advise(long offset, long bytes, MemAdvice advice, boolean device) {
        checkManaged("advise");
        checkRange(offset, bytes);
        CudaPoolMemory.cuAdvice(advice);
        checkValid();
        CudaPoolMemory.advise(agent.context(), agent.info(), address + offset, bytes, advice, device);
    }

    private void checkManaged(String what) {
        if (kind != Kind.MANAGED) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, String.format("%s of 0x%x: %s memory is not managed",
                    what, address, kind));
        }
    }

    private void checkRange(long offset, long length) {
        if (offset < 0 || length < 0 || offset + length > bytes) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, "bytes " + offset + ".." + (offset + length)
                    + " are outside the " + bytes + "-byte buffer");
        }
    }

    private synchronized void checkValid() {
        if (freed) {
            throw new HsaException(HsaStatus.INVALID_ALLOCATION, String.format("buffer 0x%x has been freed", address));
        }
        if (generation != agent.context().generation()) {
            throw new HsaException(HsaStatus.INVALID_ALLOCATION, String.format(
                    "buffer 0x%x was lost when the CUDA context was recreated after a fault", address));
        }
    }

    /** Frees the memory; later calls do nothing. */
    @Override
    public void close() {
        synchronized (this) {
            if (freed) {
                return;
            }
            freed = true;
        }
        invalidate();
        agent.free(this);
    }

    @Override
    public String toString() {
        return String.format("CudaBuffer[%s, 0x%x, %d bytes]", kind, address, bytes);
    }
}
