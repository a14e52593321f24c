package org.hsa4j.cuda;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

import org.hsa4j.cuda.driver.CudaDriver;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/**
 * A CUDA stream of the agent's context driven by plain driver calls, with no AQL queue in between:
 * the raw-CUDA baseline that {@link CudaSeeds} and the JMH benchmarks measure hsa4j's dispatches
 * against ({@code cuLaunchKernel}, {@code cuStreamSynchronize}, {@code cuMemcpyDtoD_v2}).
 *
 * <p>Each call takes the context's read lock and makes it current, as the queue processor does for
 * its launches, so both sides pay the same; {@link #launch(CudaKernel, int, int, MemorySegment, int)}
 * launches many times under one lock, as a CUDA program filling a stream would. Not thread-safe: one
 * thread drives a stream (the kernarg buffer descriptor is reused between launches).
 */
public final class CudaStream implements AutoCloseable {
    /** {@code CU_STREAM_NON_BLOCKING}: no implicit synchronisation with the legacy default stream. */
    private static final int NON_BLOCKING = 1;
    /** {@code CU_LAUNCH_PARAM_BUFFER_POINTER}, {@code _SIZE}, {@code _END} for {@code extra}. */
    private static final long PARAM_BUFFER_POINTER = 1;
    private static final long PARAM_BUFFER_SIZE = 2;

    private final CudaContext ctx;
    private final CudaDriver d;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment stream;
    private final MemorySegment extra;
    private final MemorySegment extraSize;
    private final int generation;
    private boolean closed;

    private CudaStream(CudaAgent agent) {
        this.ctx = agent.context();
        this.d = ctx.driver();
        MemorySegment out = arena.allocate(ADDRESS);
        extra = arena.allocate(ADDRESS, 5);
        extraSize = arena.allocate(JAVA_LONG);
        ctx.enter();
        try {
            d.check(d.cuStreamCreate(out, NON_BLOCKING), "cuStreamCreate");
            generation = ctx.generation();
        } catch (RuntimeException e) {
            arena.close();
            throw e;
        } finally {
            ctx.exit();
        }
        stream = out.get(ADDRESS, 0);
    }

    /** A new non-blocking stream in {@code agent}'s context. */
    public static CudaStream open(CudaAgent agent) {
        return new CudaStream(Objects.requireNonNull(agent, "agent"));
    }

    /**
     * Launches {@code kernel} {@code times} times on {@code blocks} x {@code threads} (1-D) with
     * {@code kernarg} (its bytes, laid out as the kernel's parameters, the first
     * {@link CudaKernel#kernargSegmentSize()} of them passed; null for none), without waiting.
     *
     * @throws HsaException INVALID_ARGUMENT when {@code kernarg} is shorter than the kernel's parameters
     */
    public void launch(CudaKernel kernel, int blocks, int threads, MemorySegment kernarg, int times) {
        MemorySegment ex = MemorySegment.NULL;
        if (kernarg != null) {
            long size = kernel.kernargSegmentSize();
            if (kernarg.byteSize() < size) {
                throw new HsaException(HsaStatus.INVALID_ARGUMENT, "kernarg of " + kernarg.byteSize()
                        + " bytes is shorter than the " + size + " bytes of " + kernel.symbol() + "'s parameters");
            }
            extraSize.set(JAVA_LONG, 0, size);
            extra.setAtIndex(ADDRESS, 0, MemorySegment.ofAddress(PARAM_BUFFER_POINTER));
            extra.setAtIndex(ADDRESS, 1, kernarg);
            extra.setAtIndex(ADDRESS, 2, MemorySegment.ofAddress(PARAM_BUFFER_SIZE));
            extra.setAtIndex(ADDRESS, 3, extraSize);
            extra.setAtIndex(ADDRESS, 4, MemorySegment.NULL);
            ex = extra;
        }
        enter();
        try {
            MemorySegment f = kernel.function(generation);
            for (int i = 0; i < times; i++) {
                d.check(d.cuLaunchKernel(f, blocks, 1, 1, threads, 1, 1, 0, stream, MemorySegment.NULL, ex),
                        "cuLaunchKernel");
            }
        } finally {
            ctx.exit();
        }
    }

    /** Launches {@code kernel} once; see {@link #launch(CudaKernel, int, int, MemorySegment, int)}. */
    public void launch(CudaKernel kernel, int blocks, int threads, MemorySegment kernarg) {
        launch(kernel, blocks, threads, kernarg, 1);
    }

    /** {@code cuStreamSynchronize}: returns once everything launched on the stream has finished. */
    public void synchronize() {
        enter();
        try {
            d.check(d.cuStreamSynchronize(stream), "cuStreamSynchronize");
        } finally {
            ctx.exit();
        }
    }

    /**
     * Copies {@code bytes} from device address {@code src} to {@code dst} ({@code cuMemcpyDtoD_v2})
     * and returns once the copy is done ({@code cuCtxSynchronize}: a device-to-device copy does not
     * wait for itself).
     */
    public void copyDeviceToDevice(long dst, long src, long bytes) {
        enter();
        try {
            d.check(d.cuMemcpyDtoD(dst, src, bytes), "cuMemcpyDtoD_v2");
            d.check(d.cuCtxSynchronize(), "cuCtxSynchronize");
        } finally {
            ctx.exit();
        }
    }

    /** Sets {@code count} bytes at device address {@code dst} to {@code value} and waits ({@code cuMemsetD8_v2}). */
    public void fill(long dst, byte value, long count) {
        enter();
        try {
            d.check(d.cuMemsetD8(dst, value, count), "cuMemsetD8_v2");
            d.check(d.cuCtxSynchronize(), "cuCtxSynchronize");
        } finally {
            ctx.exit();
        }
    }

    private void enter() {
        ctx.enter();
        if (closed || ctx.generation() != generation) {
            ctx.exit();
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, closed ? "the CUDA stream is closed"
                    : "the CUDA stream belongs to a context that a fault has since recreated");
        }
    }

    /** Destroys the stream (after finishing its work), once; nothing to do once the agent is closed. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            ctx.enter();
        } catch (HsaException agentClosed) {
            arena.close();
            return;
        }
        try {
            if (ctx.generation() == generation) {
                d.cuStreamSynchronize(stream);
                d.cuStreamDestroy(stream);
            }
        } finally {
            ctx.exit();
            arena.close();
        }
    }
}
