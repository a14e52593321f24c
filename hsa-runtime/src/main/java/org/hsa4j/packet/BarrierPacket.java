package org.hsa4j.packet;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Layout and flyweight of {@code hsa_barrier_and_packet_t} and {@code hsa_barrier_or_packet_t},
 * which share one layout. A zero dependency handle counts as satisfied for AND, as never
 * satisfied for OR.
 */
public final class BarrierPacket extends AqlPacket {
    /** u16 reserved. */
    public static final long RESERVED0 = 2;
    /** u32 reserved. */
    public static final long RESERVED1 = 4;
    /** u64 dep_signal[0]; dep_signal[i] is at DEP_SIGNAL0 + 8 * i. */
    public static final long DEP_SIGNAL0 = 8;
    /** Number of dependency signals. */
    public static final int DEP_SIGNAL_COUNT = 5;
    /** u64 reserved. */
    public static final long RESERVED2 = 48;

    /** Sets dependency signal {@code i} (0-4); 0 means none. */
    public BarrierPacket depSignal(int i, long handle) {
        if (i < 0 || i >= DEP_SIGNAL_COUNT) {
            throw new IndexOutOfBoundsException("barrier dependency " + i);
        }
        ring.set(ValueLayout.JAVA_LONG, base + DEP_SIGNAL0 + 8L * i, handle);
        return this;
    }

    /**
     * Sets all five dependency signals from {@code handles[from]} on, 0 (none) past the array's end.
     * Written out, not as a loop: HotSpot 25's C2 recompiled a five-step loop of
     * {@code i < handles.length ? handles[i] : 0} over and over (a profile-predicate trap at its back
     * edge, every ~60 ms, holding one of two cores: the dependency chain's slow mode).
     */
    public BarrierPacket depSignals(long[] handles, int from) {
        return depSignal(0, handleAt(handles, from))
                .depSignal(1, handleAt(handles, from + 1))
                .depSignal(2, handleAt(handles, from + 2))
                .depSignal(3, handleAt(handles, from + 3))
                .depSignal(4, handleAt(handles, from + 4));
    }

    private static long handleAt(long[] handles, int i) {
        return i < handles.length ? handles[i] : 0;
    }

    @Override
    public BarrierPacket completionSignal(long handle) {
        super.completionSignal(handle);
        return this;
    }

    @Override
    public BarrierPacket wrap(MemorySegment ring, long base) {
        super.wrap(ring, base);
        return this;
    }

    /** Publishes the header with one 32-bit release store. */
    public void publish(short header) {
        publishWord(header, (short) 0);
    }
}
