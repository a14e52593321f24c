package org.hsa4j.amp;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReferenceArray;

import org.hsa4j.agent.Agent;
import org.hsa4j.agent.NativeKernel;
import org.hsa4j.amp.codegen.IndexLoops;
import org.hsa4j.amp.codegen.TileCompiler;
import org.hsa4j.idle.Idler;
import org.hsa4j.kernel.KernargWriter;
import org.hsa4j.memory.ComputeUnitThread;
import org.hsa4j.packet.BarrierPacket;
import org.hsa4j.packet.FenceScope;
import org.hsa4j.packet.KernelDispatchPacket;
import org.hsa4j.packet.PacketHeader;
import org.hsa4j.packet.PacketType;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueState;
import org.hsa4j.queue.QueueType;
import org.hsa4j.queue.RunningPacket;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.signal.WaitState;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/**
 * A queue of work for one accelerator ({@code accelerator_view}): one AQL queue, in order. Every
 * packet it writes has the barrier bit set, so each starts only when everything before it on the
 * view has completed; kernels acquire and release at system scope, so the host and later kernels
 * see their writes.
 *
 * <p>A parallelForEach becomes exactly one kernel-dispatch packet; a marker, or the dependency of a
 * dispatch on futures (of this view or any other), becomes barrier-AND packets the agent resolves
 * by itself.
 * The Java closure goes into the view's launch table; the packet's kernarg names its slot, and the
 * slot is freed when the dispatch completes.
 *
 * <p>When a packet fails (a kernel threw, a dependency failed), the runtime puts the queue in its
 * error state and fails everything queued behind it, each future with a message naming the cause.
 * The next call on the view replaces the queue, so the view, and the runtime, stay usable. Which
 * calls count as "behind" is decided by time, as with any asynchronous error: a call made before
 * the failure happened is queued behind it and fails; a call made after the view has seen the
 * failure goes to the new queue and runs. Wait on a future to order your calls after its outcome.
 */
public final class AcceleratorView implements AutoCloseable {
    /** Packets in the view's queue. */
    static final int QUEUE_SIZE = 4096;
    /** Launch-table slots: enough for a full queue whose every packet is a dispatch, twice over. */
    static final int LAUNCH_SLOTS = 2 * QUEUE_SIZE;
    /** Ranges an untiled dispatch is cut into per compute unit, for balance. */
    static final int RANGES_PER_UNIT = 64;
    /** Smallest range of an untiled dispatch, in work-items. */
    static final int MIN_RANGE = 512;

    private static final CompletionFuture[] NO_DEPS = new CompletionFuture[0];
    private static final short KERNEL_HEADER = PacketHeader.of(PacketType.KERNEL_DISPATCH, true, FenceScope.SYSTEM,
            FenceScope.SYSTEM);

    private final Amp amp;
    private final Accelerator accelerator;
    private final boolean isDefault;
    final int id;
    private final Object lock = new Object();
    private final KernelDispatchPacket kernelFlyweight = new KernelDispatchPacket();
    private final BarrierPacket barrierFlyweight = new BarrierPacket();
    private final AtomicReferenceArray<Launch> launches = new AtomicReferenceArray<>(LAUNCH_SLOTS);
    private final long kernargAddress;
    private final MemorySegment kernarg;
    private Queue queue;
    private long nextLaunch;
    private boolean closed;
    private volatile CompletionFuture last;
    private final Set<OutsideWait> outsideWaits = ConcurrentHashMap.newKeySet();

    AcceleratorView(Amp amp, Accelerator accelerator, int id, boolean isDefault) {
        this.amp = amp;
        this.accelerator = accelerator;
        this.id = id;
        this.isDefault = isDefault;
        this.queue = accelerator.agent().createQueue(queueSize(accelerator.agent()), QueueType.SINGLE, null);
        long bytes = (long) LAUNCH_SLOTS * LaunchKernarg.BYTES;
        this.kernargAddress = amp.runtime().kernargPool().allocate(bytes);
        this.kernarg = amp.runtime().svm().segment(kernargAddress, bytes);
    }

