package org.hsa4j.signal;

import java.util.EnumSet;
import java.util.concurrent.TimeUnit;

import org.hsa4j.memory.GlobalFlag;
import org.hsa4j.memory.MemoryManager;
import org.hsa4j.memory.MemoryPool;
import org.hsa4j.memory.SegmentKind;

/**
 * A signal manager outside any runtime whose parked waiters never re-check on their own (the
 * interval is an hour): a wait there ends only through a notification, so a lost wake-up hangs
 * and the test's timeout reports it, where a runtime's 1 ms re-check would hide it.
 */
final class StandaloneSignals implements AutoCloseable {
    /** The re-check interval: far beyond any test's timeout. */
    static final long NO_RECHECK = TimeUnit.HOURS.toNanos(1);

    private final MemoryManager memory = new MemoryManager();
    private final SignalManager manager;

    StandaloneSignals() {
        MemoryPool pool = memory.createPool("standalone signals", SegmentKind.GLOBAL,
                EnumSet.of(GlobalFlag.FINE_GRAINED), 0, 1L << 30, 1L << 30, true, true);
        manager = new SignalManager(memory, pool, NO_RECHECK);
    }

    /** A new signal with {@code initialValue}. */
    Signal create(long initialValue) {
        return manager.create(initialValue);
    }

    /** The manager. */
    SignalManager manager() {
        return manager;
    }

    @Override
    public void close() {
        memory.close();
    }
}
