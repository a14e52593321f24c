package org.hsa4j.amp;

import java.util.function.Function;

import org.hsa4j.agent.Agent;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/**
 * Data owned by an accelerator ({@code concurrency::array}): SVM memory allocated on the view's
 * agent (coarse-grained device memory, hipMalloc-style) to which the host is granted access, so
 * the host reads and writes it in place. {@link #view()} gives the typed view kernels capture;
 * its {@code synchronize()} waits for the owning view. {@link #close()} frees the memory.
 *
 * @param <V> the view type ({@link FloatArrayView}, ...)
 */
public final class Array<V extends ArrayView> implements AutoCloseable {
    private final HsaRuntime runtime;
    private final long address;
    private final V view;
    private boolean closed;

    private Array(AcceleratorView owner, Extent extent, int elementSize, Function<Allocated, V> make) {
        Agent gpu = owner.accelerator().agent();
        this.runtime = owner.accelerator().amp().runtime();
        long bytes = Math.max(1, extent.size()) * elementSize;
        this.address = runtime.deviceMalloc(gpu, bytes);
        runtime.allowAccess(address, runtime.cpuAgent());
        this.view = make.apply(new Allocated(ViewMemory.of(owner.accelerator().amp(), gpu.svm(), address, bytes), extent, owner));
    }

    private record Allocated(ViewMemory memory, Extent extent, AcceleratorView owner) {
    }

    /** An array of ints on {@code owner}'s accelerator. */
    public static Array<IntArrayView> ints(AcceleratorView owner, Extent extent) {
        return new Array<>(owner, extent, Integer.BYTES,
                a -> new IntArrayView(a.memory, a.extent, a.owner));
    }

    /** An array of longs on {@code owner}'s accelerator. */
    public static Array<LongArrayView> longs(AcceleratorView owner, Extent extent) {
        return new Array<>(owner, extent, Long.BYTES, a -> new LongArrayView(a.memory, a.extent, a.owner));
    }

    /** An array of floats on {@code owner}'s accelerator. */
    public static Array<FloatArrayView> floats(AcceleratorView owner, Extent extent) {
        return new Array<>(owner, extent, Float.BYTES,
                a -> new FloatArrayView(a.memory, a.extent, a.owner));
    }

    /** An array of doubles on {@code owner}'s accelerator. */
    public static Array<DoubleArrayView> doubles(AcceleratorView owner, Extent extent) {
        return new Array<>(owner, extent, Double.BYTES,
                a -> new DoubleArrayView(a.memory, a.extent, a.owner));
    }

    /** The typed view of the whole array. */
    public V view() {
        if (closed) {
            throw new HsaException(HsaStatus.INVALID_ALLOCATION, "the array has been freed");
        }
        return view;
    }

    /** The array's shape. */
    public Extent extent() {
        return view.extent();
    }

    /** SVM address of the first element. */
    public long address() {
        return address;
    }

    /** Frees the memory; views of it must not be used afterwards. */
    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            runtime.free(address);
        }
    }
}
