package org.hsa4j.amp;

import java.util.ArrayList;
import java.util.List;

import org.hsa4j.agent.Agent;
import org.hsa4j.memory.Svm;

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

    @Override
    public String toString() {
        return "Accelerator[" + description() + "]";
    }
}