    private static int queueSize(Agent agent) {
        return Math.max(agent.queueMinSize(), Math.min(QUEUE_SIZE, agent.queueMaxSize()));
    }

    /** The accelerator this view belongs to. */
    public Accelerator accelerator() {
        return accelerator;
    }

    /** True for the accelerator's default view. */
    public boolean isDefault() {
        return isDefault;
    }

    /** The view's current AQL queue (replaced after a failure). */
    public Queue queue() {
        synchronized (lock) {
            return queue;
        }
    }

    // ---- parallelForEach --------------------------------------------------------------------------

    /**
     * Runs {@code kernel} once per point of {@code extent}: one kernel-dispatch packet. A zero-sized
     * extent gives a ready future and no packet.
     *
     * @throws HsaException INVALID_ARGUMENT when the extent has more points than the accelerator's grid allows
     */
    public CompletionFuture parallelForEach(Extent extent, IndexKernel kernel) {
        return parallelForEach(NO_DEPS, extent, kernel);
    }

    /** As {@link #parallelForEach(Extent, IndexKernel)}, and waits for it (rethrowing its failure). */
    public void parallelForEachAndWait(Extent extent, IndexKernel kernel) {
        parallelForEach(extent, kernel).get();
    }

    /**
     * Runs {@code kernel} over {@code extent} once {@code dependency} (of any view) has completed, with
     * no host round trip: a barrier-AND packet on this view's queue, then the dispatch.
     */
    public CompletionFuture parallelForEachAfter(CompletionFuture dependency, Extent extent, IndexKernel kernel) {
        return parallelForEach(new CompletionFuture[] {Objects.requireNonNull(dependency, "dependency")}, extent,
                kernel);
    }

    /**
     * As {@link #parallelForEach(Extent, IndexKernel)} for a kernel that also takes its
     * {@link KernelContext}, through which it calls the host services.
     */
    public CompletionFuture parallelForEach(Extent extent, ContextKernel kernel) {
        return parallelForEach(NO_DEPS, extent, kernel);
    }

    /** As {@link #parallelForEach(Extent, ContextKernel)}, and waits for it (rethrowing its failure). */
    public void parallelForEachAndWait(Extent extent, ContextKernel kernel) {
        parallelForEach(extent, kernel).get();
    }

    /** As {@link #parallelForEachAfter(CompletionFuture, Extent, IndexKernel)} for a {@link ContextKernel}. */
    public CompletionFuture parallelForEachAfter(CompletionFuture dependency, Extent extent, ContextKernel kernel) {
        return parallelForEach(new CompletionFuture[] {Objects.requireNonNull(dependency, "dependency")}, extent,
                kernel);
    }

    private CompletionFuture parallelForEach(CompletionFuture[] deps, Extent extent, Object kernel) {
        Objects.requireNonNull(extent, "extent");
        Objects.requireNonNull(kernel, "kernel");
        Object what = new CompletionFuture.Described("parallelForEach over ",
                new Dispatched(extent, kernel.getClass()));
        if (accelerator.agent().isProvided()) {
            return javaKernelRefused(what);
        }
        long total = extent.size();
        checkGrid(extent, total);
        if (total == 0) {
            return CompletionFuture.ready(amp, what);
        }
        long chunk = rangeSize(total, accelerator.computeUnits());
        int grid = (int) ((total + chunk - 1) / chunk);
        Launch launch = kernel instanceof ContextKernel c ? Launch.untiled(what, extent, c, accelerator, chunk)
                : Launch.untiled(what, extent, (IndexKernel) kernel,
                        IndexLoops.forKernelClass(kernel.getClass()), chunk);
        return submit(what, deps, FenceScope.SYSTEM, launch, 1, new int[] {grid, 1, 1}, new int[] {1, 1, 1}, 0,
                amp.trampolines().untiled);
    }

