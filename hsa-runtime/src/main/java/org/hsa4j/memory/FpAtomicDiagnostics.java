package org.hsa4j.memory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Where {@link FpAtomics#UNSAFE_DIAGNOSE} reports floating-point atomic adds that hardware-style
 * atomics would lose. Storage is bounded: the first {@link #capacity()} reports are kept, and
 * every one is counted. The first report is also logged once as a System.Logger WARNING.
 */
public final class FpAtomicDiagnostics {
    /** Reports kept by default. */
    public static final int DEFAULT_CAPACITY = 1024;

    private static final System.Logger LOG = System.getLogger(FpAtomicDiagnostics.class.getName());

    private final int capacity;
    private final AtomicLong count = new AtomicLong();
    private final List<FpAtomicReport> kept = new ArrayList<>();

    /** A sink keeping at most {@code capacity} reports. */
    public FpAtomicDiagnostics(int capacity) {
        if (capacity < 0) {
            throw new IllegalArgumentException("capacity must not be negative, was " + capacity);
        }
        this.capacity = capacity;
    }

    /** Records one report: counted always, kept while fewer than {@link #capacity()} are kept. */
    public void report(FpAtomicReport report) {
        long n = count.getAndIncrement();
        if (n < capacity) {
            synchronized (kept) {
                if (kept.size() < capacity) {
                    kept.add(report);
                }
            }
        }
        if (n == 0) {
            LOG.log(System.Logger.Level.WARNING, "{0} (further ones are counted in HsaRuntime.fpAtomicDiagnostics())",
                    report);
        }
    }

    /** Every report made so far, kept or not. */
    public long count() {
        return count.get();
    }

    /** The reports kept: the first ones made, at most {@link #capacity()}. */
    public List<FpAtomicReport> reports() {
        synchronized (kept) {
            return List.copyOf(kept);
        }
    }

    /** How many reports are kept at most. */
    public int capacity() {
        return capacity;
    }
}
