package org.hsa4j.queue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.function.Consumer;

import org.hsa4j.idle.IdleStrategy;
import org.hsa4j.idle.Idler;
import org.hsa4j.memory.Allocation;
import org.hsa4j.memory.ComputeUnitThread;
import org.hsa4j.packet.AgentDispatchPacket;
import org.hsa4j.packet.AqlPacket;
import org.hsa4j.packet.BarrierPacket;
import org.hsa4j.packet.FenceScope;
import org.hsa4j.packet.KernelDispatchPacket;
import org.hsa4j.packet.PacketHeader;
import org.hsa4j.packet.PacketType;
import org.hsa4j.signal.Signal;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.hsa4j.trace.QueueStatistics;

/**
 * A user-mode AQL queue ({@code hsa_queue_t}): a power-of-two ring of 64-byte packets in SVM, a
 * descriptor in SVM holding the write and read indices, and a doorbell signal.
 *
 * <p>The raw protocol works exactly as the spec writes it, with nothing hidden: reserve an id with
 * {@code addWriteIndex*} (or {@code casWriteIndex*}), wait until {@code id < readIndex + size},
 * write the body at {@link #packetAddress(long)}, publish the header and setup with one 32-bit
 * release store, store the id into the {@link #doorbell()}. Everything lives at SVM addresses, so
 * the same steps work through {@link org.hsa4j.memory.Svm} by address. {@link #reserveSlot()} and the
 * packet flyweights are conveniences on top of the same protocol.
 *
 * <p>The launch call {@link #dispatch(long, long, int, long...)} (and {@link #launch(long)} for 2-D,
 * 3-D, segments or the barrier bit) does all of it in one call: takes a completion signal and a
 * kernarg block from the queue's pool (the signal re-armed to 1), writes the arguments, reserves a
 * slot, writes the body, publishes with system-scope fences, rings the doorbell and returns a
 * {@link DispatchCompletion}; a wait that sees the end gives the signal back to the pool.
 *
 * <p>Index operations carry the HSA order in their name: scacquire/screlease are volatile
 * accesses, relaxed ones are opaque, and read-modify-writes are always volatile.
 */
public final class Queue {
    private static final VarHandle INDEX = ValueLayout.JAVA_LONG.varHandle();
    private static final VarHandle CACHED_READ_INDEX;

