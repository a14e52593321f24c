package org.hsa4j.services.syscall;

/** Clock ids of {@code clock_gettime} ({@link Syscalls#clockGettime}, {@link Syscalls#clockNanos}; Linux values). */
public final class Clocks {
    /** Wall-clock time since the epoch. */
    public static final int CLOCK_REALTIME = 0;
    /** Monotonic time (the host's {@code System.nanoTime()}). */
    public static final int CLOCK_MONOTONIC = 1;

    private Clocks() {
    }
}
