package org.hsa4j.idle;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.function.IntSupplier;

/**
 * Where a compute unit last signalled a completion, so that a host wait whose peer runs on its own
 * core parks at once instead of spinning.
 *
 * <h2>Why</h2>
 * A spin or a yield pays off while the thread waited for runs on another core. On 2 cores beside
 * two busy processes the scheduler puts the busy pair on one CPU and the host thread and the compute
 * unit on the other (`perf sched` shows it, PERFORMANCE.md): then every microsecond one side spins
 * after waking the other is a microsecond the woken side waits for the core, and a round trip cost
 * ~7 us where a thread pool's park-and-unpark hand-off cost ~5. So a BLOCKED signal wait that begins
 * (its first look unsatisfied) on the CPU where a compute unit last signalled a completion
 * ({@link #onCompletionCpu}) skips its busy phases and parks, and the unit's unpark hands the core
 * over. On a quiet machine the two sides run on different CPUs and keep their spin (a round trip
 * stays ~0.5 us). The other side once had a rule too (a processor role holder about to idle on the
 * CPU of the last doorbell parked at once); with untimed parks it no longer helped the busy round
 * trip (5.67-5.71 us without it, 5.73-5.78 with) and it cost chains of dependent packets a wake per
 * packet (in-order queue 0.38 -> 0.53-0.62 us a kernel, PERFORMANCE.md), so it went.
 *
 * <h2>Cost and staleness</h2>
 * One {@code sched_getcpu} through the foreign linker (a vDSO or rseq read, tens of nanoseconds) per
 * completion signalled, after the signal, so off the hand-off's path, and one per BLOCKED wait that
 * begins (looking only after some spins cost
 * a shared core ~3 us a round trip, more than the look costs a quiet one); the CPUs are volatile
 * int, last writer wins. A stale one (a thread migrated since) costs one wrong choice between spinning and
 * parking, never a lost wake: the park is registered for an unpark. Where {@code sched_getcpu} is
 * not available the CPU reads -1, nothing matches, and every wait keeps its phases.
 */
public final class CoreSharing {
    private static final MethodHandle SCHED_GETCPU = bindSchedGetcpu();
    /** The calling thread's CPU, or -1: {@code sched_getcpu} unless a test gives its own. */
    private final IntSupplier cpu;
    /** CPU of the compute unit that last signalled a completion, or -1. */
    private volatile int completionCpu = -1;

    /** Reads the calling thread's CPU with {@code sched_getcpu}. */
    CoreSharing() {
        this(CoreSharing::currentCpu);
    }

    /** Reads the calling thread's CPU from {@code cpu} (tests). */
    CoreSharing(IntSupplier cpu) {
        this.cpu = cpu;
    }

    /** The CPU the calling thread runs on now, or -1 where the platform does not say. */
    public static int currentCpu() {
        if (SCHED_GETCPU == null) {
            return -1;
        }
        try {
            return (int) SCHED_GETCPU.invokeExact();
        } catch (Throwable e) {
            return -1;
        }
    }

    /**
     * A compute unit signalled a completion from the calling thread's CPU. Written only when it
     * changed: the host's next BLOCKED wait reads it, and a store of the same CPU after every
     * completion would take the line from that thread each time (one more miss per round trip).
     */
    public void completionSignalled() {
        int c = cpu.getAsInt();
        if (completionCpu != c) {
            completionCpu = c;
        }
    }

    /** True when the calling thread runs on the CPU where a completion was last signalled. */
    public boolean onCompletionCpu() {
        int c = cpu.getAsInt();
        return c >= 0 && c == completionCpu;
    }

    private static MethodHandle bindSchedGetcpu() {
        try {
            Linker linker = Linker.nativeLinker();
            return linker.defaultLookup().find("sched_getcpu")
                    .map(f -> linker.downcallHandle(f, FunctionDescriptor.of(ValueLayout.JAVA_INT), Linker.Option.critical(false)))
                    .orElse(null);
        } catch (RuntimeException | LinkageError e) {
            return null; // no native access here: nothing matches, waits keep their phases
        }
    }
}
