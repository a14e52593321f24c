package org.hsa4j.amp;

import java.util.ArrayList;
import java.util.List;

import org.hsa4j.agent.Agent;
import org.hsa4j.memory.Svm;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/**
 * A GPU agent seen as a C++AMP accelerator: its limits, its default view, new views (one AQL queue
 * each), its view of shared virtual memory, and views of SVM data for kernels.
 */
public final class Accelerator {
    private final Amp amp;
    private final Agent agent;
    private final List<AcceleratorView> views = new ArrayList<>();
    private AcceleratorView defaultView;

    Accelerator(Amp amp, Agent agent) {
        this.amp = amp;
        this.agent = agent;
    }

    /** The layer this accelerator belongs to. */
    public Amp amp() {
        return amp;
    }

    /** The GPU agent. */
    public Agent agent() {
        return agent;
    }

    /** The agent's name. */
    public String description() {
        return agent.name();
    }

    /** Compute units (worker threads). */
    public int computeUnits() {
        return agent.computeUnits();
    }

    /** Most work-items in a tile. */
    public int workgroupMaxSize() {
        return agent.workgroupMaxSize();
    }

    /** Bytes of tile_static (group segment) memory a tile may use. */
    public int groupSegmentMax() {
        return agent.properties().groupSegmentMax();
    }

    /** The agent's view of SVM: what kernels use to reach raw SVM pointers. */
    public Svm svm() {
        return agent.svm();
    }

    /** The default view, made on first use and closed with the {@link Amp}. */
    public synchronized AcceleratorView defaultView() {
        if (defaultView == null) {
            defaultView = amp.register(this, true);
            views.add(defaultView);
        }
        return defaultView;
    }

    /** A new view with its own in-order queue. */
    public synchronized AcceleratorView createView() {
        AcceleratorView v = amp.register(this, false);
        views.add(v);
        return v;
    }

    synchronized List<AcceleratorView> views() {
        return List.copyOf(views);
    }

    synchronized void forget(AcceleratorView view) {
        views.remove(view);
    }

    // ---- data -------------------------------------------------------------------------------------

    /** A view of the ints at SVM address {@code address} laid out as {@code extent}, with no copy. */
    public IntArrayView ints(long address, Extent extent) {
        return new IntArrayView(ViewMemory.of(amp, agent.svm(), address, extent.size() * Integer.BYTES), extent, null);
    }

    /** A view of the longs at SVM address {@code address} laid out as {@code extent}, with no copy. */
    public LongArrayView longs(long address, Extent extent) {
        return new LongArrayView(ViewMemory.of(amp, agent.svm(), address, extent.size() * Long.BYTES), extent, null);
    }

    /** A view of the floats at SVM address {@code address} laid out as {@code extent}, with no copy. */
    public FloatArrayView floats(long address, Extent extent) {
        return new FloatArrayView(ViewMemory.of(amp, agent.svm(), address, extent.size() * Float.BYTES), extent, null);
    }

    /** A view of the doubles at SVM address {@code address} laid out as {@code extent}, with no copy. */
    public DoubleArrayView doubles(long address, Extent extent) {
        return new DoubleArrayView(ViewMemory.of(amp, agent.svm(), address, extent.size() * Double.BYTES), extent, null);
    }

    // ---- allocate and wrap --------------------------------------------------------------------------

    /** {@code n} zeroed ints in fine-grained host memory that the layer owns (freed by {@link #free} or on close). */
    public IntArrayView newInts(int n) {
        return newInts(new Extent(n));
    }

    /** Zeroed ints shaped as {@code extent}; see {@link #newInts(int)}. */
    public IntArrayView newInts(Extent extent) {
        return new IntArrayView(owned(extent, Integer.BYTES, null), extent, null);
    }

    /** {@code n} zeroed longs in fine-grained host memory that the layer owns (freed by {@link #free} or on close). */
    public LongArrayView newLongs(int n) {
        return newLongs(new Extent(n));
    }

    /** Zeroed longs shaped as {@code extent}; see {@link #newLongs(int)}. */
    public LongArrayView newLongs(Extent extent) {
        return new LongArrayView(owned(extent, Long.BYTES, null), extent, null);
    }