    /**
     * Runs {@code kernel} once per work-item of {@code tiled}, tile by tile, with the tile's barrier
     * and tile_static memory: one kernel-dispatch packet whose workgroups are the tiles. Tile sizes
     * that do not divide the extent, a tile larger than the accelerator's workgroups, or tile_static
     * memory beyond its group segment fail the returned future (nothing is queued).
     */
    public CompletionFuture parallelForEach(TiledExtent tiled, TiledKernel kernel) {
        return parallelForEach(NO_DEPS, tiled, kernel);
    }

    /** As {@link #parallelForEach(TiledExtent, TiledKernel)}, and waits for it (rethrowing its failure). */
    public void parallelForEachAndWait(TiledExtent tiled, TiledKernel kernel) {
        parallelForEach(tiled, kernel).get();
    }

    /** Runs the tiled {@code kernel} once {@code dependency} has completed (a barrier-AND packet first). */
    public CompletionFuture parallelForEachAfter(CompletionFuture dependency, TiledExtent tiled, TiledKernel kernel) {
        return parallelForEach(new CompletionFuture[] {Objects.requireNonNull(dependency, "dependency")}, tiled,
                kernel);
    }

    private CompletionFuture parallelForEach(CompletionFuture[] deps, TiledExtent tiled, TiledKernel kernel) {
        Objects.requireNonNull(tiled, "tiled");
        Objects.requireNonNull(kernel, "kernel");
        Extent extent = tiled.extent();
        Object what = new CompletionFuture.Described("parallelForEach over ",
                new Dispatched(tiled, kernel.getClass()));
        if (accelerator.agent().isProvided()) {
            return javaKernelRefused(what);
        }
        checkGrid(extent, extent.size());
        HsaException bad = checkTiles(tiled);
        if (bad != null) {
            return CompletionFuture.failed(amp, what, bad);
        }
        if (extent.size() == 0) {
            return CompletionFuture.ready(amp, what);
        }
        TileProgram program = TileCompiler.compile(kernel).instantiate(kernel);
        Launch launch = Launch.tiled(what, tiled, kernel, program);
        int r = extent.rank();
        int[] grid = {extent.get(r - 1), r > 1 ? extent.get(r - 2) : 1, r > 2 ? extent.get(0) : 1};
        int[] wg = {tiled.tileDim(r - 1), r > 1 ? tiled.tileDim(r - 2) : 1, r > 2 ? tiled.tileDim(0) : 1};
        long object = amp.trampolines().tiled(program);
        return submit(what, deps, FenceScope.SYSTEM, launch, r, grid, wg, tiled.groupSegmentSize(), object);
    }

    /**
     * Work-items per range of an untiled dispatch over {@code total} on {@code units} compute units:
     * {@link #RANGES_PER_UNIT} per unit, none under {@link #MIN_RANGE}, and never 2 to {@code units}
     * ranges (unless {@code total} is at most {@code units}). The runtime wakes a unit per group for
     * a dispatch with that few groups (they may wait on each other); with more it wakes helpers only
     * once the work proves long, and ranges never wait on each other, so a small cheap kernel stays
     * on the unit that launched it.
     */
    static long rangeSize(long total, int units) {
        long ranges = Math.max(1, (long) units * RANGES_PER_UNIT);
        long chunk = Math.max(MIN_RANGE, (total + ranges - 1) / ranges);
        long grid = (total + chunk - 1) / chunk;
        if (grid > 1 && grid <= units) {
            long more = units + 1L;
            chunk = (total + more - 1) / more;
            if ((total + chunk - 1) / chunk <= units) {
                chunk = Math.max(1, total / more);
            }
        }
        return chunk;
    }

