package org.hsa4j.services.rpc;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

import org.hsa4j.memory.MemoryOrder;
import org.hsa4j.memory.MemoryScope;
import org.hsa4j.memory.Svm;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.signal.Signal;

/**
 * The RPC ports of one services instance: the port set in fine-grained SVM (every agent may
 * access it; layout in {@link RpcLayout}), the doorbell signal that wakes sleeping server
 * threads, and the Java-side wake-up slots that let each side unpark the other instead of making
 * it poll. The SVM words are the protocol; the slots only shorten waits (every wait also re-checks
 * on a timer), so a missed unpark costs latency, never correctness.
 */
public final class PortSet implements AutoCloseable {
    private final HsaRuntime runtime;
    private final Svm host;
    private final long base;
    private final int ports;
    private final int lanes;
    private final long stride;
    private final long portsBase;
    private final long pendingBase;
    private final Signal doorbell;
    /** Per port: the client thread parked waiting for its turn, or null. */
    final AtomicReferenceArray<Thread> clientWaiters;
    /** Per port: the server thread parked waiting for the client's next packet, or null. */
    final AtomicReferenceArray<Thread> serverWaiters;
    /** Callers parked because every port was busy (back-pressure). */
    final ConcurrentLinkedQueue<Thread> portWaiters = new ConcurrentLinkedQueue<>();
    /**
     * Per port: 1 + the status a server gave up a call with while the client had the turn (a
     * timeout), or 0. The client's next packet is answered with it.
     */
    final AtomicIntegerArray abandoned;
    /** Calls opened and not closed yet: the memory is freed only once they are gone (or after a grace period). */
    final LongAdder activeCalls = new LongAdder();
    private volatile boolean closing;
    private volatile boolean freed;

    /** Allocates and initializes {@code ports} ports of {@code lanes} lanes in {@code runtime}'s SVM. */
    public PortSet(HsaRuntime runtime, int ports, int lanes) {
        if (ports < 1 || ports > 65536) {
            throw new IllegalArgumentException("port count must be 1..65536, was " + ports);
        }
        if (lanes < 1 || lanes > RpcLayout.MAX_LANES) {
            throw new IllegalArgumentException("lanes per port must be 1..64, was " + lanes);
        }
        this.runtime = runtime;
        this.host = runtime.svm();
        this.ports = ports;
        this.lanes = lanes;
        this.stride = RpcLayout.portStride(lanes);
        this.base = runtime.hostMalloc(RpcLayout.setBytes(ports, lanes));
        this.portsBase = base + RpcLayout.portsOffset(ports);
        this.pendingBase = base + RpcLayout.pendingOffset();
        this.doorbell = runtime.createSignal(0);
        this.clientWaiters = new AtomicReferenceArray<>(ports);
        this.serverWaiters = new AtomicReferenceArray<>(ports);
        this.abandoned = new AtomicIntegerArray(ports);
        host.fill(base, RpcLayout.setBytes(ports, lanes), (byte) 0);
        host.setInt(base + RpcLayout.SET_MAGIC, RpcLayout.MAGIC_VALUE);
        host.setInt(base + RpcLayout.SET_VERSION, RpcLayout.VERSION_VALUE);
        host.setInt(base + RpcLayout.SET_PORT_COUNT, ports);
        host.setInt(base + RpcLayout.SET_LANES, lanes);
        host.setLong(base + RpcLayout.SET_DOORBELL, doorbell.handle());
        host.setLong(base + RpcLayout.SET_PENDING_OFFSET, RpcLayout.pendingOffset());
        host.setLong(base + RpcLayout.SET_PORTS_OFFSET, RpcLayout.portsOffset(ports));
        host.setLong(base + RpcLayout.SET_PORT_STRIDE, stride);
        for (int p = 0; p < ports; p++) {
            host.setInt(portAddress(p) + RpcLayout.STATUS, RpcStatus.OK.finalWord());
        }
        host.storeIntRelease(base + RpcLayout.SET_STATE, RpcLayout.STATE_RUNNING);
    }

    /** The runtime whose SVM holds the ports. */
    public HsaRuntime runtime() {
        return runtime;
    }

    /** SVM address of the port set (its header). */
    public long address() {
        return base;
    }

    /** Number of ports. */
    public int ports() {
        return ports;
    }

    /** Lanes per port. */
    public int lanes() {
        return lanes;
    }

    /** The doorbell signal: a client rings it when a server thread sleeps. */
    public Signal doorbell() {
        return doorbell;
    }

    /** SVM address of port {@code p}'s header. */
    public long portAddress(int p) {
        return portsBase + p * stride;
    }

    /** SVM address of the pending-bitmap word holding port {@code p}'s bit. */
    public long pendingWordAddress(int p) {
        return pendingBase + ((long) (p >>> 6) << 3);
    }

    /** SVM address of pending-bitmap word {@code w}. */
    long pendingWord(int w) {
        return pendingBase + ((long) w << 3);
    }

    /** Number of pending-bitmap words. */
    int pendingWords() {
        return RpcLayout.pendingWords(ports);
    }

    /**
     * True once the server shut down. The Java-side flag is read first, so a caller never touches
     * the port set's memory after {@link #close()} began freeing it; the SVM state word says the same
     * to anyone reading the port set through memory.
     */
    public boolean isClosed(Svm svm) {
        return closing || svm.loadIntAcquire(base + RpcLayout.SET_STATE) == RpcLayout.STATE_CLOSED;
    }

    /** True once {@link #markClosed()} ran. */
    public boolean isClosing() {
        return closing;
    }

    /**
     * Marks the port set closed and wakes every parked client: their waits end with
     * {@link RpcStatus#CLOSED}.
     */
    public void markClosed() {
        if (freed) {
            return;
        }
        closing = true;
        host.storeIntRelease(base + RpcLayout.SET_STATE, RpcLayout.STATE_CLOSED);
        for (int p = 0; p < ports; p++) {
            Thread t = clientWaiters.get(p);
            if (t != null) {
                LockSupport.unpark(t);
            }
        }
        Thread t;
        while ((t = portWaiters.poll()) != null) {
            LockSupport.unpark(t);
        }
    }

    /** Marks pending the port whose bit is {@code p}: a server thread will look at it. */
    void markPending(Svm svm, int p) {
        svm.atomicOrLong(pendingWordAddress(p), 1L << (p & 63), MemoryOrder.SEQ_CST, MemoryScope.SYSTEM);
    }

    /** Rings the doorbell when some server thread sleeps (the flag store before this read is volatile). */
    void ringIfSleeping(Svm svm) {
        if (svm.loadIntAcquire(base + RpcLayout.SET_SLEEPERS) > 0) {
            doorbell.addScrelease(1);
        }
    }

    /** True once the memory is freed. */
    boolean isFreed() {
        return freed;
    }

    /**
     * Marks the ports closed, waits up to two seconds for open calls to notice and close, then frees
     * the SVM memory and the doorbell.
     */
    @Override
    public synchronized void close() {
        if (freed) {
            return;
        }
        markClosed();
        long deadline = System.nanoTime() + 2_000_000_000L;
        while (activeCalls.sum() > 0 && System.nanoTime() - deadline < 0) {
            LockSupport.parkNanos(this, 100_000);
        }
        freed = true;
        if (!runtime.isClosed()) {
            runtime.free(base);
            doorbell.destroy();
        }
    }
}
