package org.hsa4j.signal;

/**
 * Layout of a signal's 64-byte slot in SVM (after ROCR's {@code amd_signal_t}). The handle of a
 * signal is the SVM address of its slot, so kernels can read and change the value through memory.
 */
public final class SignalDescriptor {
    /** int64 signal value. */
    public static final long VALUE = 0;
    /** u32 kind: {@link #KIND_USER} or {@link #KIND_DOORBELL}. */
    public static final long KIND = 8;
    /** u32 reserved. */
    public static final long RESERVED0 = 12;
    /** u64 dispatch start timestamp (ns), written by the packet processor at launch. */
    public static final long START_TS = 16;
    /** u64 dispatch end timestamp (ns), written by the packet processor at completion. */
    public static final long END_TS = 24;
    /** Bytes 32..63 reserved, keeping each signal on its own cache line. */
    public static final long RESERVED1 = 32;
    /** Size of one slot. */
    public static final long SIZE = 64;
    /** Alignment of one slot: a cache line. */
    public static final long ALIGNMENT = 64;

    /** Kind of an application signal. */
    public static final int KIND_USER = 1;
    /** Kind of a queue doorbell. */
    public static final int KIND_DOORBELL = 2;

    private SignalDescriptor() {
    }
}
