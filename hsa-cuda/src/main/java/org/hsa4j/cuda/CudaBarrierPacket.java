package org.hsa4j.cuda;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;

import org.hsa4j.packet.BarrierPacket;
import org.hsa4j.packet.PacketHeader;
import org.hsa4j.signal.Signal;
import org.hsa4j.signal.SignalManager;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/**
 * A BARRIER_AND/OR packet as the host-side processors ({@link CudaQueueProcessor},
 * {@link CudaServerQueueProcessor}) see it: whether its dependency signals (the runtime's,
 * completed by anyone) let it complete, and its completion. Both processors consume the packet
 * between the two steps, each its own way.
 */
final class CudaBarrierPacket {
    /**
     * What the dependencies say: ready (with the completion signal, or null), waiting, or a
     * problem to reject the packet with.
     *
     * @param ready      true when the packet may complete now
     * @param completion its completion signal when ready, or null
     * @param status     the rejection's status, or null
     * @param problem    the rejection's message, or null
     */
    record Outcome(boolean ready, Signal completion, HsaStatus status, String problem) {
        static final Outcome WAIT = new Outcome(false, null, null, null);

        static Outcome rejected(HsaStatus status, String problem) {
            return new Outcome(false, null, status, problem);
        }
    }

    private CudaBarrierPacket() {
    }

    /** Reads the barrier packet at {@code off}: AND needs every dependency at 0, OR one. */
    static Outcome evaluate(MemorySegment ring, long off, boolean and, SignalManager signals) {
        boolean any = false;
        boolean all = true;
        for (int i = 0; i < BarrierPacket.DEP_SIGNAL_COUNT; i++) {
            long handle = ring.get(JAVA_LONG, off + BarrierPacket.DEP_SIGNAL0 + 8L * i);
            if (handle == 0) {
                continue;
            }
            Signal s;
            try {
                s = signals.fromHandle(handle);
            } catch (HsaException e) {
                return Outcome.rejected(HsaStatus.INVALID_SIGNAL, "barrier dependency " + i + ": " + e.getMessage());
            }
            HsaException failed = s.failure();
            if (failed != null) {
                return Outcome.rejected(failed.status(), "barrier dependency " + i + " (signal " + s + ") failed: "
                        + failed.getMessage());
            }
            if (s.loadScacquire() == 0) {
                any = true;
            } else {
                all = false;
            }
        }
        if (and ? !all : !any) {
            return Outcome.WAIT;
        }
        long handle = PacketTranslation.completionSignal(ring, off);
        if (handle == 0) {
            return new Outcome(true, null, null, null);
        }
        try {
            return new Outcome(true, signals.fromHandle(handle), null, null);
        } catch (HsaException e) {
            return Outcome.rejected(HsaStatus.INVALID_SIGNAL, "completion signal: " + e.getMessage());
        }
    }

    /** Completes a consumed barrier packet: its release fence, then its completion signal (timestamps {@code now}). */
    static void complete(int word, Signal completion, long now) {
        if (PacketHeader.releaseScopeCode(word) != 0) {
            VarHandle.fullFence();
        }
        if (completion != null) {
            completion.recordStart(now);
            completion.recordEnd(now);
            completion.subtractScrelease(1);
        }
    }
}
