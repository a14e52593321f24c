package org.hsa4j.stress;

import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;

/**
 * The small runtime every stress test class starts once, in a static field, and never closes.
 *
 * <p>jcstress runs each test in its own JVM and leaves two CPUs to the two actors, so the runtime
 * is kept as light as it can be: one GPU agent with one compute unit, one CPU compute unit, and
 * queues that may be as small as one packet (the back-pressure test wants a queue that is full
 * most of the time). Compute units are daemon threads that park when idle, so an unclosed runtime
 * neither keeps the fork alive nor steals the actors' CPUs.
 */
public final class StressRuntime {
    private StressRuntime() {
    }

    /** The configuration of a stress test's runtime. */
    public static RuntimeConfig config() {
        return RuntimeConfig.builder()
                .gpuAgents(1)
                .computeUnits(1)
                .cpuComputeUnits(1)
                .queueMinSize(1)
                .systemMemorySize(512L << 20)
                .deviceMemorySize(64L << 20)
                .kernargPoolSize(16L << 20)
                .build();
    }

    /** Starts a runtime with {@link #config()}. */
    public static HsaRuntime start() {
        return HsaRuntime.init(config());
    }
}
