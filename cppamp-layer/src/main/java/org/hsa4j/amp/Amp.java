package org.hsa4j.amp;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

import org.hsa4j.agent.Agent;
import org.hsa4j.runtime.HsaException;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.HsaStatus;
import org.hsa4j.signal.WaitState;

/**
 * The C++AMP layer on one {@link HsaRuntime}: one {@link Accelerator} per GPU agent, the layer's
 * kernel objects (three trampolines, defined once), the pool of future signals and the thread
 * that runs future continuations. It does not own the runtime: close the layer first, then the
 * runtime.
 *
 * <pre>{@code
 * try (HsaRuntime rt = HsaRuntime.init(); Amp amp = Amp.on(rt)) {
 *     FloatArrayView a = ..., b = ..., c = ...;
 *     amp.parallelForEach(new Extent(n), idx -> c.set(idx.get(0), a.get(idx.get(0)) + b.get(idx.get(0)))).get();
 * }
 * }</pre>
 */
public final class Amp implements AutoCloseable {
    private final HsaRuntime runtime;
    private final List<Accelerator> accelerators;
    private final Trampolines trampolines;
    private final FutureSignals signals;
    private final ContinuationExecutor continuations = new ContinuationExecutor("hsa4j-amp-continuations");
    private volatile AcceleratorView[] views = new AcceleratorView[0];
    private volatile boolean closed;

    private Amp(HsaRuntime runtime) {
        this.runtime = runtime;
        this.signals = new FutureSignals(runtime);
        this.trampolines = new Trampolines(this, runtime);
        List<Accelerator> accs = new ArrayList<>();
        for (Agent gpu : runtime.gpuAgents()) {
            accs.add(new Accelerator(this, gpu));
        }
        this.accelerators = List.copyOf(accs);
    }

    /** The layer over {@code runtime}. */
    public static Amp on(HsaRuntime runtime) {
        Objects.requireNonNull(runtime, "runtime");
        if (runtime.isClosed()) {
            throw new HsaException(HsaStatus.NOT_INITIALIZED, "the runtime has been shut down");
        }
        return new Amp(runtime);
    }

    /** The runtime underneath. */
    public HsaRuntime runtime() {
        return runtime;
    }

    /** One accelerator per GPU agent ({@code accelerator::get_all}). */
    public List<Accelerator> accelerators() {
        return accelerators;
    }

    /**
     * The first accelerator.
     *
     * @throws HsaException INVALID_AGENT when the runtime has no GPU agent
     */
    public Accelerator defaultAccelerator() {
        if (accelerators.isEmpty()) {
            throw new HsaException(HsaStatus.INVALID_AGENT, "the runtime has no GPU agent to accelerate with");
        }
        return accelerators.get(0);
    }

    /** The default accelerator's default view. */
    public AcceleratorView defaultView() {
        return defaultAccelerator().defaultView();
    }

    /** {@link AcceleratorView#parallelForEach(Extent, IndexKernel)} on the default view. */
    public CompletionFuture parallelForEach(Extent extent, IndexKernel kernel) {
        return defaultView().parallelForEach(extent, kernel);
    }

    /** {@link AcceleratorView#parallelForEach(TiledExtent, TiledKernel)} on the default view. */
    public CompletionFuture parallelForEach(TiledExtent tiled, TiledKernel kernel) {
        return defaultView().parallelForEach(tiled, kernel);
    }

    /** Runs on the default view and waits, rethrowing a failure. */
    public void parallelForEachAndWait(Extent extent, IndexKernel kernel) {
        defaultView().parallelForEachAndWait(extent, kernel);
    }

    /** Runs on the default view and waits, rethrowing a failure. */
    public void parallelForEachAndWait(TiledExtent tiled, TiledKernel kernel) {
        defaultView().parallelForEachAndWait(tiled, kernel);
    }

    // ---- internals --------------------------------------------------------------------------------

    Trampolines trampolines() {
        return trampolines;
    }

    FutureSignals signals() {
        return signals;
    }

    ContinuationExecutor continuations() {
        return continuations;
    }

    synchronized AcceleratorView register(Accelerator accelerator, boolean isDefault) {
        if (closed) {
            throw new HsaException(HsaStatus.NOT_INITIALIZED, "the C++AMP layer has been closed");
        }
        AcceleratorView[] vs = views;
        int id = 0;
        while (id < vs.length && vs[id] != null) {
            id++;
        }
        AcceleratorView v = new AcceleratorView(this, accelerator, id, isDefault);
        AcceleratorView[] grown = id < vs.length ? vs.clone() : Arrays.copyOf(vs, Math.max(4, vs.length * 2));
        grown[id] = v;
        views = grown;
        return v;
    }

    void unregister(AcceleratorView v) {
        synchronized (this) {
            AcceleratorView[] vs = views.clone();
            if (v.id < vs.length && vs[v.id] == v) {
                vs[v.id] = null;
                views = vs;
            }
        }
        v.accelerator().forget(v);
    }

    /** Waits until the work queued so far on every view of the layer has completed (failures stay on their futures). */
    void waitForQueuedWork(WaitState mode) {
        for (AcceleratorView v : views) {
            if (v != null) {
                v.wait(mode);
            }
        }
    }

    /** The launch in slot {@code slot} of view {@code viewId}, or null. */
    Launch launch(int viewId, int slot) {
        AcceleratorView[] vs = views;
        if (viewId < 0 || viewId >= vs.length || slot < 0 || slot >= AcceleratorView.LAUNCH_SLOTS) {
            return null;
        }
        AcceleratorView v = vs[viewId];
        return v == null ? null : v.launch(slot);
    }

    /**
     * Closes every view (waiting for its work), the continuation thread and the kernel objects.
     *
     * @throws HsaException ERROR when called from a kernel of one of its views (it would wait for itself)
     */
    @Override
    public void close() {
        for (Accelerator a : accelerators) {
            for (AcceleratorView v : a.views()) {
                v.refuseCloseFromOwnKernel("close the Amp it belongs to");
            }
        }
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        for (Accelerator a : accelerators) {
            for (AcceleratorView v : a.views()) {
                v.closeNow();
            }
        }
        continuations.close();
        if (!runtime.isClosed()) {
            trampolines.close();
            signals.close();
        }
    }
}