    private void checkGrid(Extent extent, long total) {
        Agent agent = accelerator.agent();
        if (total > agent.gridMaxSize()) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, extent + " has " + total + " points; "
                    + accelerator.description() + " runs at most " + agent.gridMaxSize() + " per dispatch");
        }
    }

    private HsaException checkTiles(TiledExtent tiled) {
        Extent extent = tiled.extent();
        int r = extent.rank();
        for (int d = 0; d < r; d++) {
            if (extent.get(d) % tiled.tileDim(d) != 0) {
                return new HsaException(HsaStatus.INVALID_ARGUMENT, "tile size " + tiled.tileDim(d)
                        + " does not divide "
                        + extent + " in dimension " + d + " (pad() or truncate() the tiled extent)");
            }
        }
        Agent agent = accelerator.agent();
        int[] maxDim = agent.workgroupMaxDim();
        for (int d = 0; d < r; d++) {
            if (tiled.tileDim(d) > maxDim[r - 1 - d]) {
                return new HsaException(HsaStatus.INVALID_ARGUMENT, "tile size " + tiled.tileDim(d) + " in dimension "
                        + d + " exceeds " + accelerator.description() + "'s workgroup maximum " + maxDim[r - 1 - d]);
            }
        }
        if (tiled.tileSize() > agent.workgroupMaxSize()) {
            return new HsaException(HsaStatus.INVALID_ARGUMENT, "a tile of " + tiled.tileSize()
                    + " work-items exceeds " + accelerator.description() + "'s workgroup maximum "
                    + agent.workgroupMaxSize());
        }
        if (tiled.groupSegmentSize() > accelerator.groupSegmentMax()) {
            return new HsaException(HsaStatus.INVALID_ARGUMENT, "tile_static memory of " + tiled.groupSegmentSize()
                    + " bytes exceeds " + accelerator.description() + "'s group segment of "
                    + accelerator.groupSegmentMax() + " bytes");
        }
        return null;
    }

    // ---- native kernels ---------------------------------------------------------------------------

    /**
     * Runs a native kernel of this view's agent (a CUDA kernel, say) over {@code grid} work-items in
     * workgroups of {@code workgroupSize} along dimension 0 (the last of the extent): one
     * kernel-dispatch packet, in order on this view like every other call, with a kernarg segment of
     * its own that {@code args} fills. The grid need not be a multiple of the workgroup: the last
     * workgroup is partial, as the spec says (a CUDA kernel compares its global id with the size it
     * is given). A kernel of another agent, or a workgroup beyond the agent's, fails the returned
     * future with INVALID_AGENT or INVALID_ARGUMENT (nothing is queued).
     */
    public CompletionFuture parallelForEach(NativeKernel kernel, Extent grid, int workgroupSize, KernargWriter args) {
        return parallelForEach(NO_DEPS, kernel, grid, workgroupSize, args);
    }

    /** As {@link #parallelForEach(NativeKernel, Extent, int, KernargWriter)}, once {@code dependency} has completed. */
    public CompletionFuture parallelForEachAfter(CompletionFuture dependency, NativeKernel kernel, Extent grid,
                                                 int workgroupSize, KernargWriter args) {
        return parallelForEach(new CompletionFuture[] {Objects.requireNonNull(dependency, "dependency")}, kernel,
                grid, workgroupSize, args);
    }

    private CompletionFuture parallelForEach(CompletionFuture[] deps, NativeKernel kernel, Extent extent,
                                             int workgroupSize, KernargWriter args) {
        Objects.requireNonNull(kernel, "kernel");
        Objects.requireNonNull(extent, "grid");
        Objects.requireNonNull(args, "args");
        Object what = new CompletionFuture.Described("native kernel " + kernel.name() + " over ", extent);
        Agent agent = accelerator.agent();
        if (kernel.agent() != agent) {
            return CompletionFuture.failed(amp, what, new HsaException(HsaStatus.INVALID_AGENT, "kernel "
                    + kernel.name() + " belongs to " + kernel.agent().name() + ", not to " + accelerator.description()));
        }
        if (workgroupSize < 1 || workgroupSize > agent.workgroupMaxSize() || workgroupSize > agent.workgroupMaxDim()[0]) {
            return CompletionFuture.failed(amp, what, new HsaException(HsaStatus.INVALID_ARGUMENT, "workgroup size "
                    + workgroupSize + " must be in 1.." + Math.min(agent.workgroupMaxSize(), agent.workgroupMaxDim()[0])
                    + " on " + accelerator.description()));
        }
        checkGrid(extent, extent.size());
        if (extent.size() == 0) {
            return CompletionFuture.ready(amp, what);
        }
        int r = extent.rank();
        int[] grid = {extent.get(r - 1), r > 1 ? extent.get(r - 2) : 1, r > 2 ? extent.get(0) : 1};
        return submit(what, deps, FenceScope.SYSTEM, null, r, grid, new int[] {workgroupSize, 1, 1}, 0,
                kernel.kernelObject(), new NativeArgs(kernel, args));
    }

    /** A Java kernel on a provided agent (a CUDA GPU), whose queues run only its own native kernels. */
    private CompletionFuture javaKernelRefused(Object what) {
        return CompletionFuture.failed(amp, what, new HsaException(HsaStatus.INVALID_AGENT, accelerator.description()
                + " runs native kernels only (parallelForEach(NativeKernel, ...)); Java kernels run on the "
                + "runtime's own agents"));
    }

    /** A native dispatch's kernel and kernarg writer. */
    private record NativeArgs(NativeKernel kernel, KernargWriter writer) {
        /** Allocates the kernarg segment from the runtime's kernarg pool (zeroed) and lets the writer fill it. */
        long allocate(HsaRuntime rt) {
            long bytes = Math.max(16, (kernel.kernargSegmentSize() + 15) & ~15L);
            long address = rt.kernargPool().allocate(bytes);
            try {
                MemorySegment s = rt.svm().segment(address, bytes);
                s.fill((byte) 0);
                writer.write(s);
                return address;
            } catch (RuntimeException e) {
                rt.kernargPool().free(address);
                throw e;
            }
        }
    }

    /** The kernarg segment of a native dispatch, freed when its future retires (the kernel has run by then). */
    record NativeKernarg(HsaRuntime runtime, long address) implements Runnable {
        @Override
        public void run() {
            if (!runtime.isClosed()) {
                runtime.kernargPool().free(address);
            }
        }
    }

    // ---- markers ----------------------------------------------------------------------------------

    /**
     * A marker ({@code create_marker}): a barrier-AND packet with no dependency that completes once
     * everything queued on this view before it has completed, with a release fence of {@code scope}.
     */
    public CompletionFuture createMarker(FenceScope scope) {
        Objects.requireNonNull(scope, "scope");
        return submit(new CompletionFuture.Described("marker on ", this), NO_DEPS, scope, null, 0, null, null, 0, 0);
    }

    /**
     * A blocking marker ({@code create_blocking_marker}): barrier-AND packets on this view that
     * complete once every one of {@code dependencies} (futures of any view) and everything queued
     * before on this view have completed; work queued after it waits for it. The agent resolves the
     * dependencies itself. A failed dependency fails the marker and what is queued behind it.
     */
    public CompletionFuture createBlockingMarker(CompletionFuture... dependencies) {
        CompletionFuture[] deps = dependencies.clone();
        return submit(new CompletionFuture.Described("blocking marker on ", this), deps, FenceScope.SYSTEM, null, 0,
                null, null, 0, 0);
    }

    /**
     * Makes the work queued on this view after this call wait for {@code outside}, a stage from
     * outside the layer ({@code hipStreamWaitEvent}): a barrier-AND packet whose dependency signal is
     * completed when {@code outside} completes, or failed if it fails (then the marker and the work
     * queued behind it fail, as behind any failed dependency). Nothing blocks a thread meanwhile;
     * {@code outside}'s completion costs one signal update on the thread that completes it. Returns
     * the marker's future.
     */
    public CompletionFuture waitFor(CompletionStage<?> outside) {
        Objects.requireNonNull(outside, "outside");
        OutsideWait w = new OutsideWait(
                CompletionFuture.pending(amp, new CompletionFuture.Described("outside stage ", outside)));
        outsideWaits.add(w);
        outside.whenComplete((v, t) -> w.settle(t));
        return createBlockingMarker(w.dependency);
    }

    /**
     * The dependency of a {@link #waitFor} marker, settled once: by the outside stage, or failed by
     * {@link #close} so that closing never waits for a stage that may never complete.
     */
    private final class OutsideWait {
        final CompletionFuture dependency;
        private final AtomicBoolean settled = new AtomicBoolean();

        OutsideWait(CompletionFuture dependency) {
            this.dependency = dependency;
        }

        void settle(Throwable failure) {
            if (settled.compareAndSet(false, true)) {
                outsideWaits.remove(this);
                dependency.completeFromOutside(failure);
            }
        }
    }

    // ---- waiting ----------------------------------------------------------------------------------

    /** Waits until everything queued so far has completed (failures stay on their futures). */
    public void wait(WaitState mode) {
        CompletionFuture l = last;
        if (l != null) {
            l.wait(mode);
        }
    }

    /** Makes sure the agent has seen every packet queued so far (rings the doorbell again). */
    public void flush() {
        synchronized (lock) {
            long w = queue.loadWriteIndexRelaxed();
            if (w > 0 && !closed) {
                queue.ringDoorbell(w - 1);
            }
        }
    }

    // ---- submission -------------------------------------------------------------------------------

    private CompletionFuture submit(Object what, CompletionFuture[] deps, FenceScope markerRelease, Launch launch,
                                    int dims, int[] grid, int[] wg, int groupBytes, long kernelObject) {
        return submit(what, deps, markerRelease, launch, dims, grid, wg, groupBytes, kernelObject, null);
    }

    /**
     * Writes the packets of one call: barrier-AND packets for {@code deps} (or a marker), then the
     * dispatch of {@code launch} (a Java kernel, kernarg in the launch table) or of a native kernel
     * when {@code nativeArgs} is given (kernarg: a segment of its own from the kernarg pool, written
     * by it and freed when the future retires).
     */
    private CompletionFuture submit(Object what, CompletionFuture[] deps, FenceScope markerRelease, Launch launch,
                                    int dims, int[] grid, int[] wg, int groupBytes, long kernelObject,
                                    NativeArgs nativeArgs) {
        CompletionFuture future = CompletionFuture.pending(amp, what);
        synchronized (lock) {
            if (closed) {
                future.failUnsubmitted(new HsaException(HsaStatus.INVALID_QUEUE, this + " is closed"));
                return future;
            }
            if (queue.state() != QueueState.ACTIVE) {
                replaceQueue();
            }
            long[] handles = new long[deps.length];
            Object[] held = deps.length > 0 ? dependencyHandles(deps, handles) : null;
            boolean dispatch = launch != null || nativeArgs != null;
            long nativeKernarg = 0;
            if (nativeArgs != null) {
                try {
                    nativeKernarg = nativeArgs.allocate(amp.runtime());
                } catch (RuntimeException e) {
                    future.hold(held);
                    future.failUnsubmitted(e instanceof HsaException h ? h : new HsaException(HsaStatus.INVALID_ARGUMENT,
                            "the kernarg writer of " + nativeArgs.kernel.name() + " failed: " + e, e));
                    return future;
                }
                held = held == null ? new Object[1] : Arrays.copyOf(held, held.length + 1);
                held[held.length - 1] = new NativeKernarg(amp.runtime(), nativeKernarg);
            }
            if (held != null) {
                future.hold(held);
            }
            int markers = !dispatch ? Math.max(1, (handles.length + 4) / 5) : (handles.length + 4) / 5;
            int packets = markers + (dispatch ? 1 : 0);
            int slot = -1;
            if (launch != null) {
                slot = claimSlot(launch);
                future.holdLaunch(this, slot, launch);
            }
            Queue q = queue;
            long first;
            try {
                first = q.reserveSlots(packets);
            } catch (HsaException e) {
                if (e.status() != HsaStatus.INVALID_RUNTIME_STATE) {
                    replaceQueue();
                }
                future.failUnsubmitted(e);
                return future;
            }
            MemorySegment ring = q.ring();
            long handle = future.signal().handle();
            for (int m = 0; m < markers; m++) {
                long at = q.slotOffset(first + m);
                BarrierPacket p = barrierFlyweight.wrap(ring, at);
                ring.set(ValueLayout.JAVA_SHORT, at + BarrierPacket.RESERVED0, (short) 0);
                ring.set(ValueLayout.JAVA_INT, at + BarrierPacket.RESERVED1, 0);
                p.depSignals(handles, m * BarrierPacket.DEP_SIGNAL_COUNT);
                ring.set(ValueLayout.JAVA_LONG, at + BarrierPacket.RESERVED2, 0L);
                boolean lastPacket = !dispatch && m == markers - 1;
                p.completionSignal(lastPacket ? handle : 0);
                p.publish(PacketHeader.of(PacketType.BARRIER_AND, true, FenceScope.NONE,
                        lastPacket ? markerRelease : FenceScope.NONE));
            }
            if (launch != null) {
                long k = (long) slot * LaunchKernarg.BYTES;
                kernarg.set(ValueLayout.JAVA_INT, k + LaunchKernarg.VIEW_ID, id);
                kernarg.set(ValueLayout.JAVA_INT, k + LaunchKernarg.SLOT, slot);
                kernarg.set(ValueLayout.JAVA_LONG, k + LaunchKernarg.GENERATION, launch.generation);
                long at = q.slotOffset(first + markers);
                KernelDispatchPacket p = kernelFlyweight.wrap(ring, at);
                ring.set(ValueLayout.JAVA_SHORT, at + KernelDispatchPacket.RESERVED0, (short) 0);
                ring.set(ValueLayout.JAVA_LONG, at + KernelDispatchPacket.RESERVED2, 0L);
                p.workgroupSize(wg[0], wg[1], wg[2])
                        .gridSize(grid[0], grid[1], grid[2])
                        .privateSegmentSize(0)
                        .groupSegmentSize(groupBytes)
                        .kernelObject(kernelObject)
                        .kernargAddress(kernargAddress + k)
                        .completionSignal(handle);
                p.publish(KERNEL_HEADER, dims);
            } else if (nativeArgs != null) {
                long at = q.slotOffset(first + markers);
                KernelDispatchPacket p = kernelFlyweight.wrap(ring, at);
                ring.set(ValueLayout.JAVA_SHORT, at + KernelDispatchPacket.RESERVED0, (short) 0);
                ring.set(ValueLayout.JAVA_LONG, at + KernelDispatchPacket.RESERVED2, 0L);
                p.workgroupSize(wg[0], wg[1], wg[2])
                        .gridSize(grid[0], grid[1], grid[2])
                        .privateSegmentSize(0)
                        .groupSegmentSize(groupBytes)
                        .kernelObject(kernelObject)
                        .kernargAddress(nativeKernarg)
                        .completionSignal(handle);
                p.publish(KERNEL_HEADER, dims);
            }
            future.submittedAt(q.id(), first + packets - 1);
            q.ringDoorbell(first + packets - 1);
            last = future;
        }
        return future;
    }

    /** A domain and a kernel class, shown as "domain of class". */
    private record Dispatched(Object domain, Class<?> kernel) {
        @Override
        public String toString() {
            return domain + " of " + kernel.getName();
        }
    }

    /**
     * Fills {@code handles} with barrier-packet handles for {@code deps} and returns what the new
     * future must release when it completes: each pending dependency retained, so its signal cannot
     * be recycled while a packet names it; a stand-in failed signal for each dependency that has
     * already failed (so the packet fails as it would have); nothing for one that has succeeded.
     */
    private Object[] dependencyHandles(CompletionFuture[] deps, long[] handles) {
        Object[] held = new Object[deps.length];
        for (int i = 0; i < deps.length; i++) {
            CompletionFuture d = Objects.requireNonNull(deps[i], "dependency");
            if (!d.isCancelled() && d.retain()) {
                handles[i] = d.signal().handle();
                held[i] = d;
            } else if (!d.succeeded()) {
                FutureSignals.Slot stand = amp.signals().acquire(null);
                stand.signal.fail(d.failureCause());
                handles[i] = stand.signal.handle();
                held[i] = stand;
            }
        }
        return held;
    }

    /** Puts {@code launch} in the next table slot, waiting while a dispatch still holds it. */
    private int claimSlot(Launch launch) {
        long generation = nextLaunch++;
        int slot = (int) (generation & (LAUNCH_SLOTS - 1));
        if (!launches.compareAndSet(slot, null, launch)) {
            Idler idler = amp.runtime().signals().idleStrategy().background().withBusyNanos(0).idler().blocker(this);
            while (!launches.compareAndSet(slot, null, launch)) {
                idler.idle();
            }
        }
        launch.generation = generation;
        return slot;
    }

    /** Destroys a queue that failed (failing whatever it still holds) and opens a fresh one. */
    private void replaceQueue() {
        Queue old = queue;
        queue = accelerator.agent().createQueue(queueSize(accelerator.agent()), QueueType.SINGLE, null);
        if (old.state() != QueueState.DESTROYED) {
            old.destroy();
        }
    }

    /** Frees {@code slot} if it still holds {@code launch}; called when the dispatch completes. */
    void releaseSlot(int slot, Launch launch) {
        launches.compareAndSet(slot, launch, null);
    }

    /** The launch in {@code slot}, for the trampolines. */
    Launch launch(int slot) {
        return launches.get(slot);
    }

    // ---- life cycle -------------------------------------------------------------------------------

    /**
     * Fails the dependencies of {@link #waitFor} markers whose outside stage has not completed (so
     * the work behind them fails instead of waiting forever), waits for the work queued so far,
     * then destroys the queue and frees the launch table. The
     * default view is closed with its {@link Amp} only; closing it here does nothing.
     */
    @Override
    public void close() {
        if (isDefault) {
            return;
        }
        refuseCloseFromOwnKernel("close " + this);
        closeNow();
    }

    /**
     * Closing waits for the view's queued work, so a kernel of this view closing it would wait for
     * itself: fails at once with ERROR instead, before anything is closed.
     */
    void refuseCloseFromOwnKernel(String what) {
        ComputeUnitThread unit = ComputeUnitThread.current();
        if (unit != null && unit.currentWork() instanceof RunningPacket running && running.queueId() == queue.id()) {
            throw new HsaException(HsaStatus.ERROR, "a kernel of " + this + " (packet " + running.packetId()
                    + ") cannot " + what + ": that waits for the view's work, its own kernel among it, so it would"
                    + " never return; close from the host");
        }
    }

    void closeNow() {
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
        }
        for (OutsideWait w : outsideWaits) {
            w.settle(new HsaException(HsaStatus.INVALID_QUEUE, this + " was closed before the outside stage completed"));
        }
        if (!amp.runtime().isClosed()) {
            wait(WaitState.BLOCKED);
            synchronized (lock) {
                if (queue.state() != QueueState.DESTROYED) {
                    queue.destroy();
                }
            }
            amp.runtime().kernargPool().free(kernargAddress);
        }
        amp.unregister(this);
    }

    @Override
    public String toString() {
        return "AcceleratorView[" + accelerator.description() + " #" + id + (isDefault ? ", default" : "") + "]";
    }

    /** Slots still holding a launch (for tests: every dispatch releases its closure). */
    int launchesInFlight() {
        int n = 0;
        for (int i = 0; i < LAUNCH_SLOTS; i++) {
            if (launches.get(i) != null) {
                n++;
            }
        }
        return n;
    }
}