    static {
        try {
            CACHED_READ_INDEX = MethodHandles.lookup().findVarHandle(Queue.class, "cachedReadIndex", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
    /** The launch call's header: a kernel dispatch with system-scope fences and no barrier bit. */
    private static final short SYSTEM_DISPATCH =
            PacketHeader.of(PacketType.KERNEL_DISPATCH, false, FenceScope.SYSTEM, FenceScope.SYSTEM);
    /** Longest park of a producer waiting for space in a full queue. */
    private static final long MAX_SPACE_PARK_NANOS = 1_000_000;

    private final QueueAgent agent;
    private final Allocation descriptorAllocation;
    private final Allocation ringAllocation;
    private final MemorySegment descriptor;
    private final MemorySegment ring;
    private final int size;
    private final long id;
    private final QueueType type;
    private final int features;
    private final Signal doorbell;
    /** Told of each packet the launch call is about to publish; set once before the queue is handed out. */
    private PublishObserver publishObserver = PublishObserver.NONE;
    private final QueueErrorCallback errorCallback;
    private final Consumer<Queue> destroyer;
    private final Consumer<Queue> inactivator;
    private volatile QueueState state = QueueState.ACTIVE;
    /** Producers' last look at the read index: a lower bound of it (the read index only grows). */
    @SuppressWarnings("unused")
    private long cachedReadIndex;
    private volatile HsaException error;
    /** How a producer waits for a free slot: the runtime's strategy, parks backing off to {@link #MAX_SPACE_PARK_NANOS}. */
    private final IdleStrategy spaceWait;
    /** The launch call's completion signals and kernarg blocks ({@link #dispatch}). */
    private final CompletionPool completions;

    /** Package-private: the runtime and device modules make queues through {@code agent.spi.QueueFactory}. */
    Queue(QueueAgent agent, Allocation descriptorAllocation, Allocation ringAllocation, int size, long id,
                 QueueType type, int features, Signal doorbell, QueueErrorCallback errorCallback,
                 Consumer<Queue> destroyer, Consumer<Queue> inactivator) {
        this(agent, agent, descriptorAllocation, ringAllocation, size, id, type, features, doorbell, errorCallback,
                destroyer, inactivator);
    }

    /**
     * A soft queue ({@code hsa_soft_queue_create}): no agent consumes it; {@code host} (the runtime's
     * CPU agent) lends its idle strategy and the launch call's pool. Made through {@code QueueFactory}.
     */
    static Queue soft(QueueAgent host, Allocation descriptorAllocation, Allocation ringAllocation, int size, long id,
                             QueueType type, int features, Signal doorbell, Consumer<Queue> destroyer) {
        return new Queue(null, host, descriptorAllocation, ringAllocation, size, id, type, features, doorbell, null,
                destroyer, q -> {
                });
    }

    private Queue(QueueAgent agent, QueueAgent host, Allocation descriptorAllocation, Allocation ringAllocation, int size, long id,
                  QueueType type, int features, Signal doorbell, QueueErrorCallback errorCallback,
                  Consumer<Queue> destroyer, Consumer<Queue> inactivator) {
        this.agent = agent;
        this.descriptorAllocation = descriptorAllocation;
        this.ringAllocation = ringAllocation;
        this.descriptor = descriptorAllocation.segment();
        this.ring = ringAllocation.segment();
        this.size = size;
        this.id = id;
        this.type = type;
        this.features = features;
        this.doorbell = doorbell;
        this.errorCallback = errorCallback;
        this.destroyer = destroyer;
        this.inactivator = inactivator;
        this.spaceWait = host.idleStrategy().withParks(1_000, MAX_SPACE_PARK_NANOS);
        this.completions = new CompletionPool(host);
        descriptor.set(ValueLayout.JAVA_INT, QueueDescriptor.TYPE, type.code());
        descriptor.set(ValueLayout.JAVA_INT, QueueDescriptor.FEATURES, features);
        descriptor.set(ValueLayout.JAVA_LONG, QueueDescriptor.BASE_ADDRESS, ringAllocation.base());
        descriptor.set(ValueLayout.JAVA_LONG, QueueDescriptor.DOORBELL_SIGNAL, doorbell.handle());
        descriptor.set(ValueLayout.JAVA_INT, QueueDescriptor.SIZE, size);
        descriptor.set(ValueLayout.JAVA_LONG, QueueDescriptor.ID, id);
        ring.fill((byte) 0);   // reserved fields start 0 (the memory may be a freed allocation's)
        for (long slot = 0; slot < size; slot++) {
            AqlPacket.storeInvalid(ring, slot * AqlPacket.SIZE);
        }
        INDEX.setVolatile(descriptor, QueueDescriptor.WRITE_INDEX, 0L);
        INDEX.setVolatile(descriptor, QueueDescriptor.READ_INDEX, 0L);
    }

    /**
     * What this queue ran: dispatch and barrier packets, failures, launch-to-completion times. Counted
     * only while the runtime records ({@code HSA4J_TRACE} or {@code HSA4J_STATS=1}); otherwise, and for a
     * soft queue, all zero.
     */
    public QueueStatistics statistics() {
        return agent == null ? QueueStatistics.none(id) : agent.tracer().queueStatistics(id);
    }

    /** The agent whose packet processor consumes this queue; null for a soft queue, which the application consumes. */
    public QueueAgent agent() {
        return agent;
    }

    /** SVM address of the descriptor ({@link QueueDescriptor}): the queue's handle. */
    public long handle() {
        return descriptorAllocation.base();
    }

    /** SVM address of the packet ring. */
    public long baseAddress() {
        return ringAllocation.base();
    }

    /** Number of packet slots. */
    public int size() {
        return size;
    }

    /** Unique queue id. */
    public long id() {
        return id;
    }

    /** The queue type. */
    public QueueType type() {
        return type;
    }

    /** Feature bits ({@link QueueDescriptor#FEATURE_KERNEL_DISPATCH}, ...). */
    public int features() {
        return features;
    }

    /** The doorbell signal. */
    public Signal doorbell() {
        return doorbell;
    }

    /** The ring's backing segment (slot i at byte {@code (i & (size-1)) * 64}). */
    public MemorySegment ring() {
        return ring;
    }

    /** The current state. */
    public QueueState state() {
        return state;
    }

    /** The error that put the queue in the error state, or null. */
    public HsaException error() {
        return error;
    }

    /** SVM address of the slot that packet id {@code index} occupies. */
    public long packetAddress(long index) {
        return ringAllocation.base() + slotOffset(index);
    }

    /** Byte offset in {@link #ring()} of packet id {@code index}. */
    public long slotOffset(long index) {
        return (index & (size - 1)) * AqlPacket.SIZE;
    }

    // ---- write index ----------------------------------------------------------------------------

    /** {@code hsa_queue_load_write_index_scacquire}. */
    public long loadWriteIndexScacquire() {
        return (long) INDEX.getVolatile(descriptor, QueueDescriptor.WRITE_INDEX);
    }

    /** {@code hsa_queue_load_write_index_relaxed}. */
    public long loadWriteIndexRelaxed() {
        return (long) INDEX.getOpaque(descriptor, QueueDescriptor.WRITE_INDEX);
    }

    /** {@code hsa_queue_store_write_index_relaxed}. */
    public void storeWriteIndexRelaxed(long value) {
        INDEX.setOpaque(descriptor, QueueDescriptor.WRITE_INDEX, value);
    }

    /** {@code hsa_queue_store_write_index_screlease}. */
    public void storeWriteIndexScrelease(long value) {
        INDEX.setVolatile(descriptor, QueueDescriptor.WRITE_INDEX, value);
    }

    /** {@code hsa_queue_cas_write_index_scacq_screl}: returns the value found. */
    public long casWriteIndexScacqScrel(long expected, long value) {
        return (long) INDEX.compareAndExchange(descriptor, QueueDescriptor.WRITE_INDEX, expected, value);
    }

    /** {@code hsa_queue_cas_write_index_scacquire}: returns the value found. */
    public long casWriteIndexScacquire(long expected, long value) {
        return casWriteIndexScacqScrel(expected, value);
    }

    /** {@code hsa_queue_cas_write_index_screlease}: returns the value found. */
    public long casWriteIndexScrelease(long expected, long value) {
        return casWriteIndexScacqScrel(expected, value);
    }

    /** {@code hsa_queue_cas_write_index_relaxed}: returns the value found. */
    public long casWriteIndexRelaxed(long expected, long value) {
        return casWriteIndexScacqScrel(expected, value);
    }

    /** {@code hsa_queue_add_write_index_scacq_screl}: returns the previous value. */
    public long addWriteIndexScacqScrel(long delta) {
        return (long) INDEX.getAndAdd(descriptor, QueueDescriptor.WRITE_INDEX, delta);
    }

    /** {@code hsa_queue_add_write_index_scacquire}: returns the previous value. */
    public long addWriteIndexScacquire(long delta) {
        return addWriteIndexScacqScrel(delta);
    }

    /** {@code hsa_queue_add_write_index_screlease}: returns the previous value. */
    public long addWriteIndexScrelease(long delta) {
        return addWriteIndexScacqScrel(delta);
    }

    /** {@code hsa_queue_add_write_index_relaxed}: returns the previous value. */
    public long addWriteIndexRelaxed(long delta) {
        return addWriteIndexScacqScrel(delta);
    }

    // ---- read index -----------------------------------------------------------------------------

    /** {@code hsa_queue_load_read_index_scacquire}. */
    public long loadReadIndexScacquire() {
        return (long) INDEX.getVolatile(descriptor, QueueDescriptor.READ_INDEX);
    }

    /** {@code hsa_queue_load_read_index_relaxed}. */
    public long loadReadIndexRelaxed() {
        return (long) INDEX.getOpaque(descriptor, QueueDescriptor.READ_INDEX);
    }

    /** {@code hsa_queue_store_read_index_relaxed}; only the packet processor moves the read index. */
    public void storeReadIndexRelaxed(long value) {
        INDEX.setOpaque(descriptor, QueueDescriptor.READ_INDEX, value);
    }

    /** {@code hsa_queue_store_read_index_screlease}; only the packet processor moves the read index. */
    public void storeReadIndexScrelease(long value) {
        INDEX.setVolatile(descriptor, QueueDescriptor.READ_INDEX, value);
    }

    // ---- conveniences over the raw protocol -----------------------------------------------------

    /**
     * Reserves the next packet id once its slot is free, with the compare-and-swap form of the
     * spec's submission protocol, so a producer that gives up while the queue is full has reserved
     * nothing. Waits with back-pressure (spin, then park) while the queue is full.
     *
     * @throws HsaException INVALID_QUEUE when the queue is not active (its error, if any, is the cause),
     *                      INVALID_RUNTIME_STATE when the thread is interrupted while waiting, or
     *                      NOT_INITIALIZED after the runtime was shut down
     */
    public long reserveSlot() {
        return reserveSlots(1);
    }

    /**
     * Reserves {@code count} consecutive packet ids once all their slots are free, as
     * {@link #reserveSlot()} does for one; returns the first.
     *
     * @throws HsaException INVALID_ARGUMENT when {@code count} is not in 1..size, otherwise as {@link #reserveSlot()}
     */
    public long reserveSlots(int count) {
        if (count < 1 || count > size) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, "cannot reserve " + count + " slots of a "
                    + size + "-packet queue");
        }
        checkRuntime();
        while (true) {
            checkActive();
            long write = loadWriteIndexScacquire();
            waitForSpace(write + count - 1);
            if (casWriteIndexScacqScrel(write, write + count) == write) {
                return write;
            }
        }
    }

    /**
     * Waits until packet id {@code index}, already reserved with {@code addWriteIndex*}, has a free
     * slot: {@code index < readIndex + size}. Idles as the runtime's {@link IdleStrategy} says, parks backing off up to 1 ms.
     * A producer-side copy of the read index saves re-reading the processor's cache line while
     * there is room.
     *
     * @throws HsaException INVALID_QUEUE when the queue stops being active, INVALID_RUNTIME_STATE on interrupt,
     *                      NOT_INITIALIZED after the runtime was shut down
     */
    public void waitForSpace(long index) {
        checkRuntime();
        if (index - (long) CACHED_READ_INDEX.getOpaque(this) < size) {
            return;
        }
        Idler idler = spaceWait.idler().blocker(this);
        long read;
        while (index - (read = loadReadIndexScacquire()) >= size) {
            checkActive();
            if (idler.nextPhase() != IdleStrategy.Phase.SPIN && Thread.currentThread().isInterrupted()) {
                throw new HsaException(HsaStatus.INVALID_RUNTIME_STATE,
                        "interrupted while waiting for space in queue " + id);
            }
            idler.idle();
        }
        CACHED_READ_INDEX.setOpaque(this, read);
    }

    /** A kernel dispatch flyweight over the slot of packet id {@code index}. */
    public KernelDispatchPacket kernelDispatchPacket(long index) {
        return new KernelDispatchPacket().wrap(ring, slotOffset(index));
    }

    /** A barrier-AND / barrier-OR flyweight over the slot of packet id {@code index}. */
    public BarrierPacket barrierPacket(long index) {
        return new BarrierPacket().wrap(ring, slotOffset(index));
    }

    /** An agent dispatch flyweight over the slot of packet id {@code index}. */
    public AgentDispatchPacket agentDispatchPacket(long index) {
        return new AgentDispatchPacket().wrap(ring, slotOffset(index));
    }

    /**
     * The launch call: dispatches {@code kernelObject} over a 1-D grid of {@code grid} work-items in
     * workgroups of {@code workgroup}, with up to 32 64-bit kernel arguments (a kernel reads
     * argument i at byte {@code 8 * i} of its kernarg segment), system-scope fences and no barrier
     * bit; returns the dispatch's completion. The raw steps it performs stay available (see the class
     * comment).
     *
     * @throws HsaException INVALID_ARGUMENT for a grid outside 1..2^32-1, a workgroup outside
     *                      1..65535 or more than 32 arguments; otherwise as {@link #reserveSlot()}
     */
    public DispatchCompletion dispatch(long kernelObject, long grid, int workgroup, long... args) {
        checkGrid(grid, "x");
        checkWorkgroup(workgroup, "x");
        CompletionPool.Slot slot = pooledSlot(args);
        long id;
        try {
            id = reserveSlot();
        } catch (RuntimeException e) {
            completions.give(slot);
            throw e;
        }
        publishDispatch(id, kernelObject, 1, grid, 1, 1, workgroup, 1, 1, 0, 0, slot.kernarg, slot.signal.handle(),
                SYSTEM_DISPATCH);
        ringDoorbell(id);
        return new DispatchCompletion(completions, slot, slot.signal, this.id, id, false);
    }

    /** A launch of {@code kernelObject} to shape (grid, workgroup, segments, arguments, fences) before {@link DispatchBuilder#dispatch()}. */
    public DispatchBuilder launch(long kernelObject) {
        return new DispatchBuilder(this, kernelObject);
    }

    /** A pooled slot (signal re-armed) with {@code args} written to its kernarg block. */
    CompletionPool.Slot pooledSlot(long[] args) {
        if (args.length > CompletionPool.KERNARG_BYTES / 8) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, "the launch call passes at most "
                    + CompletionPool.KERNARG_BYTES / 8 + " 64-bit arguments, got " + args.length
                    + "; pass a kernarg segment of your own (DispatchBuilder.kernarg)");
        }
        CompletionPool.Slot slot = completions.take();
        for (int i = 0; i < args.length; i++) {
            slot.args.set(ValueLayout.JAVA_LONG, 8L * i, args[i]);
        }
        return slot;
    }

    /** The pool the launch call takes its slots from. */
    CompletionPool completions() {
        return completions;
    }

    /** Writes the body of kernel dispatch {@code id} and publishes header and setup with one release store. */
    void publishDispatch(long id, long kernelObject, int dims, long gx, long gy, long gz, int wx, int wy, int wz,
                         int groupBytes, int privateBytes, long kernarg, long completion, short header) {
        KernelDispatchPacket p = new KernelDispatchPacket().wrap(ring, slotOffset(id))
                .workgroupSize(wx, wy, wz)
                .gridSize((int) gx, (int) gy, (int) gz)
                .privateSegmentSize(privateBytes)
                .groupSegmentSize(groupBytes)
                .kernelObject(kernelObject)
                .kernargAddress(kernarg)
                .completionSignal(completion)
                .clearReserved();
        publishObserver.beforePublish(this, id, PacketHeader.word(header, (short) dims));
        p.publish(header, dims);
    }

    static void checkGrid(long size, String dim) {
        if (size < 1 || size > 0xFFFF_FFFFL) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, "grid size " + dim + " must be in 1..2^32-1, was " + size);
        }
    }

    static void checkWorkgroup(int size, String dim) {
        if (size < 1 || size > 0xFFFF) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, "workgroup size " + dim + " must be in 1..65535, was " + size);
        }
    }

    /** Rings the doorbell with packet id {@code index} (a screlease store). */
    public void ringDoorbell(long index) {
        doorbell.storeScrelease(index);
    }

    private void checkRuntime() {
        if (agent != null && agent.isShutDown()) { // a soft queue (no agent) lives until destroyed
            throw new HsaException(HsaStatus.NOT_INITIALIZED, "the runtime of queue " + id + " has been shut down");
        }
    }

    private void checkActive() {
        QueueState s = state;
        if (s != QueueState.ACTIVE) {
            HsaException e = error;
            throw new HsaException(HsaStatus.INVALID_QUEUE, "queue " + id + " is " + s
                    + (e != null ? " after " + e.getMessage() : ""), e);
        }
    }

    // ---- life cycle -----------------------------------------------------------------------------

    /**
     * Puts the queue in the error state and calls the error callback, once; later calls return
     * false. Called by the packet processor when a packet fails, also when a running dispatch of
     * an inactivated queue was aborted.
     */
    public boolean raiseError(HsaException cause) {
        synchronized (this) {
            if (state != QueueState.ACTIVE && state != QueueState.INACTIVE) {
                return false;
            }
            error = cause;
            state = QueueState.ERROR;
        }
        if (errorCallback != null) {
            try {
                errorCallback.onError(cause, this);
            } catch (Throwable t) {
                System.getLogger(Queue.class.getName()).log(System.Logger.Level.WARNING,
                        "error callback of queue " + id + " threw", t);
            }
        }
        return true;
    }

    /**
     * {@code hsa_queue_inactivate}: no further packet is launched; later packets' completion signals
     * fail, and running dispatches are aborted (at their next SVM access, signal operation or
     * barrier) with INVALID_QUEUE, waiting a bounded time for them to unwind.
     *
     * @throws HsaException ERROR when called from a kernel running a packet of this queue
     */
    public void inactivate() {
        refuseFromOwnKernel("inactivate");
        boolean now;
        synchronized (this) {
            now = state == QueueState.ACTIVE;
            if (now) {
                state = QueueState.INACTIVE;
            }
        }
        if (now) {
            inactivator.accept(this);
        }
        if (agent != null) {
            agent.notifyWork();
        }
    }

    /**
     * {@code hsa_queue_destroy}: inactivates, aborts running dispatches (as {@link #inactivate}),
     * fails unconsumed packets' signals, frees the ring.
     *
     * @throws HsaException INVALID_QUEUE when already destroyed, NOT_INITIALIZED after the runtime was shut down,
     *                      ERROR when called from a kernel running a packet of this queue
     */
    public void destroy() {
        checkRuntime();
        refuseFromOwnKernel("destroy");
        synchronized (this) {
            if (state == QueueState.DESTROYED) {
                throw new HsaException(HsaStatus.INVALID_QUEUE, "queue " + id + " has already been destroyed");
            }
            if (state == QueueState.ACTIVE) {
                state = QueueState.INACTIVE;
            }
        }
        destroyer.accept(this);
    }

    /**
     * A kernel running a packet of this queue cannot inactivate or destroy it: both wait for the
     * queue's running dispatches to unwind, its own among them, which cannot happen before it returns.
     *
     * @throws HsaException ERROR when the calling compute unit runs a packet of this queue
     */
    private void refuseFromOwnKernel(String what) {
        ComputeUnitThread unit = ComputeUnitThread.current();
        if (unit != null && unit.currentWork() instanceof RunningPacket running && running.queueId() == id) {
            throw new HsaException(HsaStatus.ERROR, "a kernel (packet " + running.packetId() + " of queue " + id
                    + ") cannot " + what + " the queue it runs from: that waits for its own dispatch to end;"
                    + " do it from the host or another queue");
        }
    }

    /** Sets the observer of the launch call's packets ({@code QueueFactory.observePublish}); before the queue is handed out. */
    void observePublish(PublishObserver observer) {
        this.publishObserver = observer;
    }

    /** Marks the queue destroyed; called by its agent once the ring is drained (through {@code agent.spi.QueueFactory}). */
    void markDestroyed() {
        state = QueueState.DESTROYED;
        completions.close();
    }

    /** The descriptor and ring allocations, for the agent that frees them (through {@code agent.spi.QueueFactory}). */
    Allocation[] allocations() {
        return new Allocation[] {descriptorAllocation, ringAllocation};
    }

    @Override
    public String toString() {
        return "Queue[" + id + ", " + type + ", size " + size + ", " + state + "]";
    }
}