    /** {@code n} zeroed floats in fine-grained host memory that the layer owns (freed by {@link #free} or on close). */
    public FloatArrayView newFloats(int n) {
        return newFloats(new Extent(n));
    }

    /** Zeroed floats shaped as {@code extent}; see {@link #newFloats(int)}. */
    public FloatArrayView newFloats(Extent extent) {
        return new FloatArrayView(owned(extent, Float.BYTES, null), extent, null);
    }

    /** {@code n} zeroed doubles in fine-grained host memory that the layer owns (freed by {@link #free} or on close). */
    public DoubleArrayView newDoubles(int n) {
        return newDoubles(new Extent(n));
    }

    /** Zeroed doubles shaped as {@code extent}; see {@link #newDoubles(int)}. */
    public DoubleArrayView newDoubles(Extent extent) {
        return new DoubleArrayView(owned(extent, Double.BYTES, null), extent, null);
    }

    /**
     * A view of a copy of {@code data} in SVM ({@code array_view} over host data, with the copies
     * explicit): the elements are copied in now; kernels read and write the copy, and
     * {@link ArrayView#copyOut()} copies it back into {@code data} ({@link ArrayView#copyIn()} copies
     * {@code data} in again). The copy is layer-owned memory, freed by {@link #free} or on close.
     */
    public IntArrayView wrap(int[] data, Extent extent) {
        return new IntArrayView(wrapped(data, data.length, extent, Integer.BYTES), extent, null);
    }

    /** {@link #wrap(int[], Extent)} as a rank-1 view of every element. */
    public IntArrayView wrap(int[] data) {
        return wrap(data, new Extent(data.length));
    }

    /** A view of a copy of {@code data}; see {@link #wrap(int[], Extent)}. */
    public LongArrayView wrap(long[] data, Extent extent) {
        return new LongArrayView(wrapped(data, data.length, extent, Long.BYTES), extent, null);
    }

    /** {@link #wrap(long[], Extent)} as a rank-1 view of every element. */
    public LongArrayView wrap(long[] data) {
        return wrap(data, new Extent(data.length));
    }

    /** A view of a copy of {@code data}; see {@link #wrap(int[], Extent)}. */
    public FloatArrayView wrap(float[] data, Extent extent) {
        return new FloatArrayView(wrapped(data, data.length, extent, Float.BYTES), extent, null);
    }

    /** {@link #wrap(float[], Extent)} as a rank-1 view of every element. */
    public FloatArrayView wrap(float[] data) {
        return wrap(data, new Extent(data.length));
    }

    /** A view of a copy of {@code data}; see {@link #wrap(int[], Extent)}. */
    public DoubleArrayView wrap(double[] data, Extent extent) {
        return new DoubleArrayView(wrapped(data, data.length, extent, Double.BYTES), extent, null);
    }

    /** {@link #wrap(double[], Extent)} as a rank-1 view of every element. */
    public DoubleArrayView wrap(double[] data) {
        return wrap(data, new Extent(data.length));
    }

    /**
     * Frees the memory under {@code view} (and every view of it) that {@link #newFloats} or
     * {@link #wrap} allocated; the views must not be used afterwards.
     *
     * @throws HsaException INVALID_ALLOCATION for a view over memory the layer did not allocate, or freed already
     */
    public void free(ArrayView view) {
        amp.freeOwned(view.memory.address());
    }

    private ViewMemory owned(Extent extent, int elementSize, Object hostArray) {
        long bytes = extent.size() * elementSize;
        return ViewMemory.of(amp, agent.svm(), amp.allocateOwned(bytes), bytes, hostArray);
    }

    private ViewMemory wrapped(Object data, int length, Extent extent, int elementSize) {
        if (extent.size() != length) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, "extent " + extent + " has " + extent.size()
                    + " elements, the array " + length);
        }
        ViewMemory memory = owned(extent, elementSize, data);
        ArrayView.copy(data, memory, true);
        return memory;
    }

    @Override
    public String toString() {
        return "Accelerator[" + description() + "]";
    }
}
