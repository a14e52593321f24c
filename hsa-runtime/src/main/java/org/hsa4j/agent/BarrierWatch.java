package org.hsa4j.agent;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.function.LongSupplier;

import org.hsa4j.packet.BarrierPacket;
import org.hsa4j.signal.Signal;
import org.hsa4j.signal.SignalManager;
import org.hsa4j.signal.SignalWaiter;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/**
 * The dependencies of the barrier-AND/OR packet at the head of one queue: which of its signals
 * were seen at 0, and the agent's waiter registered on the others, so the processor waits for them
 * without blocking its other queues. One per queue, used by the processor role holder only.
 *
 * <p>A dependency seen at 0 stays satisfied for that packet (a later change of the signal does
 * not undo it, as on a GPU's command processor). Before it first waits, the watch registers the
 * agent's waiter on the pending signals and looks again, so a signal that reached 0 in between
 * is not missed: either the look sees 0, or the change calls the waiter, which bumps the epoch.
 */
final class BarrierWatch {
    /** The outcome of {@link #evaluate}: the packet's dependencies are met. */
    static final int DONE = 1;
    /** The outcome of {@link #evaluate}: some dependency is pending; the waiter is registered. */
    static final int WAIT = 0;
    /** The outcome of {@link #evaluate}: a dependency is no live signal or failed; see {@link #status}. */
    static final int REJECT = -1;

    private static final VarHandle DEP = ValueLayout.JAVA_LONG.varHandle();

    private final SignalManager signals;
    private final SignalWaiter waiter;
    private final LongSupplier clock;
    /** Packet id of the barrier packet being watched, or -1. */
    private long index = -1;
    /** When the processor first looked at that packet (the runtime's clock), for the tracer. */
    private long since;
    /** Dependencies of that packet already observed at 0, one bit each. */
    private int satisfied;
    /** Dependency signals the waiter is registered on, or null. */
    private Signal[] watched;
    /** The status of the last rejection. */
    HsaStatus status;
    /** The problem of the last rejection, in words. */
    String problem;

    BarrierWatch(SignalManager signals, SignalWaiter waiter, LongSupplier clock) {
        this.signals = signals;
        this.waiter = waiter;
        this.clock = clock;
    }

    /** When the watched packet was first looked at. */
    long since() {
        return since;
    }

    /**
     * Looks at the dependencies of the barrier packet {@code index} at {@code off} of {@code ring}
     * ({@code and}: all must be 0, else any one): {@link #DONE}, {@link #WAIT} or {@link #REJECT}.
     */
    int evaluate(MemorySegment ring, long off, long index, boolean and) {
        if (this.index != index) {
            unwatch();
            this.index = index;
            this.since = clock.getAsLong();
            this.satisfied = 0;
        }
        int pending = 0;
        Signal[] deps = new Signal[BarrierPacket.DEP_SIGNAL_COUNT];
        boolean any = false;
        for (int i = 0; i < BarrierPacket.DEP_SIGNAL_COUNT; i++) {
            long handle = (long) DEP.get(ring, off + BarrierPacket.DEP_SIGNAL0 + 8L * i);
            if (handle == 0) {
                continue;
            }
            if ((satisfied & (1 << i)) != 0) {
                any = true;
                continue;
            }
            Signal s;
            try {
                s = signals.fromHandle(handle);
            } catch (HsaException e) {
                return reject(HsaStatus.INVALID_SIGNAL, "barrier dependency " + i + ": " + e.getMessage());
            }
            HsaException failed = s.failure();
            if (failed != null) {
                return reject(failed.status(), "barrier dependency " + i + " (signal " + s + ") failed: "
                        + failed.getMessage());
            }
            if (s.loadScacquire() == 0) {
                satisfied |= 1 << i;
                any = true;
            } else {
                deps[pending++] = s;
            }
        }
        boolean done = and ? pending == 0 : any;
        if (done) {
            return DONE;
        }
        if (watched == null) {
            watched = Arrays.copyOf(deps, pending);
            for (Signal s : watched) {
                s.addWaiter(waiter);
            }
            return evaluate(ring, off, index, and);
        }
        return WAIT;
    }

    /** Stops watching: removes the waiter from the signals and forgets the packet. */
    void clear() {
        unwatch();
        index = -1;
    }

    /** Removes the waiter from the watched signals (the packet stays the one being looked at). */
    void unwatch() {
        if (watched != null) {
            for (Signal s : watched) {
                s.removeWaiter(waiter);
            }
            watched = null;
        }
    }

    private int reject(HsaStatus s, String what) {
        status = s;
        problem = what;
        return REJECT;
    }
}
