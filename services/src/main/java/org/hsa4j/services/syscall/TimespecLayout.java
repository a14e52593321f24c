package org.hsa4j.services.syscall;

/** Layout of the {@code struct timespec} that {@code clock_gettime} writes into SVM. */
public final class TimespecLayout {
    /** i64 seconds. */
    public static final long TV_SEC = 0;
    /** i64 nanoseconds (0..999,999,999). */
    public static final long TV_NSEC = 8;
    /** Size of the record. */
    public static final long BYTES = 16;

    private TimespecLayout() {
    }
}
