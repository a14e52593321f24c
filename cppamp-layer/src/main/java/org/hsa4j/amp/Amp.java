package org.hsa4j.amp;

import java.lang.invoke.MethodHandles;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import org.hsa4j.agent.Agent;
import org.hsa4j.agent.AgentFeature;
import org.hsa4j.amp.codegen.TileCompiler;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.signal.WaitState;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

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
    /** Accelerators of provided agents (CUDA GPUs), made on first {@link #accelerator(Agent)}. */
    private final List<Accelerator> provided = new CopyOnWriteArrayList<>();
    private final Trampolines trampolines;
    private final FutureSignals signals;
    private final ContinuationExecutor continuations;
    private volatile AcceleratorView[] views = new AcceleratorView[0];
    private volatile boolean closed;
    /** SVM addresses of the memory the layer allocated for views ({@link Accelerator#newFloats}, ...), freed on close. */
    private final Set<Long> owned = ConcurrentHashMap.newKeySet();

    private Amp(HsaRuntime runtime) {
        this.runtime = runtime;
        this.signals = new FutureSignals(runtime);
        this.continuations = new ContinuationExecutor("hsa4j-amp-continuations", runtime.signals().idleStrategy());
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
     * The accelerator of {@code agent}: one of {@link #accelerators()}, or, for a provided kernel agent
     * of the runtime (a CUDA GPU from {@code HsaRuntime.init()}), one made on first use whose views run
     * native kernels ({@link AcceleratorView#parallelForEach(org.hsa4j.agent.NativeKernel, Extent, int,
     * org.hsa4j.kernel.KernargWriter)}) and markers; closed with the layer.
     *
     * @throws HsaException INVALID_AGENT for an agent of another runtime or one without kernel dispatch
     */
    public synchronized Accelerator accelerator(Agent agent) {
        Objects.requireNonNull(agent, "agent");
        for (Accelerator a : accelerators) {
            if (a.agent() == agent) {
                return a;
            }
        }
        for (Accelerator a : provided) {
            if (a.agent() == agent) {
                return a;
            }
        }
        if (!runtime.providedAgents().contains(agent)
                || !agent.hasFeature(AgentFeature.KERNEL_DISPATCH)) {
            throw new HsaException(HsaStatus.INVALID_AGENT, agent.name() + " is not a kernel agent of this runtime");
        }
        if (closed) {
            throw new HsaException(HsaStatus.NOT_INITIALIZED, "the C++AMP layer has been closed");
        }
        Accelerator a = new Accelerator(this, agent);
        provided.add(a);
        return a;
    }

    /**
     * On the module path, lets tiled kernels written in {@code lookup}'s module run as work-item loops:
     * the tile compiler defines each kernel's loops as a hidden class nested in the kernel's own class,
     * which needs that module's full-privilege lookup. Call it once with {@code MethodHandles.lookup()}
     * from a class of that module, before its first tiled dispatch; without it, its tiled kernels run
     * on the barrier strategy (virtual threads), correct but slower. Not needed on the class path.
     *
     * @throws HsaException INVALID_ARGUMENT when {@code lookup} lacks full privilege access
     */
    public static void grantTileCompiler(MethodHandles.Lookup lookup) {
        TileCompiler.grant(lookup);
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

    /** {@link AcceleratorView#parallelForEach(Extent, ContextKernel)} on the default view. */
    public CompletionFuture parallelForEach(Extent extent, ContextKernel kernel) {
        return defaultView().parallelForEach(extent, kernel);
    }

    /** Runs on the default view and waits, rethrowing a failure. */
    public void parallelForEachAndWait(Extent extent, ContextKernel kernel) {
        defaultView().parallelForEachAndWait(extent, kernel);
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

    /** Allocates {@code bytes} zeroed bytes of fine-grained host memory owned by the layer (freed on close). */
    long allocateOwned(long bytes) {
        if (closed) {
            throw new HsaException(HsaStatus.NOT_INITIALIZED, "the C++AMP layer has been closed");
        }
        long address = runtime.hostMalloc(Math.max(1, bytes));
        runtime.svm().fill(address, Math.max(1, bytes), (byte) 0);
        owned.add(address);
        return address;
    }

    /** Frees memory of {@link #allocateOwned}; INVALID_ALLOCATION for any other address or a second free. */
    void freeOwned(long address) {
        if (!owned.remove(address)) {
            throw new HsaException(HsaStatus.INVALID_ALLOCATION, String.format(
                    "0x%x was not allocated by this C++AMP layer, or was freed already", address));
        }
        runtime.free(address);
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
        for (List<Accelerator> list : List.of(accelerators, provided)) {
            for (Accelerator a : list) {
                for (AcceleratorView v : a.views()) {
                    v.closeNow();
                }
            }
        }
        continuations.close();
        if (!runtime.isClosed()) {
            trampolines.close();
            signals.close();
            for (Long address : owned) {
                if (owned.remove(address)) {
                    runtime.free(address);
                }
            }
        }
    }
}
